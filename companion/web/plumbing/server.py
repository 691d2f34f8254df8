"""The production server ``serve`` hands over to: gunicorn with gevent workers, the app built in each worker.

Why gunicorn with gevent (issue 37): each connection is a greenlet, not a thread.  A
phone's page stream held open, a phone polling on a kept-alive connection and a socket
that sent half a request and stopped each cost a greenlet and a buffer, so one process
holds thousands of them on a small machine, and the table keeps being answered while
they wait.  It is the choice Flask's deployment docs give for long-lived connections, and
psycopg 3 (3.1.14 on) runs under gevent as it is.  ``bench/README.md`` ("The server")
measures it against gunicorn's threaded worker.

How it starts.  ``flask --app companion serve`` (``companion/cli.py``) upgrades the
database in its own process, then replaces itself (``exec``) with ``python -m
companion.web.plumbing.server``: a fresh interpreter that becomes gunicorn's master.  The master
never builds the app: each worker, forked from it, has gevent patch the standard library
(gunicorn's gevent worker does that first thing) and only then builds the app in
:meth:`CompanionServer.load`, so that what the app opens is cooperative: SQLAlchemy's
pool waits as a greenlet waits, psycopg picks its gevent-friendly wait when it is first
imported (it picks once, at import), and the change watch's listener thread is a greenlet
(the database layer's ``change_watch.py``).

gunicorn's documented "Custom Application" API (``gunicorn.app.base.BaseApplication``
with ``load_config`` and ``load``) is all this module uses of it.
"""

from __future__ import annotations

import argparse
import gc
from collections.abc import Sequence
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication

#: seconds a connection may take to send a request's head, and may stay open idle between two requests:
#: a phone polling every 0.8 s keeps its connection; a socket that sent half a request is closed after this
#: (gunicorn's gevent worker times the whole head, not the gap between two bytes: trickling does not extend
#: it; waitress closed a connection idle for 60 s, however slowly it trickled)
KEEP_ALIVE = 15
#: seconds a worker told to stop (SIGTERM) finishes the requests and streams it holds before it is made to stop
GRACEFUL_SECONDS = 10
#: connections the kernel queues for a process that is busy (as waitress's backlog was)
BACKLOG = 1024


def gunicorn_options(host: str, port: int, workers: int, connections: int) -> dict[str, Any]:
    """gunicorn's settings for ``serve``: gevent workers, and the limits that keep a slow or idle client cheap.

    ``forwarded_allow_ips`` is empty: gunicorn then believes no ``X-Forwarded-*`` header
    (by default it believes those of 127.0.0.1), so the app's own setting alone
    (``COMPANION_TRUSTED_PROXIES``, 0 by default) decides whom to believe, as before.
    A request's head is bounded by gunicorn's defaults (a line of 4 KB, 100 fields of 8 KB
    each); a body by the app (``MAX_CONTENT_LENGTH``, read only when the view asks).
    """
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return {
        "bind": [bind],
        "worker_class": "gevent",
        "workers": workers,
        "worker_connections": connections,
        "keepalive": KEEP_ALIVE,
        "graceful_timeout": GRACEFUL_SECONDS,
        "backlog": BACKLOG,
        "forwarded_allow_ips": "",
        "proc_name": "companion",
        # gunicorn 24+ opens a control socket at one path per user ($HOME/.gunicorn): two servers on one machine
        # would share it; ``serve`` is stopped by its signals alone
        "control_socket_disable": True,
    }


class CompanionServer(BaseApplication):  # type: ignore[misc]  # gunicorn ships no type hints
    """gunicorn's master for ``serve``: its settings from :func:`gunicorn_options`, the app built in each worker."""

    def __init__(self, app_import_path: str | None, host: str, port: int, options: dict[str, Any]) -> None:
        self.app_import_path = app_import_path
        self.host = host
        self.port = port
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if key in self.cfg.settings:  # a setting an older gunicorn lacks (the control socket) is left out
                self.cfg.set(key, value)

    def load(self) -> Flask:
        """In a worker, after gevent has patched it: build the app, record where it listens, warm it up."""
        from flask.cli import ScriptInfo

        app: Flask = ScriptInfo(app_import_path=self.app_import_path).load_app()
        app.config["LISTEN_HOST"] = self.host  # the QR code may use the LAN address only if it reaches us
        if self.port:  # the players' and members' links name it (port 0: the one the server got, SERVER_PORT)
            app.config["LISTEN_PORT"] = self.port
        with app.app_context():
            warm_up(app)
        settle_garbage_collector()
        return app


def warm_up(app: Flask) -> None:
    """Before the first request: every template compiled, the nights in play folded and their pages made (issue 22).

    What a new worker would otherwise do on its first requests, at a phone's expense:
    Jinja compiles each template on first use, a night's fold is rebuilt from its event
    log (service.warm_up), each game's screens and report part are imported when first
    asked for, and a page's standings, charts and history lines are worked out for its
    version (:func:`warm_pages`).  Each worker warms itself up (it builds its own app).
    """
    from companion import service
    from companion.games import GAMES
    from companion.games.web import SCREENS
    from companion.report.parts import own_report_part

    for name in _template_names(app):
        if name.endswith(".html"):
            app.jinja_env.get_template(name)
    for kind in SCREENS:  # each game's screens, forms and views, and its own part of the report
        SCREENS[kind]
        own_report_part(GAMES[kind])
        GAMES[kind].warm_up()  # what the game loads at its first action (Napalm: pokerkit's lookups)
    warm_pages(app, service.warm_up())


