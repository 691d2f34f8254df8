"""The production server, ``serve``: gunicorn with one gevent worker, or ``--workers 2`` on one socket (issue 37).

Each process keeps its own caches (the folds, the standings it showed); the players'
live view must follow the table whichever process answers.  Every poll here opens a
new connection, so the two workers share them; each must see each change at once.
And sockets that send half a request and stop (any phone on the Wi-Fi can open them,
no link needed) must not stop the server answering the table (issue 21, item 1).
A worker that dies is replaced by gunicorn's master, and the master stops them all.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest


REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="gunicorn: Unix only")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phone:
    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        sent = {"Connection": "close", **(headers or {})}
        if self.cookie:
            sent["Cookie"] = self.cookie
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read().decode()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie" and value.startswith("session="):
                    self.cookie = value.split(";", 1)[0]
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            connection.close()


def token(page: str) -> str:
    found = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    assert found, "no CSRF token on the page"
    return found.group(1)


def version(page: str) -> str:
    found = re.search(r'name="version"[^>]*value="(\d+)"', page)
    assert found
    return found.group(1)


def start_server(tmp_path: Path, *serve_args: str):
    """``flask serve`` in production mode on a fresh SQLite file: (port, database, process, stop)."""
    port = free_port()
    database = tmp_path / "served.sqlite"
    env = {
        **os.environ,
        "COMPANION_ENV": "production",
        "COMPANION_SECRET_KEY": secrets.token_urlsafe(48),
        "COMPANION_DATABASE_URL": f"sqlite:///{database}",
        "COMPANION_INSTANCE_PATH": str(tmp_path / "instance"),
        "COMPANION_TAP_GUARD_MS": "0",  # these tests record stages back to back, faster than a person
    }
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "companion", "serve",
         "--host", "127.0.0.1", "--port", str(port), *serve_args],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )

    def stop() -> None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()

    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (tmp_path / "server.log").read_text()
            try:
                if Phone(port).request("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
    except BaseException:
        stop()
        raise
    return port, database, process, stop


@pytest.fixture
def server(tmp_path: Path):
    port, database, process, stop = start_server(tmp_path, "--workers", "2")
    try:
        yield port, database, process
    finally:
        stop()


def start_night(port: int, database: Path) -> tuple[Phone, str, str]:
    """A night of three: (the scorekeeper's phone, the table's path, the players' live path)."""
    keeper = Phone(port)
    status, _, home = keeper.request("GET", "/")
    form = {"csrf_token": token(home), "name": "Friday", "seat_1": "Ann", "seat_2": "Ben", "seat_3": "Cat",
            "first_dealer": "1", "ante": "1", "ante_every": "1", "tokens_to_win": "5", "chip_value": "0",
            "currency": "", "unfinished_pot": "return_antes"}
    status, headers, _ = keeper.request("POST", "/nights", form)
    assert status == 303, status
    table = "/k/" + headers["location"].rstrip("/").rsplit("/", 1)[1]
    with sqlite3.connect(database) as db:
        (viewer,) = db.execute("SELECT viewer_key FROM night").fetchone()
    return keeper, table, f"/p/{viewer}/live"


def declare_nobody(keeper: Phone, table: str) -> int:
    """Tap "Nobody said Yes" on the table's screen as it is now; the answer's status."""
    status, _, page = keeper.request("GET", table)
    assert status == 200, status
    form = {"csrf_token": token(page), "version": version(page), "request_key": secrets.token_urlsafe(16),
            "nobody": "Nobody said Yes"}
    return keeper.request("POST", f"{table}/declare", form)[0]


def children_of(process: subprocess.Popen) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[1] == str(process.pid):
                found.add(int(stat.parent.name))
        except (OSError, IndexError):
            continue
    return found


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs: a zombie (exited, its parent gone before it reaped it: then whoever
    adopted it reaps it, if ever) runs no more."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_two_worker_processes_follow_the_table_live(server):
    port, database, process = server
    if Path("/proc/self/stat").exists():
        # the first worker may answer /healthz before the second is forked
        deadline = time.monotonic() + 30
        while len(children_of(process)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(children_of(process)) == 2
    keeper, table, live = start_night(port, database)
    status, headers, _ = Phone(port).request("GET", live)
    assert status == 200
    etag = headers["etag"]
    for stage in range(1, 7):
        assert declare_nobody(keeper, table) == 303
        # every poll reads the night's version: either worker sees the change at once
        seen = set()
        for _ in range(8):  # a new connection each time: either worker may answer
            status, headers, body = Phone(port).request("GET", live, headers={"If-None-Match": etag})
            assert status == 200, f"stage {stage}: a poll missed the change ({status})"
            assert f"-v{stage}-" in headers["etag"] and "#" + str(stage) in body
            seen.add(headers["etag"])
        assert len(seen) == 1
        etag = seen.pop()
        for _ in range(4):
            assert Phone(port).request("GET", live, headers={"If-None-Match": etag})[0] == 304
    # a phone polls on one kept-alive connection: a 304 leaves it open (waitress 3 closed it after each, which
    # is why serve subclassed waitress's task; gunicorn keeps it: an answer without a body needs no length)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        sockets = []
        for _ in range(3):
            connection.request("GET", live, headers={"If-None-Match": etag})
            response = connection.getresponse()
            assert response.status == 304 and response.read() == b""
            assert response.getheader("Connection", "keep-alive").lower() == "keep-alive"
            assert response.getheader("ETag") == etag
            sockets.append(connection.sock)
        assert sockets[0] is not None and sockets == [sockets[0]] * 3
    finally:
        connection.close()


#: half-open sockets a phone on the Wi-Fi could open; the probe stopped gunicorn's threaded worker with 8
HALF_OPEN = 200


def half_open_sockets(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that each send half a request header and then nothing."""
    opened = []
    for number in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(f"GET /p/{number} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Half: ".encode())
        opened.append(sock)
    return opened


def timed(call):  # type: ignore[no-untyped-def]
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


@pytest.mark.parametrize(
    "serve_args",
    [(), ("--workers", "2")],
    ids=["default-one-process", "readme-two-workers"],
)
def test_two_hundred_half_open_sockets_leave_the_table_answered_within_a_second(tmp_path, serve_args):
    port, database, _process, stop = start_server(tmp_path, *serve_args)
    opened: list[socket.socket] = []
    try:
        keeper, table, live = start_night(port, database)
        assert declare_nobody(keeper, table) == 303  # warm up each page once before the sockets open
        assert Phone(port).request("GET", live)[0] == 200
        opened = half_open_sockets(port, HALF_OPEN)
        time.sleep(0.5)  # let the server accept them all
        slowest = {"poll": 0.0, "action": 0.0}
        for attempt in range(3):  # a new connection each time: with two processes, either may answer
            (status, _, body), seconds = timed(lambda: Phone(port).request("GET", live))
            assert status == 200 and seconds < 1.0, f"players' poll {attempt}: {status} after {seconds:.2f} s"
            slowest["poll"] = max(slowest["poll"], seconds)
            status, seconds = timed(lambda: declare_nobody(keeper, table))
            assert status == 303 and seconds < 1.0, f"recorded action {attempt}: {status} after {seconds:.2f} s"
            slowest["action"] = max(slowest["action"], seconds)
        print(f"\n{HALF_OPEN} half-open sockets, serve {' '.join(serve_args) or '(default)'}: slowest poll "
              f"{slowest['poll']:.3f} s, slowest action (table page and tap) {slowest['action']:.3f} s")
        with sqlite3.connect(database) as db:
            # the warm-up tap and three more, each recorded once
            assert db.execute("SELECT count(*) FROM event WHERE kind != 'game'").fetchone()[0] == 4
        # the half-open sockets are still open: nothing answered or closed them (serve lets one go after
        # server.KEEP_ALIVE seconds, longer than this test held them)
        for sock in opened:
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
    finally:
        for sock in opened:
            sock.close()
        stop()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the processes from /proc")
def test_a_worker_process_that_dies_is_replaced_and_stopping_the_server_stops_them_all(server):
    port, database, process = server
    deadline = time.monotonic() + 30
    while len(children_of(process)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    first = children_of(process)
    assert len(first) == 2
    victim = min(first)
    os.kill(victim, 9)  # SIGKILL: as the kernel's out-of-memory killer would
    deadline = time.monotonic() + 30  # as long as the start above may take on a loaded CI machine
    now = children_of(process)
    while (len(now) < 2 or victim in now) and time.monotonic() < deadline:
        time.sleep(0.1)
        now = children_of(process)  # what is asserted is what was seen (two reads of /proc could differ)
    assert len(now) == 2 and victim not in now, now
    keeper, table, live = start_night(port, database)
    for _ in range(4):  # either process answers, the new one too
        assert Phone(port).request("GET", live)[0] == 200
    process.terminate()
    assert process.wait(timeout=20) == 0
    deadline = time.monotonic() + 10  # a worker SIGKILLed as the master left is gone a moment later
    while any(running(pid) for pid in now) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(running(pid) for pid in now), "a worker outlived the server"


def test_the_served_app_answers_only_its_own_host_and_believes_no_forwarded_header(tmp_path):
    """The host check answers a request for another name with a 400 through gunicorn too; and gunicorn, which by
    default believes the X-Forwarded-* headers of 127.0.0.1, is told to believe none: with
    COMPANION_TRUSTED_PROXIES unset, a phone on this machine that says it came over HTTPS gets no Secure cookie."""
    port, _database, _process, stop = start_server(tmp_path)
    try:
        status, _, body = Phone(port).request("GET", "/", headers={"Host": "evil.example"})
        assert status == 400 and "evil.example" in body
        status, headers, _ = Phone(port).request(
            "GET", "/", headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"})
        assert status == 200
        cookie = headers["set-cookie"].lower()
        assert cookie.startswith("session=") and "secure" not in cookie
    finally:
        stop()


def test_gunicorns_master_imports_no_database_driver_so_each_worker_imports_it_after_gevent_patched():
    """psycopg picks how it waits when first imported, once: imported in the master, before a worker's gevent patch,
    it would wait blocking the whole worker.  What the master imports (companion/web/plumbing/server.py) leaves it out."""
    probe = ("import sys, companion.web.plumbing.server; "
             "print(sorted(m for m in sys.modules if m.split('.')[0].startswith('psycopg')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_gunicorns_master_imports_none_of_the_apps_modules_so_no_lock_is_made_before_gevent_patched():
    """A lock made at import in the master (the fold's stripes, service/store.py) is a real OS lock in each worker,
    out of gevent's reach: on PostgreSQL, four phones at once hung the worker until gunicorn killed it.  The master
    imports the server, and nothing of the database, the service or the web layer."""
    probe = ("import sys, companion.web.plumbing.server; "
             "print(' '.join(sorted(m for m in sys.modules if m.startswith('companion'))))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["companion", "companion.web", "companion.web.plumbing", "companion.web.plumbing.server"]


#: a gunicorn gevent worker's start, on PostgreSQL: what the master imports, then gevent's patch, then the app
WORKER_ON_POSTGRES = """
import json, sys
import companion.web.plumbing.server  # what gunicorn's master imported before it forked
from gevent import monkey
monkey.patch_all()  # what gunicorn's gevent worker does first
import gevent
import psycopg.waiting
from sqlalchemy import text
from companion import create_app
from companion.db.change_watch import watch_of
from companion.extensions import db

app = create_app()
ticks = [0]
def tick():
    while True:
        gevent.sleep(0.01)
        ticks[0] += 1
with app.app_context():
    watch = watch_of(db.engine)
    for _ in range(1000):  # its listener, a greenlet, listening
        if watch.generation() is not None:
            break
        gevent.sleep(0.01)
    before = watch.generation()
    ticker = gevent.spawn(tick)
    gevent.sleep(1.5)  # the listener waits on its socket a second at a time meanwhile
    ticked = ticks[0]
    db.session.execute(text("NOTIFY companion_change"))  # as another process's unit of work commits
    db.session.commit()
    heard = None
    for _ in range(500):
        if (watch.generation() or 0) > (before or 0):
            heard = watch.generation()
            break
        gevent.sleep(0.01)
print(json.dumps({"before": before, "heard": heard, "ticked": ticked, "wait": psycopg.waiting.wait.__name__}))
"""


@pytest.mark.skipif(not (os.environ.get("COMPANION_TEST_DATABASE_URL") or "").startswith("postgresql"),
                    reason="PostgreSQL's listener under gevent")
def test_under_gevent_the_change_watchs_listener_hears_notify_without_stopping_the_worker(tmp_path):
    """In a worker as gunicorn's gevent worker makes it, psycopg waits cooperatively, and the change watch's listener
    (a greenlet there) hears another process's NOTIFY while the other greenlets run: a greenlet that sleeps 10 ms at
    a time ticks about 150 times in 1.5 s; were the listener's one-second waits blocking, it would tick 2 or 3."""
    env = {**os.environ, "COMPANION_DATABASE_URL": os.environ["COMPANION_TEST_DATABASE_URL"],
           "COMPANION_INSTANCE_PATH": str(tmp_path / "instance"), "COMPANION_SECRET_KEY": secrets.token_urlsafe(48)}
    done = subprocess.run([sys.executable, "-c", WORKER_ON_POSTGRES], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["wait"] != "wait_c"  # the C wait blocks the whole process; psycopg picks it only without gevent
    assert seen["before"] is not None, "the listener never listened"
    assert seen["heard"] is not None and seen["heard"] > seen["before"], "the NOTIFY was not heard"
    assert seen["ticked"] >= 30, f"the other greenlets stood still while the listener waited ({seen['ticked']} ticks)"


def test_building_the_app_leaves_pokerkits_lookups_to_the_workers_warm_up(tmp_path):
    """pokerkit builds its hand lookups when imported (about half a second of CPU): every process that builds the app
    (``flask db``, ``flask replay``, ``serve`` before it hands over) paid it.  Now only a worker's warm-up, or the first
    hand of stage 2 or 3, loads them."""
    probe = ("import sys; from companion import create_app; from companion.games import GAMES; create_app(); "
             "before = 'pokerkit' in sys.modules; [game.warm_up() for game in GAMES.values()]; "
             "print(before, 'pokerkit' in sys.modules)")
    env = {**os.environ, "COMPANION_INSTANCE_PATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
