"""The live pages pushed by Server-Sent Events: one hub per process, one render per change (issue 37).

The players' page of a night, its table display, the members' page of a group and the group's organiser
page each open an ``EventSource`` on a stream of their own (web/pages/players.py, web/pages/display.py, web/pages/groups.py).  A stream sends
an event, whose id is the night's version (or the group's stamp), each time what the page shows
changes; the phone puts its data in place of the page's live part.

**Fan-out.**  The :class:`Hub` (one per app and process) keeps a :class:`Topic` per night or group
that at least one phone watches, with the stamp read last (a night's version and links; a group's
stamp, web/pages/groups.py).  One watcher thread per hub waits for the change watch (db/change_watch.py, through
:func:`service.watch_commits <companion.service.uow.watch_commits>`): this process's own commit wakes it at once; on
SQLite another process's commit is found by the watch's ``PRAGMA data_version``, read every
:data:`SLACK` seconds while anyone watches; on PostgreSQL every process's commit arrives as the
NOTIFY the unit of work sends, heard by the watch's one listener.  Woken, it reads the stamps of
every watched night and group in two statements (``service.night_stamps``,
``service.group_stamps``) and wakes the subscribers of those that moved (a
:class:`threading.Condition` per topic: under gunicorn's gevent worker, whose monkey-patching makes
threads greenlets and these primitives gevent's, a subscriber is a greenlet waiting on it).

**One render per change.**  The first subscriber of a topic to wake renders its page's fragment, in
a request context made from its own request's (the view's ``render``; no context is held while a stream
waits), and keeps the event's bytes in the topic by the
viewer's kind (the player a players' page is "me" for, or none; a group page's period and rivalry):
every other phone of that kind at that topic gets the same bytes without a render.

**A stream ends**: when the link it came by is replaced or its night or group is gone (the phone's
EventSource then asks again and gets the 404 that says so); and after :data:`STREAM_SECONDS` in any
case, so that no connection is held for ever: its ``retry:`` line has the phone come back a second
later with ``Last-Event-ID``, and a stream that starts with the id of what is current sends nothing
until the next change (an older one gets the current fragment at once).  Every
:data:`HEARTBEAT_SECONDS` a comment line keeps proxies and the phone's network from closing an idle
connection.

**Which server.**  A stream holds its connection for minutes: cheap on a server whose connections are
greenlets (gunicorn with gevent workers, what ``serve`` runs: web/plumbing/server.py) or threads of their own
(werkzeug's threaded server).  The pages offer it unless ``LIVE_PUSH = False`` (:func:`offered`): they
then poll ``/p/<key>/live``, as a browser without EventSource does.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response, current_app, request

from companion import service
from companion.web.plumbing.security import same_secret

log = logging.getLogger(__name__)

#: the longest a stream is held before it ends (the phone comes back with Last-Event-ID): config LIVE_STREAM_SECONDS
STREAM_SECONDS = 300.0
#: a comment line this often while nothing changes: config LIVE_HEARTBEAT_SECONDS
HEARTBEAT_SECONDS = 15.0
#: how soon a phone comes back after a stream ended (the ``retry:`` line), in milliseconds
RETRY_MS = 1000
#: how often the watcher reads SQLite's data_version while anyone watches (another process's commit; this
#: process's own wakes it at once), and how often it reads the stamps when the change watch is unsure
SLACK = 0.05
UNSURE_EVERY = 1.0
#: how long the watcher thread stays with nothing to watch before it ends (the next subscriber starts one)
IDLE_SECONDS = 2.0

#: a topic's kinds: a night (its players' page, the table display and the scorekeeper's watch) and a group
#: (both its pages)
NIGHT, GROUP = "night", "group"

#: a view's render of its fragment: (event id, HTML) of what is current, or None when the link opens nothing now
Render = Callable[[], "tuple[str, str] | None"]


@dataclass(frozen=True)
class Stamp:
    """What a topic's watcher read last: the event id of what is current, and the links that may open it."""

    event_id: str
    links: frozenset[str]


def night_stamp(version: int, viewer_key: str, keeper_key: str, display_key: str | None = None,
                phone_keys: tuple[str, ...] = ()) -> Stamp:
    """A night's topic stamp: its version, and the links that may watch it: the players', the scorekeeper's, the
    display's when it has one and each other keeper phone's (a link replaced or taken back ends the streams opened
    by it: docs/display.md, docs/keepers.md)."""
    links = (viewer_key, keeper_key, *(() if display_key is None else (display_key,)), *phone_keys)
    return Stamp(str(version), frozenset(links))


