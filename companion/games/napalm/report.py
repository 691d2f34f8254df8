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
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from companion.games.fold import FoldTable
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
    memo: dict[int, Any] | None = None,
) -> GamePart:
    """The night's ``number``-th game (0: its only one) as the report shows it.

    The pot is closed here, by the rules' unfinished-pot setting and ``carried_on`` (the
    pot the next night took on, once it exists), so ``closing`` (the night's
    :class:`~companion.games.protocol.GameClosing`) is not needed.  ``memo``: what this part kept
    of the night's report at an earlier version, by ``number`` (see
    :func:`companion.report.parts.build_night_report`): the game's :class:`Sums`, extended
    when they are provably of the same log, and kept there for the next version.
    """
    kept = memo.get(number) if memo is not None else None
    sums = kept.extended(table) if isinstance(kept, Sums) else None
    if sums is None:
        sums = Sums.of(table)
    if memo is not None:
        memo[number] = sums
    part = game_part(table, rules.unfinished_pot, carried_on, sums)
    if not number:
        return part
    text = part.closing.setting_text
    lines = tuple(replace(g, night_game=number, title=title, choice_text=text) for g in part.games)
    return replace(part, games=lines)


@dataclass(frozen=True)
class Sums:
    """What :func:`game_part` adds up over a table's live records, by Napalm's game number, and how far.

    ``by_game``: each game to the target that has a live record, its (antes, pots, tokens,
    won, lost): each player's antes, pots and tokens, and ``won[winner][loser]``,
    ``lost[loser][winner]``, the side bets.  ``length``: the records of the log summed;
    ``last``: the log's record at ``length`` (the very object), by which :meth:`extended` knows
    the log it is given is the one these were summed from.  Never changed once made.
    """

    by_game: Mapping[int, tuple[Counter[str], Counter[str], Counter[str], dict[str, Counter[str]], dict[str, Counter[str]]]]
    length: int
    last: Any

    @classmethod
    def of(cls, table: Table) -> Sums:
        """The sums of every live record of ``table``."""
        log = table.log
        return cls(_added({}, table.players, table.live_records()), len(log), log[-1] if log else None)

    def extended(self, table: Table) -> Sums | None:
        """The sums of ``table``, a later fold of the same game, by adding its records since; None when not proved the same.

        The log is append-only: when its record at ``length`` is the one these were summed to
        and none of the records after it is an undo, nothing was voided since, and its live
        records are those summed and, after them, every record since (as in
        :meth:`~companion.games.fold.FoldTable.live_records`).  Else (an undo, another game's
        log, one rebuilt from the event log) None: summed anew.
        """
        log = table.log
        if len(log) < self.length or (self.length and log[self.length - 1] is not self.last):
            return None
        if type(table).live_records is not FoldTable.live_records:  # pragma: no cover - Napalm's table is a fold
            return None
        added = log[self.length:]
        if any(record.voids is not None for record in added):
            return None
        if not added:
            return self
        return Sums(_added(self.by_game, table.players, added), len(log), log[-1])


def _added(before: Mapping[int, Any], players: tuple[str, ...], live: Iterable[Any]) -> dict[int, Any]:
    """``before`` (left as it was) with the transfers and tokens of the live records ``live`` added."""
    by_game = dict(before)
    copied: set[int] = set()
    for record in live:
        g = record.game
        if g not in copied:  # a game's sums are copied before the first record added to them
            copied.add(g)
            kept = by_game.get(g)
            if kept is None:
                by_game[g] = (Counter[str](), Counter[str](), Counter[str](),
                              {n: Counter[str]() for n in players}, {n: Counter[str]() for n in players})
            else:
                antes0, pots0, tokens0, won0, lost0 = kept
                by_game[g] = (antes0.copy(), pots0.copy(), tokens0.copy(),
                              {n: c.copy() for n, c in won0.items()}, {n: c.copy() for n, c in lost0.items()})
        antes, pots, tokens, won, lost = by_game[g]
        for t in record.transfers:
            if t.reason == "ante" and t.payee is POT and t.payer is not None:
                antes[t.payer] += t.chips
            elif t.reason == "side bet" and t.payer is not None and t.payee is not None:
                won[t.payee][t.payer] += t.chips
                lost[t.payer][t.payee] += t.chips
            elif t.reason == "pot" and t.payer is POT and t.payee is not None:
                pots[t.payee] += t.chips
            else:  # pragma: no cover - a live record never holds anything else
                raise ValueError(f"unexpected transfer in record #{record.seq}: {t}")
        for who, delta in record.tokens:
            tokens[who] += delta
    return by_game


def game_part(
    table: Table, unfinished_pot: str, carried_on: Mapping[str, int] | None = None, sums: Sums | None = None
) -> GamePart:
    """One game's figures, game lines and closing (see the module's docstring for where they come from).

    ``sums``: the table's :class:`Sums`, when the caller has them (else added up here)."""
    players = table.players
    closing = close_night(table, unfinished_pot, carried_on)  # carried_on: the next night's pot (item 16)
    position = table.position
    by_game = (sums if sums is not None else Sums.of(table)).by_game

    # The games: every finished one, and the one running if anything happened in it.
    current = position.game
    if current in by_game or closing.pot:
        numbers = list(range(1, current + 1))
    else:
        numbers = list(range(1, current))
    index = {g: i for i, g in enumerate(numbers)}

    none = (Counter[str](), Counter[str](), Counter[str](),
            {n: Counter[str]() for n in players}, {n: Counter[str]() for n in players})
    antes = [by_game.get(g, none)[0].copy() for g in numbers]  # copied: the carried-in antes are added below
    pots = [by_game.get(g, none)[1] for g in numbers]
    tokens = [by_game.get(g, none)[2] for g in numbers]
    won = [by_game.get(g, none)[3] for g in numbers]  # won[g][winner][loser]
    lost = [by_game.get(g, none)[4] for g in numbers]  # lost[g][loser][winner]
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
