"""The SQLite settings that money depends on, read back from the app's own pooled connections.

Not assumed from ``companion/db/engine.py``: each PRAGMA is read through the app's
engine, on several connections checked out at once (the per-connection settings
must be on every one of them), and the write path is watched statement by
statement, then proven by its effect (a second writer waits).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import event

from companion.db import engine as database
from companion import service as services
from companion.db.engine import write_transaction
from companion.extensions import db
from companion.games.napalm import Declare
from security.support import EXTERNAL_DB, Site

pytestmark = pytest.mark.skipif(EXTERNAL_DB, reason="SQLite settings")

EXPECTED = {"journal_mode": "wal", "synchronous": 2, "foreign_keys": 1}


def settings_of(connection) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The PRAGMAs as this connection sees them."""
    read = {name: connection.exec_driver_sql(f"PRAGMA {name}").scalar() for name in (*EXPECTED, "busy_timeout")}
    read["journal_mode"] = str(read["journal_mode"]).lower()
    return read


def assert_safe(read: dict[str, object]) -> None:
    assert {k: read[k] for k in EXPECTED} == EXPECTED
    assert int(read["busy_timeout"]) >= 5000  # type: ignore[call-overload]


def database_file(app: Flask) -> Path:
    with app.app_context():
        return Path(db.engine.url.database)


def test_every_pooled_connection_has_wal_full_sync_a_busy_timeout_and_foreign_keys(app):
    with app.app_context():
        assert db.engine.pool.__class__.__name__ == "QueuePool"
        connections = [db.engine.connect() for _ in range(3)]  # three at once: three DBAPI connections
        try:
            assert len({id(c.connection.dbapi_connection) for c in connections}) == 3
            for connection in connections:
                assert_safe(settings_of(connection))
        finally:
            for connection in connections:
                connection.close()
        # the session the views use, and a connection made after the pool was emptied
        assert_safe(settings_of(db.session.connection()))
        db.session.remove()
        db.engine.dispose()
        with db.engine.connect() as fresh:
            assert_safe(settings_of(fresh))


def test_the_busy_timeout_is_the_one_the_app_sets(app):
    configured = next(p for p in database.SQLITE_PRAGMAS if "busy_timeout" in p)
    with app.app_context(), db.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == int(configured.split("=")[1])


@pytest.mark.app_makes_the_database
def test_the_check_notices_when_wal_was_never_applied(make_app, monkeypatch):
    """The check above is not fooled: without the WAL pragma, the app's own connection says so.

    (WAL is kept in the database file, so the check must run on a file the app made.)
    """
    monkeypatch.setattr(database, "SQLITE_PRAGMAS", tuple(p for p in database.SQLITE_PRAGMAS if "journal_mode" not in p))
    app = make_app()
    with app.app_context(), db.engine.connect() as connection:
        read = settings_of(connection)
    assert read["journal_mode"] != "wal"
    with pytest.raises(AssertionError):
        assert_safe(read)


@pytest.mark.app_makes_the_database
def test_the_check_notices_when_foreign_keys_are_off(make_app, monkeypatch):
    monkeypatch.setattr(database, "SQLITE_PRAGMAS", tuple(p for p in database.SQLITE_PRAGMAS if "foreign_keys" not in p))
    app = make_app()
    with app.app_context(), db.engine.connect() as connection:
        with pytest.raises(AssertionError):
            assert_safe(settings_of(connection))


# --- the write path ---------------------------------------------------------------------------


@contextmanager
def statements(app: Flask) -> Iterator[list[tuple[int, str]]]:
    """Every statement the app's engine sends, with the connection it went on."""
    seen: list[tuple[int, str]] = []

    def before(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append((id(conn.connection.dbapi_connection), statement.strip().split()[0].upper() + (
            " IMMEDIATE" if statement.strip().upper() == "BEGIN IMMEDIATE" else "")))

    def ended(conn):  # type: ignore[no-untyped-def]
        seen.append((id(conn.connection.dbapi_connection), "END"))

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "commit", ended)
    event.listen(engine, "rollback", ended)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "commit", ended)
        event.remove(engine, "rollback", ended)


def writes_outside_immediate(seen: list[tuple[int, str]]) -> list[str]:
    """The write statements that ran in a transaction not begun with BEGIN IMMEDIATE."""
    begun: dict[int, str | None] = {}
    wrong = []
    for connection, statement in seen:
        if statement.startswith("BEGIN"):
            begun[connection] = statement
        elif statement == "END":
            begun[connection] = None
        elif statement in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
            if begun.get(connection) != "BEGIN IMMEDIATE":
                wrong.append(f"{statement} after {begun.get(connection)}")
    return wrong


def recorded_stage(app, site):  # type: ignore[no-untyped-def]
    """A stage recorded through the table's form: (the night, its client, each statement run for the POST)."""
    night = site.seat()
    client = app.test_client()
    form = site.submit("table.declare", night)
    with statements(app) as seen:
        assert client.post(f"/k/{night.keeper}/declare", data=form).status_code == 303
    return night, client, seen


