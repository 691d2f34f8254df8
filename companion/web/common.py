"""What every blueprint needs: finding a night by its secret link, and the standings."""

from __future__ import annotations


import hashlib
import hmac
import re
from dataclasses import dataclass, replace
from typing import Any

from flask import abort, current_app, session
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from companion.service import bank as bank_service
from companion import service as services
from companion.extensions import db
from companion.db.models import Night
from companion.web.security import reject_unknown_link, same_secret
from companion.games.web import SCREENS
from companion.night.standings import NightGameLine, Standings, standings

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


#: each driver's parameter style, for :func:`read_row`'s one ``{}``
_PARAM = {"qmark": "?", "format": "%s", "pyformat": "%s"}
#: app.extensions: a callable giving the engine one-row reads use (the players' poll middleware's)
READ_ENGINE = "companion_read_engine"


def read_row(engine: Engine, sql: str, key: str) -> tuple[Any, ...] | None:
    """The first row of ``sql`` (one ``{}`` where the driver's parameter goes) for ``key``; None: no row, or ask the ORM.

    One statement on a pooled driver connection, with no ORM session and no
    transaction (SQLite's connections begin none by themselves; on PostgreSQL the
    connection is in autocommit for it, so no BEGIN and ROLLBACK round trips).  Every
    phone asks for a night's version this way on every poll and every kept page, so
    any process behind the same database answers with what it holds now.  A failed
    read (a connection the server dropped) is thrown away and answers None, and so does
    a database that cannot be reached: the caller then takes the ORM path (on PostgreSQL
    its pool pings before each use), which says "try again" (503) if it fails too.
    """
    rows = _read(engine, sql, (key,), one=True)
    if rows is None:
        return None
    return rows[0] if rows else None


def read_rows(sql: str, values: list[Any]) -> list[tuple[Any, ...]] | None:
    """Every row of ``sql`` (``{}`` where each driver parameter goes, one per value) on the one-row reads' engine.

    As :func:`read_row`, for a page that lists several nights (the home page, a
    player's nights: issue 22); None means "ask the ORM".
    """
    engine = current_app.extensions[READ_ENGINE]() if READ_ENGINE in current_app.extensions else db.engine
    if not values:
        return None
    return _read(engine, sql, tuple(values), one=False)


def _read(engine: Engine, sql: str, values: tuple[Any, ...], *, one: bool) -> list[tuple[Any, ...]] | None:
    """The rows of ``sql`` (``{}`` for the driver's parameters, one per value): the first alone when
    ``one``; None when the ORM must answer instead (see :func:`read_row`)."""
    param = _PARAM.get(engine.dialect.paramstyle)
    if param is None:  # pragma: no cover - a driver with another style: the ORM path
        return None
    try:
        connection = engine.raw_connection()
    except (DBAPIError, engine.dialect.loaded_dbapi.Error):
        # the pool hands on the driver's own error when no connection can be made (the
        # database is down): the ORM path then raises it as SQLAlchemy's, answered 503
        return None
    try:
        # the poll pool's connections are in autocommit already; the app's are not
        dbapi_connection: Any = connection.dbapi_connection
        autocommit = engine.dialect.name == "postgresql" and not dbapi_connection.autocommit
        if autocommit:
            dbapi_connection.autocommit = True
        cursor = connection.cursor()
        try:
            cursor.execute(sql.format(", ".join([param] * len(values))), values)
            if one:
                row = cursor.fetchone()
                rows = [] if row is None else [row]
            else:
                rows = cursor.fetchall()
        finally:
            cursor.close()
            if autocommit:
                dbapi_connection.autocommit = False
    except engine.dialect.loaded_dbapi.Error:
        connection.invalidate()  # dropped by the server, most likely: the slow way decides
        return None
    finally:
        connection.close()
    return [tuple(row) for row in rows]


@dataclass(frozen=True)
class NightLink:
    """What a page kept per version needs of a scorekeeper's night, read from the database on every request.

    ``continued`` is the night its pot was carried into: that night can appear
    without a new version here, and it changes the table screen and the report.
    """

    id: int
    version: int
    keeper_key: str
    viewer_key: str
    continued: int | None


#: the scorekeeper's link's night and the night that continues it, by their unique indexes
_LINK_SQL = (
    "SELECT n.id, n.version, n.keeper_key, n.viewer_key, c.id FROM night n"
    " LEFT OUTER JOIN night c ON c.carried_from = n.id WHERE n.keeper_key = {}"
)


