"""The app as the load bench serves it: the real app, a bare WSGI hello-world (the ceiling), a bare Flask hello
and a GC log.

Used only by ``bench/load_bench.py``:
``flask --app bench/load_app.py serve --host 127.0.0.1 --port N [--workers 2]`` (or gunicorn's own command with
``bench.load_app:create_app()``, for an alternative measured beside it).

``/hello`` is answered by the outermost WSGI callable, before the app's middleware,
host check, session or headers: a bare WSGI hello-world on the same server, with the
same processes and threads (issue 22).  It is the most any request can be served at.
``/flask-hello`` is answered the same way by a bare Flask app of one route returning "ok" (no
extension, session or hook): what Flask itself costs a request, the yardstick of issue 37's goal
(every page through Flask at 25 % of it or more).

Every process also times its garbage collections (``gc.callbacks``) from its first
request on, and writes the longest pause it has seen, and how many went over 50 ms, to
``gc-<pid>.json`` in the instance folder (written only when one of them changes).  A
pause is timed twice: on the wall clock, which on a machine with more runnable work than
cores includes the time the kernel gave the core to another process, and in this
thread's CPU time, which is the collector's own work.  Each collection also notes whether
the kernel switched its thread out meanwhile (the thread's involuntary context switches):
a wall-clock pause over 50 ms with the thread switched out is counted as such, and the
longest pause of a collection that kept its core throughout is kept beside it.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import create_app as create_companion  # noqa: E402

#: a pause longer than this is counted (issue 22's goal: none under the load bench)
LONG_PAUSE = 0.050


def _bare_flask():  # type: ignore[no-untyped-def]
    """A Flask app of one route, nothing else: the bare Flask hello."""
    from flask import Flask

    bare = Flask("bare_hello")
    bare.add_url_rule("/flask-hello", "hello", lambda: "ok")
    return bare


class BareHello:
    """A bare WSGI hello-world in front of the app: ``GET /hello`` never reaches it (nor ``/flask-hello``, which
    a bare Flask app answers)."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.app = app
        self.flask_hello = _bare_flask()

    def __call__(self, environ, start_response):  # type: ignore[no-untyped-def]
        SERVING.add(os.getpid())  # the collections before the first request are start-up's
        if environ.get("PATH_INFO") == "/hello":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "2")])
            return [b"ok"]
        if environ.get("PATH_INFO") == "/flask-hello":
            return self.flask_hello(environ, start_response)
        return self.app(environ, start_response)


#: the processes that have served a request
SERVING: set[int] = set()
#: the wall time spent in this process's collections so far (any thread): what a timed request waited on them
COLLECTING = [0.0]


