"""The season table and the rivalries: a group's nights added up per member over a period.

A single night's report says who won tonight; the group asks who is up over the year, which game
they win at, their best and worst night, and what passed between two of them night after night.
This module answers from the nights' values (:class:`~companion.group.nights.NightResult`) and
the group's :class:`~companion.group.members.Members`, so it works the same for any game.

Adding up is exact and honest about units:

* chips are counted as played (``chips``), whatever a chip was worth that night;
* money is summed per currency (``money``): a night at 0.25 EUR a chip and one at 1 EUR a chip add
  up in euros, and euros are never added to pounds;
* chips-only nights are summed in chips, apart (``chips_only``): they have no money to add.

The best and the worst night are chosen per currency (and among the chips-only nights in chips),
for the same reason; a tie goes to the earlier night.  Nights are taken in date order (nights of
one date in the order given).

Pure: values in, values out.
"""

from __future__ import annotations

import calendar
import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType

from .members import MemberError, Members
from .nights import Flow, NightResult, Unit

__all__ = [
    "ALL_TIME",
    "MemberSeason",
    "NightLine",
    "Period",
    "Rivalry",
    "RivalryNight",
    "RunningPoint",
    "Season",
    "Totals",
    "in_order",
    "rivalry",
    "season",
    "seated_members",
]


# --- the period -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """The nights from ``start`` to ``end``, both included (None: no bound); ``label`` names it."""

    start: datetime.date | None = None
    end: datetime.date | None = None
    label: str = "all time"

    def __post_init__(self) -> None:
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError(f"a period cannot end ({self.end}) before it starts ({self.start})")

    def __contains__(self, day: object) -> bool:
        if not isinstance(day, datetime.date):
            return False
        return (self.start is None or self.start <= day) and (self.end is None or day <= self.end)

    @classmethod
    def year(cls, year: int) -> Period:
        return cls(datetime.date(year, 1, 1), datetime.date(year, 12, 31), str(year))

    @classmethod
    def month(cls, year: int, month: int) -> Period:
        last = calendar.monthrange(year, month)[1]
        start = datetime.date(year, month, 1)
        return cls(start, datetime.date(year, month, last), start.strftime("%B %Y"))

    @classmethod
    def between(cls, start: datetime.date, end: datetime.date) -> Period:
        return cls(start, end, f"{start.isoformat()} to {end.isoformat()}")


ALL_TIME = Period()


# --- what adds up -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Totals:
    """Chips and money added up honestly: chips as played, money per currency, chips-only nights apart."""

    chips: int = 0
    money: Mapping[str, Decimal] = field(default_factory=lambda: MappingProxyType({}))
    chips_only: int = 0

    def plus(self, night: NightResult, chips: int) -> Totals:
        """These totals and ``chips`` won on ``night`` (worth the night's money, in its currency)."""
        money = dict(self.money)
        worth = night.worth(chips)
        if worth is None:
            return Totals(self.chips + chips, self.money, self.chips_only + chips)
        assert night.currency is not None
        money[night.currency] = money.get(night.currency, Decimal(0)) + worth
        return Totals(self.chips + chips, MappingProxyType(money), self.chips_only)

    def of(self, unit: Unit) -> Decimal | int:
        """The total in ``unit``: a currency's money, or (None) the chips of chips-only nights."""
        return self.chips_only if unit is None else self.money.get(unit, Decimal(0))


# --- one member's season ------------------------------------------------------------------------


@dataclass(frozen=True)
class NightLine:
    """One night of one member: what they won (negative: lost) in chips, and in money if it was for money."""

    night_id: str
    date: datetime.date
    title: str
    unit: Unit
    chips: int
    money: Decimal | None

    @property
    def value(self) -> Decimal | int:
        """What the night is ranked by among the nights of its unit: its money, or its chips."""
        return self.chips if self.money is None else self.money


@dataclass(frozen=True)
class RunningPoint:
    """A member's totals after one more night: a point of the season's chart."""

    night_id: str
    date: datetime.date
    total: Totals


@dataclass(frozen=True)
class MemberSeason:
    """One member's row of the season table, and the data of their chart."""

    member: str
    nights: tuple[NightLine, ...]  # the nights they played, in order
    total: Totals
    per_game: Mapping[str, Totals]  # by the report's label, in the order first met
    best: Mapping[Unit, NightLine]  # per currency (None: chips-only nights)
    worst: Mapping[Unit, NightLine]
    running: tuple[RunningPoint, ...]  # one point per night played

    @property
    def nights_played(self) -> int:
        return len(self.nights)


