"""The change watch: its generation stands still while nothing is committed, and moves on after any commit.

The live pages' push reads the watched stamps only when the generation moves on
(web/plumbing/live_push.py), so a commit that did not move it on would hold a change back from every
phone: each way a commit is heard is checked here, on the database the tests run on (SQLite,
or PostgreSQL with ``COMPANION_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import sqlite3
import time

import pytest
from sqlalchemy import create_engine, text

from companion.db import change_watch
from companion.db.change_watch import watch_of
from companion.extensions import db
from conftest import EXTERNAL_DB

ON_POSTGRES = (EXTERNAL_DB or "").startswith("postgresql")


def settled(watch, seconds: float = 10.0) -> int:
    """The watch's generation once it is sure (PostgreSQL: its listener is listening), within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        generation = watch.generation()
        if generation is not None and watch.generation() == generation:
            return generation
        time.sleep(0.01)
    raise AssertionError(f"the watch was not sure within {seconds} s")


def moved_on(watch, since: int, seconds: float = 10.0) -> bool:
    """Whether the generation moves on from ``since`` within ``seconds`` (a NOTIFY arrives a moment late)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        generation = watch.generation()
        if generation is not None and generation != since:
            return True
        time.sleep(0.01)
    return False


def test_the_generation_stands_while_nothing_is_committed(app):
    with app.app_context():
        watch = watch_of(db.engine)
        generation = settled(watch)
        assert [watch.generation() for _ in range(3)] == [generation] * 3


def test_this_processs_own_commit_moves_the_generation_on_at_once(app):
    with app.app_context():
        watch = watch_of(db.engine)
        generation = settled(watch)
        change_watch.committed()
        assert watch.generation() not in (generation, None)


def test_a_commit_by_another_connection_moves_the_generation_on(app):
    """Another process's commit, as the database sees it: another connection, with this process's bump left out."""
    with app.app_context():
        watch = watch_of(db.engine)
        url = db.engine.url
    generation = settled(watch)
    other = create_engine(url)  # a connection of its own, as another process has
    try:
        with other.begin() as connection:
            if ON_POSTGRES:
                connection.execute(text(f"NOTIFY {change_watch.CHANNEL}"))  # as the unit of work sends it
            else:
                connection.execute(text("PRAGMA user_version = 7"))  # a write to the file, however small
        assert moved_on(watch, generation)
    finally:
        other.dispose()


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's watch")
def test_on_sqlite_the_watch_is_unsure_when_its_connection_fails(app, monkeypatch, tmp_path):
    with app.app_context():
        watch = watch_of(db.engine)
    settled(watch)
    monkeypatch.setattr(watch, "uri", (tmp_path / "gone.sqlite").as_uri() + "?mode=rw")
    watch._local.pid = None  # a new thread's first look: it connects, and fails
    assert watch.generation() is None
    assert not (tmp_path / "gone.sqlite").exists()  # the watch never makes a database


def test_an_in_memory_database_has_no_watch():
    engine = create_engine("sqlite://")
    try:
        assert watch_of(engine).generation() is None
    finally:
        engine.dispose()


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's listener")
def test_on_postgresql_a_failed_listener_is_unsure_until_it_listens_again(app):
    with app.app_context():
        watch = watch_of(db.engine)
    settled(watch)
    listener = change_watch._listeners[watch.key]
    with app.app_context():  # its connection ended by the server, as a restart would
        db.session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": listener.backend})
        db.session.commit()
    deadline = time.monotonic() + 10
    while listener.listening and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not listener.listening and watch.generation() is None
    settled(watch)  # and it listens again
    assert change_watch._listeners[watch.key] is listener


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's listener")
def test_on_postgresql_a_listener_not_heard_from_lately_is_not_trusted(app, monkeypatch):
    """A link that died without an error leaves the listener waiting with no word back: the polls read."""
    with app.app_context():
        watch = watch_of(db.engine)
    settled(watch)
    listener = change_watch._listeners[watch.key]
    assert listener.listening and watch.generation() is not None
    monkeypatch.setattr(change_watch, "TRUSTED_FOR", 0.0)  # as if its last word were older than that
    assert listener.listening and watch.generation() is None
    monkeypatch.setattr(change_watch, "TRUSTED_FOR", 5.0)
    heard = listener.heard
    deadline = time.monotonic() + 10
    while listener.heard == heard and time.monotonic() < deadline:
        time.sleep(0.01)
    assert listener.heard > heard  # it asks the server again after each wait on its socket


def test_an_unknown_engine_has_no_watch(monkeypatch):
    engine = create_engine("sqlite://")
    monkeypatch.setattr(engine.dialect, "name", "another")
    try:
        assert watch_of(engine).generation() is None
    finally:
        engine.dispose()


def test_sqlite3_reports_another_connections_commit_in_data_version(tmp_path):
    """What the SQLite watch rests on: ``data_version`` moves for another connection's commit, not its own."""
    path = tmp_path / "x.sqlite"
    watching, writing = sqlite3.connect(path, isolation_level=None), sqlite3.connect(path, isolation_level=None)
    try:
        writing.execute("CREATE TABLE t (x)")
        before = watching.execute("PRAGMA data_version").fetchone()[0]
        assert watching.execute("PRAGMA data_version").fetchone()[0] == before
        writing.execute("INSERT INTO t VALUES (1)")
        assert watching.execute("PRAGMA data_version").fetchone()[0] != before
    finally:
        watching.close()
        writing.close()


def test_the_unit_of_works_commit_moves_the_generation_on(app):
    from companion.service.uow import UnitOfWork

    with app.app_context():
        watch = watch_of(db.engine)
        before = settled(watch)
        with UnitOfWork() as uow:
            uow.commit()
        assert watch.generation() not in (before, None)


def test_a_waker_is_set_by_this_process_s_commit_and_held_weakly():
    """The live push's watcher waits on an event the watch sets (wake_on_change), instead of asking every few
    milliseconds: this process's own commit sets it at once; an event no one holds any more is let go."""
    import gc
    import threading

    waker = threading.Event()
    change_watch.wake_on_change(waker)
    assert not waker.is_set()
    change_watch.committed()
    assert waker.is_set()
    import weakref

    held = weakref.ref(waker)
    del waker
    gc.collect()
    assert held() is None  # the watch kept it only weakly (other tests' wakers may go at the same time)
    change_watch.committed()  # and a commit after it went wakes no one, and fails on nothing
