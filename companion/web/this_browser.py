"""What the app keeps of this browser, in its signed session cookie: the nights it keeps score of, and its label.

The home page lists the nights this browser has opened as scorekeeper, and a player's
page is made of them; the cookie holds no link, only (night id, an opaque mark of the
scorekeeper link), so it grants nothing to whoever reads it.  (Which phone made a record is said by
the keeper link it came by: web/links.py.)
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from flask import current_app, session
from sqlalchemy import select

from companion import service
from companion.extensions import db
from companion.db.models import Night

#: how many scorekeeper nights a browser's home page lists
KNOWN_NIGHTS = 20


class ScorekeeperNight(Protocol):
    """A night as its scorekeeper link opened it: the ORM's, or a row read without it (links.NightLink)."""

    @property
    def id(self) -> int: ...

    @property
    def keeper_key(self) -> str: ...


def keeper_mark(night: ScorekeeperNight) -> str:
    """An opaque mark of ``night``'s scorekeeper link: an HMAC under the secret key.

    The session cookie is signed, not encrypted: anyone who sees it can read it.  It
    keeps (night id, this mark), which grants nothing; the mark changes when the link
    is replaced, so a browser that lost the link stops listing the night.
    """
    return _mark_of(night.keeper_key)


def _mark_of(keeper_key: str) -> str:
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
    """Keep the scorekeeper nights this browser has opened, for the home page's list (no link in the cookie)."""
    mark = keeper_mark(night)
    known = known_marks()
    if (night.id, mark) not in known:
        known = [(night_id, m) for night_id, m in known if night_id != night.id] + [(night.id, mark)]
        session["nights"] = [list(entry) for entry in known[-KNOWN_NIGHTS:]]


def my_nights() -> list[Night]:
    """The nights this browser keeps score of whose scorekeeper link it still holds (see :func:`remember`)."""
    marks = dict(known_marks())
    if not marks:
        return []
    nights = db.session.scalars(select(Night).where(Night.id.in_(list(marks)))).all()
    nights = [night for night in nights if hmac.compare_digest(keeper_mark(night), marks[night.id])]
    return sorted(nights, key=lambda n: n.created_at, reverse=True)


@dataclass(frozen=True)
class KnownNight:
    """What the home page lists of a night this browser keeps score of: a row, not the ORM's night."""

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
    nights = [KnownNight(r[0], r[1], r[2], _when(r[3]), tuple(_json(r[4])), r[5], r[6])
              for r in service.listed_nights(list(marks))]
    nights = [n for n in nights if hmac.compare_digest(_mark_of(n.keeper_key), marks[n.id])]
    return tuple(sorted(nights, key=lambda n: n.created_at, reverse=True))


def _when(value: Any) -> datetime:
    """A night's created_at as the driver gives it (SQLite: text) made the ORM's datetime."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def _json(value: Any) -> Any:
    """A JSON column as the driver gives it (SQLite: text; psycopg: already decoded)."""
    return json.loads(value) if isinstance(value, (str, bytes)) else value
