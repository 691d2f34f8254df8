"""What a group's pages show, and what a night kept in a group shows of it.

The views (:func:`group_view`, :func:`rivalry_view`) build every night's
:class:`~companion.group.nights.NightResult` from the stored night (:mod:`.group_nights`, kept per
version), and a group's view is kept per group version; the stamps (:func:`group_stamp` and its
kin) are the one row a group's rendered pages are kept by.  A night kept in a group reads here what
its settle-up offers (:func:`night_pay`) and what it may not mark paid (:func:`blocked_at`: a unit
the group's tab cannot settle).
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sqlalchemy import bindparam, func, select

from companion.db.engine import read_once
from companion.db.models import Group, GroupNight, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.group.members import MemberError, Members, UnknownMember
from companion.group.nights import NightResult
from companion.group.pay_links import PayHandle
from companion.group.season import ALL_TIME, Period, Rivalry, Season, rivalry, season, seated_members
from companion.group.tab import Tab, tab
from companion.service.group_nights import Counted, counted
from companion.service.group_records import counting, fold_records, folded_of, kept_nights, stored_records
from companion.service.store import derived, keep_derived, money_of
from companion.service.uow import end_reads

__all__ = [
    "blocked_at", "blocked_units", "counted_nights", "group_of_night", "group_stamp", "group_stamp_by_link",
    "group_stamps", "group_view", "GroupView", "handles_for_night", "KeptNight", "LeftOut", "night_pay", "NightInPlay",
    "NightPay", "refuse_paid_where_blocked", "rivalry_view",
]


@dataclass(frozen=True)
class LeftOut:
    """A night kept in the group and taken out of its season and tab by the organiser (it can be put back)."""

    night_id: int
    name: str
    date: datetime.date


@dataclass(frozen=True)
class KeptNight:
    """A night of the group that counts: what the group sees of it, and the stored night it is."""

    result: NightResult
    night_id: int
    name: str
    date: datetime.date


@dataclass(frozen=True)
class NightInPlay:
    """A night of the group that cannot be counted yet, and why (nothing recorded, the bank not balanced,
    a player no member goes by), or ``broken``: what it holds cannot be counted at all, so nothing is offered
    in ``unit`` (its currency, None for chips) while it is in the group (issue 35)."""

    night_id: int
    name: str
    date: datetime.date
    reason: str
    broken: bool = False
    unit: str | None = None


def blocked_units(in_play: Iterable[NightInPlay]) -> dict[str | None, list[str]]:
    """The units the broken nights among ``in_play`` are played in, each with those nights' ids (as the tab names
    nights): no payment is planned or taken in them."""
    out: dict[str | None, list[str]] = {}
    for row in in_play:
        if row.broken:
            out.setdefault(row.unit, []).append(str(row.night_id))
    return out


@dataclass(frozen=True)
class GroupView:
    """Everything a group's page shows, at the group's ``version``."""

    version: int
    name: str
    members: Members
    nights: tuple[KeptNight, ...]  # oldest first (nights of one date in the order kept)
    in_play: tuple[NightInPlay, ...]
    season: Season
    tab: Tab  # over every night, whatever the period
    handles: Mapping[str, Mapping[str, PayHandle]]  # member -> kind -> handle, only members who gave one
    periods: tuple[Period, ...]  # each year with a night, newest first, each followed by its months, newest first
    left_out: tuple[LeftOut, ...] = ()  # the nights taken out of the group, in the order kept

    @property
    def night_names(self) -> dict[str, str]:
        """Each night's name by its id as the tab names nights (the night's id as text): two nights of one day
        are told apart by name."""
        return {str(k.night_id): k.name for k in self.nights} | {str(r.night_id): r.name for r in self.in_play}

    @property
    def blocked(self) -> dict[str | None, list[str]]:
        """Each unit the tab cannot settle (:attr:`Tab.blocked`), with the names of the nights it cannot count."""
        names = self.night_names
        return {unit: [names.get(i, i) for i in ids] for unit, ids in self.tab.blocked.items()}


def counted_nights(nights: Sequence[Night], members: Members) -> tuple[list[KeptNight], list[NightInPlay]]:
    """``nights`` split into those the group counts (oldest first) and those in play, each with why: the one
    split the view, the tab, the group file and a night taken out all read."""
    kept: list[KeptNight] = []
    in_play: list[NightInPlay] = []
    for night in nights:
        found: Counted = counted(night)
        date = night.created_at.date()
        if found.result is None:
            money = money_of(night)
            unit = money.currency if money.chip_value else None  # a NightResult's unit: its currency as written
            in_play.append(NightInPlay(night.id, night.name, date, found.in_play, found.broken, unit))
            continue
        try:
            seated_members(found.result, members)
        except (UnknownMember, MemberError) as error:
            in_play.append(NightInPlay(night.id, night.name, date, str(error)))
            continue
        kept.append(KeptNight(found.result, night.id, night.name, date))
    kept.sort(key=lambda k: k.date)  # stable: nights of one date keep the order kept
    return kept, in_play


def _periods(dates: Iterable[datetime.date]) -> tuple[Period, ...]:
    months = sorted({(d.year, d.month) for d in dates}, reverse=True)
    out: list[Period] = []
    for year in sorted({y for y, _ in months}, reverse=True):
        out.append(Period.year(year))
        out.extend(Period.month(year, m) for y, m in months if y == year)
    return tuple(out)


def _nights_stamp(nights: Iterable[tuple[int, int, str, datetime.datetime]]) -> tuple[tuple[Any, ...], ...]:
    """What a view reads of the group's nights besides their results: each one's id, version, name and start."""
    return tuple((night_id, version, name, created_at) for night_id, version, name, created_at in nights)


def _stored_stamp(group_id: int) -> tuple[tuple[Any, ...], ...]:
    """The group's nights' stamp in one plain query (no night, game or event loaded)."""
    return _nights_stamp(db.session.execute(
        select(Night.id, Night.version, Night.name, Night.created_at)
        .join(GroupNight, GroupNight.night_id == Night.id)
        .where(GroupNight.group_id == group_id)
        .order_by(GroupNight.position)
    ))


def group_view(group: Group, period: Period = ALL_TIME) -> GroupView:
    """The group as its pages show it: members, nights (those in play apart), the season of ``period``, the tab.

    Kept per group version and period in this process, with the stamp of its nights (each one's id,
    version, name and start: what a view reads of them besides their results, themselves kept per night
    version): a group's records change only with its version, a night only with its own, so the same
    version and stamp make the same view.  Only a view built from exactly ``group.version`` records is kept.
    """
    what = f"group-view {period!r}"
    kept_view = derived(what, group.id, group.version)
    if kept_view is not None and kept_view[1].name == group.name and kept_view[0] == _stored_stamp(group.id):
        return kept_view[1]  # type: ignore[no-any-return]
    rows = stored_records(group.id)
    folded = fold_records((r.kind, r.payload) for r in rows)
    nights = kept_nights(group.id)
    kept, in_play = counted_nights(counting(nights, folded), folded.members)
    results = [k.result for k in kept]
    view = GroupView(
        version=group.version,
        name=group.name,
        members=folded.members,
        nights=tuple(kept),
        in_play=tuple(in_play),
        season=season(results, folded.members, period),
        tab=tab(results, folded.members, blocked=blocked_units(in_play)),
        handles=folded.handles,
        periods=_periods(k.date for k in kept),
        left_out=tuple(
            LeftOut(n.id, n.name, n.created_at.date()) for n in nights if n.id in folded.left_out
        ),
    )
    if len(rows) == group.version:  # the records read are the version's (no later command's among them)
        keep_derived(what, group.id, group.version, (_nights_stamp((n.id, n.version, n.name, n.created_at) for n in nights), view))
    return view


def group_stamp(group: Group) -> tuple[Any, ...]:
    """All a group's pages show that is the group's, in one row: its id, version, name and links, how many
    times its nights changed without a new version (``nights_changed``), and how many nights it keeps and
    the sum of their versions.

    Two moments with the same stamp show the same season, tab and nights, so the web layer keeps a
    group's rendered page by it (web/pages/groups.py): a group's records change only with its version; a
    night's events only with its own, and a night's version only grows (and a night is never taken out
    of a group), so any event at any of its nights moves the sum and a night kept moves the count; what
    a night's version does not count (its players' link replaced, its setup edited before play, so its
    name) the service counts on the group's row in the same unit of work
    (:meth:`~companion.service.uow.UnitOfWork.night_changed_for_its_group`); a night's start never
    changes.  The group's own fields are ``group``'s as loaded, read before the page is made from them:
    a change committed since makes a newer stamp, never an older one for a newer page.  One aggregate
    over the nights' rows, where their 200 rows took 0.5 ms to read (issue 25).
    """
    count, versions = db.session.connection().execute(
        select(func.count(Night.id), func.coalesce(func.sum(Night.version), 0))
        .join(GroupNight, GroupNight.night_id == Night.id)
        .where(GroupNight.group_id == group.id)
    ).one()
    return (group.id, group.version, group.name, group.organiser_key, group.member_key, group.nights_changed,
            int(count), int(versions))


def group_stamps(group_ids: Collection[int]) -> dict[int, tuple[Any, ...]]:
    """:func:`group_stamp` of each of ``group_ids``' groups that exists, read in one statement (the push of the
    group's pages asks it after each commit it hears of, for every group a phone watches at once: web/plumbing/live_push.py).
    It ends its read at once: a watcher holds no transaction open between commits."""
    if not group_ids:
        return {}
    try:
        rows = db.session.execute(
            select(Group.id, Group.version, Group.name, Group.organiser_key, Group.member_key, Group.nights_changed,
                   func.count(Night.id), func.coalesce(func.sum(Night.version), 0))
            .select_from(Group)
            .outerjoin(GroupNight, GroupNight.group_id == Group.id)
            .outerjoin(Night, Night.id == GroupNight.night_id)
            .where(Group.id.in_(list(group_ids)))
            .group_by(Group.id)
        ).all()
        return {row[0]: (*row[:6], int(row[6]), int(row[7])) for row in rows}
    finally:
        end_reads()


def _stamp_by(column: Any) -> Any:
    return (
        select(Group.id, Group.version, Group.name, Group.organiser_key, Group.member_key, Group.nights_changed,
               func.count(Night.id), func.coalesce(func.sum(Night.version), 0))
        .select_from(Group)
        .outerjoin(GroupNight, GroupNight.group_id == Group.id)
        .outerjoin(Night, Night.id == GroupNight.night_id)
        .where(column == bindparam("key"))
        .group_by(Group.id)
    )


#: :func:`group_stamp_by_link`'s statements, made once (compiled once and cached), by the link's kind
_STAMP_BY_LINK = {True: _stamp_by(Group.organiser_key), False: _stamp_by(Group.member_key)}


def group_stamp_by_link(key: str, organiser: bool) -> tuple[Any, ...] | None:
    """:func:`group_stamp` of the group whose organiser's (or members') link is ``key``, in one statement and no
    object loaded: all a repeat request for a group's kept page asks the database; None: no such group (the
    web layer's path decides the 404).  The key is compared again in constant time by the caller."""
    statement = _STAMP_BY_LINK[organiser]
    # a read of its own, no ORM session nor transaction (issue 37)
    row = read_once(lambda connection: connection.execute(statement, {"key": key}).first())
    return None if row is None else (*row[:6], int(row[6]), int(row[7]))


