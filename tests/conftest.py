"""Shared fixtures: an app on a fresh database (SQLite by default, PostgreSQL in CI).

Set ``COMPANION_TEST_DATABASE_URL`` to run the web tests against another
database; the suite creates the schema once and empties it before each test.  On
SQLite each test's file starts as a copy of one made with the schema at the session's start.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jinja2.bccache import Bucket, BytecodeCache

from companion import service as services
from companion import create_app
from companion.extensions import db
from pages import TablePage, night_form

EXTERNAL_DB = os.environ.get("COMPANION_TEST_DATABASE_URL")
REPO = Path(__file__).resolve().parent.parent


def _config(tmp_path: Path, **extra: object) -> dict[str, object]:
    config: dict[str, object] = {
        "TESTING": True,
        "SECRET_KEY": "test-secret-key-that-is-long-enough-for-tests",
        "SQLALCHEMY_DATABASE_URI": EXTERNAL_DB or f"sqlite:///{tmp_path / 'test.sqlite'}",
        "WTF_CSRF_ENABLED": False,
        "FAILED_LINK_LIMIT": 1000,
        "NIGHT_LIMIT": 100_000,  # tests start many nights from one client; the limits' own tests lower these
        "IMPORT_LIMIT": 100_000,
        "GROUP_LIMIT": 100_000,
        # the test client's "localhost" is always answered; these stand for a LAN address
        # and a public name the tests reach the app at (companion.web.plumbing.hosts)
        "ALLOWED_HOSTS": "192.168.1.20 poker.example.org",
        "TAP_GUARD_MS": 0,  # the tests tap faster than a person; test_issue14_table.py turns it on
        # a live page's stream sends what is current and ends (the phone would come back): a test client reads a
        # body to its end, and a stream held open would hold it; the push's own tests and the browsers' live
        # server hold streams open as a server does
        "LIVE_STREAM_SECONDS": 0,
    }
    config.update(extra)
    return config


class RefusalFollowingClient(FlaskClient):
    """A test client that reads a refused submit as a person sees it.

    Every POST answers 303 (issue 14, bug 3): a refused one redirects to its page's GET
    address with ``?refused=<token>``, and that page answers the refusal's status (422 or
    409) with the message and what was typed.  This client follows that one redirect,
    so a test reads the refusal's status and message; the 303 itself is in
    ``response.history``.  Any other redirect is returned as it is.
    (``tests/web/test_post_redirect_get.py`` checks the 303s themselves.)
    """

    def open(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        response = super().open(*args, **kwargs)
        location = response.headers.get("Location", "")
        if response.status_code == 303 and "refused=" in location and response.request.method == "POST":
            first = response
            response = self.get(location)
            response.history = (first,)
        return response


#: the server databases whose schema this process has created (it is created once, then emptied)
_schema_made: set[str] = set()
#: per server database, the sequences behind its tables' ids (restarted with each emptying)
_sequences: dict[str, list[str]] = {}


def _fresh_schema(app: Flask) -> None:
    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            _empty_server_database()
        else:
            db.create_all()  # on a copy of the session's template, only finds the tables there
    services.clear_cache()


def _empty_server_database() -> None:
    """A shared server database: create the schema once, then empty it for this test.

    DELETE of the few rows a test wrote, and the id sequences restarted, leave the tables
    as ``TRUNCATE ... RESTART IDENTITY`` did, at a fraction of its cost: TRUNCATE gives every
    table and index a new file on disk, synced at commit, before each of ~2,000 tests.
    """
    url = db.engine.url.render_as_string(hide_password=False)
    if url not in _schema_made:
        db.create_all()
        tables = [t.name for t in db.metadata.sorted_tables]
        _sequences[url] = [
            name
            for (name,) in db.session.execute(
                db.text(
                    "SELECT pg_get_serial_sequence(c.table_name, c.column_name) FROM information_schema.columns c"
                    " WHERE c.table_schema = current_schema() AND c.table_name = ANY(:tables)"
                    " AND pg_get_serial_sequence(c.table_name, c.column_name) IS NOT NULL"
                ),
                {"tables": tables},
            )
        ]
        db.session.commit()
        _schema_made.add(url)
    statements = [f"DELETE FROM {t.name}" for t in reversed(db.metadata.sorted_tables)]
    statements += [f"ALTER SEQUENCE {name} RESTART" for name in _sequences[url]]
    db.session.execute(db.text("; ".join(statements)))
    db.session.commit()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SQLite file with the schema made by the app itself (``create_all``, WAL on), made once:
    each test's database starts as a copy of it, instead of building the same tables again."""
    folder = tmp_path_factory.mktemp("template")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COMPANION_INSTANCE_PATH", str(folder / "instance"))
        app = create_app(_config(folder))
        with app.app_context():
            db.create_all()
            db.session.remove()
            db.engine.dispose()  # the last connection closed checkpoints the WAL into the file
    template = folder / "test.sqlite"
    assert not (folder / "test.sqlite-wal").exists()
    return template


class _CompiledOnce(BytecodeCache):
    """The templates' compiled code, kept for the test session in memory: each test builds a new app, whose
    Jinja environment would compile every template it renders again (a fifth of tests/web/test_bank.py's
    time, 2026-11-27).  Jinja checks each template's source against the checksum kept with its code, so
    a template changed on disk is compiled again; what a page renders is the same code either way."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED_ONCE = _CompiledOnce()


@pytest.fixture
def make_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest):
    """Build an app with extra config; the instance folder is a temporary one.

    Its SQLite file starts as a copy of the session's template (the schema made once), unless
    the test is marked ``app_makes_the_database``: one about the file the app itself makes.  After the test
    each app's pools are closed: on a server database, apps a module builds one per case held their
    connections until collected, and a few files in one run met PostgreSQL's 100 ("too many clients")."""
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path / "instance"))
    built: list[Flask] = []

    def build(**extra: object) -> Flask:
        config = _config(tmp_path, **extra)
        own = tmp_path / "test.sqlite"
        copy = request.node.get_closest_marker("app_makes_the_database") is None
        if copy and config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{own}" and not own.exists():
            shutil.copyfile(request.getfixturevalue("_sqlite_template"), own)
        app = create_app(config)
        app.jinja_env.bytecode_cache = _COMPILED_ONCE
        app.test_client_class = RefusalFollowingClient
        _fresh_schema(app)
        built.append(app)
        return app

    yield build
    for app in built:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture
