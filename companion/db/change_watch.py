"""Whether anything was committed since this process last looked: the live pages' push waits on it.

The push of the live pages (web/plumbing/live_push.py) reads the stamps of every night and group a
phone watches after each commit, and only then.  A :class:`ChangeWatch` hands out a
*generation*, a number that moves on after every commit anyone makes to the database, and
:func:`wake_on_change` sets an event each time it moves.

* SQLite: ``PRAGMA data_version`` on a connection of the watch's own, one per thread,
  that never writes: its value changes when any other connection (of this process or
  another) commits.  A thread that sees it change moves the generation on.
* PostgreSQL: LISTEN/NOTIFY.  The unit of work sends ``NOTIFY`` inside its transaction
  (:func:`notify`), so the notification is delivered when, and only if, it commits;
  one listener thread per process, on its own connection, moves the generation on for
  each.  A notification from another process arrives a moment after its commit.
* Both: this process's own unit of work moves the generation on once it has committed
  (:func:`committed`), so its own change is seen at once.

When the watch is unsure (not started yet, its connection failed, the listener is
reconnecting, another engine, an in-memory database) :meth:`ChangeWatch.generation`
answers None: the push then reads the stamps now and then.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from companion.db.engine import sqlite_files

log = logging.getLogger(__name__)

#: the PostgreSQL channel the unit of work notifies and the listener listens on
CHANNEL = "companion_change"
_NOTIFY = text(f"NOTIFY {CHANNEL}")
#: how long the listener waits on its socket at a time (psycopg's notifies() then returns, and is called again)
LISTEN_TIMEOUT = 1.0
#: the longest the listener waits before it connects again after an error
MOST_BACKOFF = 30.0
#: how old the listener's last word from the server may be for the watch to be trusted: it asks after
#: each wait on its socket, and a link that died without an error (no word back) falls to reading
TRUSTED_FOR = 5.0

_lock = threading.Lock()
_generation = 0


#: the events :func:`wake_on_change` was given, set each time the generation moves on (weakly held: a hub that
#: is gone stops being woken)
_wakers: weakref.WeakSet[threading.Event] = weakref.WeakSet()


def _move_on() -> None:
    global _generation
    with _lock:
        _generation += 1
        wakers = list(_wakers)
    for waker in wakers:
        waker.set()


def wake_on_change(waker: threading.Event) -> None:
    """Set ``waker`` each time the generation moves on: at once after this process's own commit
    (:func:`committed`), on each PostgreSQL notification the listener hears, and when a read of SQLite's
    ``data_version`` (:meth:`ChangeWatch.generation`) finds another connection's commit.

    The push of the live pages (web/plumbing/live_push.py) waits on it instead of asking every few milliseconds;
    ``waker`` is held weakly, so a waiter that is gone costs nothing."""
    with _lock:
        _wakers.add(waker)


def committed() -> None:
    """This process committed a change: no value read before it may be used again (called after the commit)."""
    _move_on()


def notify(session: Session) -> None:
    """Inside a transaction about to commit: tell every process's listener, on PostgreSQL, once it commits."""
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        session.execute(_NOTIFY)


class ChangeWatch:
    """The generation of one engine's database, or None when unsure; see the module's docstring."""

    def generation(self) -> int | None:  # pragma: no cover - overridden
        return None


class _Unsure(ChangeWatch):
    """Another engine, or an in-memory database: always read."""


class _SQLiteWatch(ChangeWatch):
    """``PRAGMA data_version`` on a connection per thread (and per process, after a fork)."""

    def __init__(self, path: Path) -> None:
        # read and write, never create: a watch does not make a database that is not there
        self.uri = path.absolute().as_uri() + "?mode=rw"
        self._local = threading.local()

    def generation(self) -> int | None:
        local, pid = self._local, os.getpid()
        try:
            if getattr(local, "pid", None) != pid:
                # a new thread, or a forked child: a parent's connection is kept, never used nor closed here
                if getattr(local, "connection", None) is not None:
                    _inherited.append(local.connection)
                local.connection = None
                local.connection = sqlite3.connect(self.uri, uri=True, isolation_level=None)
                local.pid, local.seen = pid, None
            version = local.connection.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            broken, local.connection, local.pid = getattr(local, "connection", None), None, None
            if broken is not None:
                with contextlib.suppress(sqlite3.Error):
                    broken.close()
            return None  # unsure: read; a new connection next time
        if version != local.seen:
            # something was committed since this thread last looked (or it never looked): move on,
            # then hand out the generation after the move, so a value read from now on is kept with it
            local.seen = version
            _move_on()
        return _generation


