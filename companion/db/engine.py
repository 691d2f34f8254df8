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
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TypeVar

from flask import Flask, current_app
from sqlalchemy import create_engine, event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.engine import Connection, Engine

T = TypeVar("T")

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
    """End each request's session, even when the database went away under it; make :func:`read_once`'s engine."""
    from companion.extensions import db

    with app.app_context():
        app.extensions[_READS] = _reads_engine(app, db.engine)

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
        if connection.get_execution_options().get(ONE_STATEMENT):
            return  # a read of one statement (:func:`read_once`): SQLite runs it in a transaction of its own
        connection.exec_driver_sql("BEGIN IMMEDIATE" if _write_transaction.get() else "BEGIN")


#: the execution option of :func:`read_once`'s connections on SQLite: no ``BEGIN`` (the connections are in
#: pysqlite's autocommit mode since they were made, so nothing else begins a transaction either).  Not
#: SQLAlchemy's ``isolation_level="AUTOCOMMIT"``: on pysqlite it is set and put back on every checkout
#: (a PRAGMA each time, and pysqlite's own implicit BEGIN switched on again), which made the read twice as slow
ONE_STATEMENT = "companion_one_statement"


_READS = "companion_reads_engine"


def _reads_engine(app: Flask, engine: Engine) -> Engine:
    """The engine :func:`read_once` runs on: the app's own on SQLite; on a server database, a pool of its own
    in autocommit and without the ping before each checkout (a lost connection is found by the read itself).

    Its pool is closed whenever the app's engine is (tests close theirs after each app).
    """
    if engine.dialect.name == "sqlite":
        return engine.execution_options(**{ONE_STATEMENT: True})
    options = {**app.config.get("SQLALCHEMY_ENGINE_OPTIONS", {}), "pool_pre_ping": False, "isolation_level": "AUTOCOMMIT"}
    reads = create_engine(engine.url, **options)
    event.listen(engine, "engine_disposed", lambda _engine: reads.dispose())
    return reads


def reads_engine(app: Flask) -> Engine:
    """The engine :func:`read_once` runs on, for ``app`` (on SQLite, the app's own with an option)."""
    return app.extensions[_READS]


def read_once(read: Callable[[Connection], T]) -> T:
    """``read(connection)``, on a connection outside any transaction, tried again once on a fresh connection
    if the first one was found lost (the database restarted since it was pooled).

    For what a repeat request of a kept page asks (the night's or the group's version by its link, issue 37):
    one statement that needs no transaction around it saves the ``BEGIN`` and ``ROLLBACK`` round trips, and on
    a server database the pool's ping too.  Each statement sees every commit made before it starts, as the
    first statement of a transaction did.  A database that is down fails the second try as the first: the
    caller's error (``OperationalError``: the page's 503) is unchanged.
    """
    reads = reads_engine(current_app)
    try:
        with reads.connect() as connection:
            return read(connection)
    except DBAPIError as error:
        if not error.connection_invalidated:
            raise
    with reads.connect() as connection:
        return read(connection)
