"""What a page shows of a night: the standings, computed from the fold, never stored.

Pure (no Flask, no database): the table page, the players' page and the report
all read the same :class:`Standings`, so they cannot disagree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .ledger.money import to_money, value_text
from .ledger.settle import Payment, settle_up
from .games.napalm import Phase, Record, Table
from .games.napalm.closing import Closing, close_night


@dataclass(frozen=True)
class PlayerLine:
    name: str
    seat: int
    tokens: int
    net_chips: int
    money: Decimal
    money_text: str
    is_dealer: bool
    says_next: int  # 1-based order of speaking this stage (dealer last)
    in_yes: bool  # among this stage's Yes players


@dataclass(frozen=True)
class NightGameLine:
    """One game of the night as the night counts it: its closing balances (the one at the table: so far)."""

    number: int  # 1-based, in the order played
    title: str  # what players call it ("Napalm")
    net: tuple[tuple[str, int], ...]  # (player, chips) in seat order, its players only
    note: str  # what happened to a pot left in it ("" when nothing was left)
    current: bool  # the game at the table


@dataclass(frozen=True)
class SittingOut:
    """A player seated tonight who does not play the game at the table: their night so far."""

    name: str
    net_chips: int
    money_text: str


@dataclass(frozen=True)
class Standings:
    version: int
    game: int
    hand: int
    stage: int
    stage_title: str
    phase: str
    prompt: str
    dealer: str
    pot: int
    tokens_to_win: int
    antes_this_hand: bool
    players: tuple[PlayerLine, ...]
    order: tuple[str, ...]  # declaration order, dealer last
    yes: tuple[str, ...]
    games: tuple[tuple[int, str, int], ...]  # (number, winner, pot)
    recent: tuple[Record, ...]  # the last few live records, newest first
    voided: frozenset[int]
    chip_value: Decimal
    currency: str
    closing: Closing
    plan: tuple[Payment, ...]  # who pays whom if the night were settled now
    #: the pot carried in from a previous night, (contributor, chips) in seat order: in the
    #: first game's pot until someone wins it
    carried_in: tuple[tuple[str, int], ...] = ()
    carried_from: str | None = None  # the name of the night it came from, when known
    #: the night's games, in order, when it has more than one (the one at the table last)
    night_games: tuple[NightGameLine, ...] = ()
    #: seated players who sit this game out, with their night so far
    sitting_out: tuple[SittingOut, ...] = ()

    @property
    def night_game(self) -> int:
        """The game at the table's number in the night (1 for a night of one game)."""
        return len(self.night_games) or 1
    ante_hand: bool = False  # this hand antes (by the rules), whether or not it is taken yet
    kind: str = "napalm"  # the game at the table's short name
    #: the game's macros for the common pages (status, columns, cells, mine, recent_line, notes)
    parts: str = "games/napalm/parts.html"
    view: Any = None  # the game's own view of its state (its screens' ``view``), for its templates
    #: how the night settles, in the words of the Bank page and the report, when the bank is in use
    #: (NightLedger.settles_text); "" on a night that never bought chips
    settles: str = ""
    settle_on: str = ""  # "tally" or "bank" with ``settles``
    #: the settle-up payments marked paid so far, in the order recorded
    paid: tuple[Payment, ...] = ()
    #: on chip counts that do not balance yet, why there are no payments (the report's words): then
    #: :attr:`plan` is empty, since the tally's plan is not what the night settles on
    unsettled: str = ""
    #: what the night's own ledger adds beside the games, counted in every net above: (its title,
    #: (player, chips) in seat order), so the night's games and it add up to the standings
    extra_line: tuple[str, tuple[tuple[str, int], ...]] | None = None
    #: the night's number of each recent record (and of the record an undo among them undid), by
    #: the game's own seq: one numbering across the night (issue 20, item 11)
    numbers: Mapping[int, int] | None = None

    def number(self, seq: int) -> int:
        """The number the night shows record ``seq`` of the game at the table by."""
        return (self.numbers or {}).get(seq, seq)

    @property
    def carried_total(self) -> int:
        return sum(chips for _, chips in self.carried_in)

    @property
    def carried_text(self) -> str:
        """"6 carried in from “Friday”: Ann 2, Ben 2, Cat 2" while the first game holds it; else ""."""
        if not self.carried_in or self.game != 1:
            return ""
        source = f"\u201c{self.carried_from}\u201d" if self.carried_from else "the previous night"
        shares = ", ".join(f"{name} {chips}" for name, chips in self.carried_in)
        return f"{self.carried_total} carried in from {source}: {shares}"

    def money(self, chips: int) -> str:
        return value_text(chips, self.chip_value, self.currency)

    def line(self, name: str) -> PlayerLine | None:
        return next((p for p in self.players if p.name == name), None)

    def out_line(self, name: str) -> SittingOut | None:
        """``name``'s night so far when they sit the game at the table out."""
        return next((p for p in self.sitting_out if p.name == name), None)

    def seated(self, name: str) -> bool:
        return self.line(name) is not None or self.out_line(name) is not None

    def if_settled_now(self, name: str) -> list[tuple[str, str, int, bool]]:
        """("pay" | "receive", other, chips, marked paid) for ``name`` in the plan that settles now.

        A payment marked paid is marked here too, as on the report: each recorded payment marks
        the first unpaid plan line with the same payer, payee and chips (issue 20, item 8)."""
        left = Counter((p.payer, p.payee, p.chips) for p in self.paid)
        lines = []
        for p in self.plan:
            key = (p.payer, p.payee, p.chips)
            done = left[key] > 0
            if done:
                left[key] -= 1
            if p.payer == name:
                lines.append(("pay", p.payee, p.chips, done))
            elif p.payee == name:
                lines.append(("receive", p.payer, p.chips, done))
        return lines



