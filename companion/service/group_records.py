"""A group as stored, read back: its records folded (members, pay handles, the nights taken out) and its nights.

The group's pure core (:mod:`companion.group`) says what a group is; the group's modules here store it
and build it back, each reading it through this one.  A group is a row (:class:`~companion.db.models.Group`:
its name, two secret links, its version), the nights it keeps in order
(:class:`~companion.db.models.GroupNight`), and its records, appended only
(:class:`~companion.db.models.GroupRecord`):

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
command refuses is one of :data:`GROUP_REFUSALS`, with a sentence for the page.  See docs/group.md ("Stored").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sqlalchemy import select

from companion.db.models import GroupNight, GroupRecord, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.group import file as groupfile
from companion.group.members import (
    Added,
    MemberError,
    MemberFold,
    MemberRecord,
    Members,
    Merged,
    Renamed,
    UnknownMember,
    member_name,
)
from companion.group.pay_links import PayHandle, read_iban, read_paypal_me, read_revolut, read_venmo
from companion.group.tab import Overpayment
from companion.service.uow import UnitOfWork
from companion.values.reading import Unreadable

__all__ = [
    "counting", "fold_records", "Folded", "folded_of", "GROUP_REFUSALS", "HANDLE_KINDS", "kept_nights", "member_record",
    "ORGANISER", "read_handle", "stored_records",
]


#: the kinds of pay handle a member may give, one each, in the order shown
HANDLE_KINDS = ("paypal", "revolut", "venmo", "iban")
#: who a record says made it when the organiser did; the organiser confirms a payment through the tab, a payee
#: confirms with their member name ("I got it")
ORGANISER = "organiser"

#: every refusal of a group command, each with a sentence for the page (nothing was written)
GROUP_REFUSALS: tuple[type[Exception], ...] = (
    IllegalAction, Unreadable, MemberError, UnknownMember, Overpayment, groupfile.GroupFileError,
)


@dataclass(frozen=True)
class Folded:
    """The group's records folded: its member records, members, and each member's handles."""

    records: tuple[MemberRecord, ...]
    members: Members
    handles: Mapping[str, Mapping[str, PayHandle]]
    #: the kept nights taken out of the group (``night_left_out``, not put back since), by id
    left_out: frozenset[int] = frozenset()


def stored_records(group_id: int) -> list[GroupRecord]:
    """The group's records in the order written (each command folds them itself, under the group's lock)."""
    return list(db.session.scalars(select(GroupRecord).where(GroupRecord.group_id == group_id).order_by(GroupRecord.seq)))


def recorded_in_group(group_id: int, request_key: str) -> bool:
    """Whether a submit made with ``request_key`` is already recorded in the group: a doubled tap, whose first
    copy moved the group's version on, is then answered "already recorded" rather than refused as stale."""
    found = db.session.scalar(
        select(GroupRecord.id).where(GroupRecord.group_id == group_id, GroupRecord.request_key == request_key).limit(1)
    )
    return found is not None


def member_record(kind: str, payload: Mapping[str, Any]) -> MemberRecord | None:
    """The member record a stored record of ``kind`` is (None: a record of another kind, not the members')."""
    if kind == "member_added":
        return Added(payload["name"])
    if kind == "member_merged":
        return Merged(payload["kept"], payload["merged"])
    if kind == "member_renamed":
        return Renamed(payload["old"], payload["new"])
    return None


def fold_records(rows: Iterable[tuple[str, Mapping[str, Any]]]) -> Folded:
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
        record = member_record(kind, payload)
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
            handle = read_handle(payload["kind"], payload["value"], stored=True)
            handles.setdefault(payload["member"], {})[payload["kind"]] = handle
        elif kind == "handle_removed":
            handles.get(payload["member"], {}).pop(payload["kind"], None)
    members = fold.members
    shown = {
        member: MappingProxyType({k: held[k] for k in HANDLE_KINDS if k in held})
        for member in members.names
        if (held := handles.get(member))
    }
    return Folded(tuple(records), members, MappingProxyType(shown), frozenset(left_out))


def folded_of(group_id: int) -> Folded:
    """The group's records as stored now, folded."""
    return fold_records((r.kind, r.payload) for r in stored_records(group_id))


def read_handle(kind: str, value: Mapping[str, Any], stored: bool = False) -> PayHandle:
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


def kept_nights(group_id: int, lock: UnitOfWork | None = None) -> list[Night]:
    """The group's nights in the order kept; through ``lock`` their rows are locked (ids in order)."""
    ids = list(
        db.session.scalars(select(GroupNight.night_id).where(GroupNight.group_id == group_id).order_by(GroupNight.position))
    )
    if lock is not None:  # after the group's row: the group, then its nights by id, for every writer
        locked = lock.nights(ids)
        return [locked[night_id] for night_id in ids]
    nights = {n.id: n for n in db.session.scalars(select(Night).where(Night.id.in_(ids)))} if ids else {}
    return [nights[i] for i in ids]


def counting(nights: Sequence[Night], folded: Folded) -> list[Night]:
    """The kept nights the group counts: all but those taken out (``night_left_out``)."""
    return [n for n in nights if n.id not in folded.left_out]