def keeper_link(key: str) -> NightLink | None:
    """The night whose scorekeeper link is ``key`` as the database holds it now, in one SELECT and no ORM.

    For a page kept per version (views/stamped.py) this is all a request needs to
    ask the database: the page itself is kept for (night, version).  None means
    "take the ORM path" (:func:`keeper_night`): a players' link (403), an unknown
    one (404, counted against the client), or a failed read.  Remembers the night
    for this browser's list, as :func:`keeper_night` does.
    """
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    engine = current_app.extensions[READ_ENGINE]() if READ_ENGINE in current_app.extensions else db.engine
    row = read_row(engine, _LINK_SQL, key)
    if row is None or not same_secret(key, row[2]):
        return None
    link = NightLink(row[0], row[1], row[2], row[3], row[4])
    remember(link)
    return link


_VIEWER_LINK_SQL = _LINK_SQL.replace("WHERE n.keeper_key", "WHERE n.viewer_key")


def viewer_link(key: str) -> NightLink | None:
    """The night whose players' link is ``key``, as :func:`keeper_link` reads it (None: ask the ORM)."""
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    engine = current_app.extensions[READ_ENGINE]() if READ_ENGINE in current_app.extensions else db.engine
    row = read_row(engine, _VIEWER_LINK_SQL, key)
    if row is None or not same_secret(key, row[3]):
        return None
    return NightLink(row[0], row[1], row[2], row[3], row[4])


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


def standings_of(night: Night, recent: int = 6) -> Standings:
    """The standings of ``night`` at its version, computed once per version in each process.

    Every phone at a table asks for the same version right after a change.
    """
    what = f"standings/{recent}"
    kept = services.derived(what, night.id, night.version)
    if kept is not None:
        return kept
    play = services.play_for(night)
    current = play.current
    money = services.money_of(night)
    # no other night's name: these standings are the players' too, and a night's players
    # are not told what another night is called ("carried in from the previous night")
    earlier = tuple(
        NightGameLine(number, p.title, tuple(closing.net.items()), closing.note, current=False)
        for number, p in enumerate(play.played()[:-1], start=1)  # a game taken back was never played
        for closing in (p.close(),)
    )
    screens = SCREENS[current.game.kind]
    added = bank_service.night_extra(night)  # the Bonus Round's payments, the bank's counts
    st = standings(
        kind=screens.kind, parts=screens.parts_template, view=screens.view(current.state), state=current.state,
        closing_net=current.close().net, version=night.version, chip_value=money.chip_value,
        currency=money.currency, recent=recent, seated=play.seated, earlier=earlier, title=current.title,
        extra=added[1] if added is not None else None,
    )
    ledger = bank_service.ledger_of(night)
    if ledger.uses_bank:  # the table and the players' page say it in the Bank page's words
        st = replace(st, settles=ledger.settles_text, settle_on=ledger.settle_on)
    if ledger.settle_on == bank_service.BANK:  # the counts settle the night: the report's payments, or none yet
        state = bank_service.bank_state(night)
        st = replace(st, plan=state.plan or (), unsettled=bank_service.unsettled_text(night))
    if added is not None:  # the games and the night's own ledger add up to the standings (issue 20, item 4)
        st = replace(st, extra_line=(added[0], tuple((n, added[1].get(n, 0)) for n in play.seated)))
    paid = bank_service.paid_payments(night)
    if paid:  # a payment marked paid shows paid on the players' page too (issue 20, item 8)
        st = replace(st, paid=paid)
    services.keep_derived(what, night.id, night.version, st)
    return st


#: how many scorekeeper nights a browser's home page lists
KNOWN_NIGHTS = 20


def keeper_mark(night: Night | NightLink) -> str:
    """An opaque mark of ``night``'s scorekeeper link: an HMAC under the secret key.

    The session cookie is signed, not encrypted: anyone who sees it can read it.  It
    keeps (night id, this mark), which grants nothing; the mark changes when the link
    is replaced, so a browser that lost the link stops listing the night.
    """
    secret = current_app.config["SECRET_KEY"]
    key = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(key, b"keeper:" + night.keeper_key.encode(), hashlib.sha256).hexdigest()[:32]


def known_marks() -> list[tuple[int, str]]:
    """(night id, mark) of the nights this browser keeps score of, oldest first."""
    known = []
    for entry in session.get("nights", []):
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int) and isinstance(entry[1], str):
            known.append((entry[0], entry[1]))
    return known  # anything else (an older cookie's plain links) is forgotten


def remember(night: Night | NightLink) -> None:
    """Keep the scorekeeper nights this browser has opened, for the home page's list (no link in the cookie)."""
    mark = keeper_mark(night)
    known = known_marks()
    if (night.id, mark) not in known:
        known = [(night_id, m) for night_id, m in known if night_id != night.id] + [(night.id, mark)]
        session["nights"] = [list(entry) for entry in known[-KNOWN_NIGHTS:]]


def device_label() -> str:
    """A short, random label for this browser, so the history says which phone recorded."""
    label = session.get("device")
    if not label:
        label = "phone " + services.new_key()[:4]
        session["device"] = label
    return label