def app(make_app) -> Iterator[Flask]:
    application = make_app()
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def start_night(client: FlaskClient):
    """Start a night through the form and return its table page."""

    def start(**overrides: str) -> TablePage:
        response = client.post("/nights", data=night_form(**overrides))
        assert response.status_code == 303, response.get_data(as_text=True)
        return TablePage(client, response.headers["Location"])

    return start


@pytest.fixture
def rummy() -> Iterator[object]:
    """The tests' own game, Rummy scores (``tests/games/rummy/``), registered for one test with its
    screens (and so its templates folder), as a game kept outside the app is; taken out after."""
    from companion.games import register, unregister
    from games.rummy.game import GAME
    from games.rummy.web import SCREENS

    register(GAME, SCREENS)
    yield GAME
    unregister(GAME.kind)


@pytest.fixture
def clear_through_tab(app: Flask):
    """Append ``tab_cleared`` events to a night as the group's service does (one unit of work each, recorded
    by "group", checked by the night's own reader): ``clear(night_id, *payloads)``; the last Recorded."""
    from companion.games.night_kinds import TAB_CLEARED
    from companion.service.recording import tab_cleared_entry
    from companion.service.uow import Command, UnitOfWork
    from companion.db.models import Night

    def clear(night_id: int, *payloads: dict[str, str]):  # type: ignore[no-untyped-def]
        recorded = None
        with app.app_context():
            for payload in payloads:
                version = db.session.get(Night, night_id).version
                with UnitOfWork() as uow:
                    recorded = uow.append(
                        Command(night_id, TAB_CLEARED, payload, version, None, "group"),
                        lambda night, _play, payload=payload: tab_cleared_entry(night, payload),
                    )
                db.session.remove()
        return recorded

    return clear


# --- the run on a server database ---------------------------------------------------------------

#: folders whose tests reach the database in ways of their own (servers, subprocesses, helpers)
_ALWAYS_ON_EVERY_DATABASE = ("browser", "reliability", "security", "service")
#: words by which a test module shows it opens a database without the ``make_app`` fixture
_OPENS_A_DATABASE = ("create_app", "EXTERNAL_DB", "COMPANION_TEST_DATABASE_URL", "sqlalchemy", "create_engine")


def _never_opens_a_database(item: pytest.Item, texts: dict[Path, str]) -> bool:
    """Whether ``item`` runs without the tests' database: no ``make_app`` behind its fixtures, outside the
    folders that reach it by other ways, in a module that names no way of opening it."""
    path = Path(str(item.path))
    if "make_app" in getattr(item, "fixturenames", ()):
        return False
    relative = path.relative_to(REPO / "tests").parts
    if len(relative) > 1 and relative[0] in _ALWAYS_ON_EVERY_DATABASE:
        return False
    if path not in texts:
        texts[path] = path.read_text(encoding="utf-8")
    return not any(word in texts[path] for word in _OPENS_A_DATABASE)


#: Set by .ci/run in both of its runs (SQLite and PostgreSQL, side by side): each browser test runs in one
#: of them.  Never set by ``make test`` alone, which runs every test.
SHARE_BROWSER_TESTS = os.environ.get("COMPANION_CI_SHARE_BROWSER_TESTS") == "1"
BROWSER_TESTS = REPO / "tests" / "browser"


def _other_runs_browser_test(item: pytest.Item, index: int) -> bool:
    """In CI, whether the browser test at ``index`` (its place among the browser tests, in collection order)
    is the other run's: the even ones run on SQLite, the odd ones on PostgreSQL.

    A browser test taps the page's real controls in Chromium and reads what the page shows; what is
    under the server (the service, the unit of work, the database) is the same code on both engines
    and is tested on both by tests/web, service, security and reliability.  Run on both, the browser
    tests were a quarter of each run and set CI's time (docs/ci.md); alternated test by test, every
    file of them still meets both engines.
    """
    return index % 2 != (1 if EXTERNAL_DB else 0)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a server database (CI's PostgreSQL run), the tests whose result cannot depend on it are left out;
    in CI, each browser test runs in one of the two runs (:func:`_other_runs_browser_test`).

    Left out on a server database: the rules, the money, the values, the wheel's packaging, the servers
    that test_serve.py starts on SQLite files of their own (they open no database, or always SQLite), and
    the tests marked ``engine_independent`` (what they prove is the process's own, such as a cache's bound,
    whatever stores the nights).  The SQLite run, the README's own command, runs every one of them.
    Running them a second time beside it proved nothing and cost CI's longer run minutes (docs/ci.md).
    """
    texts: dict[Path, str] = {}
    kept, left_out = [], []
    browser = 0
    for item in items:
        if SHARE_BROWSER_TESTS and BROWSER_TESTS in Path(str(item.path)).parents:
            (left_out if _other_runs_browser_test(item, browser) else kept).append(item)
            browser += 1
        elif EXTERNAL_DB and (item.get_closest_marker("engine_independent") or _never_opens_a_database(item, texts)):
            left_out.append(item)
        else:
            kept.append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
