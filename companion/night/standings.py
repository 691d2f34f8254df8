"""What a page shows of a night: the standings, computed from the fold, never stored.

Pure (no Flask, no database): the table page, the players' page and the report
all read the same :class:`Standings`, so they cannot disagree.  The standings are
the same for every game, built by one builder (:func:`standings`) from what every
game's state has (its players, their net chips, its log) and its screens' ``view``
of it: whatever only one game shows (Napalm's tokens and pot, Nap's pool, a pot
game's pots) is in that view, which the game's own templates read as ``st.view``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from companion.money.amounts import to_money, value_text
from companion.money.settle import Payment, settle_up


@dataclass(frozen=True)
class PlayerLine:
    name: str
    seat: int
    net_chips: int
    money: Decimal
    money_text: str
    is_dealer: bool


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
    """A night as its pages show it, whatever the game at the table."""

    version: int
    kind: str  # the game at the table's short name
    #: the game's macros for the common pages (status, columns, cells, mine, recent_line, notes)
    parts: str
    view: Any  # the game's own view of its state (its screens' ``view``), for its templates
    prompt: str  # what the table waits for (the view's)
    dealer: str  # who deals now (the view's)
    players: tuple[PlayerLine, ...]  # the game at the table's, in seat order
    recent: tuple[Any, ...]  # the last few records of the game at the table, newest first
    voided: frozenset[int]
    chip_value: Decimal
    currency: str
    plan: tuple[Payment, ...]  # who pays whom if the night were settled now
    #: the night's games, in order, when it has more than one (the one at the table last)
    night_games: tuple[NightGameLine, ...] = ()
    #: seated players who sit this game out, with their night so far
    sitting_out: tuple[SittingOut, ...] = ()

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
    #: what players call the game at the table ("Napalm", "Pool Nap"): the table display names it
    title: str = ""

    def number(self, seq: int) -> int:
        """The number the night shows record ``seq`` of the game at the table by."""
        return (self.numbers or {}).get(seq, seq)

    @property
    def night_game(self) -> int:
        """The game at the table's number in the night (1 for a night of one game)."""
        return len(self.night_games) or 1

    def money(self, chips: int) -> str:
        return value_text(chips, self.chip_value, self.currency)

    def line(self, name: str) -> PlayerLine | None:
        return next((p for p in self.players if p.name == name), None)

    def out_line(self, name: str) -> SittingOut | None:
        """``name``'s night so far when they sit the game at the table out."""
        return next((p for p in self.sitting_out if p.name == name), None)

    def seated(self, name: str) -> bool:
        return self.line(name) is not None or self.out_line(name) is not None

    def settle_lines(self) -> list[tuple[Payment, bool]]:
        """Every payment of the plan that settles now, each with whether it was marked paid (the table display's
        settle-up: marked as :meth:`if_settled_now` marks a player's own)."""
        left = Counter((p.payer, p.payee, p.chips) for p in self.paid)
        lines = []
        for p in self.plan:
            key = (p.payer, p.payee, p.chips)
            done = left[key] > 0
            if done:
                left[key] -= 1
            lines.append((p, done))
        return lines

    def if_settled_now(self, name: str) -> list[tuple[str, str, int, bool]]:
        """("pay" | "receive", other, chips, marked paid) for ``name`` in the plan that settles now.

        A payment marked paid is marked here too, as on the report: each recorded payment marks
        the first unpaid plan line with the same payer, payee and chips (issue 20, item 8)."""
        lines = []
        for p, done in self.settle_lines():
            if p.payer == name:
                lines.append(("pay", p.payee, p.chips, done))
            elif p.payee == name:
                lines.append(("receive", p.payer, p.chips, done))
        return lines


def numbers_of(state: Any, records: Sequence[Any]) -> dict[int, int]:
    """The night's number of each of ``records`` and of each record an undo among them undid."""
    seqs = {seq for r in records for seq in (r.seq, r.voids) if seq}
    return {seq: state.number_of(seq) for seq in seqs}


def _night_net(
    earlier: Sequence[NightGameLine], net_now: dict[str, int], extra: Mapping[str, int] | None = None
) -> tuple[dict[str, int], dict[str, int]]:
    """(chips before the game at the table, by player; the night's net counting ``net_now``)."""
    before: dict[str, int] = dict(extra or {})
    for line in earlier:
        for name, chips in line.net:
            before[name] = before.get(name, 0) + chips
    return before, {name: chips + before.get(name, 0) for name, chips in net_now.items()}


def standings(
    *,
    kind: str,
    parts: str,
    view: Any,
    state: Any,
    closing_net: Mapping[str, int],
    version: int,
    chip_value: Decimal,
    currency: str,
    recent: int = 6,
    seated: Sequence[str] | None = None,
    earlier: Sequence[NightGameLine] = (),
    title: str = "",
    extra: Mapping[str, int] | None = None,
) -> Standings:
    """The standings of the game at the table, its players' chips counted over the whole night.

    ``view`` is the game's own view of ``state`` (its screens'), with ``prompt`` and
    ``dealer``; ``closing_net`` its balances were it stopped now (the game's close:
    its unfinished pot or pool dealt with by its rules), which the plan settles.
    ``earlier`` are the night's games before this one, with their closing balances
    (a game is over, or stopped and closed by its rules, when the next starts): each
    player's net chips, the plan and the players' lines count them too, so the table,
    the players' page and the report agree on the night.  ``seated`` are all the
    night's players (default: the game's); ``extra`` what the night's own ledger adds.
    """
    players = tuple(state.players)
    before, net = _night_net(earlier, dict(state.net_chips), extra)
    dealer = view.dealer
    lines = tuple(
        PlayerLine(
            name=name, seat=seat + 1, net_chips=net[name], money=to_money(net[name], chip_value),
            money_text=value_text(net[name], chip_value, currency), is_dealer=name == dealer,
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
    shown = log[-recent:] if recent else ()
    return Standings(
        version=version, kind=kind, parts=parts, view=view, prompt=view.prompt, dealer=dealer, players=lines,
        recent=tuple(reversed(shown)), voided=frozenset(state.voided), numbers=numbers_of(state, shown),
        chip_value=chip_value, currency=currency, plan=settle_up(night_net), night_games=night_games,
        sitting_out=sitting_out, title=title,
    )


__all__ = ["NightGameLine", "PlayerLine", "SittingOut", "Standings", "numbers_of", "standings"]
