"""The session cookie read before Flask, kept by the cookie that sent it (web/session_cookie.py, issue 22).

A kept session must be refused exactly when Flask would refuse the cookie: past the
session's lifetime, signed "in the future", signed under a key the app no longer has.
A plain Flask app with a 100-second session lifetime and a clock the tests set.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from flask import Flask

from companion.web import session_cookie
from companion.web.session_cookie import SessionCookies, session_cookies

LIFETIME = 100
START = 1_800_000_000  # the second the cookies are signed in


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """time.time() for itsdangerous and the reader alike: set now[0]."""
    now = [float(START)]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


@pytest.fixture
def app() -> Flask:
    app = Flask(__name__)
    app.secret_key = "the-first-secret-key-long-enough-for-a-test"
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(seconds=LIFETIME)
    return app


class Counting:
    """The app's signing serializer, counting the cookies it verifies."""

    def __init__(self, serializer) -> None:  # type: ignore[no-untyped-def]
        self.serializer, self.loads_count = serializer, 0

    def loads(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.loads_count += 1
        return self.serializer.loads(*args, **kwargs)


def counted(app: Flask, reader: SessionCookies, monkeypatch: pytest.MonkeyPatch) -> Counting:
    counting = Counting(app.session_interface.get_signing_serializer(app))
    monkeypatch.setattr(reader, "_signing_serializer", lambda interface, keys: counting)
    return counting


def cookie_of(app: Flask, data: dict) -> str:  # type: ignore[type-arg]
    return app.session_interface.get_signing_serializer(app).dumps(data)


def environ(value: str | None) -> dict[str, str]:
    return {} if value is None else {"HTTP_COOKIE": f"other=1; session={value}"}


def test_a_cookie_that_verified_is_verified_once(app, clock, monkeypatch):
    reader = SessionCookies(app)
    counting = counted(app, reader, monkeypatch)
    value = cookie_of(app, {"me": {"7": "Ann"}})
    for _ in range(3):
        assert reader.read(environ(value)) == {"me": {"7": "Ann"}}
    assert counting.loads_count == 1
    # another cookie on the same header (the session one unchanged) finds the same kept session
    assert reader.read({"HTTP_COOKIE": f"session={value}; theme=dark"}) == {"me": {"7": "Ann"}}
    assert counting.loads_count == 1


def test_a_kept_session_expires_with_its_cookie(app, clock):
    reader = SessionCookies(app)
    value = cookie_of(app, {"me": {"7": "Ann"}})
    assert reader.read(environ(value)) == {"me": {"7": "Ann"}}
    clock[0] = START + LIFETIME  # 100 s old: Flask still reads it
    assert reader.read(environ(value)) == {"me": {"7": "Ann"}}
    clock[0] = START + LIFETIME + 1  # 101 s old: Flask reads no session
    assert reader.read(environ(value)) == {}
    assert app.session_interface.open_session(app, _request(app, value)) == {}  # as Flask reads it then


def test_a_kept_session_is_not_read_before_it_was_signed(app, clock):
    reader = SessionCookies(app)
    value = cookie_of(app, {"me": {"7": "Ann"}})
    assert reader.read(environ(value)) == {"me": {"7": "Ann"}}
    clock[0] = START - 1  # the clock went back a second: itsdangerous refuses a negative age
    assert reader.read(environ(value)) == {}


def test_a_forged_cookie_is_refused_each_time_and_never_kept(app, clock, monkeypatch):
    other = Flask(__name__)
    other.secret_key = "another-secret-key-that-is-long-enough-too"
    forged = cookie_of(other, {"me": {"7": "Ann"}})
    reader = SessionCookies(app)
    counting = counted(app, reader, monkeypatch)
    tampered = cookie_of(app, {"me": {"7": "Ann"}})[:-2] + "xx"
    for value in (forged, forged, tampered, tampered, "not-a-cookie"):
        assert reader.read(environ(value)) == {}
    assert counting.loads_count == 5 and reader._kept == {}


def test_a_kept_session_is_refused_once_its_key_is_retired(app, clock):
    reader = SessionCookies(app)
    old_key = app.secret_key
    value = cookie_of(app, {"me": {"7": "Ann"}})
    assert reader.read(environ(value)) == {"me": {"7": "Ann"}}
    app.secret_key = "the-second-secret-key-long-enough-for-a-test"
    assert reader.read(environ(value)) == {}  # signed under a key the app no longer has
    app.config["SECRET_KEY_FALLBACKS"] = [old_key]
    assert reader.read(environ(value)) == {"me": {"7": "Ann"}}  # the old key is a fallback: Flask reads it
    app.config["SECRET_KEY_FALLBACKS"] = []
    assert reader.read(environ(value)) == {}


def test_no_cookie_an_empty_session_and_a_permanent_one(app, clock):
    reader = SessionCookies(app)
    assert reader.read(environ(None)) == {} and reader.read(environ("")) == {}
    assert reader.read(environ(cookie_of(app, {}))) == {}
    permanent = cookie_of(app, {"me": {"7": "Ann"}, "_permanent": True})
    assert reader.read(environ(permanent)) is None  # Flask sends a permanent session's cookie again: it reads it
    assert reader._kept == {}
    app.secret_key = None
    assert reader.read(environ(permanent)) is None  # no key: Flask's null session


def test_the_sessions_kept_are_bounded(app, clock, monkeypatch):
    monkeypatch.setattr(session_cookie, "SESSIONS_KEPT", 3)
    reader = SessionCookies(app)
    for n in range(10):
        assert reader.read(environ(cookie_of(app, {"me": {"7": f"P{n}"}}))) == {"me": {"7": f"P{n}"}}
        assert len(reader._kept) <= 3


def test_the_poll_and_the_early_pages_share_the_apps_reader(make_app):
    app = make_app()
    reader = session_cookies(app)
    assert app.extensions["companion_live_fragment"]._cookies is reader
    assert app.extensions["companion_early_pages"].cookies is reader


def _request(app: Flask, value: str):  # type: ignore[no-untyped-def]
    from werkzeug.test import EnvironBuilder

    return app.request_class(EnvironBuilder(headers={"Cookie": f"session={value}"}).get_environ())
