"""Whether anything was committed since this process last read: the players' poll and the pages kept across
nights ask this, not the database.

Every phone at every table polls every 0.8 seconds, and almost always nothing has
changed (issue 22).  Reading the night's version for each poll costs a pooled
connection and a statement; knowing that nothing was committed since the version was
read costs far less.  A :class:`ChangeWatch` hands out a *generation*, a number that
moves on after every commit anyone makes to the database; a value read when the
generation was ``g`` may be used again while the generation is still ``g``.

* SQLite: ``PRAGMA data_version`` on a connection of the watch's own, one per thread,
  that never writes: its value changes when any other connection (of this process or
  another) commits.  A thread that sees it change moves the generation on.  For the polls
  (:meth:`ChangeWatch.poll_generation`) a thread reads it again at most every
  :data:`POLL_SLACK` seconds: each read is a read transaction of its own, and costs more
  than the rest of a 304.
* PostgreSQL: LISTEN/NOTIFY.  The unit of work sends ``NOTIFY`` inside its transaction
  (:func:`notify`), so the notification is delivered when, and only if, it commits;
  one listener thread per process, on its own connection, moves the generation on for
  each.  A notification from another process arrives a moment after its commit, so
  :meth:`~ChangeWatch.generation` is for the polls alone (a phone polls again 0.8 s
  later); pages ask :meth:`~ChangeWatch.page_generation` (below), and actions read the
  database as always.
* Both: this process's own unit of work moves the generation on once it has committed
  (:func:`committed`), so its own change is seen at once.

The generation moves on only *after* a commit is seen, and a reader takes it *before* it
reads, so a value is never kept past the moment the commit is seen (at once on SQLite and
for this process's commits; when the notification arrives for another process's commit on
PostgreSQL), only too briefly.  When the watch is unsure (not
started yet, its connection failed, the listener is reconnecting, another engine, an
in-memory database) :meth:`ChangeWatch.generation` answers None: read the database.

**Pages** may not be shown late at all, even by the moment a notification takes: a
scorekeeper's POST answered by one ``serve --workers`` process is followed by a GET that
another may answer.  :meth:`ChangeWatch.page_generation` is a generation that is never
late for a commit the reader could know of: SQLite's ``data_version`` (read at the call,
it has moved for any commit made before it), and on PostgreSQL, besides the listener's,
the count of the commits made by this process and the processes forked from it (the
``serve --workers`` family), kept in memory they share: each unit of work counts its
commit as begun *before* it commits and as ended after (:func:`committing`), and a page
generation is given only when every begun commit has ended, so a value read at it cannot
miss a commit in flight.  A commit of a process outside the family (another machine
serving the same database) is heard by the listener, a moment late, as the polls hear it;
a write outside the unit of work (by hand, in ``psql``) is heard by neither, on PostgreSQL,
as for the polls.  The one reader of it is web/early_pages.py (``EarlyPages.remembered``).
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import multiprocessing
import os
import struct
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
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

#: how long a thread answers the polls with the SQLite ``data_version`` it read last (seconds).  Reading it
#: is a read transaction of its own (the file's shared lock taken and let go): under the load bench, with
#: the server's threads each on their own connection, some 75 us of CPU a poll, more than the rest of a 304
#: (issue 22).  Another process's commit then reaches the polls up to this much later (this process's own
#: at once: :func:`committed`), as a notification does on PostgreSQL; pages never wait on it
#: (:meth:`ChangeWatch.page_generation` reads it every time).
POLL_SLACK = 0.05
#: the clock POLL_SLACK is counted on (tests move it)
_clock = time.monotonic

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

    The push of the live pages (web/live_push.py) waits on it instead of asking every few milliseconds;
    ``waker`` is held weakly, so a waiter that is gone costs nothing."""
    with _lock:
        _wakers.add(waker)


def committed() -> None:
    """This process committed a change: no value read before it may be used again (called after the commit)."""
    _move_on()