@dataclass(frozen=True)
class Season:
    """The season table of ``period``: one row per member, in the group's order, and the nights it counts."""

    period: Period
    rows: tuple[MemberSeason, ...]
    nights: tuple[NightResult, ...]

    def row(self, member: str) -> MemberSeason:
        for row in self.rows:
            if row.member == member:
                return row
        raise KeyError(member)


def in_order(nights: Iterable[NightResult], period: Period = ALL_TIME) -> tuple[NightResult, ...]:
    """The nights of ``period`` in date order; nights of one date keep the order given."""
    return tuple(sorted((n for n in nights if n.date in period), key=lambda n: n.date))


def seated_members(night: NightResult, members: Members) -> dict[str, str]:
    """Each player of ``night`` → the member they are.

    :class:`~companion.group.members.UnknownMember` for a name no member goes by;
    :class:`~companion.group.members.MemberError` when two players of the night are one member
    (two names merged that both sat at the same table: the merge is wrong, not the night).
    """
    seated: dict[str, str] = {}
    for name in night.net:
        member = members.member(name)
        if member in seated.values():
            other = next(n for n, m in seated.items() if m == member)
            raise MemberError(f"{other!r} and {name!r} both played night {night.night_id!r}: they cannot be one member ({member!r})")
        seated[name] = member
    return seated


def season(nights: Iterable[NightResult], members: Members, period: Period = ALL_TIME) -> Season:
    """The season table of ``period``: for each member, nights played, totals, per game, best, worst, running total."""
    counted = in_order(nights, period)
    lines: dict[str, list[NightLine]] = {m: [] for m in members.names}
    totals: dict[str, Totals] = {m: Totals() for m in members.names}
    games: dict[str, dict[str, Totals]] = {m: {} for m in members.names}
    running: dict[str, list[RunningPoint]] = {m: [] for m in members.names}
    for night in counted:
        for name, member in seated_members(night, members).items():
            chips = night.net[name]
            lines[member].append(NightLine(night.night_id, night.date, night.title, night.unit, chips, night.worth(chips)))
            totals[member] = totals[member].plus(night, chips)
            running[member].append(RunningPoint(night.night_id, night.date, totals[member]))
            for label, part in night.parts.get(name, {}).items():
                games[member][label] = games[member].get(label, Totals()).plus(night, part)
    rows = tuple(
        MemberSeason(
            member=m,
            nights=tuple(lines[m]),
            total=totals[m],
            per_game=MappingProxyType(games[m]),
            best=MappingProxyType(_extreme(lines[m], best=True)),
            worst=MappingProxyType(_extreme(lines[m], best=False)),
            running=tuple(running[m]),
        )
        for m in members.names
    )
    return Season(period, rows, counted)


def _extreme(lines: Sequence[NightLine], *, best: bool) -> dict[Unit, NightLine]:
    """The best (or worst) night per unit; the earlier night on a tie."""
    found: dict[Unit, NightLine] = {}
    for line in lines:
        held = found.get(line.unit)
        if held is None or (line.value > held.value if best else line.value < held.value):
            found[line.unit] = line
    return found


# --- rivalries --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RivalryNight:
    """What passed between two members on one night, with the night's words.

    ``chips`` and ``money`` are the first member's side: what they received from the second
    less what they paid them (negative: the second came out ahead).
    """

    night_id: str
    date: datetime.date
    title: str
    unit: Unit
    flows: tuple[Flow, ...]  # with the members' names
    chips: int
    money: Decimal | None


@dataclass(frozen=True)
class Rivalry:
    """Two members' nights against each other over ``period``; ``total`` is the first member's side."""

    first: str
    second: str
    period: Period
    nights: tuple[RivalryNight, ...]
    total: Totals


def rivalry(nights: Iterable[NightResult], members: Members, first: str, second: str, period: Period = ALL_TIME) -> Rivalry:
    """Night by night, what passed between ``first`` and ``second`` in each night's pair-by-pair settle-up.

    Both are read as members (:class:`~companion.group.members.UnknownMember` otherwise); a night
    counts when a flow passed between them.
    """
    one, other = members.member(first), members.member(second)
    if one == other:
        raise ValueError(f"{first!r} and {second!r} are one member: a rivalry needs two")
    found: list[RivalryNight] = []
    total = Totals()
    for night in in_order(nights, period):
        seated = seated_members(night, members)
        flows = tuple(
            Flow(seated[f.payer], seated[f.payee], f.chips, f.why)
            for f in night.flows
            if {seated[f.payer], seated[f.payee]} == {one, other}
        )
        if not flows:
            continue
        chips = sum(f.chips if f.payee == one else -f.chips for f in flows)
        found.append(RivalryNight(night.night_id, night.date, night.title, night.unit, flows, chips, night.worth(chips)))
        total = total.plus(night, chips)
    return Rivalry(one, other, period, tuple(found), total)