class TimedPosts:
    """``COMPANION_TIME_POSTS``: each POST's time in the server (wall and this thread's CPU, and the collections
    of any thread meanwhile), from the app's first byte in to its answer's last byte out: what the client's latency
    adds is time before the app (the server's queue, the client itself).  Medians and p95 in ``posts-<pid>.json``."""

    def __init__(self, app, folder: str) -> None:  # type: ignore[no-untyped-def]
        self.app, self.folder, self.seen = app, folder, []

    def __call__(self, environ, start_response):  # type: ignore[no-untyped-def]
        if environ.get("REQUEST_METHOD") != "POST":
            return self.app(environ, start_response)
        wall, cpu, collecting = time.perf_counter(), time.thread_time(), COLLECTING[0]
        body = b"".join(self.app(environ, start_response))
        self.seen.append((time.perf_counter() - wall, time.thread_time() - cpu, COLLECTING[0] - collecting))
        summary = {}
        for at, name in enumerate(("wall", "cpu", "gc")):
            values = sorted(entry[at] for entry in self.seen)
            summary[name] = [round(values[len(values) // 2] * 1000, 2), round(values[round(0.95 * (len(values) - 1))] * 1000, 2),
                             round(values[-1] * 1000, 2)]
        summary["count"] = len(self.seen)
        try:
            Path(self.folder, f"posts-{os.getpid()}.json").write_text(json.dumps(summary))
        except OSError:
            pass
        return [body]


def watch_gc(folder: str) -> None:
    """Time every collection in this process; keep the longest and the count over LONG_PAUSE in a file."""
    started: dict[str, float] = {}
    seen = {"pid": 0, "longest_ms": 0.0, "longest_cpu_ms": 0.0, "generation": -1, "over_50ms": 0,
            "cpu_over_50ms": 0, "collections": 0, "over_50ms_switched_out": 0, "longest_on_core_ms": 0.0}

    detail = bool(os.environ.get("COMPANION_GC_DETAIL"))  # what each older collection walks (slows them)
    walked: dict[str, object] = {}

    def callback(phase: str, info: dict) -> None:  # type: ignore[type-arg]
        if os.getpid() not in SERVING:
            return
        if phase == "start":
            if detail and info.get("generation", 0) >= 1:
                walked.clear()
                young = gc.get_objects(0) + gc.get_objects(1) + (gc.get_objects(2) if info["generation"] == 2 else [])
                kinds: dict[str, int] = {}
                for thing in young:
                    name = type(thing).__name__
                    kinds[name] = kinds.get(name, 0) + 1
                walked.update(objects=len(young), gen2=len(gc.get_objects(2)),
                              kinds=sorted(kinds.items(), key=lambda kv: -kv[1])[:15])
                del young
            started["at"], started["cpu"] = time.perf_counter(), time.thread_time()
            started["switched"] = switched_out()
            return
        if "at" not in started:
            return
        pause, cpu = time.perf_counter() - started.pop("at"), time.thread_time() - started.pop("cpu")
        # the kernel gave this thread's core to another (the bench's client, a sibling process) mid-collection:
        # the wall time then holds time the collector was not running
        preempted = switched_out() != started.pop("switched", None)
        COLLECTING[0] += pause
        if seen["pid"] != os.getpid():  # a forked worker starts its own count
            seen.update(pid=os.getpid(), longest_ms=0.0, longest_cpu_ms=0.0, generation=-1, over_50ms=0,
                        cpu_over_50ms=0, collections=0, over_50ms_switched_out=0, longest_on_core_ms=0.0)
        seen["collections"] += 1
        generation = info.get("generation", -1)
        per = seen.setdefault("per_generation", {})
        count, total, most = per.get(str(generation), (0, 0.0, 0.0))
        per[str(generation)] = (count + 1, round(total + cpu * 1000, 2), round(max(most, cpu * 1000), 2))
        if detail and walked:
            log = seen.setdefault("older", [])
            log.append({"generation": generation, "cpu_ms": round(cpu * 1000, 2), "collected": info.get("collected"),
                        **walked})
            seen["older"] = sorted(log, key=lambda e: -e["cpu_ms"])[:4]
            walked.clear()
        changed = detail
        if pause * 1000 > seen["longest_ms"]:
            seen["longest_ms"], seen["generation"] = round(pause * 1000, 2), info.get("generation", -1)
            changed = True
        if cpu * 1000 > seen["longest_cpu_ms"]:
            seen["longest_cpu_ms"] = round(cpu * 1000, 2)
            changed = True
        if pause > LONG_PAUSE:
            seen["over_50ms"] += 1
            seen["over_50ms_switched_out"] += preempted
            changed = True
        if not preempted and pause * 1000 > seen["longest_on_core_ms"]:
            seen["longest_on_core_ms"] = round(pause * 1000, 2)
            changed = True
        if cpu > LONG_PAUSE:
            seen["cpu_over_50ms"] += 1
            changed = True
        if changed:
            try:
                Path(folder, f"gc-{os.getpid()}.json").write_text(json.dumps(seen))
            except OSError:
                pass

    gc.callbacks.append(callback)


def switched_out() -> int:
    """How many times the kernel has taken this thread's core for another (involuntary context switches)."""
    return resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw


def create_app():  # type: ignore[no-untyped-def]
    app = create_companion()
    watch_gc(app.instance_path)
    if os.environ.get("COMPANION_TIME_POSTS"):
        app.wsgi_app = TimedPosts(app.wsgi_app, app.instance_path)  # type: ignore[method-assign]
    app.wsgi_app = BareHello(app.wsgi_app)  # type: ignore[method-assign]
    return app
