"""A night's games, each as its part of the report, added up into the night's report.

One job: to say what each player's chips did in each game of the night.  Each game gives its
part of the report (:class:`~companion.report.model.GamePart`): its game lines, each player's
:class:`~companion.report.model.Figures` per line, and its closing as a
:class:`~companion.report.model.PotClosing`.  A game that declares a part of its own
(``has_report_part``: Napalm, game by game to its token target) holds it in the ``report``
module of its folder, which this module loads by the game's package (:func:`own_report_part`,
as :mod:`companion.games.web` finds a game's screens), so that no game's rules import the report
and the report names no game.  Any other game gets :func:`transfer_part`, a sum over the *live*
records of the game (undone actions and the undos themselves cancel out and are left out):

* **antes**: chips a player put into a pot or pool (a cost, shown negative);
* **side bets**: chips passed from one player to another;
* **pots**: chips a player took out of a pot or pool;
* **unfinished pot**: what the game's closing gives each player back out of a
  pot or pool still in play when it ended (chips carried to the next night count
  as returned to their owners: they are left out of tonight's balances).

These are what chips did; what they are *called* is the game's: each game kind
declares a :class:`~companion.games.vocabulary.ReportVocabulary` (its
``report_vocabulary``: Napalm's antes, side bets, pots and tokens; Nap's bids and
pool; a pot game's antes, pots and sales), every game line carries its game's, and
the pages, the CSV and the JSON say only those words (docs/report-format.md).  The
night's totals and payments are in the night's words
(:func:`~companion.report.model.night_words`).

The night's own ledger (the Bonus Round, the bank's chip counts) is one more part
(:func:`ledger_part`).  :func:`build_night_report` adds the parts up and hands the sum to the
settle-up (:func:`~companion.report.payments.report_from_part`).

Pure (no Flask, no database) and game-agnostic: it imports no game package (a test checks it).
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from companion.games.fold import POT, Transfer
from companion.games.protocol import GameClosing, GameKind, GameState
from companion.money.amounts import signed
from companion.night.ledger import ExtraLine
from companion.night.play import nothing_recorded, of_the_night
from .model import Figures, GameLine, GamePart, PotClosing, Report, night_words, ordinal
from .payments import report_from_part

__all__ = [
    "NightGame",
    "build_night_report",
    "game_report_part",
    "games_played_text",
    "ledger_part",
    "own_report_part",
    "transfer_part",
]

#: one game of a night as :func:`build_night_report` takes it: its title, its fold, its rules
#: (as its kind reads them), its closing (:meth:`GameKind.close`) and its kind
NightGame = tuple[str, Any, Any, GameClosing, GameKind]

#: a game's own part of the report: ``report_part(number, title, state, rules, closing, carried_on)``
#: in the ``report`` module of its folder (docs/adding-a-game.md)
OwnReportPart = Callable[..., GamePart]


def own_report_part(kind: GameKind) -> OwnReportPart | None:
    """The game's own part of the report, when it declares one (``has_report_part``); else None.

    It is ``report_part`` in the ``report`` module beside the game's rules, found by the package
    of the game's class (``companion.games.<kind>`` for an installed game, the tests' own game's
    folder for theirs), as :mod:`companion.games.web` finds a game's screens: the game's rules
    never import their part of the report, and the report imports no game by name.
    """
    if not kind.has_report_part:
        return None
    package = type(kind).__module__.rpartition(".")[0]
    return importlib.import_module(f"{package}.report").report_part  # type: ignore[no-any-return]


def game_report_part(
    number: int,
    title: str,
    state: GameState,
    rules: Any,
    closing: GameClosing,
    kind: GameKind,
    carried_on: Mapping[str, int] | None = None,
    memo: dict[int, Any] | None = None,
) -> GamePart:
    """One game's part of the report, as its kind breaks it down, else from its records' transfers.

    ``number`` is the game's place in the night (1, 2, …), or 0 for the night's only
    game with nothing beside it (its lines then carry no night numbering).  ``memo``: see
    :func:`build_night_report`; given to a game's own part that takes one.
    """
    own = own_report_part(kind)
    if own is not None:
        if memo is not None and kind.report_part_extends:
            part = own(number, title, state, rules, closing, carried_on, memo=memo)
        else:
            part = own(number, title, state, rules, closing, carried_on)
    else:
        part = transfer_part(number or 1, title, state, closing, kind)
    words = kind.report_vocabulary
    return replace(part, games=tuple(g if g.extra else replace(g, words=words) for g in part.games))


def build_night_report(
    games: Sequence[NightGame],
    seated: Sequence[str],
    *,
    chip_value: Decimal,
    currency: str = "",
    paid: Iterable[tuple[str, str, int]] = (),
    name: str = "",
    carried_on: Mapping[str, int] | None = None,
    extra: ExtraLine | tuple[str, Mapping[str, int]] | tuple[str, Mapping[str, int], str] | None = None,
    memo: dict[int, Any] | None = None,
) -> Report:
    """The report of a night of games: ``games`` are (title, state, rules, closing, kind), in order.

    ``rules`` are the game's rules as its kind reads them, ``closing`` its
    :class:`~companion.games.protocol.GameClosing` and ``kind`` its
    :class:`~companion.games.protocol.GameKind`: the night's games played, in order, of which a game with
    nothing recorded in it is left out (:func:`~companion.night.play.nothing_recorded`: it moves no chip, and
    is no game of the night), as :meth:`~companion.night.play.NightPlay.of_the_night` leaves it out.  Each game counts as it closed
    (a game followed by another was stopped when the next started, and its closing dealt
    with its pot); the night's plan settles the sum, once.  A game that declares a part of
    its own (``has_report_part``) breaks itself down (Napalm: game by game to its token
    target; :func:`own_report_part`); any other is broken down by the transfers of its
    records (:func:`transfer_part`).  A night of one game that breaks itself down, with
    nothing beside it, is that game's part alone
    (:func:`~companion.report.payments.report_from_part`).  ``extra`` is what the night's own ledger adds
    beside its games, (what it is, chips per player summing to 0): the Bonus Round's
    payments, or on chip counts the bank's results less the games' balances; it is its
    own line of the report and counts in the plan; a third item, when given, says what it is
    (the line's text), and an :class:`~companion.night.ledger.ExtraLine` names the Bonus Round's payments
    in it, player to player (the pair-by-pair view pays them as made).  ``memo``: what the games' own parts kept when this night's report was
    made at an earlier version (a copy: they write what they keep for the next one into it),
    so that a long night's part follows what was added since rather than every record again
    (issue 22); each part checks what it reads there, and the report is the same with or without.
    """
    extra_chips = {n: c for n, c in (extra[1] if extra else {}).items() if c}
    played = list(games)
    # a game started and left with nothing recorded in it is no game of the night (issue 35): not listed, not
    # numbered, its words not the night's; when it is the game at the table, nothing is in the pot at the table
    entries = of_the_night(played, lambda g: not nothing_recorded(g[4], g[1], g[3]))
    at_table_empty = bool(played) and entries[-1] is not played[-1]
    words = night_words([entry[4].report_vocabulary for entry in entries])
    if len(entries) == 1 and not extra_chips and not at_table_empty:
        title, state, rules, game_closing, kind = entries[0]
        if kind.has_report_part:
            part = game_report_part(0, title, state, rules, game_closing, kind, carried_on, memo)
            return report_from_part(part, chip_value=chip_value, currency=currency, paid=paid, name=name, words=words)
    parts = [
        game_report_part(number, title, state, rules, game_closing, kind, carried_on, memo)
        for number, (title, state, rules, game_closing, kind) in enumerate(entries, start=1)
    ]
    if extra is not None and extra_chips:
        what = extra[2] if len(extra) > 2 else ""  # type: ignore[misc]
        direct, direct_title = (extra[3], extra[4]) if len(extra) > 4 else ((), "")  # type: ignore[misc]
        parts.append(ledger_part(extra[0], seated, extra_chips, what, direct, direct_title))
    players = tuple(seated)
    figures = {
        n: tuple(f for part in parts for f in (part.figures.get(n) or (Figures(),) * len(part.games)))
        for n in players
    }
    closings = [part.closing for part in parts]
    # the game at the table: the last game (the night's own ledger, when shown, comes after it), or nothing in
    # the pot at the table when that game has nothing recorded in it
    at_table = (
        PotClosing(pot=0, net={}, shares={}, carried=0, note="") if at_table_empty
        else [part for part in parts if not part.games or not part.games[0].extra][-1].closing
    )
    carrying = [c for c in closings if c.carried]
    # The pot and its shares are the game at the table's: the table already counts the games
    # before it as they closed, so only its pot is "dealt with" between the table and the plan.
    closing = PotClosing(
        pot=at_table.pot,
        net={n: sum(c.net.get(n, 0) for c in closings) for n in players},
        shares={n: at_table.shares.get(n, 0) for n in players},
        carried=sum(c.carried for c in closings),
        note=" ".join(f"{ordinal(i)} game: {c.note}" for i, c in enumerate(closings, start=1) if c.pot),
        stakes={n: sum(c.stakes.get(n, 0) for c in carrying) for n in players},
        choice=at_table.choice,
        setting_text=at_table.setting_text,
        carries=at_table.carries,
    )
    merged = GamePart(
        players=players,
        figures=figures,
        games_won={n: sum(part.games_won.get(n, 0) for part in parts) for n in players},
        stack_change={n: sum(part.stack_change.get(n, 0) for part in parts) for n in players},
        games=tuple(g for part in parts for g in part.games),
        closing=closing,
        carried_in=parts[0].carried_in,
    )
    return report_from_part(merged, chip_value=chip_value, currency=currency, paid=paid, name=name, words=words)


def ledger_part(
    title: str, seated: Sequence[str], chips: Mapping[str, int], what: str = "",
    direct: Sequence[tuple[str, str, int]] = (), direct_title: str = "",
) -> GamePart:
    """What the night's own ledger adds beside its games, as one line of the report.

    Its own figure (:attr:`Figures.ledger`, named by ``title``), never antes or pots won: on chip
    counts it is what the counts say beyond the games (a poker result is not "pots won").  The
    pair-by-pair payments pay its ``direct`` payments (the Bonus Round's, made player to player,
    named by ``direct_title``) as they were made, and square the rest in the fewest payments, each
    said in the line's own words.  The line's text is ``what`` it is and each player's share, so its
    title is said once ("The bank: each count less …: Ann +3, …")."""
    if sum(chips.values()) != 0:  # pragma: no cover - the night ledger balances by construction
        raise ValueError(f"{title} does not balance: {dict(chips)}")
    players = tuple(seated)
    figures = {n: (Figures(ledger=chips.get(n, 0), ledger_label=title),) for n in players}
    shares = ", ".join(f"{n} {signed(chips.get(n, 0))}" for n in players)
    line = GameLine(0, None, 0, 0, night_game=0, title=title, text=f"{what}: {shares}" if what else shares, extra=True,
                    direct=tuple(direct), direct_title=direct_title or title, what=what)
    closing = PotClosing(pot=0, net={n: chips.get(n, 0) for n in players},
                         shares=dict.fromkeys(players, 0), carried=0, note="")
    return GamePart(
        players=players, figures=figures, games_won=dict.fromkeys(players, 0),
        stack_change={n: chips.get(n, 0) for n in players}, games=(line,), closing=closing, carried_in={},
    )


def transfer_part(number: int, title: str, state: Any, game_closing: GameClosing, kind: GameKind | None = None) -> GamePart:
    """A game's figures from the transfers of its live records: any game without a part of its own.

    Chips a player pays into a pot or pool count as antes, chips taken out of one as
    pots, chips paid from one player to another as side bets between the two: one line for
    the whole game, with each record's summary.  What the game's closing moves beyond the
    table's nets is read from its ``closing_transfers`` (given back out of the pot or pool
    by default): chips given back out of a pot or pool (an unwon pool, a pot left in a stopped
    deal) are the unfinished pot on that line; chips settled between players (points turned
    into chips when the game stopped) are a line of their own, the game's closing, in its
    words (its between-players column), never "returned" from a pot the game never had.
    """
    players = tuple(state.players)
    seated = set(players)
    antes: Counter[str] = Counter()
    pots: Counter[str] = Counter()
    won = {n: Counter[str]() for n in players}
    lost = {n: Counter[str]() for n in players}
    live = state.live_records()
    for record in live:
        for t in record.transfers:
            payer = t.payer if t.payer in seated else None
            payee = t.payee if t.payee in seated else None
            if payer is not None and payee is not None:
                won[payee][payer] += t.chips
                lost[payer][payee] += t.chips
            elif payer is not None:
                antes[payer] += t.chips
            elif payee is not None:
                pots[payee] += t.chips
    net = dict(state.net_chips)
    # what the closing moves: given back out of the pot or pool (or paid into it), or settled between players
    back = dict.fromkeys(players, 0)
    settled_won = {n: Counter[str]() for n in players}
    settled_lost = {n: Counter[str]() for n in players}
    moved = (kind.closing_transfers(state, game_closing) if kind is not None
             else _given_back(players, net, game_closing))
    for t in moved:
        payer = t.payer if t.payer in seated else None
        payee = t.payee if t.payee in seated else None
        if payer is not None and payee is not None:
            settled_won[payee][payer] += t.chips
            settled_lost[payer][payee] += t.chips
        elif payee is not None:
            back[payee] += t.chips
        elif payer is not None:
            back[payer] -= t.chips
    between = {n: sum(settled_won[n].values()) - sum(settled_lost[n].values()) for n in players}
    wrong = [n for n in players if net.get(n, 0) + back[n] + between[n] != game_closing.net.get(n, 0)]
    if wrong:
        raise ValueError(f"{title}: its closing's transfers do not give {wrong[0]} what its closing says")
    left = sum(back.values())
    figures = {
        n: (
            Figures(
                antes=antes[n],
                won_from=tuple((o, won[n][o]) for o in players if won[n][o]),
                lost_to=tuple((o, lost[n][o]) for o in players if lost[n][o]),
                pots=pots[n],
                unfinished=back[n],
            ),
        )
        for n in players
    }
    count = len(live)
    settles = any(between.values()) or any(settled_won[n] for n in players)
    text = f"{count} record{'' if count == 1 else 's'}" + (f"; {game_closing.note}" if game_closing.note and not settles else "")
    line = GameLine(
        0, None, left, count, night_game=number, title=title, choice_text=game_closing.note,
        text=text, records=tuple(r.summary for r in live),
    )
    lines = (line,)
    if settles:
        closing_line = GameLine(
            0, None, 0, 0, night_game=number, title=title, text=game_closing.note or "settled at its close",
            closing=True,
        )
        lines = (line, closing_line)
        for n in players:
            figures[n] = (
                *figures[n],
                Figures(
                    won_from=tuple((o, settled_won[n][o]) for o in players if settled_won[n][o]),
                    lost_to=tuple((o, settled_lost[n][o]) for o in players if settled_lost[n][o]),
                ),
            )
    closing = PotClosing(
        pot=left, net=dict(game_closing.net), shares=back, carried=game_closing.carried_total,
        note=game_closing.note,
    )
    return GamePart(
        players=players,
        figures=figures,
        games_won=dict.fromkeys(players, 0),
        stack_change={n: net.get(n, 0) + back[n] + between[n] for n in players},
        games=lines,
        closing=closing,
        carried_in={},
    )


def _given_back(players: Sequence[str], net: Mapping[str, int], game_closing: GameClosing) -> tuple[Any, ...]:
    """What a closing moves when no game says how: each player's difference, given back out of the pot."""
    out = []
    for n in players:
        chips = game_closing.net.get(n, 0) - net.get(n, 0)
        if chips:
            out.append(Transfer(POT, n, chips, "returned") if chips > 0 else Transfer(n, POT, -chips, "returned"))
    return tuple(out)


def games_played_text(titles: Sequence[str], games: Sequence[GameLine]) -> str:
    """The night's games as played, in a list of nights: "3 games: Napalm (1 game finished, one
    unfinished), Pool Nap, High Card"; one game alone is its title ("Pool Nap").

    ``titles`` are the night's played games' names in order, ``games`` its report's lines.  Only a
    game that plays games inside it (Napalm's games to a token target: lines numbered 1, 2, …) says
    how many of them finished; a Nap or pot game has none, so it is named and nothing more.
    """
    if not titles:
        return "no game played"
    said = []
    for place, title in enumerate(titles, start=1):
        inner = [
            g for g in games
            if not g.extra and g.number and (g.night_game == place or (g.night_game == 0 and len(titles) == 1))
        ]
        finished = sum(1 for g in inner if g.finished)
        unfinished = len(inner) - finished
        if finished:
            counted = f"{finished} game{'' if finished == 1 else 's'} finished" + (", one unfinished" if unfinished else "")
        elif unfinished:
            counted = "game 1 unfinished"
        else:
            counted = ""
        said.append(f"{title} ({counted})" if counted else title)
    return ", ".join(said) if len(said) == 1 else f"{len(said)} games: " + ", ".join(said)
