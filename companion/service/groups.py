"""A group across nights, stored: open one, keep nights in it, its members and pay handles, its tab.

The group's pure core (:mod:`companion.group`) says what a group is; this module stores it and
builds it back.  A group is a row (:class:`~companion.db.models.Group`: its name, two secret
links, its version) and its records, appended only (:class:`~companion.db.models.GroupRecord`):

* ``member_added`` ``{name}``, ``member_merged`` ``{kept, merged}``, ``member_renamed`` ``{old, new}``
  (the member records :func:`companion.group.members.members_from` folds; names as shown then);
* ``handle_set`` ``{member, kind, value}`` and ``handle_removed`` ``{member, kind}`` (a member's pay
  handles, :mod:`companion.group.pay_links`; a handle follows its member through a rename or a
  merge, the kept member's own handle winning);
* ``night_kept`` ``{night_id}``, written with the night's :class:`~companion.db.models.GroupNight` row;
* ``member_link_made`` ``{member}``: the organiser made a member's own link (issue 35, item 7), written with its
  :class:`~companion.db.models.MemberLink` row (the secret is in the row alone, never in a record);
* ``night_left_out`` ``{night_id}`` and ``night_put_back`` ``{night_id}``: the organiser took a kept night out
  of the group's season and tab (its row stays: it is in no other group, and its own payments stay with it),
  or put it back (issue 35);
* ``tab_paid`` ``{payer, payee, amount, unit, ref, confirmed_by}``: a payment through the tab,
  written with the ``tab_cleared`` events it appends to the nights it clears
  (:func:`companion.group.tab.pay` decides which), in the same unit of work.

Every command goes through the unit of work (:meth:`~companion.service.uow.UnitOfWork.group_command`):
the group's row locked, its version compared and set, the request key answered once.  What a
command refuses is one of :data:`GROUP_REFUSALS`, with a sentence for the page.  The views
(:func:`group_view`, :func:`rivalry_view`) build every night's
:class:`~companion.group.nights.NightResult` from the stored night (:mod:`.group_nights`, kept
per version).  See docs/group.md ("Stored").
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from sqlalchemy import bindparam, func, select

from companion.db.models import Group, GroupNight, GroupRecord, MemberLink, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.games.night_kinds import PAID, TAB_CLEARED
from companion.group import file as groupfile
from companion.group.members import (
    Added,
    MemberError,
    MemberRecord,
    Members,
    MemberFold,
    Merged,
    Renamed,
    UnknownMember,
    member_name,
    members_from,
    name_key,
)
from companion.group.nights import Cleared, NightResult
from companion.group.pay_links import Iban, PayHandle, PayPalMe, Revolut, Venmo, read_iban, read_paypal_me, read_revolut, read_venmo
from companion.group.season import ALL_TIME, Period, Rivalry, Season, rivalry, season, seated_members
from companion.group.tab import Overpayment, Tab, TabPayment, check_payment, pay, read_payment, tab, unreconciled
from companion.night import file as nightfile
from companion.service.group_nights import Counted, counted, night_file_of
from companion.service.night_ledger import paid_payments, tab_records
from companion.service.nights import new_night, night_from_file
from companion.service.store import derived, keep_derived, money_of
from companion.service.uow import GroupCommand, GroupEntry, GroupRecorded, UnitOfWork, digest, end_reads, new_key
from companion.values.limits import MAX_NIGHT_NAME
from companion.values.reading import Unreadable, name as read_name

__all__ = [
    "GROUP_REFUSALS", "GroupView", "HANDLE_KINDS", "KeptNight", "NextNightDefaults", "NightInPlay", "UnknownPlayers",
    "add_member", "export_group", "group_for_member", "group_for_organiser", "group_of_night", "group_stamp", "group_view",
    "blocked_at", "handles_for_night", "import_group", "night_pay", "NightPay", "keep_night", "merge_members",
    "next_night_defaults", "open_group", "open_night_in_group", "pay_tab", "read_payment", "refuse_paid_where_blocked", "remove_handle",
    "rename_member", "rivalry_view", "rotate_group_link", "set_handle",
]

#: the kinds of pay handle a member may give, one each, in the order shown
HANDLE_KINDS = ("paypal", "revolut", "venmo", "iban")
#: each kind's key in the group file (companion-group/1)
_FILE_KEYS = {"paypal": "paypal_me", "revolut": "revolut", "venmo": "venmo", "iban": "iban"}
#: the organiser confirms a payment; a payee confirms with their member name ("I got it")
ORGANISER = "organiser"
#: what a night's tab records say they were recorded by
TAB_RECORDER = "group tab"
#: the reference of the tab's records made from a group file (which keeps no payment references)
IMPORTED_REF = "imported with the group file"
MAX_REF = 80


class UnknownPlayers(UnknownMember):
    """Players of a night no member goes by: add them (``add_new``) or merge them into a member first."""

    def __init__(self, names: Sequence[str], members: Iterable[str]) -> None:
        known = ", ".join(members) or "none yet"
        listed = ", ".join(repr(n) for n in names)
        LookupError.__init__(
            self, f"no member of the group is called {listed} (members: {known}); add or merge each first"
        )
        self.name = names[0]
        self.names = tuple(names)


#: every refusal of a group command, each with a sentence for the page (nothing was written)
GROUP_REFUSALS: tuple[type[Exception], ...] = (
    IllegalAction, Unreadable, MemberError, UnknownMember, Overpayment, groupfile.GroupFileError,
)


# --- reading a group back ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Folded:
    """The group's records folded: its member records, members, and each member's handles."""

    records: tuple[MemberRecord, ...]
    members: Members
    handles: Mapping[str, Mapping[str, PayHandle]]
    #: the kept nights taken out of the group (``night_left_out``, not put back since), by id
    left_out: frozenset[int] = frozenset()


def _records(group_id: int) -> list[GroupRecord]:
    return list(db.session.scalars(select(GroupRecord).where(GroupRecord.group_id == group_id).order_by(GroupRecord.seq)))


def _member_record(kind: str, payload: Mapping[str, Any]) -> MemberRecord | None:
    if kind == "member_added":
        return Added(payload["name"])
    if kind == "member_merged":
        return Merged(payload["kept"], payload["merged"])
    if kind == "member_renamed":
        return Renamed(payload["old"], payload["new"])
    return None


def _fold(rows: Iterable[tuple[str, Mapping[str, Any]]]) -> _Folded:
    """Members and handles from the records in order (each handle follows its member's renames and merges)."""
    fold = MemberFold(stored=True)  # a name stored before issue 36 may hold what a name coming in may not
    records: list[MemberRecord] = []
    handles: dict[str, dict[str, PayHandle]] = {}
    left_out: set[int] = set()
    for kind, payload in rows:
        if kind == "night_left_out":
            left_out.add(payload["night_id"])
        elif kind == "night_put_back":
            left_out.discard(payload["night_id"])
        record = _member_record(kind, payload)
        if record is not None:
            records.append(record)
            # who the record's names were just before it (a handle follows its member), then the record applied
            if isinstance(record, Renamed):
                old = fold.member(record.old)
                fold.apply(record)
                if old in handles:
                    handles[member_name(record.new, stored=True)] = handles.pop(old)
            elif isinstance(record, Merged):
                kept, merged = fold.member(record.kept), fold.member(record.merged)
                fold.apply(record)
                theirs = handles.pop(merged, {})
                handles.setdefault(kept, {})
                for k, h in theirs.items():
                    handles[kept].setdefault(k, h)
            else:
                fold.apply(record)
        elif kind == "handle_set":
            handles.setdefault(payload["member"], {})[payload["kind"]] = _handle(payload["kind"], payload["value"], stored=True)
        elif kind == "handle_removed":
            handles.get(payload["member"], {}).pop(payload["kind"], None)
    members = fold.members
    shown = {
        member: MappingProxyType({k: held[k] for k in HANDLE_KINDS if k in held})
        for member in members.names
        if (held := handles.get(member))
    }
    return _Folded(tuple(records), members, MappingProxyType(shown), frozenset(left_out))


def _folded(group_id: int) -> _Folded:
    return _fold((r.kind, r.payload) for r in _records(group_id))


def _handle(kind: str, value: Mapping[str, Any], stored: bool = False) -> PayHandle:
    """A handle of ``kind`` read from what a form (or a record: ``stored``) says: ``{"username"}``, or an IBAN's
    ``{"iban", "holder", "bic"}``."""
    if not isinstance(value, Mapping):
        raise Unreadable("a pay handle is given as its fields")
    if kind == "iban":
        return read_iban(value.get("iban", ""), value.get("holder", ""), value.get("bic", "") or "", stored=stored)
    readers = {"paypal": read_paypal_me, "revolut": read_revolut, "venmo": read_venmo}
    if kind not in readers:
        raise IllegalAction(f"a pay handle is one of {', '.join(HANDLE_KINDS)}, not {kind!r}")
    return readers[kind](value.get("username", ""))


def _handle_value(handle: PayHandle) -> dict[str, str]:
    if isinstance(handle, Iban):
        return {"iban": handle.iban, "holder": handle.holder, "bic": handle.bic}
    return {"username": handle.username}


def _kind_of(handle: PayHandle) -> str:
    return {PayPalMe: "paypal", Revolut: "revolut", Venmo: "venmo", Iban: "iban"}[type(handle)]


def _kept_nights(group_id: int, lock: UnitOfWork | None = None) -> list[Night]:
    """The group's nights in the order kept; through ``lock`` their rows are locked (ids in order)."""
    ids = list(
        db.session.scalars(select(GroupNight.night_id).where(GroupNight.group_id == group_id).order_by(GroupNight.position))
    )
    if lock is not None:  # after the group's row: the group, then its nights by id, for every writer
        locked = lock.nights(ids)
        return [locked[night_id] for night_id in ids]
    nights = {n.id: n for n in db.session.scalars(select(Night).where(Night.id.in_(ids)))} if ids else {}
    return [nights[i] for i in ids]


def _counting(nights: Sequence[Night], folded: _Folded) -> list[Night]:
    """The kept nights the group counts: all but those taken out (``night_left_out``)."""
    return [n for n in nights if n.id not in folded.left_out]


# --- the view of a group -------------------------------------------------------------------------


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


def _blocked_units(in_play: Iterable[NightInPlay]) -> dict[str | None, list[str]]:
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


def _counted_nights(nights: Sequence[Night], members: Members) -> tuple[list[KeptNight], list[NightInPlay]]:
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
    rows = _records(group.id)
    folded = _fold((r.kind, r.payload) for r in rows)
    nights = _kept_nights(group.id)
    kept, in_play = _counted_nights(_counting(nights, folded), folded.members)
    results = [k.result for k in kept]
    view = GroupView(
        version=group.version,
        name=group.name,
        members=folded.members,
        nights=tuple(kept),
        in_play=tuple(in_play),
        season=season(results, folded.members, period),
        tab=tab(results, folded.members, blocked=_blocked_units(in_play)),
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
    group's rendered page by it (web/groups.py): a group's records change only with its version; a
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
    group's pages asks it after each commit it hears of, for every group a phone watches at once: web/live_push.py).
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
    with db.engine.connect() as connection:  # a read of its own, no ORM session: a third of the cost (issue 37)
        row = connection.execute(_STAMP_BY_LINK[organiser], {"key": key}).first()
    return None if row is None else (*row[:6], int(row[6]), int(row[7]))


def rivalry_view(group: Group, first: str, second: str, period: Period = ALL_TIME) -> Rivalry:
    """What passed between two members night after night (:func:`companion.group.season.rivalry`)."""
    folded = _folded(group.id)
    kept, _ = _counted_nights(_counting(_kept_nights(group.id), folded), folded.members)
    return rivalry([k.result for k in kept], folded.members, first, second, period)


def group_for_organiser(key: str) -> Group | None:
    return db.session.scalar(select(Group).where(Group.organiser_key == key)) if key else None


def group_for_member(key: str) -> Group | None:
    return db.session.scalar(select(Group).where(Group.member_key == key)) if key else None


def member_links(group: Group, members: Members | None = None) -> dict[str, str]:
    """Each member's own link key, by the member's name now (only members the organiser made one for): the
    latest link made for them; one made under a name since renamed or merged follows its member.  ``members``:
    the group's members as the caller folded them already (its view's), else folded here."""
    members = members if members is not None else _folded(group.id).members
    out: dict[str, str] = {}
    for name, key in db.session.execute(
        select(MemberLink.member, MemberLink.key).where(MemberLink.group_id == group.id).order_by(MemberLink.id)
    ):
        if name in members:
            out[members.member(name)] = key  # a later link replaces an earlier one
    return out


def group_for_member_link(key: str) -> tuple[Group, str] | None:
    """The group and the member whose own link ``key`` is, if it is still their latest; None otherwise."""
    if not key:
        return None
    row = db.session.scalar(select(MemberLink).where(MemberLink.key == key))
    if row is None:
        return None
    group = db.session.get(Group, row.group_id)
    if group is None:
        return None
    member = next((m for m, latest in member_links(group).items() if latest == key), None)
    return (group, member) if member is not None else None


def make_member_link(group_id: int, member: str, expected_version: int, request_key: str | None) -> GroupRecorded:
    """A new own link for ``member`` (the one before, if any, opens nothing from now on): a ``member_link_made``
    record and its :class:`MemberLink` row, in one unit of work.  Refused: a name no member goes by, a stale
    version."""
    said = {"member": member_name(member, "the member")}

    def decide(uow: UnitOfWork, group: Group) -> GroupEntry:
        members = _folded(group.id).members
        who = members.member(said["member"])
        db.session.add(MemberLink(group_id=group.id, member=who, key=new_key()))
        return GroupEntry((("member_link_made", {"member": who}),), f"{who} has a link of their own")

    command = GroupCommand(group_id, "member_link_made", said, expected_version, request_key,
                           summary_again="Already made: the link is on the page.")
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)


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
    folded = _folded(group.id)
    out = {}
    for seat in night.players:
        if seat in folded.members and folded.members.member(seat) in folded.handles:
            out[seat] = folded.handles[folded.members.member(seat)]
    blocked = _blocked_in(group, night)
    refusal = _blocked_sentence(night, blocked) if blocked else ""
    return NightPay(group.id, version, name, MappingProxyType(out), blocked, changed, versions, refusal)


def _nights_versions(group_id: int) -> int:
    """The sum of the group's nights' versions, as the night's link reads it (web/links.py): any event at any
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


# --- opening a group, its links ------------------------------------------------------------------


def _group_name(name: object) -> str:
    read = read_name(name, "the group's name", max_length=MAX_NIGHT_NAME)
    if not read:
        raise Unreadable("the group's name cannot be empty")
    return read


def _new_group(name: str) -> Group:
    return Group(name=name, organiser_key=new_key(), member_key=new_key(), version=0)


def _refuse_kept(night_id: int) -> None:
    """IllegalAction when the night is kept in a group already (a night is in one group at most)."""
    if db.session.scalar(select(GroupNight.id).where(GroupNight.night_id == night_id)) is not None:
        raise IllegalAction("this night is already kept in a group")


#: the largest id a row can have (a 32-bit integer column): a larger number names no night
MAX_ID = 2**31 - 1


def _check_night_id(night_id: object) -> None:
    """IllegalAction for a night id that cannot name a stored night (not a whole number, or out of the column's
    range: PostgreSQL would refuse to compare it), as for an id that names none."""
    if isinstance(night_id, bool) or not isinstance(night_id, int) or not 1 <= night_id <= MAX_ID:
        raise IllegalAction("this night does not exist")


def _refuse_unkeepable(night: Night) -> None:
    """IllegalAction for a night no group may keep: one kept in a group already, or one holding records of a
    group's tab (imported with its night file: another tab appended them, and this one, which did not make
    them, could not count them: issue 35)."""
    _refuse_kept(night.id)
    if tab_records(night):
        raise IllegalAction(
            f"{night.name} holds records of another group's tab settling it (imported with its night file): this "
            "group's tab did not make them and cannot count them, so the night cannot be kept in a group"
        )


def _keep(uow: UnitOfWork, group: Group, night_id: int) -> None:
    """The night's row in the group, after the nights kept so far."""
    position = db.session.scalar(select(func.max(GroupNight.position)).where(GroupNight.group_id == group.id)) or 0
    db.session.add(GroupNight(group_id=group.id, night_id=night_id, position=position + 1))


