"""Engine settings that money depends on, applied to every pooled connection.

SQLite: WAL (readers never block the writer), ``synchronous=FULL`` (an
acknowledged action survives a power cut), a busy timeout (a second phone waits
instead of failing), foreign keys on, and writes in ``BEGIN IMMEDIATE``
transactions so two writers serialise at BEGIN rather than failing half-way.
Reads keep a plain deferred ``BEGIN``, so polling phones never queue behind a write.
Every write begins its own transaction in :func:`write_transaction` after ending the
request's read (the unit of work, service/uow.py; the brakes' counters; a refusal kept
for its page), so a read-then-write never upgrades a deferred transaction (which fails
with SQLITE_BUSY once another connection has committed since it read).  A POST's own
reads before its unit (the night, the form's key) stay deferred: they neither wait for
another table's write nor hold the write lock while the form is read and checked (they
did until issue 22: every other table's record then waited on this one's whole request).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from flask import Flask
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.engine import Engine

_write_transaction: ContextVar[bool] = ContextVar("write_transaction", default=False)

SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA busy_timeout=10000",
    "PRAGMA foreign_keys=ON",
)


@contextlib.contextmanager
def write_transaction() -> Iterator[None]:
    """Within this block, a new transaction on SQLite begins with ``BEGIN IMMEDIATE``."""
    token = _write_transaction.set(True)
    try:
        yield
    finally:
        _write_transaction.reset(token)


def init_app(app: Flask) -> None:
    """End each request's session, even when the database went away under it."""

    @app.teardown_appcontext
    def _let_go_of_a_lost_connection(_error: BaseException | None) -> None:
        """End the request's session, even when the database went away under it.

        Closing the session rolls back on its connection; if the database was restarted
        or killed since the request's last query, that rollback fails, after the answer
        was made (a 303 for a committed tap).  The connection is then thrown away (the
        pool makes a new one, pinging first on a server database) and the answer
        stands: without this the failure escaped to the server as a 500 (issue 21, item 13).
        Runs before Flask-SQLAlchemy's own teardown, which then finds nothing left to close.
        """
        from companion.extensions import db

        try:
            db.session.remove()
        except DBAPIError as error:
            app.logger.warning("database connection lost after the request: %s", error)
            db.session.registry.clear()


def sqlite_files(engine: Engine) -> list[Path]:
    """The SQLite database file and its -wal and -shm (none for an in-memory database)."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:" or database.startswith("file:"):
        return []
    return [Path(database + suffix) for suffix in ("", "-wal", "-shm")]


def make_private(files: list[Path]) -> None:
    """Create the database file readable by its owner only, and tighten what exists.

    The file holds every secret link.  SQLite makes its -wal and -shm with the
    database file's permissions, so a 0600 database file keeps them 0600 too; an
    older file (or its -wal/-shm) left 0644 is tightened when the app starts.
    """
    if not files:
        return
    if not files[0].exists():
        files[0].parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(files[0], os.O_CREAT | os.O_WRONLY, 0o600))
    for path in files:
        with contextlib.suppress(FileNotFoundError):
            if stat.S_IMODE(path.stat().st_mode) & 0o077:
                path.chmod(0o600)


def configure_engine(engine: Engine) -> None:
    """Install the connection settings; a no-op for engines other than SQLite."""
    if engine.dialect.name != "sqlite":
        return
    make_private(sqlite_files(engine))

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # Let SQLAlchemy's "begin" event issue BEGIN, not pysqlite's implicit one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN IMMEDIATE" if _write_transaction.get() else "BEGIN")
