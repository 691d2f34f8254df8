"""A night found by its secret link: the scorekeeper's (``/k/<key>``) or the players' (``/p/<key>``).

A link is the only credential: a scorekeeper's page opened with the
players' link answers 403, an unknown link 404 (counted against the client by
:func:`~companion.web.security.reject_unknown_link`), and a key is compared in constant
time.  A page kept per version needs only the night's id, version and links
(:func:`keeper_link`, one SELECT with no ORM); anything else loads the night
(:func:`keeper_night`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import abort, current_app
from sqlalchemy import select
from sqlalchemy.engine import Engine

from companion.extensions import db
from companion.db.models import Night
from companion.web.raw_reads import read_engine, read_row
from companion.web.security import reject_unknown_link, same_secret
from companion.web.this_browser import remember

MAX_KEY_LENGTH = 64
#: the alphabet of services.new_key (URL-safe base64): anything else is no link, and never reaches SQL
KEY_CHARS = re.compile(r"[A-Za-z0-9_-]+")


def _lookup(column, key: str) -> Night | None:  # type: ignore[no-untyped-def]
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    night = db.session.scalar(select(Night).where(column == key))
    if night is not None and same_secret(key, getattr(night, column.key)):
        return night
    return None


@dataclass(frozen=True)
class NightLink:
    """What a page kept per version needs of a scorekeeper's night, read from the database on every request.

    ``continued`` is the night its pot was carried into: that night can appear
    without a new version here, and it changes the table screen and the report.
    ``group`` is the group the night is kept in, its version, its ``nights_changed`` and the sum of
    its nights' versions, or None: a handle set on the group moves the group's version and not the
    night's, and it changes the *Pay* offers of the night's report (web/night_pay.py); another night
    of the group may block the night's unit in the group's tab (then no *Mark paid*, no *Pay*: issue
    35), moving only that night's version.
    """

    id: int
    version: int
    keeper_key: str
    viewer_key: str
    continued: int | None
    group: tuple[int, int, int, int] | None = None


#: the scorekeeper's link's night, the night that continues it and the group it is kept in (with that
#: group's version, its nights' changes and the sum of their versions: the index of the group's nights
#: alone, as the group's own stamp reads it, web/groups.py), by their unique indexes
_LINK_SQL = (
    "SELECT n.id, n.version, n.keeper_key, n.viewer_key, c.id, g.id, g.version, g.nights_changed,"
    " (SELECT COALESCE(SUM(x.version), 0) FROM group_night y JOIN night x ON x.id = y.night_id"
    " WHERE y.group_id = g.id) FROM night n"
    " LEFT OUTER JOIN night c ON c.carried_from = n.id"
    " LEFT OUTER JOIN group_night gn ON gn.night_id = n.id"
    " LEFT OUTER JOIN home_group g ON g.id = gn.group_id WHERE n.keeper_key = {}"
)


def _link(row: tuple) -> NightLink:  # type: ignore[type-arg]
    group = (row[5], row[6], row[7], int(row[8])) if row[5] is not None else None
    return NightLink(row[0], row[1], row[2], row[3], row[4], group)


def keeper_link(key: str) -> NightLink | None:
    """The night whose scorekeeper link is ``key`` as the database holds it now, in one SELECT and no ORM.

    For a page kept per version (web/kept_pages.py) this is all a request needs to
    ask the database: the page itself is kept for (night, version).  None means
    "take the ORM path" (:func:`keeper_night`): a players' link (403), an unknown
    one (404, counted against the client), or a failed read.  Remembers the night
    for this browser's list, as :func:`keeper_night` does.
    """
    link = keeper_row(key)
    if link is not None:
        remember(link)
    return link


def keeper_row(key: str, engine: Engine | None = None) -> NightLink | None:
    """:func:`keeper_link` without remembering the night for this browser: outside a request too (``engine``,
    the one-row reads' engine: a page answered before Flask, web/early_pages.py, which checks the browser
    has it already)."""
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    row = read_row(engine or read_engine(), _LINK_SQL, key)
    if row is None or not same_secret(key, row[2]):
        return None
    return _link(row)


_VIEWER_LINK_SQL = _LINK_SQL.replace("WHERE n.keeper_key", "WHERE n.viewer_key")


def viewer_link(key: str, engine: Engine | None = None) -> NightLink | None:
    """The night whose players' link is ``key``, as :func:`keeper_link` reads it (None: ask the ORM).

    ``engine``: outside a request (a page answered before Flask, web/early_pages.py), the one-row reads' engine."""
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    row = read_row(engine or read_engine(), _VIEWER_LINK_SQL, key)
    if row is None or not same_secret(key, row[3]):
        return None
    return _link(row)


def keeper_night(key: str) -> Night:
    """The night whose scorekeeper link is ``key``; 403 for a players' link, 404 otherwise."""
    night = _lookup(Night.keeper_key, key)
    if night is not None:
        remember(night)
        return night
    if _lookup(Night.viewer_key, key) is not None:
        abort(403)
    reject_unknown_link(current_app)
    raise AssertionError("unreachable")


def viewer_night(key: str) -> Night:
    """The night whose players' link (or scorekeeper link) is ``key``."""
    night = _lookup(Night.viewer_key, key) or _lookup(Night.keeper_key, key)
    if night is None:
        reject_unknown_link(current_app)
    assert night is not None
    return night