def open_group(name: str, request_key: str | None = None, from_night: Night | None = None) -> Group:
    """A new group; with ``from_night``, that night is kept in it and its players are its first members.

    The same request key again finds the group the first one opened.  Refused (nothing written):
    an empty or too long name; a night already kept in a group.
    """
    read = _group_name(name)
    night_id = from_night.id if from_night is not None else None
    with UnitOfWork() as uow:

        def then(group: Group) -> None:
            if night_id is None:
                return
            night = uow.night(night_id)
            _refuse_unkeepable(night)
            records: list[tuple[str, dict[str, Any]]] = [("member_added", {"name": member_name(p)}) for p in night.players]
            members_from(_member_record(k, p) for k, p in records)  # type: ignore[misc]  # checks two seats are not one name
            records.append(("night_kept", {"night_id": night_id}))
            uow.add_group_records(group, records, None, ORGANISER)
            _keep(uow, group, night_id)

        return uow.add_group(request_key, digest("group", read, night_id), lambda: _new_group(read), then)


def rotate_group_link(group: Group, which: str) -> None:
    """Replace the organiser's or the members' secret; the old link stops working."""
    if which not in ("organiser", "members"):
        raise IllegalAction("choose the organiser's or the members' link")
    group_id = group.id
    with UnitOfWork() as uow:
        locked = uow.group(group_id)
        if which == "organiser":
            locked.organiser_key = new_key()
        else:
            locked.member_key = new_key()
        uow.commit()


