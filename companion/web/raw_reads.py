"""Reads that skip the ORM: one statement on a pooled driver connection, for what every request reads.

Every phone asks for a night's version on every poll and every kept page (issue 22),
and the home page lists the nights this browser knows: those reads are one statement
each, with no ORM session and no transaction, so any process behind the same database
answers with what it holds now.  None from a read means "ask the ORM": its path pings
the connection first, and says "try again" (503) if it fails too.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from companion.extensions import db

#: each driver's parameter style, for :func:`read_row`'s one ``{}``
_PARAM = {"qmark": "?", "format": "%s", "pyformat": "%s"}
#: app.extensions: a callable giving the engine one-row reads use (the players' poll middleware's)
READ_ENGINE = "companion_read_engine"


def read_engine() -> Engine:
    """The engine these reads use in a request: the poll middleware's own pool when it is installed."""
    return current_app.extensions[READ_ENGINE]() if READ_ENGINE in current_app.extensions else db.engine


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


def read_rows(sql: str, values: list[Any], engine: Engine | None = None) -> list[tuple[Any, ...]] | None:
    """Every row of ``sql`` (``{}`` where each driver parameter goes, one per value) on the one-row reads' engine.

    As :func:`read_row`, for a page that lists several nights (the home page, a
    player's nights: issue 22); None means "ask the ORM".  ``engine``: outside a request (web/early_pages.py).
    """
    engine = engine or read_engine()
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
