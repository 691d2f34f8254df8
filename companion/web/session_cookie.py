"""The session cookie read before Flask runs, as Flask's session reads it, and kept by the cookie that sent it.

The players' poll (web/live_poll.py) and the pages answered early (web/early_pages.py)
need the phone's session without Flask.  Verifying a signed cookie (an HMAC with a
derived key, base64 and the tagged JSON) was about 3/4 of a 200 poll's time in the
middleware (issue 22), and a phone sends the same cookie with every poll and page.
So one :class:`SessionCookies` per app reads it for both, and keeps what a cookie
that verified held, by the cookie's raw value and the secret keys it verified under:
a signature that verified once verifies again under the same keys.  What is kept
with it is when the cookie was signed, so its age is checked at every request exactly
as Flask checks it (from 0 to the session's lifetime, else no session); a cookie that
did not verify (forged, signed under another key, expired) is never kept and is read
again each time.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Flask
from flask.sessions import SecureCookieSessionInterface, SessionInterface
from itsdangerous import BadData, BadSignature
from itsdangerous.encoding import base64_decode, bytes_to_int
from werkzeug.http import parse_cookie

#: sessions kept by the cookie that sent them; past this, all are forgotten and read anew (a flood of cookies)
SESSIONS_KEPT = 4096
#: where init_app keeps the app's one reader
EXTENSION = "companion_session_cookies"


class SessionCookies:
    """The session as ``SecureCookieSessionInterface.open_session`` reads it; None: let Flask read it."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._serializer: tuple[Any, Any] | None = None
        #: (the cookie's value, the secret keys) -> (when it was signed, the session it holds)
        self._kept: dict[tuple[str, Any], tuple[int, dict]] = {}  # type: ignore[type-arg]

    def read(self, environ: dict) -> dict | None:  # type: ignore[type-arg]
        """The session this request's cookie holds ({} for none or a bad one), or None when Flask must read it.

        None: not Flask's own signed-cookie session, no secret key, or a session Flask would
        send again (a permanent one, refreshed on each request).
        """
        app = self.app
        interface = app.session_interface
        if not _plain_cookie_session(interface):
            return None
        keys = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        serializer = self._signing_serializer(interface, keys)
        if serializer is None:
            return None
        value = parse_cookie(environ).get(interface.get_cookie_name(app))
        if not value:
            return {}
        lifetime = int(app.permanent_session_lifetime.total_seconds())
        kept = self._kept.get((value, keys))
        if kept is not None and 0 <= int(time.time()) - kept[0] <= lifetime:
            return kept[1]  # as itsdangerous checks the age: neither in the future nor older than the lifetime
        try:
            data = serializer.loads(value, max_age=lifetime)
        except BadSignature:
            return {}
        if not isinstance(data, dict) or (data.get("_permanent") and app.config["SESSION_REFRESH_EACH_REQUEST"]):
            return None  # Flask would send the cookie again
        signed = _signed_at(value)
        if data and signed is not None:
            if len(self._kept) >= SESSIONS_KEPT:
                self._kept.clear()  # bounded; the next requests verify again
            self._kept[(value, keys)] = (signed, data)
        return data

    def _signing_serializer(self, interface: SecureCookieSessionInterface, keys: tuple[Any, Any]) -> Any:
        kept = self._serializer
        if kept is None or kept[0] != keys:
            kept = self._serializer = (keys, interface.get_signing_serializer(self.app))
        return kept[1]


def _signed_at(value: str) -> int | None:
    """When a signed cookie that verified was signed: the timestamp itsdangerous puts before its signature."""
    parts = value.rsplit(".", 2)
    if len(parts) != 3:
        return None
    try:
        return bytes_to_int(base64_decode(parts[1]))
    except (BadData, ValueError):
        return None


def _plain_cookie_session(interface: SessionInterface) -> bool:
    """Flask's own signed-cookie session (our subclass changes only when the cookie is Secure)."""
    kind = type(interface)
    return isinstance(interface, SecureCookieSessionInterface) and all(
        getattr(kind, name) is getattr(SecureCookieSessionInterface, name)
        for name in ("open_session", "save_session", "should_set_cookie", "is_null_session", "get_cookie_name")
    )


def session_cookies(app: Flask) -> SessionCookies:
    """The app's one reader (made on first use): the poll and the early pages keep the same sessions."""
    reader = app.extensions.get(EXTENSION)
    if reader is None:
        reader = app.extensions.setdefault(EXTENSION, SessionCookies(app))
    return reader  # type: ignore[no-any-return]