# --- members and handles -------------------------------------------------------------------------


def _member_command(
    group_id: int, kind: str, payload: dict[str, Any], expected_version: int, request_key: str | None, summary: str,
    check: Any = None,
) -> GroupRecorded:
    """Append one member or handle record, once per key, at the version expected; ``check(folded)`` may refuse."""

    def decide(uow: UnitOfWork, group: Group) -> GroupEntry:
        rows = [(r.kind, r.payload) for r in _records(group.id)]
        before = _fold(rows)
        if check is not None:
            check(before)
        try:
            after = _fold([*rows, (kind, payload)])
        except MemberError as error:  # "member record 7: ...": said without its position
            raise MemberError(str(error).partition(": ")[2] or str(error)) from None
        _refuse_one_member_twice_at_a_night(group.id, after.members)
        return GroupEntry(((kind, payload),), summary)

    command = GroupCommand(group_id, kind, payload, expected_version, request_key, summary_again=summary)
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)


def _refuse_one_member_twice_at_a_night(group_id: int, members: Members) -> None:
    """MemberError when two players of one kept night would be one member (a wrong merge)."""
    for night in _kept_nights(group_id):
        seen: dict[str, str] = {}
        for seat in night.players:
            if seat not in members:
                continue
            member = members.member(seat)
            if member in seen:
                raise MemberError(
                    f"{seen[member]!r} and {seat!r} both played {night.name!r}: they cannot be one member"
                )
            seen[member] = seat


