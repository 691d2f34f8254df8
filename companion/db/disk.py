"""A full disk, told apart from a busy database (issue 36, item 5).

A write that finds the disk full fails as a lock that timed out does (SQLAlchemy's
``OperationalError``), but sending it again does not help until someone makes room, and
nothing of it was stored: SQLite refuses the whole transaction (``SQLITE_FULL``, "database
or disk is full"), PostgreSQL too (SQLSTATE 53100, ``disk_full``).  :func:`is_disk_full`
reads that from the error the driver raised.

Every engine is watched (:func:`watch`): a write that fails so is remembered for the engine,
and a unit of work that commits afterwards forgets it (:func:`written`).  :func:`disk_full`
says why the server cannot record, for ``/healthz``: a write found the disk full less than
:data:`REMEMBER_SECONDS` ago and none has been stored since, or (SQLite) the file system that
holds the database has less room than the app's ``DISK_FREE_MIN``, which a full disk shows
before any write is tried.  Before, each write answered "busy… send it again" and ``/healthz``
kept answering ok.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
import weakref

from sqlalchemy import event
from sqlalchemy.engine import Engine

from companion.db.engine import sqlite_files

#: how long a write that found the disk full makes :func:`disk_full` say so, unless a write is stored first
REMEMBER_SECONDS = 60
#: PostgreSQL's SQLSTATE for "could not extend file: No space left on device"
POSTGRESQL_DISK_FULL = "53100"

#: per engine, when a write last found the disk full (an engine is one app's; a test makes many)
_full_at: weakref.WeakKeyDictionary[Engine, float] = weakref.WeakKeyDictionary()


def now() -> float:
    """A clock that only goes forward (tests move it)."""
    return time.monotonic()


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` (SQLAlchemy's, or the driver's own) says the disk is full."""
    original = getattr(error, "orig", None) or error
    if isinstance(original, sqlite3.Error):
        code = getattr(original, "sqlite_errorcode", None)
        return code is not None and code & 0xFF == sqlite3.SQLITE_FULL  # an extended code keeps its primary's low byte
    return getattr(original, "sqlstate", None) == POSTGRESQL_DISK_FULL


def watch(engine: Engine) -> None:
    """Remember each time a statement or a commit on ``engine`` finds the disk full.

    The listener is a module's function that reads the engine from the error's context: a closure over
    ``engine``, held by the engine's own events, made a cycle that kept each engine (and its open SQLite
    files) until the cyclic collector ran: a test run of many apps held over a thousand files open."""
    event.listen(engine, "handle_error", _on_error)


def _on_error(context) -> None:  # type: ignore[no-untyped-def]
    if context.engine is not None and is_disk_full(context.original_exception):
        _full_at[context.engine] = now()


def written(engine: Engine) -> None:
    """A write on ``engine`` was stored: there is room again."""
    _full_at.pop(engine, None)


def disk_full(engine: Engine, free_min: int) -> str | None:
    """Why ``engine``'s database cannot record just now because its disk is full, or None."""
    seen = _full_at.get(engine)
    if seen is not None and now() - seen < REMEMBER_SECONDS:
        return "a write found the database's disk full, and nothing has been recorded since"
    files = sqlite_files(engine)
    if files:
        free = shutil.disk_usage(files[0].resolve().parent).free
        if free < free_min:
            return f"{free:,} bytes are free on the disk that holds the database (fewer than {free_min:,})"
    return None

