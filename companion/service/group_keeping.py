"""The nights a group keeps: keep one, take one out of its season and tab or put it back, start one in it.

A night is in one group at most, kept after the nights kept so far; its players must be members (or
be added as it is kept).  A night taken out stays the group's (its row is never deleted), counted
nowhere until put back.  The next night's defaults (:func:`next_night_defaults`) are read off the
last night kept.  A group opened from a night (:mod:`.group_links`) keeps it through the same checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from sqlalchemy import func, select

from companion.db.models import Group, GroupNight, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.group.members import MemberError, Members, UnknownMember, member_name, name_key
from companion.group.tab import unreconciled
from companion.night import file as nightfile
from companion.service.group_records import ORGANISER, counting, fold_records, folded_of, kept_nights, stored_records
from companion.service.group_views import counted_nights
from companion.service.night_ledger import tab_records
from companion.service.nights import new_night
from companion.service.uow import GroupCommand, GroupEntry, GroupRecorded, UnitOfWork, digest
from companion.values.limits import MAX_NIGHT_NAME

__all__ = [
    "add_kept_night", "keep_night", "leave_out_night", "MAX_ID", "next_night_defaults", "NextNightDefaults",
    "open_night_in_group", "put_back_night", "refuse_unkeepable", "UnknownPlayers",
]


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


def refuse_unkeepable(night: Night) -> None:
    """IllegalAction for a night no group may keep: one kept in a group already, or one holding records of a
    group's tab (imported with its night file: another tab appended them, and this one, which did not make
    them, could not count them: issue 35)."""
    _refuse_kept(night.id)
    if tab_records(night):
        raise IllegalAction(
            f"{night.name} holds records of another group's tab settling it (imported with its night file): this "
            "group's tab did not make them and cannot count them, so the night cannot be kept in a group"
        )


def add_kept_night(uow: UnitOfWork, group: Group, night_id: int) -> None:
    """The night's row in the group, after the nights kept so far."""
    position = db.session.scalar(select(func.max(GroupNight.position)).where(GroupNight.group_id == group.id)) or 0
    db.session.add(GroupNight(group_id=group.id, night_id=night_id, position=position + 1))


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
        refuse_unkeepable(night)
        rows = [(r.kind, r.payload) for r in stored_records(group.id)]
        members = fold_records(rows).members
        added = _member_records_for(night.players, members, add_new)
        after = fold_records([*rows, *added]).members
        _check_seating(night.players, after, repr(night.name))
        add_kept_night(uow, group, night_id)
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
        folded = folded_of(group.id)
        nights = kept_nights(group.id, lock=uow)
        night = next((n for n in nights if n.id == night_id), None)
        if night is None:
            raise IllegalAction("this night is not kept in the group")
        if out == (night_id in folded.left_out):
            raise IllegalAction(f"{night.name} is {'already taken out of' if out else 'counted in'} the group")
        before = _unreconciled(counting(nights, folded), folded.members)
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
    kept, _ = counted_nights(nights, members)
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
            rows = [(r.kind, r.payload) for r in stored_records(group.id)]
            added = _member_records_for(night.players, fold_records(rows).members, add_new)
            _check_seating(night.players, fold_records([*rows, *added]).members, "this night")
            uow.add_group_records(group, [*added, ("night_kept", {"night_id": night.id})], None, ORGANISER)
            add_kept_night(uow, group, night.id)

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
    members = folded_of(group.id).members
    nights = kept_nights(group.id)
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