def test_recording_writes_in_a_begin_immediate_transaction(app, site):
    night, client, seen = recorded_stage(app, site)
    kinds = [s for _, s in seen]
    assert "BEGIN IMMEDIATE" in kinds and "INSERT" in kinds and "UPDATE" in kinds
    assert writes_outside_immediate(seen) == []
    # reads keep a plain deferred BEGIN, so polling phones never queue behind a write
    with statements(app) as seen:
        assert client.get(f"/p/{night.viewer}/live").status_code == 200
    assert "BEGIN IMMEDIATE" not in [s for _, s in seen]


def test_a_record_reads_its_form_outside_the_write_lock_and_writes_in_one_immediate_transaction(app, site):
    """A POST's own reads before its unit (the night, the form's key) are a deferred read: another table's
    record is not kept waiting while this one's form is read and checked, and none of them waits for it.
    Then one BEGIN IMMEDIATE, the write, the commit, and nothing after it."""
    _, _, seen = recorded_stage(app, site)
    kinds = [s for _, s in seen]
    begins = [s for s in kinds if s.startswith("BEGIN")]
    assert begins == ["BEGIN", "BEGIN IMMEDIATE"], kinds
    first_write = min(kinds.index("UPDATE"), kinds.index("INSERT"))
    assert kinds.index("BEGIN IMMEDIATE") < first_write
    assert "END" not in kinds[kinds.index("BEGIN IMMEDIATE") : first_write]  # the same transaction
    assert writes_outside_immediate(seen) == []
    with pytest.raises(ValueError):
        kinds.index("SELECT", kinds.index("INSERT"))  # nothing read after the write


def test_every_state_changing_route_writes_only_in_begin_immediate_transactions(app, site):
    client = app.test_client()
    for endpoint in site.state_changing():
        night = site.seat(endpoint)
        key = night.keeper if site.rules()[endpoint].arguments else None
        before = site.counts(), site.snapshot(night.id)
        with statements(app) as seen:
            response = site.send(client, "POST", endpoint, key, site.submit(endpoint, night))
        assert response.status_code == 303, endpoint
        assert (site.counts(), site.snapshot(night.id)) != before, endpoint
        assert writes_outside_immediate(seen) == [], endpoint


def test_our_write_transaction_holds_the_lock_so_a_second_writer_waits(app):
    path = database_file(app)
    other = sqlite3.connect(path, timeout=0.05, isolation_level=None)
    try:
        with app.app_context():
            with write_transaction(), db.engine.connect() as connection:
                connection.begin()  # BEGIN IMMEDIATE: the write lock is ours from the start
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
                connection.rollback()
            other.execute("BEGIN IMMEDIATE")  # free again
            other.execute("ROLLBACK")
            # a read transaction takes no write lock
            with db.engine.connect() as connection:
                connection.begin()
                connection.exec_driver_sql("SELECT count(*) FROM night").scalar()
                other.execute("BEGIN IMMEDIATE")
                other.execute("ROLLBACK")
                connection.rollback()
    finally:
        other.close()


def test_a_record_waits_for_another_writer_instead_of_failing(app, site):
    night = site.seat()
    client = app.test_client()
    form = site.submit("table.declare", night)
    holder = sqlite3.connect(database_file(app), isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: holder.execute("ROLLBACK"))
    started = time.monotonic()
    release.start()
    try:
        response = client.post(f"/k/{night.keeper}/declare", data=form)
    finally:
        release.join()
        holder.close()
    assert response.status_code == 303
    assert time.monotonic() - started >= 0.4
    assert site.version(night.id) == 1


def test_rotating_a_link_while_another_phone_records_does_not_fail(app, site, monkeypatch):
    """The rotate request reads the night, then writes: a record landing in between must wait,
    not turn the rotation into SQLITE_BUSY (a deferred transaction cannot upgrade after
    another connection committed)."""
    night = site.seat()
    rotate = services.rotate_link
    results: list[object] = []

    def record_on_another_phone() -> None:
        with app.app_context():
            try:
                results.append(services.record(night.id, Declare(()), 0))
            except Exception as error:  # noqa: BLE001 - reported below
                results.append(error)

    def rotate_while_recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        other = threading.Thread(target=record_on_another_phone)
        other.start()
        other.join(0.5)  # the other phone's write lands (or waits for us) here
        rotate(*args, **kwargs)
        rotate_while_recording.other = other  # type: ignore[attr-defined]

    monkeypatch.setattr(services, "rotate_link", rotate_while_recording)
    response = app.test_client().post(f"/k/{night.keeper}/rotate", data=site.submit("share.rotate", night))
    rotate_while_recording.other.join(15)  # type: ignore[attr-defined]
    assert response.status_code == 303
    assert len(results) == 1 and not isinstance(results[0], Exception), results
    after = site.ref(night.id)
    assert after.viewer != night.viewer and site.version(night.id) == 1