def add_member(group_id: int, name: str, expected_version: int, request_key: str | None) -> GroupRecorded:
    """A new member (refused when a member already goes by that name)."""
    read = member_name(name)
    return _member_command(group_id, "member_added", {"name": read}, expected_version, request_key, f"{read} joined the group")


def merge_members(group_id: int, kept: str, merged: str, expected_version: int, request_key: str | None) -> GroupRecorded:
    """``merged`` is the same person as ``kept``: their nights count for ``kept`` from now on.

    Refused: a name no member goes by, a member merged with itself, two names that played one night."""
    folded = _folded(group_id)
    one, other = folded.members.member(member_name(kept)), folded.members.member(member_name(merged))
    payload = {"kept": one, "merged": other}
    return _member_command(group_id, "member_merged", payload, expected_version, request_key, f"{other} is now {one}")


def rename_member(group_id: int, old: str, new: str, expected_version: int, request_key: str | None) -> GroupRecorded:
    """The member ``old`` is shown as ``new``; their nights still count for them."""
    folded = _folded(group_id)
    member = folded.members.member(member_name(old))
    read = member_name(new, "the new name")
    payload = {"old": member, "new": read}
    return _member_command(group_id, "member_renamed", payload, expected_version, request_key, f"{member} is now called {read}")


