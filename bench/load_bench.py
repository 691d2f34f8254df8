"""A real table's load: 20 tables x 7 players' phones polling while the scorekeepers record.

Run: .venv/bin/python bench/load_bench.py [--seconds 1.5] [--rounds 3]
     [--servers gevent,gevent2,gthread] [--databases sqlite,postgresql] [--pages-only]
     [--group-only] [--group-nights 200] [--night-seconds 10]   (see bench/README.md)

Loopback only (127.0.0.1), bounded in requests and seconds; it stops by itself (about
three minutes for both servers on both databases).

The server is the production command, ``flask --app bench/load_app.py serve`` in a
subprocess with ``COMPANION_ENV=production``: gunicorn with one gevent worker (the default,
"gevent") and with two ("gevent2"); and, measured beside them, gunicorn's threaded worker
with 2 processes x 4 threads ("gthread", started by gunicorn's own command line).  ``bench/load_app.py`` is the app with a
bare WSGI hello-world in front of it at ``/hello`` (the same server, processes and
threads; none of the app's middleware, session or headers: issue 22).  Each server runs on a fresh temporary SQLite file and, when PostgreSQL
answers at 127.0.0.1:5432 (user postgres, trust auth), on a fresh database
``companion_load`` (or ``COMPANION_LOAD_DATABASE``), dropped afterwards.  Each table's night has 10 hands played.

The client is one asyncio process speaking raw HTTP/1.1 over 140 keep-alive
connections, one per phone; every phone first says "this is me", so it sends the
session cookie a real phone would.  The back-to-back phases run in interleaved rounds
(so a change in the machine's other load touches them alike); each reports the median
round's requests per second, latencies over all rounds, and the server's CPU time per
request (all its processes, from /proc; PostgreSQL's own CPU is not in it).  A share of
the ceiling is the median of the rounds' shares, each round's requests per second against
the ceiling's of the same round, run first in it (:func:`share`; each round's is printed):

- hello: ``GET /hello`` with the phones' cookies, back to back: the ceiling, a bare WSGI
  hello-world served the same way.
- flask: ``GET /flask-hello`` the same way: a bare Flask app of one route (issue 37's yardstick:
  every page through Flask at >= 25 % of it, printed as the second share).
- first visits (issue 37): the table screen, the players' page, the report, the home page and the
  group's organiser page asked by a browser with no session (a cookie that is not the app's): each
  answer makes a new session, its CSRF secret and its cookie (``<page>-first``).
- 304: each phone's conditional ``GET /p/<key>/live`` with its current ETag, back to back.
- 200: the same with an outdated ETag (the standings after a change): the full fragment.
- every page a phone opens (issue 14, item 12; issue 22), of one long night of 150 hands
  for 6 players (about 450 stages, 785 events: ``table_bench.long_night()``), imported
  beside the tables' nights: the scorekeeper's report, table screen, history (its first
  page) and bank page, the players' page and report, report.csv, report.json and the
  night file (export.json); and the home page and ``/players/Ann`` of a browser that has
  kept score of the 20 tables' nights.  Every connection asks for the page again as soon
  as its answer is read, with its own cookie (so each request gets its own CSRF token and
  request keys).  Every request says ``Accept-Encoding: gzip, deflate, br, zstd`` as
  Chromium does; each page's weight is printed plain and as sent.
- the group's pages (issue 25): the organiser's page ``/g/<key>`` and the members' page
  ``/m/<key>`` of a group of 200 stored nights (``group_bench.group_file``, imported as one
  group file), back to back as the pages above, each with its season table and tab; the
  organiser's page for one year, ``/g/<key>?period=2023`` (the season table of that year's 52
  nights: the group's nights are weekly from 2022-01-07); and the first request of each
  after the import, in one process (the organiser's page first: every night folded and
  reported anew).  Only when the app serves ``/g/<key>``: until the group's
  pages are merged their rows are skipped, and the run says so.
- each server process's resident memory at the end, and its garbage collections
  (``bench/load_app.py`` times them with ``gc.callbacks``): the longest pause and how many
  went over 50 ms, in wall and CPU time.
- a real night, faster: every phone polls every 0.8 s as ``static/app.js`` does, while
  each table's scorekeeper records a stage ("Nobody said Yes") every 4 s and follows
  the redirect to the table screen, as the browser does.

``--pages-only`` runs only the ceiling and the heavy pages (the same rounds, interleaved);
``--group-only`` only the ceiling and the group's pages; ``--night-only`` only the ceiling and the real night.
``COMPANION_GC_DETAIL=1`` has each server process also say what its longest older collections walked
(the objects of the generations collected, by type: counted before the collection's clock starts).

Goals: 304 at >= 80 % of the ceiling's requests per second, 200 at >= 50 %, every
page at >= 20 % (and, issue 37, at >= 25 % of the bare Flask hello, first visit and repeat), recording a stage (the POST) at p95 <= 50 ms, and no GC pause over 50 ms.  In the back-to-back phases all 140
connections wait on the server at once, so their latencies are mostly queueing.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TABLES = 20
PHONES = 7  # one per player
SEVEN = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]
POLL_EVERY = 0.8  # seconds, as static/app.js (2.0 before issue 14, item 11)
RECORD_EVERY = 4.0  # seconds per table: five times faster than a real table, or more
REAL_NIGHT_SECONDS = 10.0  # --night-seconds: 20 tables record about 51 stages in 10 s (a p95 of 51 is the 3rd slowest)
MAX_REQUESTS = 300_000  # per phase, a bound besides time
#: what each server is: ``serve``'s options (gunicorn with gevent workers, issue 37), or, for an alternative
#: measured beside it, gunicorn's own options (the same app and database, the schema upgraded first, no warm-up)
SERVERS = {
    "gevent": ["--workers", "1"],
    "gevent2": ["--workers", "2"],
    "gthread": ["--worker-class", "gthread", "--workers", "2", "--threads", "4"],
}
#: the servers that ``serve`` does not start: gunicorn's command line, as each is commonly run
ALTERNATIVES = {"gthread"}
PG_ADMIN = ["psql", "-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-qAt", "-d", "postgres", "-c"]
#: the database it makes afresh and drops (``COMPANION_LOAD_DATABASE``: another name, where several
#: checkouts share one server and each must drop only its own)
PG_DATABASE = os.environ.get("COMPANION_LOAD_DATABASE", "companion_load")
if not PG_DATABASE.replace("_", "").isalnum():
    raise SystemExit("COMPANION_LOAD_DATABASE: letters, digits and _ only")
PG_URL = f"postgresql+psycopg://postgres@127.0.0.1:5432/{PG_DATABASE}"
#: what Chromium sends: every request may be answered compressed (issue 22)
ACCEPT_ENCODING = "Accept-Encoding: gzip, deflate, br, zstd"


def answers_health(process: subprocess.Popen, port: int, log: Path, seconds: float = 60) -> bool:
    """Wait until the server started as ``process`` answers ``/healthz`` on ``port`` (False: not within
    ``seconds``); a server that stops first ends the bench with its log."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server stopped:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if b" 200 " in s.recv(100):
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


