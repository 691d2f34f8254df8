"""A group opened, and its secret links: the organiser's, the members', and each member's own.

A group is opened with two links (:func:`open_group`, from a night kept in it at once or from none);
either is replaced on its own (:func:`rotate_group_link`), the old one then opening nothing.  A
member's own link (:func:`make_member_link`) is a row of its own, the latest made for a member the
one that opens.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from companion.db.models import Group, MemberLink, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.group.members import Members, member_name, members_from
from companion.service.group_keeping import add_kept_night, refuse_unkeepable
from companion.service.group_records import ORGANISER, folded_of, member_record
from companion.service.uow import GroupCommand, GroupEntry, GroupRecorded, UnitOfWork, digest, new_key
from companion.values.limits import MAX_NIGHT_NAME
from companion.values.reading import Unreadable, name as read_name

__all__ = [
    "group_for_member", "group_for_member_link", "group_for_organiser", "make_member_link", "member_links", "new_group",
    "open_group", "rotate_group_link",
]


def _group_name(name: object) -> str:
    read = read_name(name, "the group's name", max_length=MAX_NIGHT_NAME)
    if not read:
        raise Unreadable("the group's name cannot be empty")
    return read


def new_group(name: str) -> Group:
    """A group's row, not yet added, with its two links made (a group opened, or read from a group file)."""
    return Group(name=name, organiser_key=new_key(), member_key=new_key(), version=0)


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
            refuse_unkeepable(night)
            records: list[tuple[str, dict[str, Any]]] = [("member_added", {"name": member_name(p)}) for p in night.players]
            members_from(member_record(k, p) for k, p in records)  # type: ignore[misc]  # checks two seats are not one name
            records.append(("night_kept", {"night_id": night_id}))
            uow.add_group_records(group, records, None, ORGANISER)
            add_kept_night(uow, group, night_id)

        return uow.add_group(request_key, digest("group", read, night_id), lambda: new_group(read), then)


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


def group_for_organiser(key: str) -> Group | None:
    return db.session.scalar(select(Group).where(Group.organiser_key == key)) if key else None


def group_for_member(key: str) -> Group | None:
    return db.session.scalar(select(Group).where(Group.member_key == key)) if key else None


def member_links(group: Group, members: Members | None = None) -> dict[str, str]:
    """Each member's own link key, by the member's name now (only members the organiser made one for): the
    latest link made for them; one made under a name since renamed or merged follows its member.  ``members``:
    the group's members as the caller folded them already (its view's), else folded here."""
    members = members if members is not None else folded_of(group.id).members
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
        members = folded_of(group.id).members
        who = members.member(said["member"])
        db.session.add(MemberLink(group_id=group.id, member=who, key=new_key()))
        return GroupEntry((("member_link_made", {"member": who}),), f"{who} has a link of their own")

    command = GroupCommand(group_id, "member_link_made", said, expected_version, request_key,
                           summary_again="Already made: the link is on the page.")
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)