def set_handle(
    group_id: int, member: str, kind: str, value: Mapping[str, str], expected_version: int, request_key: str | None
) -> GroupRecorded:
    """``member``'s pay handle of ``kind`` ("paypal", "revolut", "venmo": ``{"username"}``; "iban":
    ``{"iban", "holder", "bic"}``), read by its reader; it replaces the one they gave before."""
    if kind not in HANDLE_KINDS:
        raise IllegalAction(f"a pay handle is one of {', '.join(HANDLE_KINDS)}, not {kind!r}")
    who = _folded(group_id).members.member(member_name(member))
    handle = _handle(kind, value)
    payload = {"member": who, "kind": kind, "value": _handle_value(handle)}
    return _member_command(group_id, "handle_set", payload, expected_version, request_key, f"{who}'s {kind} is set")


def remove_handle(group_id: int, member: str, kind: str, expected_version: int, request_key: str | None) -> GroupRecorded:
    """``member`` no longer gives a pay handle of ``kind`` (refused when they gave none)."""
    who = _folded(group_id).members.member(member_name(member))

    def check(folded: _Folded) -> None:
        if kind not in folded.handles.get(who, {}):
            raise IllegalAction(f"{who} gives no {kind} handle")

    payload = {"member": who, "kind": kind}
    return _member_command(group_id, "handle_removed", payload, expected_version, request_key, f"{who}'s {kind} is removed", check)


# --- keeping nights ------------------------------------------------------------------------------


def _member_records_for(players: Sequence[str], members: Members, add_new: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """The ``member_added`` records a night's players need: UnknownPlayers when one is neither a member nor
    in ``add_new``; refused when ``add_new`` names someone who did not play, or a member already."""
    wanted = {name_key(member_name(n)): n for n in add_new}
    seats = {name_key(p): p for p in players}
    for key, name in wanted.items():
        if key not in seats:
            raise IllegalAction(f"{name!r} did not play this night")
        if seats[key] in members:
            raise MemberError(f"{seats[key]!r} is already {members.member(seats[key])!r}")
    unknown = [p for p in players if p not in members and name_key(p) not in wanted]
    if unknown:
        raise UnknownPlayers(unknown, members.names)
    return [("member_added", {"name": member_name(p)}) for p in players if name_key(p) in wanted]


def _check_seating(players: Sequence[str], members: Members, what: str) -> None:
    seen: dict[str, str] = {}
    for seat in players:
        member = members.member(seat)
        if member in seen:
            raise MemberError(f"{seen[member]!r} and {seat!r} both play {what}: they cannot be one member ({member!r})")
        seen[member] = seat


def keep_night(
    group_id: int, night_id: int, expected_version: int, request_key: str | None, add_new: tuple[str, ...] = ()
) -> GroupRecorded:
    """Keep a night in the group: its players must be members (or be added, ``add_new``).

    Refused (nothing written): a player no member goes by and not in ``add_new``
    (:class:`UnknownPlayers`, listing them), two players who are one member, a night already
    kept in a group (this one or another), a night holding another tab's records, a stale version.
    """

    _check_night_id(night_id)

    def decide(uow: UnitOfWork, group: Group) -> GroupEntry:
        # locked after the group's row (the one order every writer takes): a payment marked at the night at the
        # same moment is seen by the group once kept, or sees the night kept (then checked against the tab)
        night = uow.night(night_id)
        _refuse_unkeepable(night)
        rows = [(r.kind, r.payload) for r in _records(group.id)]
        members = _fold(rows).members
        added = _member_records_for(night.players, members, add_new)
        after = _fold([*rows, *added]).members
        _check_seating(night.players, after, repr(night.name))
        _keep(uow, group, night_id)
        return GroupEntry((*added, ("night_kept", {"night_id": night_id})), f"{night.name} is kept in the group")

    command = GroupCommand(group_id, "night_kept", {"night_id": night_id}, expected_version, request_key,
                           summary_again="The night is kept in the group.")
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)