def rivalry_view(group: Group, first: str, second: str, period: Period = ALL_TIME) -> Rivalry:
    """What passed between two members night after night (:func:`companion.group.season.rivalry`)."""
    folded = folded_of(group.id)
    kept, _ = counted_nights(counting(kept_nights(group.id), folded), folded.members)
    return rivalry([k.result for k in kept], folded.members, first, second, period)


def group_of_night(night: Night) -> Group | None:
    """The group ``night`` is kept in, if any (one at most)."""
    return db.session.scalar(select(Group).join(GroupNight, GroupNight.group_id == Group.id).where(GroupNight.night_id == night.id))


def handles_for_night(night: Night) -> Mapping[str, Mapping[str, PayHandle]]:
    """Each seat of ``night`` whose member gave a pay handle → that member's handles (kind → handle)."""
    pay = night_pay(night)
    return pay.handles if pay is not None else MappingProxyType({})


@dataclass(frozen=True)
class NightPay:
    """What a night's settle-up needs of the group it is kept in to offer *Pay* and *Mark paid* beside its payments.

    ``version`` is the group's version as read before its records (the page is kept by it: a handle
    set later moves it on); ``handles`` maps each seat whose member gave a handle to that member's
    handles (kind → handle).  ``blocked``: the nights (by name) whose tab records in the night's unit the
    group cannot count (:func:`blocked_at`), () when none: then nothing is offered there.  ``nights_changed``
    and ``nights_versions``: the group's nights as read before the block, as :func:`night_group_stamp` reads
    them (another night of the group may block the unit without this night's or the group's version moving).
    Nothing else of the group: never its links.
    """

    group_id: int
    version: int
    group_name: str
    handles: Mapping[str, Mapping[str, PayHandle]]
    blocked: tuple[str, ...] = ()
    nights_changed: int = 0
    nights_versions: int = 0
    #: why nothing is offered in the night's unit, in the words a refused *Mark paid* says it ("" when not blocked)
    refusal: str = ""


