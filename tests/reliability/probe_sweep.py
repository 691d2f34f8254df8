"""The outside probe's abuse sweep, rerun against the real server (issue 15): prints its figures as JSON.

    .venv/bin/python tests/reliability/probe_sweep.py

Starts ``flask serve --workers 2`` (production mode: gunicorn with two gevent workers on
one socket since issue 37; two waitress processes from issue 21, gunicorn's threaded worker
before) on a fresh SQLite database, then: a
scorekeeper records on a live table while another client posts a 150,000-stage file (and
then one at the 2,000-stage bound); 120 guessed links spread over both workers, then the
guesser's own valid link; 25 nights started from one client; a forged Host; and what the
database file, the cookie, the ETag and the headers show.
Not a test (it measures, on whatever machine runs it); the tests in tests/security/
test_probe_*.py assert each of these behaviours.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import secrets
import socket
import statistics
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phone:
    """One browser: its own cookie, a new connection per request (so both workers answer)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
                timeout: float = 120) -> tuple[int, dict[str, str], str, float]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        sent = {"Connection": "close", **(headers or {})}
        if self.cookie:
            sent["Cookie"] = self.cookie
        started = time.perf_counter()
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            data = response.read().decode(errors="replace")
            for name, value in response.getheaders():
                if name.lower() == "set-cookie" and value.startswith("session="):
                    self.cookie = value.split(";", 1)[0]
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data, time.perf_counter() - started
        finally:
            connection.close()

    def form(self, path: str, fields: dict[str, str]):  # type: ignore[no-untyped-def]
        return self.request("POST", path, urlencode(fields).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})

    def upload(self, path: str, fields: dict[str, str], data: bytes):  # type: ignore[no-untyped-def]
        boundary = "probe" + secrets.token_hex(8)
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                 for k, v in fields.items()]
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="night.json"\r\n'
                     "Content-Type: application/json\r\n\r\n".encode() + data + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return self.request("POST", path, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})


def token(page: str) -> str:
    found = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page) or re.search(r'value="([^"]+)"[^>]*name="csrf_token"', page)
    assert found, "no CSRF token"
    return found.group(1)


def quiet_night(stages: int) -> bytes:
    return json.dumps({"format": "napalm-hand-history/1", "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
                       "players": ["Ann", "Ben", "Cat"], "first_dealer": "Ann",
                       "stages": [{"yes": []} for _ in range(stages)]}).encode()


def start_night(phone: Phone, name: str):  # type: ignore[no-untyped-def]
    status, _, home, _ = phone.request("GET", "/")
    form = {"csrf_token": token(home), "name": name, "seat_1": "Ann", "seat_2": "Ben", "seat_3": "Cat",
            "first_dealer": "1", "ante": "1", "ante_every": "1", "tokens_to_win": "5", "chip_value": "0",
            "currency": "", "unfinished_pot": "return_antes", "request_key": secrets.token_urlsafe(32)}
    return phone.form("/nights", form)


def record_nobody(phone: Phone, table: str) -> tuple[int, float]:
    status, _, page, _ = phone.request("GET", table)
    version = re.search(r'name="version"[^>]*value="(\d+)"', page)
    if status != 200 or version is None:
        return status, 0.0
    fields = {"csrf_token": token(page), "version": version.group(1), "request_key": secrets.token_urlsafe(32),
              "nobody": "1"}
    status, _, _, seconds = phone.form(table + "/declare", fields)
    return status, seconds


def during(phone: Phone, table: str, work) -> dict:  # type: ignore[no-untyped-def]
    """Record on ``table`` without pause while ``work()`` runs; the actions' statuses and times."""
    done = threading.Event()
    actions: list[tuple[int, float]] = []

    def keep_recording() -> None:
        while not done.is_set():
            actions.append(record_nobody(phone, table))

    thread = threading.Thread(target=keep_recording)
    thread.start()
    time.sleep(0.5)
    try:
        result = work()
    finally:
        done.set()
        thread.join()
    times = sorted(seconds for status, seconds in actions if seconds)
    return {
        "result": result,
        "actions": len(actions),
        "statuses": {str(s): sum(1 for a in actions if a[0] == s) for s in sorted({a[0] for a in actions})},
        "median_s": round(statistics.median(times), 3) if times else None,
        "max_s": round(max(times), 3) if times else None,
    }


