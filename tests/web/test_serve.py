"""The production server with several processes: ``serve --workers 2`` (gunicorn) behind one database.

Each process keeps its own caches (the folds, the standings it showed); the players'
live view must follow the table whichever process answers.  Every poll here opens a
new connection, so the two workers share them; each must see each change at once.
"""

from __future__ import annotations

import http.client
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
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="gunicorn runs on Unix only")


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


@pytest.fixture
def server(tmp_path: Path):
    port = free_port()
    database = tmp_path / "served.sqlite"
    env = {
        **os.environ,
        "COMPANION_ENV": "production",
        "COMPANION_SECRET_KEY": secrets.token_urlsafe(48),
        "COMPANION_DATABASE_URL": f"sqlite:///{database}",
        "COMPANION_INSTANCE_PATH": str(tmp_path / "instance"),
        "COMPANION_TAP_GUARD_MS": "0",  # this test records six stages back to back, faster than a person
    }
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "companion", "serve",
         "--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--threads", "2"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
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
        yield port, database, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def workers_of(process: subprocess.Popen) -> int:
    count = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[1] == str(process.pid):
                count += 1
        except (OSError, IndexError):
            continue
    return count


def test_two_worker_processes_follow_the_table_live(server):
    port, database, process = server
    if Path("/proc/self/stat").exists():
        # the first worker may answer /healthz before gunicorn has forked the second
        deadline = time.monotonic() + 30
        while workers_of(process) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert workers_of(process) == 2
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
    live = f"/p/{viewer}/live"
    status, headers, _ = Phone(port).request("GET", live)
    assert status == 200
    etag = headers["etag"]
    for stage in range(1, 7):
        status, _, page = keeper.request("GET", table)
        form = {"csrf_token": token(page), "version": version(page), "request_key": secrets.token_urlsafe(16),
                "nobody": "Nobody said Yes"}
        assert keeper.request("POST", f"{table}/declare", form)[0] == 303
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