def numbers_of(state: Any, records: Sequence[Any]) -> dict[int, int]:
    """The night's number of each of ``records`` and of each record an undo among them undid."""
    seqs = {seq for r in records for seq in (r.seq, r.voids) if seq}
    return {seq: state.number_of(seq) for seq in seqs}

def standings(
    table: Table,
    version: int,
    chip_value: Decimal,
    currency: str,
    unfinished_pot: str,
    recent: int = 6,
    carried_from: str | None = None,
    seated: Sequence[str] | None = None,
    earlier: Sequence[NightGameLine] = (),
    title: str = "Napalm",
    extra: Mapping[str, int] | None = None,
) -> Standings:
    """The standings of the game at the table, its players' chips counted over the whole night.

    ``earlier`` are the night's games before this one, with their closing balances
    (a game is over, or stopped and closed by its rules, when the next starts):
    each player's net chips, the plan and the players' lines count them too, so
    the table, the players' page and the report agree on the night.  ``seated``
    are all the night's players (default: the game's).
    """
    tokens = table.tokens
    before: dict[str, int] = dict(extra or {})  # what the night's own ledger adds (the Bonus Round)
    for line in earlier:
        for name, chips in line.net:
            before[name] = before.get(name, 0) + chips
    net = {name: chips + before.get(name, 0) for name, chips in table.net_chips.items()}
    order = table.declaration_order()
    position = table.position
    lines = tuple(
        PlayerLine(
            name=name,
            seat=seat + 1,
            tokens=tokens[name],
            net_chips=net[name],
            money=to_money(net[name], chip_value),
            money_text=value_text(net[name], chip_value, currency),
            is_dealer=seat == position.dealer,
            says_next=order.index(name) + 1,
            in_yes=name in position.yes,
        )
        for seat, name in enumerate(table.players)
    )
    log = table.log
    voided = frozenset(table.voided)
    closing = close_night(table, unfinished_pot)
    seated = tuple(seated) if seated is not None else table.players
    night_net = {name: before.get(name, 0) + closing.net.get(name, 0) for name in seated}
    night_games: tuple[NightGameLine, ...] = ()
    if earlier:
        night_games = (*earlier, NightGameLine(
            len(earlier) + 1, title, tuple(table.net_chips.items()), "", current=True
        ))
    sitting_out = tuple(
        SittingOut(name, before.get(name, 0), value_text(before.get(name, 0), chip_value, currency))
        for name in seated
        if name not in table.players
    )
    return Standings(
        version=version,
        game=position.game,
        hand=position.hand,
        stage=int(position.stage),
        stage_title=position.stage.title,
        phase=position.phase.value,
        prompt=table.prompt(),
        dealer=table.dealer,
        pot=position.pot,
        tokens_to_win=table.rules.tokens_to_win,
        antes_this_hand=table.antes_this_hand() and not position.ante_paid,
        players=lines,
        order=order,
        yes=position.yes,
        games=tuple((g.number, g.winner, g.pot) for g in position.games),
        recent=tuple(reversed(log[-recent:])),
        voided=voided,
        numbers=numbers_of(table, log[-recent:]),
        chip_value=chip_value,
        currency=currency,
        closing=closing,
        plan=settle_up(night_net),
        carried_in=tuple(table.carried_in.items()),
        carried_from=carried_from,
        night_games=night_games,
        sitting_out=sitting_out,
        ante_hand=table.antes_this_hand(),
    )


