"""Slow clients: how long a phone's pages take while sockets that sent half a request hold the server (issue 37).

Run: .venv/bin/python bench/slow_clients_bench.py [--servers gevent,gevent2,gthread] [--sockets 200] [--tries 5]
     [--databases sqlite]

Each server of ``bench/load_bench.py`` (``serve``'s gunicorn with gevent workers, and the
alternative beside it) on a fresh database: a night is started over HTTP, then
``--sockets`` connections each send half a request head (``GET /p/<n> HTTP/1.1``, the Host
line and half a header) and stop, as anyone on the Wi-Fi could; then, ``--tries`` times, a
phone (a new connection each time, so every worker is asked) opens the players' page and
the scorekeeper opens the table and taps "Nobody said Yes".  It prints each request's
slowest and median time, and how many got no answer within 5 s.  Goal: no page past 2 s.
Loopback only; bounded; it stops by itself.
"""

from __future__ import annotations

import argparse
import http.client
import re
import secrets
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_bench import SERVERS, Server, drop_database, fresh_database, postgres_available  # noqa: E402

#: how long a phone waits for an answer before it is counted as none
PATIENCE = 5.0
GOAL = 2.0


class Phone:
    """One browser: its cookie, a new connection per request."""

    def __init__(self, port: int) -> None:
        self.port, self.cookie = port, ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=PATIENCE)
        headers = {"Connection": "close", **({"Cookie": self.cookie} if self.cookie else {})}
        body = None
        if form is not None:
            body, headers["Content-Type"] = urlencode(form), "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            text = response.read().decode()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie" and value.startswith("session="):
                    self.cookie = value.split(";", 1)[0]
            return response.status, {k.lower(): v for k, v in response.getheaders()}, text
        finally:
            connection.close()


def field(page: str, name: str) -> str:
    found = re.search(rf'name="{name}"[^>]*value="([^"]+)"', page)
    assert found, f"no {name} on the page"
    return found.group(1)


def start_night(port: int) -> tuple[Phone, str, str]:
    """(the scorekeeper's phone, the table's path, the players' page path)."""
    keeper = Phone(port)
    _, _, home = keeper.request("GET", "/")
    form = {"csrf_token": field(home, "csrf_token"), "name": "Friday", "seat_1": "Ann", "seat_2": "Ben",
            "seat_3": "Cat", "first_dealer": "1", "ante": "1", "ante_every": "1", "tokens_to_win": "5",
            "chip_value": "0", "currency": "", "unfinished_pot": "return_antes"}
    status, headers, _ = keeper.request("POST", "/nights", form)
    assert status == 303, status
    table = "/k/" + headers["location"].rstrip("/").rsplit("/", 1)[1]
    _, _, page = keeper.request("GET", table)
    viewer = re.search(r'/p/([A-Za-z0-9_-]+)', page)
    assert viewer, "no players' link on the table"
    return keeper, table, f"/p/{viewer.group(1)}"


def timed(call):  # type: ignore[no-untyped-def]
    started = time.monotonic()
    try:
        result = call()
    except OSError:  # no answer within PATIENCE (or refused)
        result = None
    return result, time.monotonic() - started


def measure(port: int, sockets: int, tries: int) -> dict[str, list[float | None]]:
    keeper, table, players = start_night(port)
    keeper.request("GET", players)  # each page once, before the sockets open
    opened = []
    for number in range(sockets):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(f"GET /p/{number} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Half: ".encode())
        opened.append(sock)
    time.sleep(0.5)  # let the server accept them
    seen: dict[str, list[float | None]] = {"players' page": [], "table page": [], "tap": []}
    try:
        for _ in range(tries):
            result, seconds = timed(lambda: Phone(port).request("GET", players))
            seen["players' page"].append(seconds if result and result[0] == 200 else None)
            result, seconds = timed(lambda: keeper.request("GET", table))
            seen["table page"].append(seconds if result and result[0] == 200 else None)
            if result and result[0] == 200:
                form = {"csrf_token": field(result[2], "csrf_token"), "version": field(result[2], "version"),
                        "request_key": secrets.token_urlsafe(16), "nobody": "Nobody said Yes"}
                answer, seconds = timed(lambda: keeper.request("POST", f"{table}/declare", form))
                seen["tap"].append(seconds if answer and answer[0] == 303 else None)
            else:
                seen["tap"].append(None)
        still_open = 0
        for sock in opened:
            sock.setblocking(False)
            try:
                still_open += sock.recv(1) != b""  # bytes: the server answered half a request (it should not)
            except BlockingIOError:
                still_open += 1
            except OSError:
                pass
        seen["half-open sockets still open at the end"] = [float(still_open)]
    finally:
        for sock in opened:
            sock.close()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", default=",".join(SERVERS))
    parser.add_argument("--databases", default="sqlite")
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--tries", type=int, default=5)
    args = parser.parse_args()
    sockets, tries = min(max(args.sockets, 1), 1500), min(max(args.tries, 1), 50)
    databases = args.databases.split(",")
    if "postgresql" in databases and not postgres_available():
        print("PostgreSQL does not answer at 127.0.0.1:5432 as postgres: skipped")
        databases.remove("postgresql")
    print(f"{sockets} half-open sockets; {tries} tries each; {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for kind in databases:
            for name in args.servers.split(","):
                run = f"slow-{kind}-{name}"
                server = Server(name, fresh_database(kind, tmp, run), tmp / run)
                try:
                    seen = measure(server.port, sockets, tries)
                finally:
                    server.stop()
                    drop_database(kind)
                print(f"{kind}, {name} ({' '.join(SERVERS[name])}):")
                for what, times in seen.items():
                    if what.startswith("half-open"):
                        print(f"  {what}: {int(times[0] or 0)} of {sockets}")
                        continue
                    answered = [t for t in times if t is not None]
                    missing = len(times) - len(answered)
                    slowest = max(answered) if answered else float("nan")
                    median = statistics.median(answered) if answered else float("nan")
                    met = "met" if not missing and slowest <= GOAL else "NOT met"
                    print(f"  {what}: slowest {slowest:.3f} s, median {median:.3f} s, no answer within "
                          f"{PATIENCE:g} s: {missing} of {len(times)} (goal: none past {GOAL:g} s: {met})", flush=True)


if __name__ == "__main__":
    main()