def leave_out_night(group_id: int, night_id: int, expected_version: int, request_key: str | None) -> GroupRecorded:
    """Take a kept night out of the group's season and tab (a ``night_left_out`` record; the night keeps its own
    payments and events, and stays this group's, so it can be put back).

    Refused (nothing written): a night not kept here or already taken out; a night whose tab records belong to
    a payment that also cleared other nights here (their records would stand alone: take them out together, or
    not at all); a stale version."""
    return _move_night(group_id, night_id, expected_version, request_key, out=True)


def put_back_night(group_id: int, night_id: int, expected_version: int, request_key: str | None) -> GroupRecorded:
    """Count a night taken out of the group again (a ``night_put_back`` record).  Refused as
    :func:`leave_out_night` is, the other way round."""
    return _move_night(group_id, night_id, expected_version, request_key, out=False)


def _move_night(group_id: int, night_id: int, expected_version: int, request_key: str | None, out: bool) -> GroupRecorded:
    _check_night_id(night_id)
    kind = "night_left_out" if out else "night_put_back"

    def decide(uow: UnitOfWork, group: Group) -> GroupEntry:
        folded = _folded(group.id)
        nights = _kept_nights(group.id, lock=uow)
        night = next((n for n in nights if n.id == night_id), None)
        if night is None:
            raise IllegalAction("this night is not kept in the group")
        if out == (night_id in folded.left_out):
            raise IllegalAction(f"{night.name} is {'already taken out of' if out else 'counted in'} the group")
        before = _unreconciled(_counting(nights, folded), folded.members)
        after_left = folded.left_out | {night_id} if out else folded.left_out - {night_id}
        after = _unreconciled([n for n in nights if n.id not in after_left], folded.members)
        newly = {unit for unit, ids in after.items() if set(ids) - set(before.get(unit, ()))}
        if newly:
            raise IllegalAction(
                f"{night.name} was settled through the tab together with other nights of the group: "
                f"{'without it' if out else 'with it'} their tab records would not add up, so it "
                f"{'cannot be taken out' if out else 'cannot be put back'} alone"
            )
        what = "is taken out of the group: its season and tab no longer count it" if out else "counts in the group again"
        return GroupEntry(((kind, {"night_id": night_id}),), f"{night.name} {what}")

    command = GroupCommand(group_id, kind, {"night_id": night_id}, expected_version, request_key,
                           summary_again="Already recorded.")
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)


def _unreconciled(nights: Sequence[Night], members: Members) -> dict[str | None, list[str]]:
    """The units whose tab records over ``nights`` do not add up (:func:`companion.group.tab.unreconciled`)."""
    kept, _ = _counted_nights(nights, members)
    return unreconciled([k.result for k in kept], members)


def open_night_in_group(
    group_id: int,
    name: str,
    players: list[str],
    money: nightfile.Money,
    first: Mapping[str, Any],
    request_key: str | None = None,
    add_new: tuple[str, ...] = (),
) -> Night:
    """A new night started from the group's page, kept in the group in the same unit of work (both or neither).

    As :func:`companion.service.nights.open_night`, and its players must be members (or in ``add_new``).
    """
    said = digest("create", name, players, str(money.chip_value), money.currency, dict(first), "group", group_id, list(add_new))
    with UnitOfWork() as uow:

        def then(night: Night) -> None:
            group = uow.group(group_id)
            rows = [(r.kind, r.payload) for r in _records(group.id)]
            added = _member_records_for(night.players, _fold(rows).members, add_new)
            _check_seating(night.players, _fold([*rows, *added]).members, "this night")
            uow.add_group_records(group, [*added, ("night_kept", {"night_id": night.id})], None, ORGANISER)
            _keep(uow, group, night.id)

        return uow.add_night(request_key, said, lambda: new_night(name, players, money, first), also=then)[0]


@dataclass(frozen=True)
class NextNightDefaults:
    """What a new night from the group's page starts with: the last night's players in their seats (by their
    member names), the first dealer one seat on, its chip value, currency and first game."""

    name: str
    players: tuple[str, ...]
    first_dealer: str
    chip_value: Decimal
    currency: str
    kind: str | None  # the first game's kind (None: the group has no night yet)
    rules: Mapping[str, Any] = field(default_factory=dict)