# --- a tiny HTTP/1.1 keep-alive client ---------------------------------------------------


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    cookies: list[str]
    body: bytes  # as sent: compressed when the server compressed it

    def decoded(self) -> bytes:
        """The body as the browser shows it (the server may answer deflate, gzip, Brotli or zstd)."""
        encoding = self.headers.get("content-encoding", "")
        if encoding == "deflate":
            return zlib.decompress(self.body)
        if encoding == "gzip":
            return gzip.decompress(self.body)
        if encoding == "br":
            import brotli

            return brotli.decompress(self.body)
        if encoding == "zstd":
            from backports import zstd

            return zstd.decompress(self.body)
        return self.body


class Conn:
    """One keep-alive connection to the server on 127.0.0.1, with one cookie."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.cookie: str | None = None

    async def request(self, method: str, path: str, headers: tuple[str, ...] = (), body: bytes = b"") -> Reply:
        reused = self.writer is not None
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        asked = any(h.lower().startswith("accept-encoding:") for h in headers)
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *(() if asked else (ACCEPT_ENCODING,)), *headers]
        borrowed = any(h.lower().startswith("cookie:") for h in headers)  # another browser's cookie, kept as it is
        if self.cookie and not borrowed:
            lines.append("Cookie: " + self.cookie)
        if method == "POST":
            lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        assert self.reader is not None
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            self.close()
            if reused and not getattr(error, "partial", b""):
                # the server closed an idle keep-alive connection: a browser sends again on a new one
                return await self.request(method, path, headers, body)
            raise
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        found: dict[str, str] = {}
        cookies = []
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                name, value = name.strip().lower(), value.strip()
                found[name] = value
                if name == "set-cookie":
                    cookies.append(value)
        if status in (204, 304) or method == "HEAD":
            data = b""
        elif "content-length" in found:
            data = await self.reader.readexactly(int(found["content-length"]))
        elif found.get("transfer-encoding", "").lower() == "chunked":
            data = await self._chunked()
        else:
            data = await self.reader.read()
            self.close()
        if found.get("connection", "").lower() == "close":
            self.close()
        for cookie in cookies if not borrowed else ():
            pair = cookie.split(";", 1)[0]
            if pair.startswith("session="):
                self.cookie = pair if pair != "session=" else None
        return Reply(status, found, cookies, data)

    async def _chunked(self) -> bytes:
        assert self.reader is not None
        parts = []
        while True:
            size = int((await self.reader.readline()).split(b";")[0], 16)
            if size == 0:
                await self.reader.readline()
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readline()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# --- measuring --------------------------------------------------------------------------


@dataclass
class Sample:
    """Latencies (seconds) and status counts of one kind of request in one phase."""

    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: int = 0
    elapsed: float = 0.0
    cpu: float = 0.0  # the server's CPU seconds (all its processes) while this ran
    rounds: list[float] = field(default_factory=list)  # requests per second of each round

    def merge(self, other: Sample) -> None:
        self.latencies += other.latencies
        for status, n in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + n
        self.errors += other.errors
        self.elapsed += other.elapsed
        self.cpu += other.cpu
        self.rounds.append(other.rps)

    def add(self, seconds: float, status: int) -> None:
        self.latencies.append(seconds)
        self.statuses[status] = self.statuses.get(status, 0) + 1

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def rps(self) -> float:
        """Requests per second: the median round's when there were rounds."""
        if self.rounds:
            return sorted(self.rounds)[len(self.rounds) // 2]
        return self.count / self.elapsed if self.elapsed else 0.0

    @property
    def cpu_per_request(self) -> float:
        return self.cpu / self.count if self.count else float("nan")

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        s = sorted(self.latencies)
        return s[min(len(s) - 1, round(q * (len(s) - 1)))]

    def line(self, label: str) -> str:
        statuses = " ".join(f"{k}x{v}" for k, v in sorted(self.statuses.items()))
        cpu = f"  server CPU {self.cpu_per_request * 1e6:5.0f} us/req" if self.cpu else ""
        return (
            f"  {label:<34} {self.rps:6.0f} req/s  p50 {self.pct(0.5) * 1000:6.1f} ms  "
            f"p95 {self.pct(0.95) * 1000:6.1f} ms{cpu}  ({self.count} requests: {statuses}"
            f"{f', {self.errors} errors' if self.errors else ''})"
        )


@dataclass
class Phone:
    conn: Conn
    live: str
    etag: str = ""


@dataclass
class Keeper:
    conn: Conn
    url: str
    csrf: str = ""
    version: int = 0
    viewer: str = ""  # the players' link of the same night: whose phones should see each change


VERSION = re.compile(r'name="version"[^>]*value="(\d+)"')
CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def read_table_page(keeper: Keeper, body: bytes) -> None:
    html = body.decode()
    version, csrf = VERSION.search(html), CSRF.search(html)
    assert version and csrf, "the table screen has no declare form"
    keeper.version, keeper.csrf = int(version.group(1)), csrf.group(1)


def etag_of(reply: Reply) -> str:
    return reply.headers.get("etag", "").removeprefix("W/").strip('"')


async def back_to_back(phones: list[Phone], make, seconds: float, expect: int, cpu=lambda: 0.0) -> Sample:
    """Every phone sends ``make(phone)`` again as soon as its answer is read, for ``seconds``.

    ``seconds <= 0`` warms up for half a second and measures nothing.
    """
    sample = Sample()
    budget = [MAX_REQUESTS]

    async def run(phone: Phone, until: float, record: bool) -> None:
        while time.perf_counter() < until and budget[0] > 0:
            budget[0] -= 1
            path, headers = make(phone)
            start = time.perf_counter()
            try:
                reply = await phone.conn.request("GET", path, headers)
            except (OSError, asyncio.IncompleteReadError):
                sample.errors += 1
                continue
            if record:
                sample.add(time.perf_counter() - start, reply.status)
            if reply.status != expect:
                raise SystemExit(f"{path}: expected {expect}, got {reply.status}")

    if seconds <= 0:
        await asyncio.gather(*(run(p, time.perf_counter() + 0.5, False) for p in phones))
        return sample
    cpu_before, start = cpu(), time.perf_counter()
    await asyncio.gather(*(run(p, start + seconds, True) for p in phones))
    sample.elapsed = time.perf_counter() - start
    sample.cpu = cpu() - cpu_before
    return sample


async def real_night(phones: list[Phone], keepers: list[Keeper], seconds: float) -> dict[str, Sample]:
    """Phones poll every 2 s with their ETag while every scorekeeper records a stage each second."""
    polls, records, pages, live = Sample(), Sample(), Sample(), Sample()
    rng = random.Random(1)
    start = time.perf_counter()
    until = start + seconds
    # issue 14, item 11: from the scorekeeper's acknowledged action (the POST's 303 received)
    # to each phone of that table receiving the new standings (a 200 with the new version)
    acked: dict[tuple[str, int], float] = {}
    seen: dict[tuple[int, str, int], float] = {}

    async def phone_loop(phone: Phone) -> None:
        next_at = start + rng.uniform(0, POLL_EVERY)
        while True:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            if time.perf_counter() >= until:
                return
            t0 = time.perf_counter()
            try:
                reply = await phone.conn.request("GET", phone.live, (f'If-None-Match: "{phone.etag}"',))
            except (OSError, asyncio.IncompleteReadError):
                polls.errors += 1
            else:
                polls.add(time.perf_counter() - t0, reply.status)
                if reply.status == 200:
                    phone.etag = etag_of(reply)
                    found = re.search(r"-v(\d+)-", phone.etag)
                    if found:
                        seen.setdefault((id(phone), phone.live.split("/")[2], int(found.group(1))), time.perf_counter())
            next_at = max(next_at + POLL_EVERY, time.perf_counter())

    async def keeper_loop(keeper: Keeper) -> None:
        next_at = start + rng.uniform(0, RECORD_EVERY)
        while True:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            if time.perf_counter() >= until:
                return
            form = {
                "csrf_token": keeper.csrf,
                "version": str(keeper.version),
                "request_key": secrets.token_urlsafe(16),
                "nobody": "Nobody said Yes",
            }
            t0 = time.perf_counter()
            reply = await keeper.conn.request("POST", keeper.url + "/declare", body=urlencode(form).encode())
            records.add(time.perf_counter() - t0, reply.status)
            if reply.status == 303:
                acked[(keeper.viewer, keeper.version + 1)] = time.perf_counter()
            t0 = time.perf_counter()
            page = await keeper.conn.request("GET", keeper.url)  # the redirect, as a browser follows it
            pages.add(time.perf_counter() - t0, page.status)
            if reply.status != 303 or page.status != 200:
                records.errors += 1
            read_table_page(keeper, page.decoded())
            next_at = max(next_at + RECORD_EVERY, time.perf_counter())

    await asyncio.gather(*(phone_loop(p) for p in phones), *(keeper_loop(k) for k in keepers))
    for (_, viewer, version), at in seen.items():
        if (viewer, version) in acked:
            live.add(max(0.0, at - acked[(viewer, version)]), 200)
    for sample in (polls, records, pages, live):
        sample.elapsed = seconds  # the loops stop sending at ``until``
    return {"polls": polls, "records": records, "pages": pages, "live": live}


#: the pages a phone opens, of the long night (issue 14, item 12; issue 22): phase name -> its path
#: ({k}: the long night's scorekeeper link, {p}: its players' link; "home" and "player" are
#: asked with the cookie of a browser that has kept score of the 20 tables' nights)
PAGES = {
    "report": "/k/{k}/report",
    "table": "/k/{k}",
    "history": "/k/{k}/history",
    "players": "/p/{p}",
    "preport": "/p/{p}/report",
    "bank": "/k/{k}/bank",
    "csv": "/p/{p}/report.csv",
    "json": "/p/{p}/report.json",
    "export": "/k/{k}/export.json",
    "home": "/",
    "player": "/players/Ann",
}
KNOWING = ("home", "player")  # asked with the cookie of the browser that knows the 20 nights
#: the year whose season table is asked (the group's second: its nights are weekly from 2022-01-07)
GROUP_YEAR = 2023
#: the group's pages (issue 25), of a group of GROUP_NIGHTS stored nights: phase name -> its path
#: ({g}: the organiser's link, {m}: the members' link).  Asked only when the app serves /g/<key>
#: (the pages land with the group's web branch; until then their rows are skipped, saying so).
GROUP_PAGES = {
    "group": "/g/{g}",
    "gmembers": "/m/{m}",
    "gyear": "/g/{g}?period=" + str(GROUP_YEAR),
}
GROUP_NIGHTS = 200
GROUP_ROUTE = "/g/<key>"
#: the pages also asked as a first visit (issue 37): by a browser without the app's cookie, each answer a new session
FIRST_VISITS = ("table", "players", "report", "home", "group")
#: a cookie that is not the app's: the Conn sends it instead of its own and keeps none it is sent back
NEW_BROWSER = "Cookie: first-visit=1"


async def drive(
    server: Server, nights: list[tuple[str, str]], long_keys: tuple[str, str], seconds: float, rounds: int,
    pages_only: bool = False, sizes: dict[str, tuple[int, int, str]] | None = None,
    group_keys: tuple[str, str] | None = None, group_only: bool = False, firsts: dict[str, float] | None = None,
    polls_only: bool = False, night_only: bool = False,
) -> dict[str, Sample]:
    """The phones and scorekeepers of every night against ``server``: the phases, in rounds."""
    port = server.port
    phones: list[Phone] = []
    keepers: list[Keeper] = []
    for keeper_key, viewer_key in nights:
        for name in SEVEN[:PHONES]:
            phone = Phone(Conn(port), f"/p/{viewer_key}/live")
            reply = await phone.conn.request("GET", f"/p/{viewer_key}/me?name={quote(name)}")
            assert reply.status == 303 and phone.conn.cookie, reply.status
            reply = await phone.conn.request("GET", phone.live)
            assert reply.status == 200, reply.status
            phone.etag = etag_of(reply)
            phones.append(phone)
        keeper = Keeper(Conn(port), f"/k/{keeper_key}", viewer=viewer_key)
        page = await keeper.conn.request("GET", keeper.url)
        assert page.status == 200, page.status
        read_table_page(keeper, page.decoded())
        keepers.append(keeper)
    # each Conn sends its phone's session cookie, /hello included: the same request, less the work
    phases = {
        "hello": (lambda p: ("/hello", ()), 200),
        "flask": (lambda p: ("/flask-hello", ()), 200),
        "304": (lambda p: (p.live, (f'If-None-Match: "{p.etag}"',)), 304),
        "200": (lambda p: (p.live, ('If-None-Match: "outdated"',)), 200),
    }
    if pages_only or group_only or night_only:
        del phases["304"], phases["200"]
    # a browser that has kept score of the 20 tables' nights: its cookie lists them (home, /players/<name>)
    knowing = Conn(port)
    for keeper in keepers:
        assert (await knowing.request("GET", keeper.url)).status == 200
    assert (await knowing.request("GET", "/")).status == 200  # its CSRF secret is in the cookie now
    known = (f"Cookie: {knowing.cookie}",)
    knowing.close()
    long_key, long_viewer = long_keys
    for name, path in ({} if group_only or polls_only or night_only else PAGES).items():
        # every connection opens the long night's page as its scorekeeper would (the first
        # answer sets the cookie the rest send: the browser's list of nights, its CSRF secret)
        url = path.format(k=long_key, p=long_viewer)
        phases[name] = (lambda p, url=url, extra=(known if name in KNOWING else ()): (url, extra), 200)
    first = await phones[0].conn.request("GET", f"/k/{long_key}/report")
    assert first.status == 200 and b"Who pays whom" in first.decoded(), first.status
    if group_keys is not None and not (polls_only or night_only):
        organiser_key, member_key = group_keys
        for name, path in GROUP_PAGES.items():
            url = path.format(g=organiser_key, m=member_key)
            phases[name] = (lambda p, url=url: (url, ()), 200)
            # the first view of the group in this process: every night folded and reported anew (cold)
            t0 = time.perf_counter()
            reply = await phones[0].conn.request("GET", url)
            assert reply.status == 200, (url, reply.status)
            if firsts is not None:
                firsts[name] = time.perf_counter() - t0
    for name in FIRST_VISITS:  # the same page asked by a browser the app has never seen (no session cookie)
        if name in phases:
            phases[name + "-first"] = (lambda p, make=phases[name][0]: (make(p)[0], (NEW_BROWSER,)), 200)
    if sizes is not None:  # each page's weight as sent, plain and compressed (Chromium's Accept-Encoding)
        for name in [n for n in phases if n in PAGES or n in GROUP_PAGES]:
            path, extra = phases[name][0](phones[0])
            plain = await phones[0].conn.request("GET", path, (*extra, "Accept-Encoding: identity"))
            packed = await phones[0].conn.request("GET", path, extra)
            assert packed.decoded().replace(b"\r", b"")[:200] == plain.body.replace(b"\r", b"")[:200], name
            sizes[name] = (len(plain.body), len(packed.body), packed.headers.get("content-encoding", "-"))
    results = {name: Sample() for name in phases}
    for make, expect in phases.values():
        await back_to_back(phones, make, 0, expect)
    # rounds, interleaved, so that a change in the machine's other load touches every phase alike
    for _ in range(rounds):
        for name, (make, expect) in phases.items():
            results[name].merge(await back_to_back(phones, make, seconds, expect, server.cpu))
    if not (pages_only or group_only or polls_only):
        results.update(await real_night(phones, keepers, REAL_NIGHT_SECONDS))
    for conn in [p.conn for p in phones] + [k.conn for k in keepers]:
        conn.close()
    return results


# --- the server, its database and the nights --------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_available() -> bool:
    if not shutil.which("psql"):
        return False
    try:
        return subprocess.run([*PG_ADMIN, "SELECT 1"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def fresh_database(kind: str, tmp: Path, run: str) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp / (run + '.sqlite')}"
    for sql in (f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)", f"CREATE DATABASE {PG_DATABASE}"):
        subprocess.run([*PG_ADMIN, sql], check=True, capture_output=True)
    return PG_URL


def drop_database(kind: str) -> None:
    if kind == "postgresql":
        subprocess.run([*PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)"], capture_output=True)


def history(seed: int) -> str:
    """Ten hands for 7 players, with showdowns and tokens, ending where a hand starts."""
    from companion.games.napalm import Phase, Table
    from companion.games.napalm import hand_history

    rng = random.Random(seed)
    table = Table(SEVEN, SEVEN[seed % 7], None)
    for _ in range(10):
        start_hand = (table.game_number, table.hand_number)
        while (table.game_number, table.hand_number) == start_hand:
            if table.phase is Phase.DECLARE:
                table.declare(rng.sample(SEVEN, rng.choice([0, 1, 2, 2, 3])))
            elif table.phase is Phase.CHALLENGE:
                table.challenge(rng.sample([n for n in SEVEN if n != table.dealer], rng.choice([0, 1])))
            else:
                table.showdown(winners=[rng.choice(table.yes)])
    settings = hand_history.Settings(chip_value=Decimal("0.25"), currency="EUR", unfinished_pot="return_antes")
    return hand_history.dumps(table, settings, f"Table {seed}")


def seed_nights(url: str, group_nights: int = GROUP_NIGHTS) -> tuple[list[tuple[str, str]], tuple[str, str], tuple[str, str] | None]:
    """Import a night for each table straight into the server's database, the long night, and, when the app
    serves the group's pages, a group of ``group_nights`` nights (``group_bench.group_file``).

    Returns each table's (keeper key, viewer key), the long night's, and the group's (organiser key, member
    key) or None when the app has no group pages yet.
    """
    from companion import service as services
    from companion import create_app
    from companion.extensions import db

    sys.path.insert(0, str(ROOT / "bench"))
    from table_bench import long_night

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": secrets.token_urlsafe(48)})
    keys = []
    with app.app_context():
        for i in range(TABLES):
            night = services.import_history(history(i + 1))
            keys.append((night.keeper_key, night.viewer_key))
        long = services.import_history(long_night())
        long_keys = (long.keeper_key, long.viewer_key)
        group_keys = None
        if any(rule.rule == GROUP_ROUTE for rule in app.url_map.iter_rules()):
            from group_bench import group_file

            group = services.import_group(group_file(group_nights))
            group_keys = (group.organiser_key, group.member_key)
        db.session.remove()
        db.engine.dispose()
    return keys, long_keys, group_keys


class Server:
    """The production serve command in a subprocess (or an alternative from :data:`ALTERNATIVES`), stopped on exit."""

    def __init__(self, name: str, url: str, instance: Path) -> None:
        args = SERVERS[name]
        self.port = free_port()
        self.instance = instance
        self.log = instance / "server.log"
        instance.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "COMPANION_ENV": "production",
            "COMPANION_SECRET_KEY": secrets.token_urlsafe(48),
            "COMPANION_DATABASE_URL": url,
            "COMPANION_INSTANCE_PATH": str(instance),
        }
        command = [sys.executable, "-m", "flask", "--app", "bench/load_app.py", "serve",
                   "--host", "127.0.0.1", "--port", str(self.port), *args]
        if name in ALTERNATIVES:  # the schema as serve makes it, then gunicorn's own command
            subprocess.run([sys.executable, "-m", "flask", "--app", "bench/load_app.py", "db", "upgrade"],
                           cwd=ROOT, env=env, check=True, capture_output=True)
            command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--forwarded-allow-ips", "",
                       "--backlog", "1024", *args, "bench.load_app:create_app()"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        if not answers_health(self.process, self.port, self.log):
            self.stop()
            raise SystemExit("the server did not answer /healthz within 60 s")

    def cpu(self) -> float:
        """CPU seconds used so far by the server and its child processes (gunicorn's workers)."""
        pid = self.process.pid
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat.parent.name == str(pid) or fields[1] == str(pid):
                total += int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
        return total / os.sysconf("SC_CLK_TCK")

    def processes(self) -> list[str]:
        """The server's process and its workers, by pid."""
        pid = str(self.process.pid)
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat.parent.name == pid or fields[1] == pid:
                found.append(stat.parent.name)
        return found

    def memory(self) -> list[tuple[str, int, int]]:
        """(pid, resident MB now, the most it has been) of each of the server's processes."""
        found = []
        for pid in self.processes():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            kb = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith("Vm")}
            found.append((pid, kb.get("VmRSS", 0) // 1024, kb.get("VmHWM", 0) // 1024))
        return found

    def gc_pauses(self) -> list[dict]:  # type: ignore[type-arg]
        """What each process wrote of its garbage collections (bench/load_app.py)."""
        return [json.loads(path.read_text()) for path in sorted(self.instance.glob("gc-*.json"))]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# --- the report ---------------------------------------------------------------------------


ROWS = [
    ("hello", "hello world (the ceiling)"),
    ("flask", "bare Flask hello"),
    ("304", "standings unchanged (304)"),
    ("200", "standings after a change (200)"),
    ("report", "report, 785 events (200)"),
    ("table", "table screen, 785 events (200)"),
    ("history", "history, first page (200)"),
    ("players", "players' page (200)"),
    ("preport", "players' report (200)"),
    ("bank", "bank page (200)"),
    ("csv", "report.csv (200)"),
    ("json", "report.json (200)"),
    ("export", "export.json, the night file (200)"),
    ("home", "home page, 20 nights known (200)"),
    ("player", "/players/<name>, 20 nights (200)"),
    ("group", f"the group's organiser page, {GROUP_NIGHTS} nights (200)"),
    ("gmembers", f"the group's members' page, {GROUP_NIGHTS} nights (200)"),
    ("gyear", f"the group's season table for {GROUP_YEAR}, organiser's page, {GROUP_NIGHTS} nights (200)"),
    *((f"{name}-first", f"{name}: first visit, a new session (200)") for name in FIRST_VISITS),
    ("polls", f"real night: polls every {POLL_EVERY:g} s"),
    ("records", "real night: record a stage (POST)"),
    ("pages", "real night: table screen after it"),
    ("live", "real night: action acknowledged to each phone showing it (goal p95 <= 1 s)"),
]


#: the first-visit phases' names
FIRSTS = tuple(f"{name}-first" for name in FIRST_VISITS)


def share(sample: Sample, hello: Sample) -> float:
    """``sample``'s requests per second as a share of the ceiling's: the median of the rounds' shares, each round
    against the ceiling's of the same round (run first in it, seconds before: both met the machine alike)."""
    if sample.rounds and len(sample.rounds) == len(hello.rounds):
        ratios = sorted(mine / ceiling for mine, ceiling in zip(sample.rounds, hello.rounds) if ceiling)
        if ratios:
            return ratios[len(ratios) // 2]
    return sample.rps / hello.rps if hello.rps else float("nan")


def round_shares(sample: Sample, hello: Sample) -> str:
    """Each round's share, in the order run."""
    return " / ".join(f"{mine / ceiling:.0%}" for mine, ceiling in zip(sample.rounds, hello.rounds) if ceiling)


def goals(r: dict[str, Sample]) -> list[str]:
    hello = r["hello"]
    lines = []
    if "304" in r:
        lines += [
            f"304 at {share(r['304'], hello):.0%} of the ceiling (goal >= 80%; rounds {round_shares(r['304'], hello)})",
            f"200 at {share(r['200'], hello):.0%} of the ceiling (goal >= 50%; rounds {round_shares(r['200'], hello)})",
        ]
    lines += [f"{name} at {share(r[name], hello):.0%} of the ceiling (goal >= 20%; rounds {round_shares(r[name], hello)})"
              for name in (*PAGES, *GROUP_PAGES) if name in r]
    if "flask" in r:
        lines += [f"{name} at {share(r[name], r['flask']):.0%} of the bare Flask hello (goal >= 25%; rounds "
                  f"{round_shares(r[name], r['flask'])})" for name in (*PAGES, *GROUP_PAGES, *FIRSTS) if name in r]
    if "records" in r:
        lines += [
            f"record a stage p95 {r['records'].pct(0.95) * 1000:.1f} ms (goal <= 50 ms)",
            f"a change reaches a phone p95 {r['live'].pct(0.95) * 1000:.0f} ms (goal <= 1000 ms)",
        ]
    return lines


def table(all_results: dict[tuple[str, str], dict[str, Sample]]) -> str:
    runs = list(all_results)
    head = "| | " + " | ".join(f"{db}, {server}" for db, server in runs) + " |"
    lines = [head, "|---" * (len(runs) + 1) + "|"]
    for key, label in ROWS:
        if not all(key in all_results[run] for run in runs):
            continue
        cells = []
        for run in runs:
            s = all_results[run][key]
            ratio = ""
            if key in ("304", "200", "flask", *PAGES, *GROUP_PAGES, *FIRSTS):
                ratio = f" ({share(s, all_results[run]['hello']):.0%}"
                if "flask" in all_results[run] and key != "flask":
                    ratio += f"; {share(s, all_results[run]['flask']):.0%} of Flask's"
                ratio += ")"
            cpu = f", CPU {s.cpu_per_request * 1e6:.0f} µs" if s.cpu else ""
            cells.append(f"{s.rps:.0f}/s{ratio}, {s.pct(0.5) * 1000:.1f} / {s.pct(0.95) * 1000:.1f} ms{cpu}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    global POLL_EVERY, REAL_NIGHT_SECONDS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="length of each back-to-back phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the back-to-back phases")
    parser.add_argument("--servers", default=",".join(SERVERS))
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--poll", type=float, default=None, help="seconds between a phone's polls (default 0.8)")
    parser.add_argument("--pages-only", action="store_true", help="only the ceiling and the long night's heavy pages")
    parser.add_argument("--group-only", action="store_true", help="only the ceiling and the group's pages (issue 25)")
    parser.add_argument("--polls-only", action="store_true", help="only the ceiling and the players' polls (304, 200)")
    parser.add_argument("--night-only", action="store_true",
                        help="only the ceiling and the real night (recording a stage while the phones poll)")
    parser.add_argument("--group-nights", type=int, default=GROUP_NIGHTS, help="stored nights in the group (default 200)")
    parser.add_argument("--night-seconds", type=float, default=REAL_NIGHT_SECONDS,
                        help="length of the real night (default 10 s: about 51 stages recorded; 30 s: about 150)")
    args = parser.parse_args()
    args.group_nights = min(max(args.group_nights, 1), 2000)
    if args.group_nights != GROUP_NIGHTS:
        for key, label in (("group", "organiser"), ("gmembers", "members'")):
            ROWS[[k for k, _ in ROWS].index(key)] = (key, f"the group's {label} page, {args.group_nights} nights (200)")
        ROWS[[k for k, _ in ROWS].index("gyear")] = (
            "gyear", f"the group's season table for {GROUP_YEAR}, organiser's page, {args.group_nights} nights (200)")
    POLL_EVERY = min(max(POLL_EVERY if args.poll is None else args.poll, 0.2), 10.0)
    REAL_NIGHT_SECONDS = min(max(args.night_seconds, 5.0), 120.0)
    ROWS[[key for key, _ in ROWS].index("polls")] = ("polls", f"real night: polls every {POLL_EVERY:g} s")
    args.seconds = min(max(args.seconds, 0.5), 30.0)
    args.rounds = min(max(args.rounds, 1), 10)
    databases = args.databases.split(",")
    if "postgresql" in databases and not postgres_available():
        print("PostgreSQL does not answer at 127.0.0.1:5432 as postgres: skipped")
        databases.remove("postgresql")
    print(f"{TABLES} tables x {PHONES} phones, {TABLES} scorekeepers; {os.cpu_count()} cores; "
          f"Python {sys.version.split()[0]}; {time.strftime('%Y-%m-%d')}", flush=True)
    results: dict[tuple[str, str], dict[str, Sample]] = {}
    told = False  # that the group's pages are not served yet
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ["COMPANION_INSTANCE_PATH"] = str(tmp / "seed-instance")
        for kind in databases:
            for server_name in args.servers.split(","):
                run = f"{kind}-{server_name}"
                url = fresh_database(kind, tmp, run)
                server = Server(server_name, url, tmp / run)
                try:
                    nights, long_keys, group_keys = seed_nights(url, 1 if args.polls_only or args.night_only else args.group_nights)
                    if group_keys is None and not told:
                        print(f"the group's pages ({GROUP_ROUTE}, /m/<key>) are not served by this app yet: their rows are "
                              "skipped (they land with the group's web branch; re-run this bench after merging it)",
                              flush=True)
                        told = True
                    if group_keys is None and args.group_only:
                        raise SystemExit("--group-only: nothing to measure without the group's pages")
                    sizes: dict[str, tuple[int, int, str]] = {}
                    firsts: dict[str, float] = {}
                    r = asyncio.run(drive(server, nights, long_keys, args.seconds, args.rounds, args.pages_only, sizes,
                                          group_keys, args.group_only, firsts, args.polls_only, args.night_only))
                    memory = server.memory()
                    pauses = server.gc_pauses()
                finally:
                    server.stop()
                    drop_database(kind)
                results[(kind, server_name)] = r
                print(f"{kind}, {server_name} ({' '.join(SERVERS[server_name])}):", flush=True)
                for key, label in ROWS:
                    if key in r:
                        print(r[key].line(label))
                for goal in goals(r):
                    print("  " + goal, flush=True)
                if firsts:
                    print("  the group's pages, first request after the import, one process (the organiser's first: every "
                          "night folded and reported anew; the members' then finds the view kept): " + ", ".join(
                              f"{name} {seconds * 1000:.0f} ms" for name, seconds in firsts.items()))
                print("  weight as sent, plain -> compressed: " + ", ".join(
                    f"{name} {plain / 1024:.1f} -> {packed / 1024:.1f} KB ({encoding})"
                    for name, (plain, packed, encoding) in sizes.items()))
                print("  memory per process (resident now / highest, MB): " + ", ".join(
                    f"{pid}: {now} / {most}" for pid, now, most in memory))
                for seen in pauses:
                    print(f"  GC, process {seen['pid']}: longest pause {seen['longest_ms']} ms wall (generation "
                          f"{seen['generation']}), {seen['longest_cpu_ms']} ms CPU, {seen.get('longest_on_core_ms', '-')} "
                          f"ms wall never switched out; over 50 ms: {seen['over_50ms']} wall (switched out by the kernel "
                          f"meanwhile: {seen.get('over_50ms_switched_out', '-')}), {seen['cpu_over_50ms']} CPU "
                          f"({seen['collections']} collections)", flush=True)
                    if "per_generation" in seen:
                        print("    by generation (count, CPU ms in all, longest CPU ms): " + ", ".join(
                            f"{gen}: {count}, {total}, {most}" for gen, (count, total, most)
                            in sorted(seen["per_generation"].items())))
                    for older in seen.get("older", ()):  # COMPANION_GC_DETAIL: what the longest ones walked
                        print(f"    generation {older['generation']}: {older['cpu_ms']} ms CPU, walked "
                              f"{older['objects']} objects ({older['gen2']} in generation 2), collected "
                              f"{older['collected']}; most: " + ", ".join(f"{k} {n}" for k, n in older["kinds"]))
                for path in sorted(server.instance.glob("posts-*.json")):  # COMPANION_TIME_POSTS
                    posts = json.loads(path.read_text())
                    print(f"  POSTs in process {path.stem[6:]} ({posts['count']}), in the app, p50 / p95 / most ms: "
                          + ", ".join(f"{name} {' / '.join(map(str, posts[name]))}" for name in ("wall", "cpu", "gc")))
    print("\nreq/s (share of the ceiling), p50 / p95 latency:\n")
    print(table(results))


if __name__ == "__main__":
    main()