def group_stamp(stamp: tuple[Any, ...]) -> Stamp:
    """A group's topic stamp from ``service.group_stamp``'s: its id names the version, its nights' changes, count
    and versions (what moves when a page of the group would show something else); its links, both."""
    _id, version, _name, organiser_key, member_key, changed, count, versions = stamp
    return Stamp(f"{version}.{changed}.{count}.{versions}", frozenset((organiser_key, member_key)))


@dataclass(eq=False)
class Topic:
    """One night or group that phones watch: its stamp, a condition its subscribers wait on, what was rendered."""

    kind: str
    ident: int
    stamp: Stamp | None
    condition: threading.Condition = field(default_factory=threading.Condition)
    render_lock: threading.Lock = field(default_factory=threading.Lock)
    #: by viewer's kind: (event id, the event's bytes) of the last render
    rendered: dict[Hashable, tuple[str, bytes]] = field(default_factory=dict)
    subscribers: int = 0

    def moved_to(self, stamp: Stamp | None) -> None:
        with self.condition:
            if stamp != self.stamp:
                self.stamp = stamp
                self.condition.notify_all()

    def wait(self, seen: Stamp | None, timeout: float) -> bool:
        """Wait until the stamp is no longer ``seen`` (True) or ``timeout`` seconds pass (False)."""
        with self.condition:
            return self.condition.wait_for(lambda: self.stamp is not seen, timeout)

    def event(self, viewer: Hashable, render: Render) -> tuple[str, bytes] | None:
        """The event of what is current for ``viewer``'s kind: kept when rendered at the current stamp, else
        rendered now (by one subscriber; the others of the topic wait for it and take its bytes); None: the
        render found the link no longer opens anything."""
        with self.render_lock:
            stamp = self.stamp
            kept = self.rendered.get(viewer)
            if kept is not None and stamp is not None and kept[0] == stamp.event_id:
                return kept
            current = render()
            if current is None:
                return None
            event_id, data = current
            made = event_id, event_bytes(event_id, data)
            if stamp is not None:  # forget what other kinds rendered at older stamps
                self.rendered = {k: v for k, v in self.rendered.items() if v[0] == stamp.event_id}
            self.rendered[viewer] = made
            return made