def next_night_defaults(group: Group) -> NextNightDefaults:
    """The next night as the last one was, the deal one seat on (the group's members when it has no night),
    named after the group and its count of nights ("Fridays #3"), so two nights of one day are told apart."""
    members = _folded(group.id).members
    nights = _kept_nights(group.id)
    tail = f" #{len(nights) + 1}"
    name = group.name[: MAX_NIGHT_NAME - len(tail)].rstrip() + tail
    if not nights:
        names = members.names
        return NextNightDefaults(name, names, names[0] if names else "", Decimal(0), "", None)
    last = nights[-1]
    shown = [members.member(p) if p in members else p for p in last.players]
    game = last.games[0]
    seat = last.players.index(game.first_dealer) if game.first_dealer in last.players else -1
    dealer = shown[(seat + 1) % len(shown)]
    return NextNightDefaults(
        name, tuple(shown), dealer, Decimal(last.chip_value or 0), last.currency or "", game.kind,
        MappingProxyType(dict(game.rules)),
    )


# --- the tab -------------------------------------------------------------------------------------


def _amount_text(amount: Decimal, unit: str | None) -> str:
    """An amount as a record holds it: whole chips ("12", "-12"), or exact money ("2.50", "0.125")."""
    return f"{int(amount)}" if unit is None else f"{amount:f}"


def _ref(group_name: str, seq: int) -> str:
    tail = f" · tab #{seq}"
    return group_name[: MAX_REF - len(tail)].rstrip() + tail


def _records_of(payments: Sequence[TabPayment], cleared: Sequence[Cleared], members: Members) -> list[list[Cleared]]:
    """``cleared`` (as :func:`~companion.group.tab.pay` returns them) split per payment, in order; the offsets
    after them are the last list."""
    out: list[list[Cleared]] = []
    rest = list(cleared)
    for payment in payments:
        payer, payee = members.member(payment.payer), members.member(payment.payee)
        mine: list[Cleared] = []
        paid = received = Decimal(0)
        while rest and (paid < payment.amount or received < payment.amount):
            record = rest[0]
            if record.offset or (record.payer, record.payee) != (payer, payee):
                break
            if record.amount > 0:
                paid += record.amount
            else:
                received -= record.amount
            mine.append(rest.pop(0))
        out.append(mine)
    out.append(rest)
    return out


#: the most payments one submit makes (the fewest-payments plan of a large group is far fewer)
MAX_PAYMENTS = 100


def _refuse_other_units(payments: Sequence[TabPayment], units: Sequence[str | None]) -> None:
    """IllegalAction for a payment in a unit none of the group's counted nights is played in: a currency they
    do not use, or chips when every night is played for money (or money when every night is for chips)."""
    for payment in payments:
        if payment.unit not in units:
            used = sorted({u or "chips" for u in units}) or ["none yet"]
            asked = payment.unit or "chips"
            raise IllegalAction(
                f"no night of the group is counted in {asked}: a payment through the tab is in what its nights "
                f"are played in ({', '.join(used)})"
            )


def pay_tab(
    group_id: int,
    payments: Sequence[TabPayment],
    expected_version: int,
    request_key: str | None,
    confirmed_by: str = ORGANISER,
) -> GroupRecorded:
    """Payments through the tab: one ``tab_paid`` record each, and the ``tab_cleared`` events they append to the
    nights they clear (oldest first, :func:`companion.group.tab.pay`), in one unit of work, or nothing at all.

    ``confirmed_by`` is "organiser", or the payee's member name ("I got it", from the members' page: then
    every payment must be to them).  Refused (nothing written): :class:`Overpayment`, a name no member goes
    by, a payee confirming another's payment, a stale version.
    """
    if isinstance(payments, (str, bytes)) or not isinstance(payments, Sequence) or not payments:
        raise IllegalAction("choose at least one payment")
    if len(payments) > MAX_PAYMENTS:
        raise IllegalAction(f"at most {MAX_PAYMENTS} payments at once")
    payments = [check_payment(p) for p in payments]

    def decide(uow: UnitOfWork, group: Group) -> GroupEntry:
        folded = _folded(group.id)
        members = folded.members
        confirmer = ORGANISER if confirmed_by == ORGANISER else members.member(member_name(confirmed_by))
        for p in payments:
            if members.member(p.payer) == members.member(p.payee):
                raise IllegalAction(f"{p.payer} and {p.payee} are one member: nobody pays themselves")
        if confirmer != ORGANISER and any(members.member(p.payee) != confirmer for p in payments):
            raise IllegalAction(f"{confirmer} can say only that they got a payment to them")
        nights = _counting(_kept_nights(group.id, lock=uow), folded)
        kept, in_play = _counted_nights(nights, members)
        results = {k.result.night_id: k.result for k in kept}
        _refuse_other_units(payments, [r.unit for r in results.values()])
        cleared = pay(list(results.values()), members, payments, _blocked_units(in_play))
        per_payment = _records_of(payments, cleared, members)
        records: list[tuple[str, dict[str, Any]]] = []
        refs: list[str] = []
        for offset, payment in enumerate(payments, start=1):
            ref = _ref(group.name, group.version + offset)
            refs.append(ref)
            records.append(("tab_paid", {
                "payer": members.member(payment.payer), "payee": members.member(payment.payee),
                "amount": _amount_text(payment.amount, payment.unit), "unit": payment.unit or "",
                "ref": ref, "confirmed_by": confirmer,
            }))
        events: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        for ref, batch in zip([*refs, refs[-1]], per_payment):
            for record in batch:
                result = results[record.night_id]
                seat = {m: s for s, m in seated_members(result, members).items()}[members.member(record.member)]
                events.setdefault(int(record.night_id), []).append((TAB_CLEARED, {
                    "player": seat, "amount": _amount_text(record.amount, result.unit),
                    "payer": record.payer, "payee": record.payee, "ref": ref,
                }))
        shown = "; ".join(
            f"{r[1]['payer']} paid {r[1]['payee']} {r[1]['amount']} {r[1]['unit'] or 'chips'}" for r in records
        )
        return GroupEntry(tuple(records), f"{shown} (through the tab)", dict(sorted(events.items())))

    # what the key's record (the last payment's) says, names as the group shows them (read before the unit: a
    # name no member goes by is refused here, and the unit reads the members again under the group's lock)
    members = _folded(group_id).members
    last = payments[-1]
    said = {"payer": members.member(last.payer), "payee": members.member(last.payee),
            "amount": _amount_text(last.amount, last.unit), "unit": last.unit or "",
            "confirmed_by": confirmed_by if confirmed_by == ORGANISER else members.member(member_name(confirmed_by))}
    command = GroupCommand(group_id, "tab_paid", said, expected_version, request_key, recorded_by=confirmed_by,
                           filled_in=("ref",), summary_again="The payment is recorded.")
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)