def _night_net(
    earlier: Sequence[NightGameLine], net_now: dict[str, int], extra: Mapping[str, int] | None = None
) -> tuple[dict[str, int], dict[str, int]]:
    """(chips before the game at the table, by player; the night's net counting ``net_now``)."""
    before: dict[str, int] = dict(extra or {})
    for line in earlier:
        for name, chips in line.net:
            before[name] = before.get(name, 0) + chips
    return before, {name: chips + before.get(name, 0) for name, chips in net_now.items()}


def game_standings(
    *,
    kind: str,
    parts: str,
    view: Any,
    state: Any,
    closing_net: dict[str, int],
    version: int,
    chip_value: Decimal,
    currency: str,
    recent: int = 6,
    seated: Sequence[str] | None = None,
    earlier: Sequence[NightGameLine] = (),
    title: str = "",
    extra: Mapping[str, int] | None = None,
) -> Standings:
    """The standings of any game at the table, from what every game's state has.

    ``view`` is the game's own view of ``state`` (its screens'), with ``prompt`` and
    ``dealer``; ``closing_net`` its balances were it stopped now (the plan settles
    those).  The fields only Napalm has keep neutral values.
    """
    players = tuple(state.players)
    before, net = _night_net(earlier, dict(state.net_chips), extra)
    dealer = getattr(view, "dealer", None) or ""
    lines = tuple(
        PlayerLine(
            name=name, seat=seat + 1, tokens=0, net_chips=net[name], money=to_money(net[name], chip_value),
            money_text=value_text(net[name], chip_value, currency), is_dealer=name == dealer, says_next=0,
            in_yes=False,
        )
        for seat, name in enumerate(players)
    )
    seated = tuple(seated) if seated is not None else players
    night_net = {name: before.get(name, 0) + closing_net.get(name, 0) for name in seated}
    night_games: tuple[NightGameLine, ...] = ()
    if earlier:
        night_games = (*earlier, NightGameLine(len(earlier) + 1, title, tuple(state.net_chips.items()), "", current=True))
    sitting_out = tuple(
        SittingOut(name, before.get(name, 0), value_text(before.get(name, 0), chip_value, currency))
        for name in seated
        if name not in players
    )
    log = state.log
    return Standings(
        version=version, game=1, hand=0, stage=0, stage_title="", phase="", prompt=view.prompt, dealer=dealer,
        pot=0, tokens_to_win=0, antes_this_hand=False, players=lines, order=players, yes=(), games=(),
        recent=tuple(reversed(log[-recent:])) if recent else (), voided=frozenset(state.voided),
        numbers=numbers_of(state, log[-recent:] if recent else ()),
        chip_value=chip_value, currency=currency, closing=None,  # type: ignore[arg-type]
        plan=settle_up(night_net), night_games=night_games, sitting_out=sitting_out,
        kind=kind, parts=parts, view=view,
    )


__all__ = ["NightGameLine", "PlayerLine", "SittingOut", "Standings", "game_standings", "standings", "Phase"]