class _Family:
    """The commits begun and ended by this process and those forked from it, in memory they share.

    Made when this module is first imported, which ``serve --workers`` does in the parent before it
    forks (an anonymous shared mapping is inherited); a lock shared the same way makes each count
    exact.  A commit begun and never ended (a process killed in the middle of one) leaves the counts
    apart: pages then read the database, as when the watch is unsure.  A writer that cannot take the
    lock in :data:`WRITE_WAIT` (a process killed while holding it, for the microseconds it is held)
    does not count unlocked, which could lose a count and make a page late: it marks the family
    *given up* (one byte, written alone), and from then on every page reads the database.
    """

    #: how long a reader waits for the lock before it reads the database instead
    READ_WAIT = 0.01
    #: how long a writer waits for it before the family is given up (pages read the database from then on)
    WRITE_WAIT = 0.25
    _GIVEN_UP = 16  # the offset of the given-up byte, after the two counts

    def __init__(self) -> None:
        self.memory = mmap.mmap(-1, 17)  # begun, ended: two 64-bit counts; then the given-up byte
        self.lock = multiprocessing.get_context("fork").Lock()

    def _add(self, offset: int) -> None:
        if not self.lock.acquire(timeout=self.WRITE_WAIT):
            self.memory[self._GIVEN_UP] = 1
            log.warning("change watch: the shared count of commits is given up; pages read the database")
            return
        try:
            begun, ended = struct.unpack_from("<qq", self.memory, 0)
            if offset == 0:
                begun += 1
            else:
                ended = min(ended + 1, begun)  # an end without its beginning is not counted
            struct.pack_into("<qq", self.memory, 0, begun, ended)
        finally:
            self.lock.release()

    def begin(self) -> None:
        self._add(0)

    def end(self) -> None:
        self._add(8)

    def settled(self) -> int | None:
        """The count of commits begun, when every one has ended; None while one is in flight (or unsure)."""
        if self.memory[self._GIVEN_UP] or not self.lock.acquire(timeout=self.READ_WAIT):
            return None
        try:
            begun, ended = struct.unpack_from("<qq", self.memory, 0)
        finally:
            self.lock.release()
        return begun if begun == ended else None


def _family() -> _Family | None:
    try:
        return _Family()
    except (OSError, ImportError, ValueError) as error:  # no shared memory or semaphores here: pages read
        log.warning("change watch: no shared count of commits, pages read the database: %s", error)
        return None


_commits = _family()


@contextlib.contextmanager
def committing() -> Iterator[None]:
    """Around the one commit of a unit of work: counted as begun before it, as ended and :func:`committed` after
    it, whether it succeeded or not (a commit that failed half-way may have been written)."""
    if _commits is not None:
        _commits.begin()
    try:
        yield
    finally:
        if _commits is not None:
            _commits.end()
        committed()


def notify(session: Session) -> None:
    """Inside a transaction about to commit: tell every process's listener, on PostgreSQL, once it commits."""
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        session.execute(_NOTIFY)


class ChangeWatch:
    """The generation of one engine's database, or None when unsure; see the module's docstring."""

    def generation(self) -> int | None:  # pragma: no cover - overridden
        return None

    def poll_generation(self) -> int | None:
        """A generation for the players' polls, which may be a moment late for another process's commit (a
        phone polls again 0.8 s later): :meth:`generation`, unless the engine's watch can be cheaper."""
        return self.generation()

    def page_generation(self) -> Hashable | None:
        """A generation for pages: it has moved on for every commit made before this call that a request could
        know of (see the module's docstring); None: unsure, read the database."""
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

    def page_generation(self) -> Hashable | None:
        """:meth:`generation`: ``data_version``, read now, has moved for any commit of any connection before it."""
        return self.generation()

    def poll_generation(self) -> int | None:
        """:meth:`generation`, read again by this thread at most every :data:`POLL_SLACK` seconds: in between,
        the generation as this process moved it (its own commits at once, other threads' reads)."""
        local, now, pid = self._local, _clock(), os.getpid()
        polled = getattr(local, "polled", None)  # (the process, when) of this thread's last read that was sure
        if polled is not None and polled[0] == pid and now - polled[1] < POLL_SLACK:
            return _generation
        generation = self.generation()
        local.polled = (pid, now) if generation is not None else None
        return generation


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

    def page_generation(self) -> Hashable | None:
        """The family's count of commits, taken while none is in flight, with the listener's generation (for a
        commit outside the family); None while a commit is in flight or the listener is not trusted."""
        if _commits is None:
            return None
        settled = _commits.settled()
        if settled is None:
            return None
        generation = self.generation()
        return None if generation is None else (settled, generation)


class _Listener:
    """A daemon thread that LISTENs on its own connection and moves the generation on for each notification.

    It is ``listening`` only while its LISTEN stands: it moves the generation on each time
    it (re)starts listening, since whatever was committed while it was not is unknown.  On
    an error it stops listening (the polls read the database), waits and connects again.
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
            except Exception as error:  # noqa: BLE001 - any failure: the polls read the database meanwhile
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
        """Whether the polls may go by the generation: listening, and heard from the server lately."""
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
    made in gunicorn's master before gevent patched the worker; companion/web/server.py).
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

