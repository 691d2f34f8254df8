"""What the reliability tests share: real servers, plain-HTTP phones, the log replayed, the figures.

Nothing here trusts the app's own reading of the database: the stored events are
read with SQLAlchemy Core and folded by :class:`companion.games.napalm.Table` through
:func:`companion.games.napalm.codec.from_event`, and the page is parsed as a phone's
browser would receive it.
"""

from __future__ import annotations

import html
import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from companion.db.models import Event, Game, Night
from companion.games.napalm import Rules, Table
from companion.games.napalm.codec import GAME_KINDS, from_event

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
ARTIFACTS = REPO / "test-artifacts"
SECRET = "reliability-secret-key-long-enough-for-production-use-0123456789"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def soak_seconds() -> float:
    """How long the concurrency soak runs: COMPANION_SOAK_SECONDS, else 30 s in CI and 5 s elsewhere."""
    value = os.environ.get("COMPANION_SOAK_SECONDS")
    if value:
        return float(value)
    return 30.0 if in_ci() else 5.0


def backend_name(url: str) -> str:
    return "postgresql" if url.startswith("postgresql") else "sqlite"


# --- figures --------------------------------------------------------------------------


_figures_lock = threading.Lock()


def record_figures(section: str, figures: dict[str, Any], backend: str) -> None:
    """Print ``figures`` and merge them into ``test-artifacts/reliability-<backend>.json``."""
    line = ", ".join(f"{k}={v}" for k, v in figures.items())
    print(f"\n[reliability:{backend}] {section}: {line}")
    with _figures_lock:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"reliability-{backend}.json"
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        data[section] = {**figures, "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S")}
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


# --- the stored log, replayed -------------------------------------------------------


@dataclass
class StoredNight:
    id: int
    name: str
    keeper_key: str
    viewer_key: str
    version: int
    players: list[str]
    first_dealer: str
    rules: Rules
    events: list[dict[str, Any]] = field(default_factory=list)

    def replay(self) -> Table:
        """The table the stored events fold to; raises IllegalAction if the log is not a legal game."""
        table = Table(self.players, self.first_dealer, self.rules)
        for event in self.events:
            if event["kind"] in GAME_KINDS:
                table.push(from_event(event["kind"], event["payload"]))
        return table


def read_nights(url: str) -> list[StoredNight]:
    """Every night and its events, straight from the database at ``url``."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            games = Game.__table__
            first_games = {
                row.night_id: row for row in connection.execute(sa.select(games).where(games.c.position == 1))
            }
            nights = {
                row.id: StoredNight(
                    id=row.id,
                    name=row.name,
                    keeper_key=row.keeper_key,
                    viewer_key=row.viewer_key,
                    version=row.version,
                    players=list(row.players),
                    first_dealer=first_games[row.id].first_dealer,
                    rules=Rules(**{k: v for k, v in first_games[row.id].rules.items() if k != "unfinished_pot"}),
                )
                for row in connection.execute(sa.select(Night.__table__).order_by(Night.__table__.c.id))
            }
            events = Event.__table__
            for row in connection.execute(sa.select(events).order_by(events.c.night_id, events.c.seq)):
                nights[row.night_id].events.append(
                    {"seq": row.seq, "kind": row.kind, "payload": row.payload, "request_key": row.request_key}
                )
    finally:
        engine.dispose()
    return list(nights.values())


def sqlite_integrity(path: Path) -> str:
    import sqlite3

    connection = sqlite3.connect(path)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


def check_log(night: StoredNight) -> Table:
    """The log is whole: seqs 1..n without a gap or a double, the version is n, and it replays."""
    seqs = [e["seq"] for e in night.events]
    assert seqs == list(range(1, len(seqs) + 1)), f"night {night.id}: gaps or doubles in {seqs[:50]}"
    assert night.version == len(seqs), f"night {night.id}: version {night.version} but {len(seqs)} events"
    keys = [e["request_key"] for e in night.events if e["request_key"]]
    assert len(keys) == len(set(keys)), f"night {night.id}: a request key recorded twice"
    table = night.replay()
    assert sum(table.net_chips.values()) + table.pot == 0, "chips were created or destroyed"
    return table


# --- what a page shows -------------------------------------------------------------------


@dataclass
class Shown:
    """The numbers and forms on the scorekeeper's page, as a browser receives them."""

    net: dict[str, int]
    tokens: dict[str, int]
    pot: int
    dealer: str
    stage: int
    game_hand: tuple[int, int]
    forms: dict[str, dict[str, str]]  # action name -> hidden fields (csrf_token, version, request_key)
    winners: list[str]  # the one-tap winner buttons (the Yes players in a showdown)
    challengers: list[str]
    yes_choices: list[str]

    @property
    def phase(self) -> str:
        for phase in ("declare", "challenge", "showdown"):
            if phase in self.forms:
                return phase
        raise AssertionError("the page offers no action")

    @property
    def version(self) -> int:
        return int(self.forms[self.phase]["version"])