def night_pay(night: Night) -> NightPay | None:
    """The group ``night`` is kept in, its version and name, its members' handles by seat, and what blocks the
    night's unit in its tab; None in no group."""
    group = group_of_night(night)
    if group is None:
        return None
    # read before the records and the nights: never a stamp newer than what the page shows
    version, name, changed, versions = group.version, group.name, group.nights_changed, _nights_versions(group.id)
    folded = folded_of(group.id)
    out = {}
    for seat in night.players:
        if seat in folded.members and folded.members.member(seat) in folded.handles:
            out[seat] = folded.handles[folded.members.member(seat)]
    blocked = _blocked_in(group, night)
    refusal = _blocked_sentence(night, blocked) if blocked else ""
    return NightPay(group.id, version, name, MappingProxyType(out), blocked, changed, versions, refusal)


def _nights_versions(group_id: int) -> int:
    """The sum of the group's nights' versions, as the night's link reads it (web/plumbing/links.py): any event at any
    of them moves it on (a night's version only grows, and a night is never taken out of its group's rows)."""
    total = db.session.scalar(
        select(func.coalesce(func.sum(Night.version), 0))
        .join(GroupNight, GroupNight.night_id == Night.id).where(GroupNight.group_id == group_id)
    )
    return int(total or 0)


