"""A night found by its secret link: a scorekeeper's (``/k/<key>``), the players' (``/p/<key>``) or the table
display's (``/d/<key>``, read only, opening nothing else: :func:`display_night`).

A night has its first scorekeeper link (``Night.keeper_key``) and, for each other keeper phone, a link
of its own (:class:`~companion.service.PhoneLink`, issue 39, docs/keepers.md), which opens the same
pages and takes the same commands.  A page opened by such a link must never show the first link (nor
another phone's): for the rest of the request the night's ``keeper_key`` reads as the phone's own key
(:func:`act_as`, kept through every load and refresh of the night's row: ``service.on_night_read``), and
any address made with the first link's secret is made with the phone's instead (:func:`keep_own_key`, the
app's URL defaults), so every page, kept page and redirect carries the link the phone came by.  Each record a phone makes says
which phone it was (:func:`recorded_by`).

A link is the only credential: a scorekeeper's page opened with the
players' link answers 403, an unknown link 404 (counted against the client by
:func:`~companion.web.plumbing.security.reject_unknown_link`), and a key is compared in constant
time.  A page kept per version needs only the night's id, version and links
(:func:`keeper_link`, one statement read by the service, no object loaded); anything else
loads the night (:func:`keeper_night`).  Every row is found by the service (``service.night_by_link``
and the like): this module reads the key and compares the secrets, and queries nothing itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from flask import abort, current_app, g, has_app_context

from companion import service
from companion.service import NightRow
from companion.web.plumbing.security import reject_unknown_link, same_secret
from companion.web.plumbing.this_browser import remember

MAX_KEY_LENGTH = 64
#: the alphabet of services.new_key (URL-safe base64): anything else is no link, and never reaches SQL
KEY_CHARS = re.compile(r"[A-Za-z0-9_-]+")


def _lookup(which: Literal["keeper", "viewer"], key: str) -> NightRow | None:
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    night = service.night_by_link(key, which)
    if night is not None and same_secret(key, night.keeper_key if which == "keeper" else night.viewer_key):
        return night
    return None


@dataclass(frozen=True)
class NightLink:
    """What a page kept per version needs of a scorekeeper's night, read from the database on every request.

    ``continued`` is the night its pot was carried into: that night can appear
    without a new version here, and it changes the table screen and the report.
    ``group`` is the group the night is kept in, its version, its ``nights_changed`` and the sum of
    its nights' versions, or None: a handle set on the group moves the group's version and not the
    night's, and it changes the *Pay* offers of the night's report (web/pages/night_pay.py); another night
    of the group may block the night's unit in the group's tab (then no *Mark paid*, no *Pay*: issue
    35), moving only that night's version.
    ``source`` is the night its pot was carried in from: the scorekeeper's report names it.
    """

    id: int
    version: int
    keeper_key: str
    viewer_key: str
    continued: int | None
    group: tuple[int, int, int, int] | None = None
    source: int | None = None


def _link(stamp: tuple[Any, ...]) -> NightLink:
    return NightLink(*stamp)


def keeper_link(key: str) -> NightLink | None:
    """The night whose scorekeeper link is ``key`` as the database holds it now, in one statement, no object loaded.

    For a page kept per version (web/plumbing/kept_pages.py) this is all a request needs to
    ask the database: the page itself is kept for (night, version).  None means
    "take the ORM path" (:func:`keeper_night`): a players' link (403), an unknown
    one (404, counted against the client).  Remembers the night for this browser's
    list, as :func:`keeper_night` does.
    """
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    stamp = service.night_stamp_by_link(key, keeper=True)
    if stamp is None or not same_secret(key, stamp[2]):
        return None
    link = _link(stamp)
    remember(link)
    return link


def viewer_link(key: str) -> NightLink | None:
    """The night whose players' link is ``key``, as :func:`keeper_link` reads it (None: a scorekeeper's link or
    an unknown one, which :func:`viewer_night` decides)."""
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    stamp = service.night_stamp_by_link(key, keeper=False)
    if stamp is None or not same_secret(key, stamp[3]):
        return None
    return _link(stamp)


def keeper_night(key: str) -> NightRow:
    """The night whose scorekeeper link (the first, or a keeper phone's own) is ``key``; 403 for a players' link,
    404 otherwise (a link taken back is unknown: 404 at once)."""
    night = _lookup("keeper", key) or _phone_night(key)
    if night is not None:
        remember(night)
        return night
    if _lookup("viewer", key) is not None:
        abort(403)
    reject_unknown_link(current_app)
    raise AssertionError("unreachable")


def viewer_night(key: str) -> NightRow:
    """The night whose players' link (or a scorekeeper link) is ``key``."""
    night = _lookup("viewer", key) or _lookup("keeper", key) or _phone_night(key)
    if night is None:
        reject_unknown_link(current_app)
    assert night is not None
    return night


def display_night(key: str) -> NightRow:
    """The night whose table display link is ``key`` (docs/display.md); any other key is unknown: 404, counted.

    The display link opens the display alone, and the display opens by its link alone: a players' or a
    scorekeeper's link is as unknown here as a display link is on their pages (they never look it up)."""
    night = None
    if key and len(key) <= MAX_KEY_LENGTH and KEY_CHARS.fullmatch(key):
        row = service.display_link_of(key)
        if row is not None and same_secret(key, row[0]):
            night = service.night_by_id(row[1])
    if night is None:
        reject_unknown_link(current_app)
    assert night is not None
    return night


# --- a second keeper phone's link ------------------------------------------------------------


@dataclass(frozen=True)
class KeeperPhone:
    """The keeper phone a request came by, when it is not the night's first link: what :func:`act_as` keeps."""

    night_id: int
    id: int
    key: str
    name: str
    first_key: str  # the night's first link, as it was when the request found the night


def _phone_night(key: str) -> NightRow | None:
    """The night of the live keeper phone link ``key`` (compared in constant time), acting as that phone."""
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    row = service.phone_link_of(key)
    if row is None or not same_secret(key, row.key):
        return None
    night = service.night_by_id(row.night_id)
    if night is None:  # pragma: no cover - a foreign key
        return None
    act_as(night, KeeperPhone(night.id, row.id, row.key, row.name, night.keeper_key))
    return night


def act_as(night: NightRow, phone: KeeperPhone) -> None:
    """For the rest of this request, ``night``'s scorekeeper link reads as ``phone``'s own (never written)."""
    g.keeper_phone = phone
    service.read_keeper_key_as(night, phone.key)


def this_phone() -> KeeperPhone | None:
    """The keeper phone this request came by, when it is not the night's first link."""
    return g.get("keeper_phone") if has_app_context() else None


def recorded_by() -> str:
    """What a record made by this request says recorded it: the phone's name, or the first link's phone."""
    phone = this_phone()
    return phone.name if phone is not None else service.FIRST_PHONE


def keep_own_key(endpoint: str, values: dict[str, Any]) -> None:
    """The app's URL defaults: an address made with the night's first link, on a request that came by another
    keeper phone's link, is made with that phone's link (a page, a form, a redirect: never the first link)."""
    phone = this_phone()
    if phone is not None and values.get("key") == phone.first_key:
        values["key"] = phone.key


def _as_phone(night: NightRow) -> None:
    """The night's row read again in a request that came by a keeper phone's link: its link reads as the phone's."""
    phone = this_phone()
    if phone is not None and night.id == phone.night_id:
        service.read_keeper_key_as(night, phone.key)


service.on_night_read(_as_phone)
