"""A group's members and their pay handles: add, merge, rename a member; set or remove a handle.

Each is one record appended through the unit of work, checked by folding the group's records with it
(:mod:`.group_records`): a name no member goes by, two names that played one night made one, a handle
a member never gave, are refused and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.db.models import Group
from companion.games import IllegalAction
from companion.group.members import MemberError, Members, member_name
from companion.group.pay_links import Iban, PayHandle
from companion.service.group_records import (
    Folded,
    HANDLE_KINDS,
    fold_records,
    folded_of,
    kept_nights,
    read_handle,
    stored_records,
)
from companion.service.uow import GroupCommand, GroupEntry, GroupRecorded, UnitOfWork

__all__ = ["add_member", "handle_value", "merge_members", "remove_handle", "rename_member", "set_handle"]


def handle_value(handle: PayHandle) -> dict[str, str]:
    """What a ``handle_set`` record holds of ``handle``: the fields :func:`.group_records.read_handle` reads back."""
    if isinstance(handle, Iban):
        return {"iban": handle.iban, "holder": handle.holder, "bic": handle.bic}
    return {"username": handle.username}


def _member_command(
    group_id: int, kind: str, payload: dict[str, Any], expected_version: int, request_key: str | None, summary: str,
    check: Any = None,
) -> GroupRecorded:
    """Append one member or handle record, once per key, at the version expected; ``check(folded)`` may refuse."""

    def decide(uow: UnitOfWork, group: Group) -> GroupEntry:
        rows = [(r.kind, r.payload) for r in stored_records(group.id)]
        before = fold_records(rows)
        if check is not None:
            check(before)
        try:
            after = fold_records([*rows, (kind, payload)])
        except MemberError as error:  # "member record 7: ...": said without its position
            raise MemberError(str(error).partition(": ")[2] or str(error)) from None
        _refuse_one_member_twice_at_a_night(group.id, after.members)
        return GroupEntry(((kind, payload),), summary)

    command = GroupCommand(group_id, kind, payload, expected_version, request_key, summary_again=summary)
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)


def _refuse_one_member_twice_at_a_night(group_id: int, members: Members) -> None:
    """MemberError when two players of one kept night would be one member (a wrong merge)."""
    for night in kept_nights(group_id):
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
    folded = folded_of(group_id)
    one, other = folded.members.member(member_name(kept)), folded.members.member(member_name(merged))
    payload = {"kept": one, "merged": other}
    return _member_command(group_id, "member_merged", payload, expected_version, request_key, f"{other} is now {one}")


def rename_member(group_id: int, old: str, new: str, expected_version: int, request_key: str | None) -> GroupRecorded:
    """The member ``old`` is shown as ``new``; their nights still count for them."""
    folded = folded_of(group_id)
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
    who = folded_of(group_id).members.member(member_name(member))
    handle = read_handle(kind, value)
    payload = {"member": who, "kind": kind, "value": handle_value(handle)}
    return _member_command(group_id, "handle_set", payload, expected_version, request_key, f"{who}'s {kind} is set")


def remove_handle(group_id: int, member: str, kind: str, expected_version: int, request_key: str | None) -> GroupRecorded:
    """``member`` no longer gives a pay handle of ``kind`` (refused when they gave none)."""
    who = folded_of(group_id).members.member(member_name(member))

    def check(folded: Folded) -> None:
        if kind not in folded.handles.get(who, {}):
            raise IllegalAction(f"{who} gives no {kind} handle")

    payload = {"member": who, "kind": kind}
    return _member_command(group_id, "handle_removed", payload, expected_version, request_key, f"{who}'s {kind} is removed", check)
