"""``serve --workers N``: N waitress processes forked from one parent, sharing one listening socket.

Why not a threaded pre-fork server such as gunicorn's ``gthread`` worker: it gives a
connection to a thread before the request has arrived, so eight sockets that send half
a header and stop hold every thread of ``--workers 2 --threads 4`` and the table gets
no answer (issue 21).  Waitress reads requests in its I/O loop and hands a thread only a
complete one; each process here is a plain waitress server on the shared socket, and the
kernel gives each new connection to whichever process accepts it first.

The parent builds the app once, binds the socket, forks the children and watches them:
a child that dies is replaced (but five in a row that die within 5 s of starting stop
the server, with status 1: something is wrong that a new process will not mend);
SIGTERM or SIGINT stops them all (each finishes the requests it has in hand) and then
the parent.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from typing import Any

from flask import Flask

#: how long stopping waits for the children before it kills them
STOP_SECONDS = 10.0
#: a process that ends sooner than this after it started failed to start; this many in a row stop the server
START_SECONDS = 5.0
MAX_FAILED_STARTS = 5


def listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    """The one socket every child accepts on (IPv6 when ``host`` is an IPv6 address)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


def _drop_pooled_connections(app: Flask, close: bool) -> None:
    """Forget the pooled database connections (a connection must never cross a fork)."""
    from companion.extensions import db

    with app.app_context():
        for engine in db.engines.values():
            engine.dispose(close=close)


def _child(app: Flask, sock: socket.socket, options: dict[str, Any]) -> None:  # pragma: no cover - runs forked
    """Serve on ``sock`` until told to stop; never returns."""
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us, with SIGTERM
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # waitress finishes its tasks on SystemExit
        _drop_pooled_connections(app, close=False)
        from companion.web.waitress_serve import serve

        serve(app, sockets=[sock], **options)
    except SystemExit:
        pass
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def serve_processes(app: Flask, host: str, port: int, workers: int, options: dict[str, Any]) -> None:
    """Serve ``app`` from ``workers`` forked waitress processes on one socket, until SIGTERM or SIGINT."""
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        import click

        raise click.ClickException("--workers needs a Unix system; use --threads")
    sock = listening_socket(host, port, int(options.get("backlog", 1024)))
    _drop_pooled_connections(app, close=True)  # the children open their own
    children: dict[int, float] = {}  # pid -> when it was started
    stopping = False
    failed_starts = 0

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    def spawn() -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            _child(app, sock, options)
        children[pid] = time.monotonic()

    exit_status = 0
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(workers):
        spawn()
    try:
        while not stopping:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid, status = 0, 0
            if pid and pid in children:
                lived = time.monotonic() - children.pop(pid)
                failed_starts = failed_starts + 1 if lived < START_SECONDS else 0
                if failed_starts >= MAX_FAILED_STARTS:
                    print(f"companion: {failed_starts} processes in a row ended within {START_SECONDS:.0f} s "
                          "of starting; stopping", file=sys.stderr, flush=True)
                    exit_status = 1
                    break
                if not stopping:
                    print(f"companion: process {pid} ended ({status}); starting another", file=sys.stderr, flush=True)
                    time.sleep(0.5)  # a child that dies at once must not spin the parent
                    spawn()
                continue
            time.sleep(0.2)
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + STOP_SECONDS
        while children and time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                children.pop(pid, None)
            else:
                time.sleep(0.05)
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        sock.close()
    if exit_status:
        sys.exit(exit_status)
