"""What the app keeps of this browser, in its signed session cookie: the nights it keeps score of, and its label.

The home page lists the nights this browser has opened as scorekeeper, and a player's
page is made of them; the cookie holds no link, only (night id, an opaque mark of the
scorekeeper link), so it grants nothing to whoever reads it.  (Which phone made a record is said by
the keeper link it came by: web/plumbing/links.py.)

A scorekeeper link is the night's first link or a keeper phone's own (issue 39, docs/keepers.md): the
mark is of the link the browser came by, so a second phone lists the night too, and its list opens the
night by that phone's own link, never the first.  A link replaced or taken back matches no mark any
more: the night is no longer listed (a phone sent away, a lost one, is shown nothing of the night).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from flask import current_app, session

from companion import service
from companion.service import NightRow

#: how many scorekeeper nights a browser's home page lists
KNOWN_NIGHTS = 20


class ScorekeeperNight(Protocol):
    """A night as its scorekeeper link opened it: the ORM's, or a row read without it (links.NightLink)."""

    @property
    def id(self) -> int: ...

    @property
    def keeper_key(self) -> str: ...


def _mark_of(keeper_key: str) -> str:
    """An opaque mark of a scorekeeper link: an HMAC under the secret key.

    The session cookie is signed, not encrypted: anyone who sees it can read it.  It
    keeps (night id, this mark), which grants nothing; the mark changes when the link
    is replaced, so a browser that lost the link stops listing the night.
    """
    secret = current_app.config["SECRET_KEY"]
    key = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(key, b"keeper:" + keeper_key.encode(), hashlib.sha256).hexdigest()[:32]


def known_marks() -> list[tuple[int, str]]:
    """(night id, mark) of the nights this browser keeps score of, oldest first."""
    known = []
    for entry in session.get("nights", []):
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int) and isinstance(entry[1], str):
            known.append((entry[0], entry[1]))
    return known  # anything else (an older cookie's plain links) is forgotten


def remember(night: ScorekeeperNight) -> None:
    """Keep the scorekeeper nights this browser has opened, for the home page's list (no link in the cookie).

    ``night.keeper_key`` is the link the request came by: a keeper phone's request reads its own link
    there (web/plumbing/links.py), so the mark is of the phone's link, and one night is one entry, the last link
    this browser opened it by."""
    remember_link(night.id, night.keeper_key)


def remember_link(night_id: int, keeper_key: str) -> None:
    """:func:`remember` by the night's id and the scorekeeper link this browser now holds (a keeper phone's
    link just replaced: the answer naming it may be lost)."""
    mark = _mark_of(keeper_key)
    known = known_marks()
    if (night_id, mark) not in known:
        known = [(n, m) for n, m in known if n != night_id] + [(night_id, mark)]
        session["nights"] = [list(entry) for entry in known[-KNOWN_NIGHTS:]]


def my_nights() -> list[tuple[NightRow, str]]:
    """The nights of :func:`known_nights` loaded whole, newest first, each with the scorekeeper link this browser
    holds: the page must link by it (a keeper phone's own link), never by the night's ``keeper_key``."""
    known = known_nights()
    nights = {night.id: night for night in service.nights_by_id([n.id for n in known])}
    return [(nights[n.id], n.keeper_key) for n in known if n.id in nights]


@dataclass(frozen=True)
class KnownNight:
    """What the home page lists of a night this browser keeps score of: a row, not the ORM's night.

    ``keeper_key`` is the scorekeeper link this browser holds: the night's first link, or the keeper phone's own
    link it opened the night by (never the first link then)."""

    id: int
    keeper_key: str
    name: str
    created_at: datetime
    players: tuple[str, ...]
    version: int
    continued: int | None  # the night its pot was carried into: it changes the night's report


def known_nights() -> tuple[KnownNight, ...]:
    """The nights of :func:`my_nights`, newest first, in one statement of the columns shown (no ORM objects).

    The home page and each player's page are kept by these rows (issue 22): a night
    renamed, played on or carried on makes them anew.
    """
    marks = dict(known_marks())
    if not marks:
        return ()
    nights = []
    for r in service.listed_nights(list(marks)):
        held = _held(marks[r[0]], (r[1], *r[7]))
        if held is not None:
            nights.append(KnownNight(r[0], held, r[2], _when(r[3]), tuple(_json(r[4])), r[5], r[6]))
    return tuple(sorted(nights, key=lambda n: n.created_at, reverse=True))


def _held(mark: str, links: tuple[str, ...]) -> str | None:
    """Which of a night's live scorekeeper links (the first, then each keeper phone's) ``mark`` is of, or None.

    Each is compared in constant time, and all of them: how long it takes says nothing of which matched."""
    held = None
    for link in links:
        if hmac.compare_digest(_mark_of(link), mark) and held is None:
            held = link
    return held


def _when(value: Any) -> datetime:
    """A night's created_at as the driver gives it (SQLite: text) made the ORM's datetime."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def _json(value: Any) -> Any:
    """A JSON column as the driver gives it (SQLite: text; psycopg: already decoded)."""
    return json.loads(value) if isinstance(value, (str, bytes)) else value


def held_links(*night_ids: int | None) -> tuple[str | None, ...]:
    """The scorekeeper link this browser holds for each of ``night_ids`` (None: it holds none, or no night).

    Another night is linked by it alone (the night a pot was carried into or in from): a page never hands a
    phone a night's first link it was not given (a keeper phone's own link, docs/keepers.md).  Nothing is read
    unless this browser has opened one of those nights; then one statement, :func:`known_nights`'s.
    """
    if all(night_id is None for night_id in night_ids):
        return tuple(None for _ in night_ids)  # no other night: the session is not even read
    marks = dict(known_marks())
    wanted = [night_id for night_id in night_ids if night_id is not None and night_id in marks]
    rows = {r[0]: r for r in service.listed_nights(wanted)} if wanted else {}
    return tuple(
        _held(marks[night_id], (rows[night_id][1], *rows[night_id][7])) if night_id in rows else None
        for night_id in night_ids
    )