class _PostgresWatch(ChangeWatch):
    """The process's one listener for this database (started on first use, again after a fork)."""

    def __init__(self, engine: Engine) -> None:
        # not the engine itself: the watches are kept by engine, weakly
        self.key = engine.url.render_as_string(hide_password=False)
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        dbapi = engine.dialect.loaded_dbapi
        self.connect: Callable[[], Any] = lambda: dbapi.connect(*cargs, **cparams)

    def generation(self) -> int | None:
        listener = _listeners.get(self.key)
        if listener is None or listener.pid != os.getpid():
            listener = _listener_for(self.key, self.connect)
        return _generation if listener.trusted() else None


class _Listener:
    """A daemon thread that LISTENs on its own connection and moves the generation on for each notification.

    It is ``listening`` only while its LISTEN stands: it moves the generation on each time
    it (re)starts listening, since whatever was committed while it was not is unknown.  On
    an error it stops listening (the push reads the stamps now and then), waits and connects again.
    After each wait on its socket it asks the server a ``SELECT 1``: a link that died without
    an error (a cable pulled, a machine gone) leaves it waiting with no word back, and the
    watch is trusted only while the last word is under :data:`TRUSTED_FOR` seconds old.
    """

    def __init__(self, connect: Callable[[], Any]) -> None:
        self.pid = os.getpid()
        self.listening = False
        self.heard = 0.0  # time.monotonic() of the server's last answer
        self.backend: int | None = None
        self._connect = connect
        self.thread = threading.Thread(target=self._run, name="companion-change-listener", daemon=True)

    def _run(self) -> None:
        backoff = 0.5
        while True:
            connection = None
            try:
                connection = self._connect()
                connection.autocommit = True
                connection.execute(f"LISTEN {CHANNEL}")
                _move_on()  # what was committed while it was not listening is unknown: before it says it listens
                self.backend = connection.info.backend_pid  # the server's process for it, which a test may end
                self.heard = time.monotonic()
                self.listening = True
                backoff = 0.5
                while True:
                    for _ in connection.notifies(timeout=LISTEN_TIMEOUT):
                        _move_on()
                    connection.execute("SELECT 1")
                    self.heard = time.monotonic()
            except Exception as error:  # noqa: BLE001 - any failure: the push reads the stamps meanwhile
                self.listening = False
                log.warning("change watch: listening failed, reading the database meanwhile: %s", error)
            finally:
                self.listening = False
                if connection is not None:
                    with contextlib.suppress(Exception):  # already broken
                        connection.close()
            time.sleep(backoff)
            backoff = min(backoff * 2, MOST_BACKOFF)

    def trusted(self) -> bool:
        """Whether the push may go by the generation: listening, and heard from the server lately."""
        return self.listening and time.monotonic() - self.heard < TRUSTED_FOR


#: the process's listeners, by database URL: one per database, however many apps use it
_listeners: dict[str, _Listener] = {}
#: a parent process's listeners and SQLite connections, kept so that a forked child never closes them
_inherited: list[Any] = []


def _listener_for(key: str, connect: Callable[[], Any]) -> _Listener:
    """The process's listener for ``key``, started outside the lock.

    Under gevent (``serve``'s workers) the listener's thread is a greenlet, and starting it
    waits for it to begin: with the lock held, that wait lets other greenlets run, and one
    of them taking the lock would stop the whole process (the lock may be a real one,
    made in gunicorn's master before gevent patched the worker; companion/web/plumbing/server.py).
    """
    with _lock:
        listener = _listeners.get(key)
        fresh = listener is None or listener.pid != os.getpid()
        if fresh:
            if listener is not None:
                _inherited.append(listener)
            listener = _listeners[key] = _Listener(connect)
    assert listener is not None
    if fresh:
        listener.thread.start()
    return listener


_watches: weakref.WeakKeyDictionary[Engine, ChangeWatch] = weakref.WeakKeyDictionary()


def watch_of(engine: Engine) -> ChangeWatch:
    """The watch of ``engine``'s database (made on first use; an SQLite watch opens its connections lazily too)."""
    watch = _watches.get(engine)
    if watch is None:
        with _lock:
            watch = _watches.get(engine)
            if watch is None:
                watch = _watches[engine] = _make(engine)
    return watch


def _make(engine: Engine) -> ChangeWatch:
    name = engine.dialect.name
    if name == "sqlite":
        files = sqlite_files(engine)
        return _SQLiteWatch(files[0]) if files else _Unsure()
    if name == "postgresql" and engine.dialect.driver == "psycopg":
        return _PostgresWatch(engine)
    return _Unsure()