#: the pages of a night in play made before the first request: the scorekeeper's (table, report,
#: history) and the players' (their page and the report)
WARM_PAGES = ("/k/{keeper}", "/k/{keeper}/report", "/k/{keeper}/history", "/p/{viewer}", "/p/{viewer}/report")


def warm_pages(app: Flask, night_ids: list[int]) -> None:
    """Ask this process for the pages of each of ``night_ids`` (:data:`WARM_PAGES`), as a phone would.

    A page is kept per night version (web/plumbing/kept_pages), and what it derives (the standings,
    the report's charts, the history's lines) too: asked once here, the first phone after
    a restart is answered from what is kept rather than after a cold render (at 1,980
    stages: the table screen 27-66 ms, the report 30-52 ms, the history 80-150 ms).  The
    requests only read; a night since deleted is skipped, and a page that fails is logged,
    not raised: a server starts whatever one night's page does.
    """
    from companion import service  # in the worker, as load's: the master imports no database library

    paths = [
        path.format(keeper=keeper, viewer=viewer)
        for keeper, viewer in service.links_for_warm_up(night_ids)  # a read only, ended: no transaction left open
        for path in WARM_PAGES
    ]
    client = app.test_client()
    for path in paths:  # as a phone's browser asks: the compressed page is kept too
        try:
            client.get(path, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
        except Exception:  # a page that fails fails its phone too, which is told then: serving goes on
            app.logger.exception("warm-up: %s", path)


def _template_names(app: Flask) -> set[str]:
    """The templates the app's loaders can list (a loader that cannot is skipped: its templates compile on first use)."""
    loaders = [app.jinja_loader, *(bp.jinja_loader for bp in app.iter_blueprints())]
    names: set[str] = set()
    while loaders:
        loader = loaders.pop()
        if loader is None:
            continue
        if hasattr(loader, "loaders"):  # a ChoiceLoader: ask each of its loaders
            loaders.extend(loader.loaders)
            continue
        try:
            names.update(loader.list_templates())
        except TypeError:
            pass
    return names


#: allocations between two young collections (Python's default is 700): a request makes
#: thousands of short-lived objects, and each young collection that catches them
#: half-made promotes them, so that full collections come sooner
GC_YOUNG_THRESHOLD = 10_000
#: young collections between two collections of the middle generation (Python's default is 10).  A middle
#: collection walks the young objects and every one that survived the young collections since the last
#: one: at 10 that was up to eleven times GC_YOUNG_THRESHOLD objects, and a night folded for the first time
#: (a group's two hundred nights: their records, positions and transfers, all kept) survives whole, so the
#: middle collection walked 71,000 objects, 16-29 ms of CPU on the project's machine, 48-83 ms on a slower
#: one (issue 22).  At 1 it walks at most the survivors of two young collections: 23,000, 4 ms.
GC_MIDDLE_THRESHOLD = 1
#: middle collections before a full one is considered (Python's default is 10; Python also waits until the
#: objects promoted since the last full collection are a quarter of those it left).  A full collection walks
#: every kept fold (94,000-110,000 objects, 27-64 ms, with the load bench's nights): with the middle generation
#: collected ten times as often, 60 keeps full collections as rare as they were, one per
#: (1 + 1) x (60 + 1) = 122 young collections against (10 + 1) x (10 + 1) = 121.
GC_OLD_THRESHOLD = 60


def settle_garbage_collector() -> None:
    """Put what start-up made out of the collector's reach, before serving, and keep each collection short (issue 22).

    A full collection walks every tracked object: with the app, SQLAlchemy, Jinja and
    the games' modules loaded that was 100-250 ms on this project's machine, a pause for
    every request in that process.  ``gc.freeze()`` after start-up moves those objects to
    the permanent generation, which no collection walks.  What is collected afterwards is
    what serving made: the nights kept (bounded by FOLD_CACHE_EVENTS) and each request's
    garbage; the thresholds (GC_YOUNG_THRESHOLD, GC_MIDDLE_THRESHOLD, GC_OLD_THRESHOLD)
    bound what a young or middle collection walks, and leave full collections as rare as
    Python's defaults made them.  What survives a later full collection is not frozen in turn: a
    request in flight at that moment (its frames, a traceback's cycle) would be frozen with it and, if
    cyclic, never freed; bench/README.md, "Memory and the collector's pauses", measured the gain and
    keeps it out.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, GC_MIDDLE_THRESHOLD, GC_OLD_THRESHOLD)


def main(argv: Sequence[str] | None = None) -> None:
    """gunicorn's master, as ``serve`` starts it (``python -m companion.web.plumbing.server --app … --host … …``)."""
    parser = argparse.ArgumentParser(prog="python -m companion.web.plumbing.server", description=__doc__.split("\n")[0])
    parser.add_argument("--app", default=None, help="what flask's --app names (default: as flask finds it)")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--worker-connections", type=int, default=2000)
    args = parser.parse_args(argv)
    options = gunicorn_options(args.host, args.port, args.workers, args.worker_connections)
    CompanionServer(args.app, args.host, args.port, options).run()  # returns never: gunicorn exits when stopped


if __name__ == "__main__":
    main()
