"""A group's links: which group (and which member) a key in the address opens.

The group has two secret links, the organiser's and the members', and each member may have one of their
own; a key that is none of these is a 404 counted against the client
(:func:`~companion.web.plumbing.security.reject_unknown_link`), and the members' link is a wrong key where the
organiser's is asked.  A night's scorekeeper keeps it in a group by pasting the group's organiser link
(:func:`pasted_group`), counted as a wrong link is when it opens none.

The group's pages (web/pages/groups.py), its commands (web/pages/group_commands.py) and its nights
(web/pages/group_nights.py) read their key here, and nowhere else.
"""

from __future__ import annotations

import re

from flask import current_app, url_for

from companion import service
from companion.service import GroupRow
from companion.web.plumbing.addresses import shared_url
from companion.web.plumbing.links import KEY_CHARS, MAX_KEY_LENGTH
from companion.web.plumbing.security import brake, client_id, reject_unknown_link

#: a group's organiser link as pasted: the whole address, or the key alone
ORGANISER_LINK = re.compile(r"(?:^|/g/)([A-Za-z0-9_-]{16,64})/?(?:[?#].*)?$")


def looks_like_key(key: str) -> bool:
    """Whether ``key`` could be a link's key at all: one that cannot is not looked up."""
    return bool(key) and len(key) <= MAX_KEY_LENGTH and KEY_CHARS.fullmatch(key) is not None


def organiser_group(key: str) -> GroupRow:
    """The group whose organiser link is ``key``; 404 for anything else, the members' link included."""
    group = service.group_for_organiser(key) if looks_like_key(key) else None
    if group is None:
        reject_unknown_link(current_app)
    assert group is not None
    return group


def member_group(key: str) -> GroupRow:
    """The group whose members' link is ``key``; 404 for anything else."""
    group = service.group_for_member(key) if looks_like_key(key) else None
    if group is None:
        reject_unknown_link(current_app)
    assert group is not None
    return group


def own_link(key: str) -> tuple[GroupRow, str]:
    """The group and the member whose own link is ``key`` (their latest); 404 for anything else."""
    found = service.group_for_member_link(key) if looks_like_key(key) else None
    if found is None:
        reject_unknown_link(current_app)
    assert found is not None
    return found


def members_url(group: GroupRow) -> tuple[str, str | None]:
    """The members' link as other phones must open it, and a warning when they can't."""
    return shared_url(url_for("groups.members", key=group.member_key))


def pasted_group(link: str) -> GroupRow | None:
    """The group whose organiser link is pasted in ``link`` (the address or the key), counting wrong ones."""
    found = ORGANISER_LINK.search(link.strip())
    limit = current_app.extensions["companion_link_limit"]
    brake(limit, client_id(), "wrong links")
    group = service.group_for_organiser(found[1]) if found else None
    if group is None:
        service.count_against(limit, client_id())
    return group
