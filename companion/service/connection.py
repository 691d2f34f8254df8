"""A request's hold on the database: let go of it, and say whether the database answers with room to write.

The web layer never touches the session: a stream that waits for minutes lets go of its connection
first, the error page of a database that went away ends what the request held of it, and ``/healthz``
asks whether the database answers and whether its disk has room (issue 36, item 5).  A write that
found the disk full is told apart from a busy database by :func:`is_disk_full`.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from companion.db import disk
from companion.extensions import db
from companion.service.uow import end_reads

__all__ = ["database_health", "is_disk_full", "let_go", "let_go_after_error"]

#: whether an error the database raised says its disk is full (SQLite's SQLITE_FULL, PostgreSQL's 53100)
is_disk_full = disk.is_disk_full


def let_go() -> None:
    """End the request's session: its read ends and its connection goes back to the pool (a stream holds
    neither while it waits; the push's watcher lets go after each read of the stamps)."""
    db.session.remove()


def let_go_after_error() -> None:
    """End what the request held after the database failed under it (busy, out of reach, out of disk): roll
    back, or, when the connection is gone with the database and nothing can be rolled back, throw the
    session away (the pool makes a new connection for the next request)."""
    try:
        end_reads()
    except DBAPIError:
        db.session.registry.clear()


def database_health(free_min: int) -> str | None:
    """Why the database cannot record just now because its disk is full, or None once a round trip to it
    came back and its disk has room (``free_min`` bytes at least, on SQLite's).  A database out of reach
    raises the driver's error, as any query does (the error page answers 503)."""
    db.session.execute(text("SELECT 1"))
    return disk.disk_full(db.engine, free_min)