def main() -> None:
    figures: dict = {}
    folder = Path(tempfile.mkdtemp(prefix="probe-sweep-"))
    os.umask(0o022)  # a usual umask: SQLite would make 0644 files
    port = free_port()
    database = folder / "companion.sqlite"
    env = {**os.environ, "COMPANION_ENV": "production", "COMPANION_SECRET_KEY": secrets.token_urlsafe(48),
           "COMPANION_DATABASE_URL": f"sqlite:///{database}", "COMPANION_INSTANCE_PATH": str(folder / "instance")}
    log = (folder / "server.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "flask", "--app", "companion", "serve", "--host", "127.0.0.1",
                               "--port", str(port), "--workers", "2"],
                              cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if Phone(port).request("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
            assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
        time.sleep(2)  # both workers forked

        keeper = Phone(port)
        status, headers, _, _ = start_night(keeper, "Live table")
        assert status == 303, status
        table = "/k/" + headers["location"].rstrip("/").rsplit("/", 1)[1]
        figures["quiet_table"] = during(keeper, table, lambda: time.sleep(5))

        def importing(stages: int):  # type: ignore[no-untyped-def]
            def work():  # type: ignore[no-untyped-def]
                importer = Phone(port)
                _, _, home, _ = importer.request("GET", "/")
                data = quiet_night(stages)
                status, _, body, seconds = importer.upload(
                    "/import", {"csrf_token": token(home), "request_key": secrets.token_urlsafe(32)}, data)
                said = re.search(r"the file holds [^<]*", body)
                time.sleep(3)  # and the table afterwards
                return {"stages": stages, "bytes": len(data), "status": status, "seconds": round(seconds, 3),
                        "message": said.group(0) if said else None}
            return work

        size_before = database.stat().st_size
        figures["import_150000_stages"] = during(keeper, table, importing(150_000))
        figures["import_150000_stages"]["database_growth_bytes"] = database.stat().st_size - size_before
        figures["import_2000_stages"] = during(keeper, table, importing(2_000))

        # the night at the bound: its pages
        imported = Phone(port)
        import sqlite3
        with sqlite3.connect(database) as db:
            keeper_key, viewer_key, version = db.execute(
                "SELECT keeper_key, viewer_key, version FROM night WHERE version = 2000").fetchone()
        pages = {}
        for path in (f"/k/{keeper_key}", f"/k/{keeper_key}/history", f"/k/{keeper_key}/report", f"/p/{viewer_key}",
                     f"/p/{viewer_key}/live", f"/k/{keeper_key}/export.json"):
            imported.request("GET", path)  # first: folds the night in that worker
            status, _, _, seconds = imported.request("GET", path)
            pages[path.replace(keeper_key, "<keeper>").replace(viewer_key, "<viewer>")] = [status, round(seconds, 3)]
        figures["pages_of_a_2000_stage_night"] = pages

        # guessing over both workers, then the guesser's own valid link
        guesser = Phone(port)
        answers = [guesser.request("GET", f"/p/{secrets.token_urlsafe(32)}")[0] for _ in range(120)]
        figures["guesses"] = {"sent": 120, "404": answers.count(404), "429": answers.count(429),
                              "first_429_at": answers.index(429) + 1 if 429 in answers else None,
                              "own_valid_link_then": guesser.request("GET", f"/p/{viewer_key}")[0],
                              "own_scorekeeper_link_then": guesser.request("GET", f"/k/{keeper_key}")[0]}

        # exposure
        status, headers, _, _ = Phone(port).request("GET", f"/p/{viewer_key}/live")
        cookie = keeper.cookie.split("=", 1)[1]
        payload = cookie.lstrip(".").split(".")[0]
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        text = (zlib.decompress(raw) if cookie.startswith(".") else raw).decode()
        with sqlite3.connect(database) as db:
            keys = [k for (k,) in db.execute("SELECT keeper_key FROM night")]
        forged = Phone(port).request("GET", f"/k/{keeper_key}/share", headers={"Host": "evil.example"})
        figures["exposure"] = {
            "file_modes": {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in folder.glob("companion.sqlite*")},
            "etag": headers.get("etag"),
            "players_cache_control": headers.get("cache-control"),
            "scorekeeper_links_in_cookie": sum(1 for k in keys if k in text),
            "forged_host_status": forged[0],
            "forged_host_body_has_link": "/p/" in forged[2],
        }

        # nights from one client
        starter = Phone(port)
        starts = [start_night(starter, f"Night {i}") for i in range(25)]
        figures["nights_started_in_a_row"] = {
            "sent": 25, "303": sum(1 for s in starts if s[0] == 303), "429": sum(1 for s in starts if s[0] == 429),
            "retry_after": next((s[1].get("retry-after") for s in starts if s[0] == 429), None),
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
