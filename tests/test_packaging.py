"""A built wheel serves the app (issue 23): its templates, static files and migrations travel in it.

The repository keeps ``templates/`` and ``static/`` at its top level; ``setup.py`` maps
them into the package for a build.  Here the wheel is built from a copy of the sources,
installed with its dependencies into a fresh virtualenv that sees nothing of the test
environment, and served from a folder outside the repository with an instance folder of
its own, so no file of the checkout can stand in for one the wheel forgot.

Everything lives under this module's own temporary folder and the server takes a free
port, so the SQLite and PostgreSQL runs of the suite can build and serve at the same time.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from alembic.script import ScriptDirectory

from pages import night_form
from static_sent import as_sent

REPO = Path(__file__).resolve().parent.parent
#: what a build reads: the metadata, the package and the two top-level folders it maps in
SOURCES = ("pyproject.toml", "setup.py", "README.md", "companion", "templates", "static")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fresh virtualenv's layout is Unix's")


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 300) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def outside_env() -> dict[str, str]:
    """The environment without anything that could point the installed app back at the checkout."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("COMPANION_", "FLASK_", "PYTHON"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built as ``pip wheel`` builds it, from a copy (a build writes ``build/`` beside its sources)."""
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(REPO / name, source / name)
    wheels = tmp_path_factory.mktemp("wheels")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(wheels), str(source)], cwd=source)
    (wheel,) = wheels.glob("companion-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv (no system or test packages) holding the wheel and what it depends on."""
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--clear", "--without-pip", str(venv)], cwd=venv)
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(built)], cwd=venv)
    return venv


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Phone:
    """One browser: keeps the session cookie, follows no redirect."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        headers = {"Connection": "close", **({"Cookie": self.cookie} if self.cookie else {})}
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie" and value.startswith("session="):
                    self.cookie = value.split(";", 1)[0]
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            connection.close()


@pytest.fixture(scope="module")
def served(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """``flask --app companion serve`` from the virtualenv, in a folder far from the repository: (port, instance)."""
    here = tmp_path_factory.mktemp("elsewhere")
    instance = here / "instance"
    port = free_port()
    env = {**outside_env(), "COMPANION_INSTANCE_PATH": str(instance), "COMPANION_TAP_GUARD_MS": "0"}
    log_path = here / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(installed / "bin" / "flask"), "--app", "companion", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=here, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, log_path.read_text()
                try:
                    if Phone(port).request("GET", "/healthz")[0] == 200:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "the installed app did not start:\n" + log_path.read_text()
                time.sleep(0.2)
            yield port, instance
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_the_wheel_carries_every_template_and_static_file_inside_the_package(built):
    names = set(zipfile.ZipFile(built).namelist())
    for folder in ("templates", "static"):
        expected = {f"companion/{folder}/{name}" for name in files_under(REPO / folder)}
        assert expected and expected <= names, sorted(expected - names)
    # nothing beside the package: no top-level templates/ or static/ to land in site-packages
    assert {name.split("/", 1)[0] for name in names} == {"companion", "companion-0.1.0.dist-info"}


def test_the_wheel_carries_the_migrations_and_alembics_settings(built):
    names = set(zipfile.ZipFile(built).namelist())
    migrations = REPO / "companion" / "db" / "migrations"
    expected = {"companion/db/migrations/" + name for name in files_under(migrations) if name != "README"}
    assert {"companion/db/migrations/alembic.ini", "companion/db/migrations/env.py"} <= expected
    assert expected <= names, sorted(expected - names)


def test_the_installed_app_is_the_wheels_not_the_checkouts(installed, tmp_path):
    where = run([str(installed / "bin" / "python"), "-c", "import companion, flask; print(companion.__file__); print(flask.__file__)"],
                cwd=tmp_path, env=outside_env()).split()
    for path in where:
        assert Path(path).is_relative_to(installed), path


def test_the_installed_app_serves_the_home_page_and_its_static_files(served):
    port, _ = served
    status, _, home = Phone(port).request("GET", "/")
    assert status == 200
    page = home.decode()
    assert 'action="/nights"' in page and 'name="seat_1"' in page  # the form that starts a night
    stylesheet = re.search(r'href="(/static/app\.css\?v=[0-9a-f]{12})"', page)
    assert stylesheet, "the page links no fingerprinted stylesheet"
    for path, name in ((stylesheet.group(1), "app.css"), ("/static/app.js", "app.js"), ("/static/icon-192.png", "icon-192.png")):
        status, _, body = Phone(port).request("GET", path)
        assert status == 200, path
        assert body == as_sent(name), path  # the stylesheet and the script minified (issue 22)
    status, _, body = Phone(port).request("GET", "/sw.js")
    # static/sw.js, each app-shell file's address written with its fingerprint (issue 22)
    assert status == 200 and re.sub(rb"\?v=[0-9a-f]{12}\"", b'"', body) == (REPO / "static" / "sw.js").read_bytes()


def test_the_installed_app_starts_a_night_on_a_database_its_migrations_made(served):
    port, instance = served
    keeper = Phone(port)
    status, _, home = keeper.request("GET", "/")
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', home.decode())
    assert status == 200 and token
    status, headers, _ = keeper.request("POST", "/nights", {"csrf_token": token.group(1), **night_form(name="Wheel night")})
    assert status == 303
    table = headers["location"].removeprefix(f"http://127.0.0.1:{port}")
    status, _, page = keeper.request("GET", table)
    assert status == 200
    text = page.decode()
    assert "Wheel night" in text and all(name in text for name in ("Ann", "Ben", "Cat", "Dan"))

    # the database is the instance folder's SQLite file, made by the migrations the wheel carried
    head = ScriptDirectory(str(REPO / "companion" / "db" / "migrations")).get_current_head()
    with sqlite3.connect(instance / "companion.sqlite") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head,)]
        assert db.execute("SELECT name FROM night").fetchall() == [("Wheel night",)]