def event_bytes(event_id: str, data: str) -> bytes:
    """One SSE message: its id, and ``data`` a line at a time (a line break ends a field)."""
    lines = "".join(f"data: {line}\n" for line in data.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return f"id: {event_id}\n{lines}\n".encode()


class Hub:
    """The process's topics and the one watcher thread that moves them on (see the module's docstring)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._topics: dict[tuple[str, int], Topic] = {}
        self._lock = threading.Lock()
        self._woken = threading.Event()
        self._fresh = False  # a topic was added since the last read: read even if nothing was committed
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    def subscribe(self, kind: str, ident: int, stamp: Stamp) -> Topic:
        """Count a subscriber of ``kind``'s ``ident`` (read by the view at ``stamp``); the watcher reads it anew."""
        with self._lock:
            topic = self._topics.get((kind, ident))
            if topic is None:
                topic = self._topics[(kind, ident)] = Topic(kind, ident, stamp)
            topic.subscribers += 1
            self._fresh = True
            self._running()
        self._woken.set()
        return topic

    def unsubscribe(self, topic: Topic) -> None:
        with self._lock:
            topic.subscribers -= 1
            if topic.subscribers <= 0 and self._topics.get((topic.kind, topic.ident)) is topic:
                del self._topics[(topic.kind, topic.ident)]

    def end_all(self) -> None:
        """End every open stream now (each phone comes back, as after any stream's end): a server stopping, a
        test done."""
        with self._lock:
            topics = list(self._topics.values())
            self._topics.clear()
        for topic in topics:
            topic.moved_to(None)

    def watched(self) -> int:
        """How many nights and groups phones watch now (the bench and the tests read it)."""
        with self._lock:
            return len(self._topics)

    def _running(self) -> None:
        """Start the watcher if there is none in this process (a forked child starts its own); under _lock."""
        if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._watch, name="companion-live-push", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        with self.app.app_context():
            watch = service.watch_commits(self._woken)
        seen: int | None = None  # the change watch's generation at the last read
        last_read = 0.0
        while True:
            with self._lock:
                idle = not self._topics
            if idle and not self._woken.wait(IDLE_SECONDS):
                with self._lock:
                    if not self._topics:  # nothing to watch: end; the next subscriber starts a watcher
                        self._thread = None
                        return
            woke = self._woken.wait(SLACK)
            self._woken.clear()
            try:
                generation = watch.generation()  # SQLite: reads data_version (another process's commit)
            except Exception:  # noqa: BLE001 - the watch is unsure: read
                generation = None
            with self._lock:
                fresh, self._fresh = self._fresh, False
                idle = not self._topics
            now = time.monotonic()
            if idle:
                continue
            if not fresh and generation is not None and generation == seen:
                continue  # nothing committed since the last read
            if not fresh and generation is None and not woke and now - last_read < UNSURE_EVERY:
                continue  # unsure (no watch for this engine, or the listener reconnecting): read now and then
            try:
                self._read()
            except Exception as error:  # noqa: BLE001 - the database is out of reach: the streams wait, and read again
                log.warning("live push: reading the watched stamps failed: %s", error)
                with self._lock:
                    self._fresh = True
                time.sleep(UNSURE_EVERY)
                continue
            seen, last_read = generation, now

    def _read(self) -> None:
        """Read every watched topic's stamp (two statements) and wake the subscribers of those that moved."""
        with self._lock:
            topics = list(self._topics.values())
        nights = [t.ident for t in topics if t.kind == NIGHT]
        groups = [t.ident for t in topics if t.kind == GROUP]
        with self.app.app_context():
            try:
                night_rows = service.night_stamps(nights)
                group_rows = service.group_stamps(groups)
            finally:
                service.let_go()
        for topic in topics:
            if topic.kind == NIGHT:
                row = night_rows.get(topic.ident)
                topic.moved_to(None if row is None else night_stamp(*row))
            else:
                group = group_rows.get(topic.ident)
                topic.moved_to(None if group is None else group_stamp(group))


def hub_of(app: Flask) -> Hub:
    hub = app.extensions.get("companion_live_push")
    if hub is None:
        hub = app.extensions["companion_live_push"] = Hub(app)
    return hub


def offered() -> bool:
    """Whether the pages offer the stream (``LIVE_PUSH``, on unless set False: then they poll, as a browser
    without EventSource does)."""
    return bool(current_app.config.get("LIVE_PUSH", True))


def asked_since() -> str | None:
    """The event id the phone has: ``Last-Event-ID`` (an EventSource coming back) or ``?since=`` (the page's)."""
    return request.headers.get("Last-Event-ID") or request.args.get("since") or None


def stream(kind: str, ident: int, link: str, stamp: Stamp, viewer: Hashable, render: Render) -> Response:
    """The event stream of ``kind``'s ``ident`` opened by ``link`` (already checked: a 404 comes before this).

    ``render`` makes the fragment of what is current for this request's ``viewer`` kind: (event id, HTML),
    reading the database in this request's context, or None when ``link`` opens nothing now; it is called
    only when the topic keeps no render of that kind at the current stamp.
    """
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    hub = hub_of(app)
    since = asked_since()
    config = app.config
    hold = float(config.get("LIVE_STREAM_SECONDS", STREAM_SECONDS))
    heartbeat = float(config.get("LIVE_HEARTBEAT_SECONDS", HEARTBEAT_SECONDS))
    service.let_go()  # the view's read ends here: a stream holds no connection nor transaction while it waits

    environ = dict(request.environ)

    def rendered() -> tuple[str, str] | None:
        # in a request context of its own, made from this request's and popped before the stream goes on: no
        # context is held across the stream's yields (a server may interleave streams; its teardown ends the read)
        with app.request_context(environ):
            return render()

    def events() -> Iterator[bytes]:
        last = since
        deadline = time.monotonic() + hold
        topic = hub.subscribe(kind, ident, stamp)  # here, not in the view: a stream never started never subscribes
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            while True:
                seen = topic.stamp
                if seen is None or not any(same_secret(link, known) for known in seen.links):
                    return  # the night or group is gone, or this link was replaced: the phone asks again, a 404
                if seen.event_id != last:
                    made = topic.event(viewer, rendered)
                    if made is None:
                        return
                    event_id, data = made
                    if event_id != last:
                        last = event_id
                        yield data
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                if not topic.wait(seen, min(heartbeat, left)) and time.monotonic() < deadline:
                    yield b": still here\n\n"
        finally:
            hub.unsubscribe(topic)

    response = Response(events(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy in front (nginx) passes each event on at once
    response.vary.add("Cookie")
    return response


def init_app(app: Flask) -> None:
    """The pages ask ``live_push_offered()`` whether to name their stream (see :func:`offered`)."""
    app.add_template_global(offered, "live_push_offered")
    hub_of(app)
