"""The change watch: its generation stands still while nothing is committed, and moves on after any commit.

The players' poll reuses the version it read while the generation it read it at stands
(web/live_poll.py), so a commit that did not move the generation on would hide a change
from every phone: each way a commit is heard is checked here, on the database the tests
run on (SQLite, or PostgreSQL with ``COMPANION_TEST_DATABASE_URL``).
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


# --- the page generation: the commits of the serve --workers family, counted in shared memory ------------


def _in_a_forked_process(work) -> None:  # type: ignore[no-untyped-def]
    """Run ``work`` in a child forked from this process (as ``serve --workers`` forks its workers), and wait."""
    import os

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        status = 1
        try:
            work()
            status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert status == 0


def test_a_forked_processs_commit_moves_the_familys_count():
    commits = change_watch._commits
    before = commits.settled()
    assert before is not None
    _in_a_forked_process(lambda: (commits.begin(), commits.end()))
    assert commits.settled() == before + 1


def test_a_commit_in_flight_in_a_forked_process_leaves_no_count_until_it_ends():
    commits = change_watch._commits
    before = commits.settled()
    _in_a_forked_process(commits.begin)
    assert commits.settled() is None  # begun there, not ended: a page reads the database
    commits.end()  # (what the child would have done)
    assert commits.settled() == before + 1


def test_an_end_without_its_beginning_is_not_counted():
    commits = change_watch._commits
    before = commits.settled()
    commits.end()
    assert commits.settled() == before


def test_a_lock_a_killed_process_left_held_gives_the_count_up_and_pages_read_from_then_on(monkeypatch):
    """A family whose lock a forked process took and never let go (killed while counting): a writer waits
    WRITE_WAIT, counts nothing unlocked (a lost count could make a page late) and gives the family up;
    every reader then says None (read the database), even once the lock is free again."""
    family = change_watch._Family()
    monkeypatch.setattr(change_watch._Family, "WRITE_WAIT", 0.05)
    family.begin(), family.end()
    assert family.settled() == 1
    _in_a_forked_process(family.lock.acquire)  # the child exits holding it
    family.begin()
    assert family.memory[change_watch._Family._GIVEN_UP] == 1
    family.lock.release()  # even with the lock free again
    family.end()
    assert family.settled() is None


def test_the_page_generation_moves_on_for_every_commit_of_the_unit_of_work(app):
    from companion.service.uow import UnitOfWork

    with app.app_context():
        watch = watch_of(db.engine)
        deadline = time.monotonic() + 10
        while watch.page_generation() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        before = watch.page_generation()
        assert before is not None and watch.page_generation() == before
        with UnitOfWork() as uow:
            uow.commit()
        after = watch.page_generation()
        assert after is not None and after != before


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's data_version")
def test_the_polls_read_sqlites_data_version_again_only_after_the_slack_and_pages_at_once(app, monkeypatch):
    """Another connection's commit (another process's): the polls' generation stands until POLL_SLACK has
    passed on this thread's clock, then moves on; the pages' generation moves on at once; this process's own
    commit moves both at once."""
    clock = [1000.0]
    monkeypatch.setattr(change_watch, "_clock", lambda: clock[0])
    with app.app_context():
        watch = watch_of(db.engine)
        polled, page = watch.poll_generation(), watch.page_generation()
        assert polled is not None and page is not None
        path = db.engine.url.database
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("CREATE TABLE IF NOT EXISTS probe (x)")
        other.execute("INSERT INTO probe VALUES (1)")
        clock[0] += change_watch.POLL_SLACK / 2
        assert watch.poll_generation() == polled  # within the slack: not read again
        moved = watch.page_generation()
        assert moved != page  # a page reads it every time
        # the page's read moved the process's generation: the polls see it too, without a read of their own
        assert watch.poll_generation() == moved
        other.execute("INSERT INTO probe VALUES (2)")
        clock[0] += change_watch.POLL_SLACK
        assert watch.poll_generation() not in (moved, None)  # past the slack: read again
        again = watch.poll_generation()
        change_watch.committed()
        assert watch.poll_generation() != again  # this process's own commit: at once
        other.close()


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
