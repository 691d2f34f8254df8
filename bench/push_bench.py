"""A change pushed to every phone watching (issue 37, item 1): N open streams, the delay to each.

Run: .venv/bin/python bench/push_bench.py [--streams 100,700] [--changes 60] [--every 0.25]
     [--servers gunicorn-gevent,werkzeug] [--databases sqlite,postgresql] [--display]   (see bench/README.md)

Loopback only (127.0.0.1), bounded: each run opens ``--streams`` streams, records ``--changes`` stages and
stops by itself (about half a minute a run).

The server is a subprocess: ``gunicorn -k gevent -w 1`` on ``companion:create_app()`` (one worker, whose
monkey-patching makes the app's threads and conditions gevent's: each open stream a greenlet; needs
``pip install gunicorn gevent``, which the app does not depend on yet), or werkzeug's threaded server (a
thread per connection) for comparison.  Not waitress: its 8 threads would each be held by a stream, and
the pages do not offer one there (companion/web/plumbing/live_push.py).  ``COMPANION_ENV=production``, CSRF on, on a
fresh SQLite file (``synchronous=FULL``) or, when PostgreSQL answers at 127.0.0.1:5432, a fresh database
(``COMPANION_LOAD_DATABASE``, default ``companion_push``, dropped afterwards).

The nights: one per 7 streams (100 tables for 700 streams), each imported with 10 hands played
(``load_bench.history``).  The client is one asyncio process: each phone opens
``/p/<players' link>/stream?since=<version>`` on a connection of its own, seven phones to a table, with no
cookie (every phone of a table is then of one kind: the same bytes for all).  Once every stream has said
``retry:``, one scorekeeper per table, in turn, records a stage ("Nobody said Yes": the table screen read
for its form, then the POST, as the browser does), one every ``--every`` seconds.  For each change and
each of its table's seven streams it records the delay from the POST sent to the event with the new
version read off the stream, and from the 303 received (a stream may see it first: counted as 0); both
p50 and p95 over all changes, the events missed (a stream that never got its version) and the server's
CPU and resident memory (all its processes, from /proc).

``--display`` (issue 39): each table also has its display (a TV or a tablet: ``/d/<display link>/stream``,
made through the service as the share page makes it), in place of one of the seven phones; its delays are
printed apart, on a line of their own ("display"), beside the phones' ("players").
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

os.environ.setdefault("COMPANION_LOAD_DATABASE", "companion_push")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from load_bench import answers_health, Conn, Keeper, drop_database, fresh_database, history, postgres_available, read_table_page  # noqa: E402

PHONES = 7
SERVERS = ("gunicorn-gevent", "werkzeug")
WERKZEUG = """
import sys
from werkzeug.serving import make_server
from companion import create_app
make_server("127.0.0.1", int(sys.argv[1]), create_app(), threaded=True).serve_forever()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The app served in a subprocess (``kind``: gunicorn-gevent or werkzeug), stopped on exit."""

    def __init__(self, kind: str, url: str, instance: Path) -> None:
        self.port = free_port()
        instance.mkdir(parents=True, exist_ok=True)
        self.log = instance / "server.log"
        env = {
            **os.environ,
            "COMPANION_ENV": "production",
            "COMPANION_SECRET_KEY": secrets.token_urlsafe(48),
            "COMPANION_DATABASE_URL": url,
            "COMPANION_INSTANCE_PATH": str(instance),
            "COMPANION_ALLOWED_HOSTS": "127.0.0.1",
        }
        if kind == "gunicorn-gevent":
            command = [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "1", "--worker-connections", "4000",
                       "-b", f"127.0.0.1:{self.port}", "--log-level", "warning", "companion:create_app()"]
        else:
            command = [sys.executable, "-c", WERKZEUG, str(self.port)]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        if not answers_health(self.process, self.port, self.log):
            self.stop()
            raise SystemExit("the server did not answer /healthz within 60 s")

    def _pids(self) -> list[str]:
        pid, found = str(self.process.pid), []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat.parent.name == pid or fields[1] == pid:
                found.append(stat.parent.name)
        return found

    def cpu(self) -> float:
        total = 0
        for pid in self._pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")

    def memory_mb(self) -> int:
        total = 0
        for pid in self._pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")), 0)
        return total // 1024

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def seed(url: str, tables: int) -> list[tuple[str, str, str, int]]:
    """A night of 10 hands per table, imported through the service: (keeper, viewer, display key, version) each."""
    from companion import create_app
    from companion import service
    from companion.extensions import db

    from flask_migrate import upgrade

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": secrets.token_urlsafe(48)})
    nights = []
    with app.app_context():
        upgrade()  # the schema, as serve makes it
        for i in range(tables):
            night = service.import_history(history(i + 1))
            display = service.new_display_link(night.id)  # a link is no record: the version stays
            nights.append((night.keeper_key, night.viewer_key, display, night.version))
        db.session.remove()
        db.engine.dispose()
    return nights


@dataclass
class Stream:
    """One phone's (or display's) open stream: when it read each event id."""

    viewer: str  # the players' link of the table it watches
    path: str  # what it opens: /p/<players' link>/stream, or /d/<display link>/stream
    seen: dict[str, float] = field(default_factory=dict)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    failed: str = ""


async def follow(port: int, stream: Stream, since: int, stop: asyncio.Event) -> None:
    """Open the stream and read it until ``stop``: each complete message's id, with the time it was read."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as error:
        stream.failed = f"connect: {error}"
        stream.opened.set()
        return
    request = (f"GET {stream.path}?since={since} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               "Accept: text/event-stream\r\n\r\n")
    writer.write(request.encode())
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            stream.failed = head.split(b"\r\n", 1)[0].decode()
            return
        chunked = b"transfer-encoding: chunked" in head.lower()
        buffer = b""
        reading = asyncio.ensure_future(stop.wait())
        while not stop.is_set():
            if chunked:
                size_line = asyncio.ensure_future(reader.readline())
                done, _ = await asyncio.wait({size_line, reading}, return_when=asyncio.FIRST_COMPLETED)
                if size_line not in done:
                    size_line.cancel()
                    break
                size = int(size_line.result().split(b";")[0] or b"0", 16)
                if size == 0:
                    break
                data = await reader.readexactly(size)
                await reader.readline()
            else:
                chunk = asyncio.ensure_future(reader.read(65536))
                done, _ = await asyncio.wait({chunk, reading}, return_when=asyncio.FIRST_COMPLETED)
                if chunk not in done:
                    chunk.cancel()
                    break
                data = chunk.result()
                if not data:
                    break
            now = time.perf_counter()
            buffer += data
            while b"\n\n" in buffer:
                message, buffer = buffer.split(b"\n\n", 1)
                if message.startswith(b"retry:"):
                    stream.opened.set()
                found = re.match(rb"id: ([^\n]*)\n", message)
                if found:
                    stream.seen.setdefault(found.group(1).decode(), now)
        reading.cancel()
    except (OSError, asyncio.IncompleteReadError, ValueError) as error:
        stream.failed = stream.failed or f"read: {error!r}"
    finally:
        stream.opened.set()
        writer.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


async def run(  # type: ignore[type-arg]
    server: Server, nights: list[tuple[str, str, str, int]], streams: int, changes: int, every: float, display: bool,
) -> dict:
    stop = asyncio.Event()
    phones = []
    for i in range(streams):
        _, viewer, shown, _ = nights[i % len(nights)]
        on_display = display and i < len(nights)  # the first round: one display per table
        phones.append(Stream(viewer, f"/d/{shown}/stream" if on_display else f"/p/{viewer}/stream"))
    since = {viewer: version for _, viewer, _, version in nights}
    tasks = []
    for phone in phones:  # opened a few at a time, as phones arriving
        tasks.append(asyncio.ensure_future(follow(server.port, phone, since[phone.viewer], stop)))
        await asyncio.sleep(0.002)
    await asyncio.wait_for(asyncio.gather(*(p.opened.wait() for p in phones)), 120)
    failed = [p.failed for p in phones if p.failed]
    if failed:
        stop.set()
        raise SystemExit(f"{len(failed)} streams failed to open, e.g. {failed[0]}")
    await asyncio.sleep(1.0)  # the watcher has read every topic once
    keepers = [Keeper(Conn(server.port), f"/k/{keeper}", viewer=viewer) for keeper, viewer, _, _ in nights]
    sent: list[tuple[str, str, float, float]] = []  # (viewer, version, POST sent, 303 received)
    cpu0 = server.cpu()
    posts = []
    for i in range(changes):
        keeper = keepers[i % len(keepers)]
        read_table_page(keeper, (await keeper.conn.request("GET", keeper.url)).decoded())
        form = {"csrf_token": keeper.csrf, "version": str(keeper.version),
                "request_key": secrets.token_urlsafe(16), "nobody": "Nobody said Yes"}
        t0 = time.perf_counter()
        reply = await keeper.conn.request("POST", keeper.url + "/declare", body=urlencode(form).encode())
        t1 = time.perf_counter()
        posts.append(t1 - t0)
        if reply.status != 303:
            raise SystemExit(f"recording answered {reply.status}: {reply.body[:300]!r}")
        sent.append((keeper.viewer, str(keeper.version + 1), t0, t1))
        await asyncio.sleep(max(0.0, every - (time.perf_counter() - t0)))
    await asyncio.sleep(2.0)  # the last change's events
    cpu = server.cpu() - cpu0
    memory = server.memory_mb()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    delays: dict[str, tuple[list[float], list[float]]] = {}  # (from the POST, from the 303)
    missed: Counter[str] = Counter()  # events a stream never got, by what watched
    for viewer, version, t0, t1 in sent:
        for phone in phones:
            if phone.viewer != viewer:
                continue
            watching = "display" if phone.path.startswith("/d/") else "players"
            from_post, from_ack = delays.setdefault(watching, ([], []))
            at = phone.seen.get(version)
            if at is None:
                missed[watching] += 1
                continue
            from_post.append(at - t0)
            from_ack.append(max(0.0, at - t1))
    return {"delays": delays, "missed": missed, "posts": posts, "cpu": cpu,
            "memory": memory}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", default="100,700", help="open streams per run, comma-separated")
    parser.add_argument("--changes", type=int, default=60, help="stages recorded per run")
    parser.add_argument("--every", type=float, default=0.25, help="seconds between two recorded stages")
    parser.add_argument("--servers", default="gunicorn-gevent", help=f"of {','.join(SERVERS)}")
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--display", action="store_true", help="one of each table's seven streams is its display")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    databases = [d for d in args.databases.split(",") if d != "postgresql" or postgres_available()]
    print(f"push bench: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average "
          f"{os.getloadavg()[0]:.1f}; {args.changes} stages recorded per run, one every {args.every:g} s")
    print(f"{'server':<16} {'database':<10} {'streams':>7} {'tables':>6}  {'watching':<8} {'from the POST sent':>22}  "
          f"{'from its 303':>22}  {'missed':>6}  {'POST p95':>8}  {'CPU s':>5}  {'RSS MB':>6}")
    kinds = args.servers.split(",")
    if "gunicorn-gevent" in kinds and not all(importlib.util.find_spec(m) for m in ("gunicorn", "gevent")):
        print("gunicorn or gevent is not installed (.venv/bin/pip install gunicorn gevent): werkzeug's threaded server instead")
        kinds = [k for k in kinds if k != "gunicorn-gevent"] or ["werkzeug"]
    for kind in kinds:
        for database in databases:
            for streams in (int(n) for n in args.streams.split(",")):
                tables = -(-streams // PHONES)
                tmp = Path(tempfile.mkdtemp(prefix="push-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
                try:
                    url = fresh_database(database, tmp, "push")
                    nights = seed(url, tables)
                    server = Server(kind, url, tmp / "instance")
                    try:
                        r = asyncio.run(run(server, nights, streams, args.changes, args.every, args.display))
                    finally:
                        server.stop()
                finally:
                    drop_database(database)
                    shutil.rmtree(tmp, ignore_errors=True)
                for watching, (from_post, from_ack) in r["delays"].items():
                    post = f"p50 {pct(from_post, .5) * 1000:5.1f} p95 {pct(from_post, .95) * 1000:5.1f} ms"
                    ack = f"p50 {pct(from_ack, .5) * 1000:5.1f} p95 {pct(from_ack, .95) * 1000:5.1f} ms"
                    print(f"{kind:<16} {database:<10} {streams:>7} {tables:>6}  {watching:<8} {post:>22}  {ack:>22}  "
                          f"{r['missed'][watching]:>6}  {pct(r['posts'], .95) * 1000:6.1f}ms  {r['cpu']:5.1f}  {r['memory']:>6}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
