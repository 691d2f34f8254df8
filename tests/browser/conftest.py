"""Browser tests: Debian's Chromium, driven by Playwright, against a real server.

The server is werkzeug's threaded server on 127.0.0.1 and a free port, running
the app on a fresh database (``make_app`` from ``tests/conftest.py``: a temporary
SQLite file, or ``COMPANION_TEST_DATABASE_URL`` emptied first), with CSRF
protection ON, as in production: the real forms carry their tokens.

Chromium is never downloaded.  Without ``/usr/bin/chromium`` the browser tests
skip, unless ``COMPANION_REQUIRE_BROWSER=1`` (set by ``.ci/run``): then they fail.

Every page a test opens is watched: a console error (a CSP violation is one), an
uncaught exception or a failed request fails the test.  Screenshots go to
``test-artifacts/screenshots/`` under the repository root.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REQUIRE_BROWSER = os.environ.get("COMPANION_REQUIRE_BROWSER") == "1"
PHONE = {"width": 360, "height": 740}
BROWSER_TEST_SECONDS = 300  # the longest browser test takes about 100 s on a loaded 2-core CI machine

try:
    from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
except ImportError as error:  # pragma: no cover - depends on the machine
    PLAYWRIGHT_MISSING: str | None = f"the playwright package is not installed ({error})"
else:
    PLAYWRIGHT_MISSING = None

from browser.phone import CSP_PROBE, SCREENSHOTS, Problems, Shots, TableScreen, lost_acknowledgements, taken  # noqa: E402


def _unavailable() -> str | None:
    if PLAYWRIGHT_MISSING:
        return PLAYWRIGHT_MISSING
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test in this folder is a browser test; skip them all (or fail them) without Chromium."""
    here = Path(__file__).parent
    reason = _unavailable()
    for item in items:
        if here not in Path(str(item.path)).parents:
            continue
        item.add_marker(pytest.mark.browser)
        # Each browser call waits at most 15 s (new_phone); a test stuck longer than this is a hang: it
        # fails with every thread's stack and the run goes on.
        if not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(BROWSER_TEST_SECONDS))
        if reason and not REQUIRE_BROWSER:
            item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {reason}"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if taken:
        terminalreporter.write_line(f"browser screenshots ({len(taken)} files): {SCREENSHOTS}")
    if lost_acknowledgements:  # a tap sent that Chromium never said it delivered (phone.tap_spot)
        terminalreporter.write_line(f"taps without Chromium's acknowledgement: {len(lost_acknowledgements)} "
                                    f"({', '.join(sorted(set(lost_acknowledgements)))[:300]})")


# --- the browser ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator["Browser"]:
    """One Chromium for the session, launched with HOME in a temporary folder."""
    reason = _unavailable()
    if reason:
        if REQUIRE_BROWSER:
            pytest.fail(f"COMPANION_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    home = tmp_path_factory.mktemp("chromium-home")
    with pytest.MonkeyPatch.context() as mp:
        # Playwright's driver (node) and Chromium inherit this environment.
        mp.setenv("HOME", str(home))
        mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        mp.setenv("XDG_CACHE_HOME", str(home / ".cache"))
        mp.setenv("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
            try:
                yield chromium
            finally:
                chromium.close()


# --- the live server -------------------------------------------------------------------


@dataclass
class LiveServer:
    url: str
    app: Any

    def night_keys(self) -> tuple[str, str]:
        """(keeper key, viewer key) of the only night in the database."""
        from companion.extensions import db
        from companion.db.models import Night

        with self.app.app_context():
            night = db.session.query(Night).one()
            return night.keeper_key, night.viewer_key


@pytest.fixture
def live_server(make_app: Any) -> Iterator[LiveServer]:
    """The app on a fresh database, served for real on 127.0.0.1 and a free port, CSRF on."""
    from werkzeug.serving import make_server

    from companion.extensions import db

    from companion.web.plumbing.live_push import STREAM_SECONDS

    app = make_app(WTF_CSRF_ENABLED=True, LIVE_STREAM_SECONDS=STREAM_SECONDS)  # streams held as served
    server = make_server("127.0.0.1", 0, app, threaded=True)
    url = f"http://127.0.0.1:{server.server_port}"
    # The players' link in the QR code and on the share page: this server (the
    # LAN address the app would guess is not where a 127.0.0.1 server listens).
    app.config["PUBLIC_BASE_URL"] = url
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(url, app)
    finally:
        from companion.web.plumbing import live_push

        live_push.hub_of(app).end_all()  # the phones' open streams end: no server thread waits on one
        server.shutdown()
        thread.join(10)
        server.server_close()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


# --- phones: contexts whose pages are watched for errors -------------------------------------

@pytest.fixture
def problems() -> Iterator[Problems]:
    found = Problems()
    yield found
    assert not found.seen, "the pages reported problems:\n" + "\n".join(found.seen)


@pytest.fixture
def new_phone(browser: "Browser", problems: Problems) -> Iterator[Any]:
    """Open a new phone (a browser context of its own: its own cookies), 360×740 by default."""
    contexts: list[BrowserContext] = []

    def open_phone(javascript: bool = True, **options: Any) -> "BrowserContext":
        context = browser.new_context(
            viewport=options.pop("viewport", PHONE),
            is_mobile=options.pop("is_mobile", True),  # a table display (a TV) is not a phone: is_mobile=False
            has_touch=options.pop("has_touch", True),
            device_scale_factor=options.pop("device_scale_factor", 1),
            java_script_enabled=javascript,
            color_scheme=options.pop("color_scheme", "dark"),  # a phone set to light: color_scheme="light"
            locale="en-GB",
            **options,
        )
        context.set_default_timeout(10_000)  # a loaded 2-core CI machine is slow
        context.set_default_navigation_timeout(15_000)
        if javascript:
            context.add_init_script(CSP_PROBE)
        context.on("page", problems.watch)
        contexts.append(context)
        return context

    yield open_phone
    for context in contexts:
        context.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Shots:
    prefix = request.node.name.removeprefix("test_").replace("_", "-")[:40]
    these = Shots(prefix)
    yield these
    print(f"\nscreenshots of {request.node.name}: {SCREENSHOTS} ({these.count} files, {prefix}-*.png)")


@pytest.fixture
def table_screen(shots: Shots) -> Any:
    def make(page: "Page", names: list[str]) -> TableScreen:
        return TableScreen(page, shots, names)

    return make


@pytest.fixture
def wait_until() -> Any:
    """Poll ``condition`` until true or ``seconds`` pass; return the seconds it took."""

    def wait(condition: Any, seconds: float, what: str) -> float:
        start = time.monotonic()
        while not condition():
            if time.monotonic() - start > seconds:
                raise AssertionError(f"{what}: not within {seconds} s")
            time.sleep(0.05)
        return time.monotonic() - start

    return wait