_FORM = re.compile(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', re.S)
_HIDDEN = re.compile(r'<input[^>]*?name="(csrf_token|version|request_key)"[^>]*?value="([^"]*)"')
_ROW = re.compile(
    r'data-player="([^"]+)">.*?aria-label="(\d+) of \d+ tokens".*?<td class="num net[^"]*">([-+]?\d+)</td>', re.S
)


def parse_table_page(page: str) -> Shown:
    forms: dict[str, dict[str, str]] = {}
    for action, body in _FORM.findall(page):
        name = action.rstrip("/").rsplit("/", 1)[-1]
        forms[name] = {k: html.unescape(v) for k, v in _HIDDEN.findall(body)}
    net: dict[str, int] = {}
    tokens: dict[str, int] = {}
    for name, count, chips in _ROW.findall(page):
        name = html.unescape(name)
        net[name] = int(chips)
        tokens[name] = int(count)
    pot = re.search(r'data-pot="(-?\d+)"', page)
    dealer = re.search(r'class="dealer-name">([^<]+)<', page)
    stage = re.search(r'class="stage-no">Stage (\d)<', page)
    game_hand = re.search(r"Game (\d+) · Hand (\d+)", page)
    assert pot and dealer and stage and game_hand, "the page lacks the table status"
    return Shown(
        net=net,
        tokens=tokens,
        pot=int(pot.group(1)),
        dealer=html.unescape(dealer.group(1)),
        stage=int(stage.group(1)),
        game_hand=(int(game_hand.group(1)), int(game_hand.group(2))),
        forms=forms,
        winners=[html.unescape(v) for v in re.findall(r'name="winner" value="([^"]*)"', page)],
        challengers=[html.unescape(v) for v in re.findall(r'name="challengers" value="([^"]*)"', page)],
        yes_choices=[html.unescape(v) for v in re.findall(r'name="yes" value="([^"]*)"', page)],
    )


def assert_page_matches(shown: Shown, table: Table, version: int) -> None:
    """The page shows exactly what the engine computes from the stored log."""
    assert shown.net == table.net_chips, (shown.net, table.net_chips)
    assert shown.tokens == table.tokens, (shown.tokens, table.tokens)
    assert shown.pot == table.pot
    assert shown.dealer == table.dealer
    assert shown.stage == int(table.stage)
    assert shown.game_hand == (table.game_number, table.hand_number)
    assert shown.phase == table.phase.value
    assert shown.version == version
    assert sum(shown.net.values()) + shown.pot == 0, "the page shows chips that do not add up"


# --- a phone over plain HTTP ------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: str

    @property
    def location(self) -> str:
        return self.headers.get("location", "")


class Phone:
    """One browser: a keep-alive connection, a cookie jar, no redirects followed."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port = port
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self._connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def request(self, method: str, path: str, data: dict[str, Any] | None = None) -> Answer:
        body = urllib.parse.urlencode(data or {}, doseq=True) if data is not None else None
        headers = {"Accept": "text/html"}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in (1, 2):
            if self._connection is None:
                self._connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self._connection.request(method, path, body=body, headers=headers)
                response = self._connection.getresponse()
                text = response.read().decode("utf-8", "replace")
                break
            except (http.client.HTTPException, OSError) as error:
                # a kept-alive connection the server closed while idle, or a server that died
                # mid-answer (IncompleteRead): an answer not wholly received is no answer.
                # Only a GET is retried: a POST may have been processed.
                self.close()
                if method != "GET" or attempt == 2:
                    raise ConnectionError(f"{type(error).__name__}: {error}") from error
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, text)

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post(self, path: str, data: dict[str, Any]) -> Answer:
        """POST; a refusal's 303 (to ``?refused=…``, issue 14 bug 3) is followed to the page that says
        why, whose status (409 or 422) is the answer read: as a browser shows it."""
        answer = self.request("POST", path, data)
        if answer.status == 303 and "refused=" in answer.location:
            return self.get(answer.location)
        return answer


NIGHT = {
    "name": "Soak",
    "seat_1": "Ann",
    "seat_2": "Ben",
    "seat_3": "Cat",
    "seat_4": "Dan",
    "first_dealer": "1",
    "ante": "1",
    "ante_every": "1",
    "tokens_to_win": "3",
    "chip_value": "0.25",
    "currency": "EUR",
    "unfinished_pot": "return_antes",
}


def start_night_over_http(phone: Phone, **overrides: str) -> str:
    """Start a night through the home page's form (with its CSRF token); the keeper's path."""
    home = phone.get("/")
    assert home.status == 200, home.status
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', home.body)
    assert token, "no CSRF token on the home page"
    answer = phone.post("/nights", {**NIGHT, **overrides, "csrf_token": html.unescape(token.group(1))})
    assert answer.status == 303, (answer.status, answer.body[:500])
    return urllib.parse.urlsplit(answer.location).path


def refusal_message(answer: Answer) -> str | None:
    """The sentence a refused submit shows the scorekeeper, if any."""
    found = re.search(r'role="alert">(.*?)</(?:p|ul)>', answer.body, re.S)
    if found is None:
        return None
    return re.sub(r"<[^>]+>", " ", html.unescape(found.group(1))).strip() or None


# --- servers --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_up(port: int, deadline: float = 60.0, process: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        finally:
            connection.close()
        time.sleep(0.05)
    raise RuntimeError(f"no server on port {port} after {deadline} s")


def server_env(url: str, instance: Path) -> dict[str, str]:
    return {
        "COMPANION_DATABASE_URL": url,
        "COMPANION_INSTANCE_PATH": str(instance),
        "COMPANION_SECRET_KEY": SECRET,
        "COMPANION_ENV": "production",
        "COMPANION_PUBLIC_BASE_URL": "http://127.0.0.1",
        "COMPANION_TAP_GUARD_MS": "0",  # a robot taps faster than a person (web/plumbing/tap_guard.py)
    }


@contextmanager
def serve_subprocess(url: str, instance: Path, log: Path) -> Iterator[tuple[int, subprocess.Popen]]:
    """``flask --app companion serve`` in a subprocess, exactly as ``make run`` starts it (gunicorn, one gevent worker)."""
    port = free_port()
    env = {**os.environ, **server_env(url, instance)}
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [str(Path(PYTHON).with_name("flask")), "--app", "companion", "serve",
             "--host", "127.0.0.1", "--port", str(port)],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        wait_until_up(port, process=process)
        yield port, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Zygote:
    """Drives ``zygote.py``: forks a fresh real server in milliseconds, and SIGKILLs it."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.alive: set[int] = set()  # servers forked and not yet killed
        self._err = open(log, "ab")
        self.process = subprocess.Popen(
            [PYTHON, str(Path(__file__).with_name("zygote.py"))],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, text=True, bufsize=1,
        )
        assert "ready" in self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the zygote died; see {self.log}")
        return json.loads(line)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def spawn(self, env: dict[str, str]) -> tuple[int, int]:
        self._send({"cmd": "spawn", "env": env, "log": str(self.log)})
        answer = self._read()
        if "error" in answer:
            raise RuntimeError(answer["error"])
        self.alive.add(answer["pid"])
        return answer["pid"], answer["port"]

    def kill(self, pid: int) -> None:
        self._send({"cmd": "kill", "pid": pid})
        answer = self._read()
        assert answer["killed"] == pid
        self.alive.discard(pid)

    def close(self) -> None:
        """Kill every server still running (a test that failed half-way), then stop the zygote."""
        try:
            for pid in sorted(self.alive):
                self.kill(pid)
            self._send({"cmd": "exit"})
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            self.process.kill()
            self.process.wait()
        self._err.close()


# --- a database of its own for the live servers ---------------------------------------------------


@contextmanager
def live_database(external: str | None, tmp_path: Path, suffix: str) -> Iterator[str]:
    """A fresh, empty database for a live server: a SQLite file, or a new PostgreSQL database."""
    if not external:
        yield f"sqlite:///{tmp_path / (suffix + '.sqlite')}"
        return
    url = sa.engine.make_url(external)
    name = f"{url.database}_{suffix}_{secrets.token_hex(3)}"
    admin = sa.create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
