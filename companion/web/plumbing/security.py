"""Response headers and the brakes: on guessing secret links, on starting nights, making groups, importing.

The secret links are in QR codes and page URLs, so no page may leak them in a
Referer header, be framed, or run inline script.  Guessing a 256-bit link is
hopeless anyway; the limiter makes the attempt visible and expensive.  The brakes are
counted in the database, by the service (``service.count_against``, ``service.retry_after``:
db/brakes.py); here they become a 429 that says when to come back.
"""

from __future__ import annotations

import hmac
import math
import threading
import time

from flask import Flask, Response, abort, has_request_context, request
from flask.sessions import SecureCookieSessionInterface
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import TooManyRequests

from companion import service

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; manifest-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


#: a year: once a phone has reached the app over HTTPS it never tries plain HTTP again
HSTS = "max-age=31536000"


def same_secret(given: str, expected: str) -> bool:
    """Compare secrets in constant time."""
    return hmac.compare_digest(given.encode(), expected.encode())


class RotationMemory:
    """The answers of recent link rotations, by the request key their form carried.

    Rotating the scorekeeper's link ends the very address the form was posted to, so
    a doubled tap, or a resend after a lost answer, would meet a 404 and the
    scorekeeper would lose the night.  For a while, the same request key sent to the
    same old link gets the first answer again (and nothing is rotated twice); the
    same key asking for the other link is refused.  Anyone else on the old link
    still gets a 404.  Per process, like the limiter.
    """

    def __init__(self, seconds: float = 600.0, size: int = 1000) -> None:
        self.seconds = seconds
        self.size = size
        self._answers: dict[str, tuple[float, str, str, str]] = {}
        self._lock = threading.Lock()

    def recall(self, request_key: str, old_key: str, which: str) -> tuple[str | None, bool]:
        """(where the first answer sent the phone, whether this is the same key with other content)."""
        now = time.monotonic()
        with self._lock:
            found = self._answers.get(request_key)
            if found is None or now - found[0] > self.seconds or not same_secret(old_key, found[1]):
                return None, False
            if which != found[2]:
                return None, True
            return found[3], False

    def keep(self, request_key: str, old_key: str, which: str, location: str) -> None:
        with self._lock:
            self._answers[request_key] = (time.monotonic(), old_key, which, location)
            while len(self._answers) > self.size:
                self._answers.pop(next(iter(self._answers)))


def client_id() -> str:
    return request.remote_addr or "unknown"


class Braked(TooManyRequests):
    """A 429 whose message says what was limited and when to try again (with Retry-After)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(description=message, retry_after=retry_after)


def brake(limit: service.Limit, client: str, what: str) -> None:
    """Raise :class:`Braked` if ``client`` is over ``limit`` (``what``: "new nights", "new groups", "imports").

    Called first thing in a view: the service's read of the count ends its transaction."""
    wait = service.retry_after(limit, client)
    if wait is not None:
        minutes = max(1, math.ceil(wait / 60))
        raise Braked(
            f"Too many {what} from this device: at most {limit.limit} in {limit.window // 60} minutes. "
            f"Try again in {minutes} minute{'s' if minutes > 1 else ''}; nothing was saved.",
            wait,
        )


def reject_unknown_link(app: Flask) -> None:
    """Answer an unknown link: 404, counted against the client (in the database, for every
    process), or 429 once the client is over the limit.

    Only unknown links get here: a valid link is looked up first and always answered.
    A full disk leaves the guess uncounted: the link is still unknown, and the answer still a 404
    (it was a 503 "busy", issue 36, item 5).
    """
    limit: service.Limit = app.extensions["companion_link_limit"]
    client = client_id()
    wait = service.retry_after(limit, client)
    if wait is not None:
        raise TooManyRequests(retry_after=wait)
    try:
        service.count_against(limit, client)
    except OperationalError as error:
        if not service.is_disk_full(error):
            raise
        app.logger.warning("an unknown link not counted, the disk is full: %s", error)
    abort(404)


#: pages that list the scorekeeper links this browser holds (and /players/<name>, below)
LISTS_LINKS = frozenset({"/", "/nights"})


#: what every answer carries, as (lower-case name, name, value): made once (issue 37)
_EVERY = (
    ("content-security-policy", "Content-Security-Policy", CSP),
    ("referrer-policy", "Referrer-Policy", "no-referrer"),
    ("x-content-type-options", "X-Content-Type-Options", "nosniff"),
    ("x-frame-options", "X-Frame-Options", "DENY"),
    ("cross-origin-opener-policy", "Cross-Origin-Opener-Policy", "same-origin"),
)
_NO_STORE = ("cache-control", "Cache-Control", "no-store")
#: a night's three links' pages (the table display's too), and a group's two (organiser's, members'),
#: hold a secret link's figures: no cache may keep them, no search engine list them
_SECRET_PAGE = (*_EVERY, _NO_STORE, ("x-robots-tag", "X-Robots-Tag", "noindex"))
#: the front door, the past nights and a player's history list this browser's scorekeeper links:
#: no cache (a shared computer's, a proxy's) may keep them (issue 21, item 5)
_LISTING_PAGE = (*_EVERY, _NO_STORE)
_SECRET_PREFIXES = ("/k/", "/p/", "/d/", "/g/", "/m/")
_HSTS = ("strict-transport-security", "Strict-Transport-Security", HSTS)


def set_headers(response: Response) -> Response:
    """Add each of the security headers the answer does not set itself (a view's own Cache-Control stands).

    The headers are constants chosen by the path's kind; the answer's own header names are read
    once, instead of a search through them for each header (a sixth of a kept page's time went here).
    """
    path = request.path
    if path.startswith(_SECRET_PREFIXES):
        wanted = _SECRET_PAGE
    elif path in LISTS_LINKS or path.startswith("/players/"):
        wanted = _LISTING_PAGE
    else:
        wanted = _EVERY
    if request.is_secure:  # HTTPS seen by the app, or told by a trusted proxy
        wanted = (*wanted, _HSTS)
    headers = response.headers
    present = {name.lower() for name, _ in headers}
    for lower, name, value in wanted:
        if lower not in present:
            headers.add(name, value)
    return response


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, marked Secure whenever the request came over HTTPS.

    ``SESSION_COOKIE_SECURE`` covers a production address behind a proxy; this covers
    HTTPS seen by the app itself.  Plain HTTP on the local network keeps a cookie the
    phones send back.
    """

    def get_cookie_secure(self, app: Flask) -> bool:
        return super().get_cookie_secure(app) or (has_request_context() and request.is_secure)


def init_app(app: Flask) -> None:
    app.session_interface = SessionInterface()
    app.extensions["companion_link_limit"] = service.Limit("link", int(app.config["FAILED_LINK_LIMIT"]), 60)
    app.extensions["companion_night_limit"] = service.Limit("night", int(app.config["NIGHT_LIMIT"]), 600)
    app.extensions["companion_import_limit"] = service.Limit("import", int(app.config["IMPORT_LIMIT"]), 600)
    app.extensions["companion_group_limit"] = service.Limit("group", int(app.config["GROUP_LIMIT"]), 600)
    app.extensions["companion_rotations"] = RotationMemory()
    app.after_request(set_headers)