# --- the group file ------------------------------------------------------------------------------


def export_group(group: Group) -> str:
    """The group as a ``companion-group/1`` file (docs/group-file.md): its member records, handles, and every
    night that counts (a night in play, or taken out of the group, is left out: the file holds nights that settle)."""
    folded = _folded(group.id)
    nights = _counting(_kept_nights(group.id), folded)
    kept, _ = _counted_nights(nights, folded.members)
    by_id = {n.id: n for n in nights}
    entries = tuple(
        groupfile.GroupNight(k.date, night_file_of(by_id[k.night_id]), paid_payments(by_id[k.night_id]), k.result)
        for k in kept
    )
    handles = {m: tuple(h.values()) for m, h in folded.handles.items()}
    return groupfile.dumps(
        groupfile.GroupFile(group.name, folded.records, folded.members, MappingProxyType(handles), entries)
    )


def import_group(text_: str | bytes, request_key: str | None = None) -> Group:
    """A new group from a ``companion-group/1`` file: its members, handles and nights (each a new night, with its
    payments marked paid and the tab's records), in one unit of work; nothing stored when the file is refused
    (:class:`~companion.group.file.GroupFileError` names where) or a night cannot be stored."""
    raw = text_.encode("utf-8", "surrogatepass") if isinstance(text_, str) else text_
    said = digest("import group", hashlib.sha256(raw).hexdigest())
    end_reads()  # read and replay the whole file before the write transaction begins
    parsed = groupfile.loads(raw)
    with UnitOfWork() as uow:

        def then(group: Group) -> None:
            records: list[tuple[str, dict[str, Any]]] = [_stored_member_record(r) for r in parsed.records]
            for member, handles in parsed.handles.items():
                records += [("handle_set", {"member": member, "kind": _kind_of(h), "value": _handle_value(h)}) for h in handles]
            for entry in parsed.nights:
                seats = {m: s for s, m in seated_members(entry.result, parsed.members).items()}
                more = [(PAID, {"payer": p.payer, "payee": p.payee, "chips": p.chips}) for p in entry.paid]
                more += [(TAB_CLEARED, {
                    "player": seats[parsed.members.member(c.member)], "amount": _amount_text(c.amount, entry.result.unit),
                    "payer": c.payer, "payee": c.payee, "ref": IMPORTED_REF,
                }) for c in entry.cleared]
                night = night_from_file(entry.night, entry.night.name or entry.result.title, more)
                night.created_at = datetime.datetime.combine(entry.date, datetime.time())
                db.session.add(night)
                db.session.flush()
                records.append(("night_kept", {"night_id": night.id}))
                _keep(uow, group, night.id)
                db.session.flush()
            if records:
                uow.add_group_records(group, records, None, "import")

        return uow.add_group(request_key, said, lambda: _new_group(parsed.name), then)


def _stored_member_record(record: MemberRecord) -> tuple[str, dict[str, Any]]:
    if isinstance(record, Added):
        return "member_added", {"name": record.name}
    if isinstance(record, Merged):
        return "member_merged", {"kept": record.kept, "merged": record.merged}
    return "member_renamed", {"old": record.old, "new": record.new}
