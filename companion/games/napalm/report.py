"""Napalm in the end-of-night report: its own breakdown, game by game to the token target.

The report layer's part of Napalm's folder, as ``web.py`` is its web layer's part: it builds on
the report (:mod:`companion.report.model`, :mod:`companion.report.payments`) and on Napalm's rules,
and the rules never import it.  Napalm declares it has a part of its own
(:attr:`~companion.games.napalm.game.Napalm.has_report_part`); the report layer, which knows no
game, finds :func:`report_part` here by the game's package
(:func:`companion.report.parts.own_report_part`) and adds the parts up.  Napalm's part has a
line per game to its token target, and splits each player's chips into:

* **antes**: chips a player put into the pot (a cost, shown negative); a pot
  carried in from the previous night counts as its contributors' antes in the
  first game (they put those chips in the middle then; whoever wins the first
  game takes them);
* **side bets**: chips won from and lost to each other Yes player at showdowns;
* **pots**: the pot of each finished game, to its winner;
* **unfinished pot**: what the night's setting gives each player out of the
  pot of a game still running (see :mod:`.closing`).  With "carry" the chips stay
  in the pot for the next night, and each player's antes in it are left out of
  tonight's balances: they count as returned here.

A player's net chips are ``pots + unfinished pot + side bets won - side bets
lost - antes``; the report checks that this equals the closing balance.

Pure: no Flask, no database.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

from companion.report.model import Figures, GameLine, GamePart, PotClosing, Report
from companion.report.payments import report_from_part
from .closing import CHOICES, Closing, close_night
from .game import WORDS
from .table import POT, Rules, Table

__all__ = ["build_report", "game_part", "pot_closing", "report_part"]


def pot_closing(closing: Closing) -> PotClosing:
    """Napalm's closing as the report shows it: the night's setting named, in words."""
    return PotClosing(
        pot=closing.pot,
        net=closing.net,
        shares=closing.shares,
        carried=closing.carried,
        note=closing.note,
        stakes=closing.stakes,
        choice=closing.choice,
        setting_text=CHOICES[closing.choice],
        carries=closing.choice == "carry",
    )


def report_part(
    number: int,
    title: str,
    table: Table,
    rules: Rules,
    closing: Any = None,
    carried_on: Mapping[str, int] | None = None,
) -> GamePart:
    """The night's ``number``-th game (0: its only one) as the report shows it.

    The pot is closed here, by the rules' unfinished-pot setting and ``carried_on`` (the
    pot the next night took on, once it exists), so ``closing`` (the night's
    :class:`~companion.games.base.GameClosing`) is not needed.
    """
    part = game_part(table, rules.unfinished_pot, carried_on)
    if not number:
        return part
    text = part.closing.setting_text
    lines = tuple(replace(g, night_game=number, title=title, choice_text=text) for g in part.games)
    return replace(part, games=lines)


def game_part(table: Table, unfinished_pot: str, carried_on: Mapping[str, int] | None = None) -> GamePart:
    """One game's figures, game lines and closing (see the module's docstring for where they come from)."""
    players = table.players
    closing = close_night(table, unfinished_pot, carried_on)  # carried_on: the next night's pot (item 16)
    position = table.position
    live = table.live_records()

    # The games: every finished one, and the one running if anything happened in it.
    current = position.game
    if any(r.game == current for r in live) or closing.pot:
        numbers = list(range(1, current + 1))
    else:
        numbers = list(range(1, current))
    index = {g: i for i, g in enumerate(numbers)}

    antes = [Counter[str]() for _ in numbers]
    pots = [Counter[str]() for _ in numbers]
    tokens = [Counter[str]() for _ in numbers]
    won = [{n: Counter[str]() for n in players} for _ in numbers]  # won[g][winner][loser]
    lost = [{n: Counter[str]() for n in players} for _ in numbers]  # lost[g][loser][winner]
    for record in live:
        g = index[record.game]
        for t in record.transfers:
            if t.reason == "ante" and t.payee is POT and t.payer is not None:
                antes[g][t.payer] += t.chips
            elif t.reason == "side bet" and t.payer is not None and t.payee is not None:
                won[g][t.payee][t.payer] += t.chips
                lost[g][t.payer][t.payee] += t.chips
            elif t.reason == "pot" and t.payer is POT and t.payee is not None:
                pots[g][t.payee] += t.chips
            else:  # pragma: no cover - a live record never holds anything else
                raise ValueError(f"unexpected transfer in record #{record.seq}: {t}")
        for who, delta in record.tokens:
            tokens[g][who] += delta
    carried_in = table.carried_in
    if carried_in:
        # the first game's pot started with them: its contributors' antes from the previous night
        antes[index[1]].update(carried_in)

    # What the end of the night gives each player out of the unfinished pot
    # (with "carry": the antes in it, left out of tonight's balances).
    table_net = table.net_chips
    back = {n: closing.net[n] - table_net[n] for n in players}
    unfinished_game = index.get(current) if closing.pot else None

    results = {r.number: r for r in position.games}
    games = tuple(
        GameLine(g, results[g].winner, results[g].pot, results[g].hands, words=WORDS)
        if g in results
        else GameLine(
            g, None, closing.pot, position.hand,
            started=int(position.stage) != 1 or position.phase.value != "declare", words=WORDS,
        )
        for g in numbers
    )
    figures = {
        player: tuple(
            Figures(
                antes=antes[g][player],
                won_from=tuple((o, won[g][player][o]) for o in players if won[g][player][o]),
                lost_to=tuple((o, lost[g][player][o]) for o in players if lost[g][player][o]),
                pots=pots[g][player],
                unfinished=back[player] if g == unfinished_game else 0,
                tokens=tokens[g][player],
            )
            for g in range(len(numbers))
        )
        for player in players
    }
    return GamePart(
        players=players,
        figures=figures,
        games_won={p: sum(1 for r in position.games if r.winner == p) for p in players},
        # a carried-in share was in the middle from the start, never in the player's stack
        stack_change={p: table_net[p] + carried_in.get(p, 0) + closing.shares[p] for p in players},
        games=games,
        closing=pot_closing(closing),
        carried_in=carried_in,
    )


def build_report(
    table: Table,
    *,
    chip_value: Decimal,
    currency: str = "",
    unfinished_pot: str = "return_antes",
    paid: Iterable[tuple[str, str, int]] = (),
    name: str = "",
    carried_on: Mapping[str, int] | None = None,
) -> Report:
    """The report of a night of one Napalm game, ``table`` as it stands, the night ending now.

    The same report as :func:`companion.report.parts.build_night_report` gives for that night;
    ``paid`` as :func:`companion.report.payments.report_from_part` takes them.
    """
    part = game_part(table, unfinished_pot, carried_on)
    return report_from_part(part, chip_value=chip_value, currency=currency, paid=paid, name=name, words=WORDS)