def blocked_at(night: Night) -> tuple[str, ...]:
    """The nights (by name) holding what the tab of the group ``night`` is kept in cannot count in ``night``'s unit
    (its currency; chips on a chips-only night): the tab then offers and takes no payment in that unit
    (:attr:`GroupView.blocked`), and neither may the night (issue 35): a payment marked there could be a wrong
    one.  () for a night in no group, a night taken out of its group (the tab does not count it), or a unit the
    tab settles as usual."""
    group = group_of_night(night)
    return () if group is None else _blocked_in(group, night)


def _blocked_in(group: Group, night: Night) -> tuple[str, ...]:
    view = group_view(group)
    if any(n.night_id == night.id for n in view.left_out):
        return ()
    money = money_of(night)
    unit = money.currency if money.chip_value else None  # a NightResult's unit: its currency as written
    return tuple(view.blocked.get(unit, ()))


def refuse_paid_where_blocked(night: Night) -> None:
    """IllegalAction when a payment marked paid at ``night`` is in a unit its group's tab cannot settle
    (:func:`blocked_at`), as the group's own pages refuse one (:class:`~companion.group.tab.Unreconciled`).

    The other nights are read, not locked (a night's command locks its own night and no other): a command of
    the group that blocks the unit at the same moment then simply comes after this payment, which it does not
    read, and one that unblocks it before, which the payer may try again."""
    names = blocked_at(night)
    if names:
        raise IllegalAction(_blocked_sentence(night, names))


def _blocked_sentence(night: Night, names: Sequence[str]) -> str:
    """Why nothing is marked paid at ``night`` in its unit while ``names`` block it, as the group's page says it."""
    money = money_of(night)
    unit = money.currency if money.chip_value else "chips"
    one = len(names) == 1
    return (
        f"nothing can be marked paid in {unit} while {', '.join(names)} {'holds' if one else 'hold'} tab records the "
        f"group cannot count, so a payment marked in {unit} could be a wrong one: the group's organiser can take "
        f"{'that night' if one else 'those nights'} out of the group"
    )
