"""A group's two pages answered before Flask, from the page this process keeps (issue 25).

The organiser's page ``/g/<key>`` and the members' page ``/m/<key>`` of a group of two hundred
nights are kept once rendered (web/groups.py, web/kept_pages.py), so a repeat request costs
the group's one-row stamp, its gaps pasted (a fresh request key in each form, the CSRF token)
and Flask's handling of a request and its answer, which was the most of it: some 1 ms of the
2 ms a request took.  This WSGI middleware answers the repeat request itself, as the players'
poll is answered (web/live_poll.py), when it is sure Flask's answer would be the same but for
what every request makes anew:

* a GET of ``/g/<key>`` or ``/m/<key>``, reached at an allowed host (the host check, web/hosts.py,
  is in front of it) over a plain WSGI root (no ``SCRIPT_NAME``), with no query string or one that
  asks only what the page is kept by (:data:`ASKED`: a period, a rivalry, the nights in full), read
  as Flask reads ``request.args`` and the view reads them (:func:`asked_of`);
* a browser whose session cookie verifies as Flask's session would read it, holds no flashed
  message and already holds its CSRF secret (so Flask would send no cookie), and that takes
  deflate (the kept page goes out as the Flask path sends it: web/kept_pages.py);
* a valid link (the stamp, read in one statement on the one-row reads' own pool, names the group
  by the right one of its two links: :func:`~companion.web.groups.read_stamp`) whose page this
  process keeps at the stamp read now, by the name the Flask path keeps it by
  (:func:`~companion.web.groups.kept_as`).

Anything else goes on to Flask unchanged: a first visit, no cookie, a flash pending, a HEAD, a
question the page is not kept by (a refused form's ``refused=``, anything unknown) or a period it
cannot read (Flask shows why), a page not kept here yet or kept at an older stamp, and any unknown or
replaced link, which Flask counts and brakes (``security.reject_unknown_link``); a valid link is
always answered, by either path, as before.  The answer's headers are the Flask path's, worked out
once per scheme by running the app's ``after_request`` hooks and session on a kept page's
response; its CSRF token is made as Flask-WTF's ``generate_csrf`` makes it from the session's
secret.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from flask import Flask
from itsdangerous import BadData, URLSafeTimedSerializer
from itsdangerous.encoding import base64_decode, bytes_to_int
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.http import parse_accept_header, parse_cookie
from werkzeug.sansio.utils import get_current_url, get_host

from companion.group.season import ALL_TIME, Period
from companion.web import kept_pages
from companion.web.addresses import shared_address
from companion.web.groups import kept_as, period_from, read_stamp
from companion.web.links import MAX_KEY_LENGTH
from companion.web.live_poll import LiveFragment, headers_flask_sends
from companion.web.raw_reads import READ_ENGINE

#: the two pages, by their path: "g" the organiser's, "m" the members'
PAGE_PATH = re.compile(r"/([gm])/([A-Za-z0-9_-]{1,%d})" % MAX_KEY_LENGTH)
#: the environ key set on a request answered here (the tests and the bench see which path answered)
ANSWERED = "companion.group_page_early"
#: stands in for the answer's length in the kept headers (NUL is in no header)
_LENGTH = "\x00length"
#: sessions (and CSRF tokens) kept by the cookie that sent them; more are read anew
SESSIONS_KEPT = 4096
#: the salt Flask-WTF signs a CSRF token with (flask_wtf.csrf.generate_csrf)
_CSRF_SALT = "wtf-csrf-token"
#: the address's questions a group's page is kept by (web/groups.py: period_from, _rivalry, _all_listed)
ASKED = frozenset({"period", "from", "to", "first", "second", "nights"})
#: what a page with no question asks: the whole season, no rivalry, the newest nights listed
PLAIN: tuple[Period, str, str, bool] = (ALL_TIME, "", "", False)
#: query strings read, kept by their text (a page's links ask a handful of them); more are read anew
QUERIES_KEPT = 1024


def asked_of(query: str) -> tuple[Period, str, str, bool] | None:
    """(period, first, second, nights in full) a page's QUERY_STRING asks, as the Flask path reads it, or None.

    Read as Werkzeug makes ``request.args`` (the WSGI string's Latin-1 bytes as UTF-8, ``parse_qsl`` keeping
    blanks and leaving bad bytes percent-encoded, into an ``ImmutableMultiDict`` whose ``get`` takes a
    repeated name's first value) and as the view reads those (:func:`~companion.web.groups.period_from`,
    ``first``/``second``, ``nights == "all"``).  None, so that Flask answers: a name the page is not kept by
    (a refused form's ``refused=`` above all, whose page is made for its request alone), a query Werkzeug
    could not read, or a period :func:`period_from` refuses (Flask's page says why, with a 400).
    """
    try:
        args = ImmutableMultiDict(
            parse_qsl(query.encode("latin1").decode(), keep_blank_values=True, errors="werkzeug.url_quote")
        )
    except (UnicodeError, ValueError):
        return None
    if not ASKED.issuperset(args.keys()):
        return None
    try:
        period = period_from(args)
    except Exception:  # noqa: BLE001 - whatever it is, Flask's path meets it and answers it
        return None
    return period, args.get("first", ""), args.get("second", ""), args.get("nights") == "all"


class EarlyGroupPages:
    """WSGI middleware: a repeat request for a group's page answered from the page kept, without Flask.

    ``answered`` counts the requests answered here (per process), for the tests and the bench.
    """

    def __init__(self, app: Flask, wsgi_app: Callable[..., Any]) -> None:
        self.app = app
        self.wsgi_app = wsgi_app
        self.cookies = LiveFragment(app)  # reads the session cookie exactly as Flask's session does
        self.answered = 0
        self._headers: dict[str, list[tuple[str, str]]] = {}  # by scheme: HTTPS adds HSTS
        self._csrf: tuple[Any, URLSafeTimedSerializer] | None = None
        self._takes_deflate: dict[str, bool] = {}
        self._host_urls: dict[tuple[str, str], str] = {}
        self._queries: dict[str, tuple[Period, str, str, bool] | None] = {}
        self._sessions: dict[str, tuple[Any, int, dict]] = {}  # type: ignore[type-arg]  # by Cookie header
        self._tokens: dict[str, tuple[int, Any, str]] = {}  # by the session's CSRF secret
        self._lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Callable[..., Any]):  # type: ignore[no-untyped-def,type-arg]
        if environ.get("REQUEST_METHOD") == "GET":
            match = PAGE_PATH.fullmatch(environ.get("PATH_INFO", ""))
            query = environ.get("QUERY_STRING")
            asked = self._asked(query) if query and match is not None else PLAIN
            if match is not None and asked is not None:
                answer = self.answer(environ, match.group(1) == "g", match.group(2), asked)
                if answer is not None:
                    environ[ANSWERED] = True
                    self.answered += 1
                    start_response("200 OK", answer[0])
                    return [answer[1]]
        return self.wsgi_app(environ, start_response)

    def answer(self, environ: dict, organiser: bool, key: str,  # type: ignore[type-arg]
               asked: tuple[Period, str, str, bool] = PLAIN) -> tuple[list[tuple[str, str]], bytes] | None:
        """(headers, body) of the kept page for this request, or None: Flask answers it.

        ``asked``: the period, the rivalry and whether every night is listed, as :func:`asked_of` reads them."""
        if environ.get("SCRIPT_NAME") or not self._deflate_taken(environ.get("HTTP_ACCEPT_ENCODING", "")):
            return None
        host_header, scheme = environ.get("HTTP_HOST"), environ.get("wsgi.url_scheme")
        if not host_header or scheme not in ("http", "https") or self.app.config.get("TRUSTED_HOSTS"):
            return None
        host = get_host(scheme, host_header)  # request.host and request.host_url, as Werkzeug makes them
        if not host:
            return None
        data = self._session(environ)
        if data is None or "_flashes" in data:
            return None  # a session Flask would send again, or a message to show
        stamp = read_stamp(key, organiser, self.app.extensions[READ_ENGINE]())
        if stamp is None:
            return None  # a replaced or unknown link (Flask counts it), or ask the ORM
        members_link = shared_address(f"/m/{stamp[4]}", host, scheme, self._host_url(scheme, host), self.app.config)
        kept = kept_pages.across_nights(self.app).get(kept_as(stamp, organiser, *asked, members_link))
        if kept is None or not kept_pages.sent_compressed(kept):
            return None
        token = None
        if "csrf" in kept.gaps:
            token = self._csrf_token(data)
            if token is None:
                return None
        filled = [value.encode() for value in kept_pages.gap_values(kept, token, str)]
        body = kept_pages.deflate_stream(kept.deflated, filled)
        length = str(len(body))
        return [(k, length if v == _LENGTH else v) for k, v in self._response_headers(scheme)], body

    def _asked(self, query: str) -> tuple[Period, str, str, bool] | None:
        """:func:`asked_of` ``query``, kept by its text (the same text reads the same, whatever the day)."""
        try:
            return self._queries[query]
        except KeyError:
            pass
        asked = asked_of(query)
        if len(self._queries) >= QUERIES_KEPT:
            self._queries.clear()  # a flood of questions: start again rather than keep them all
        self._queries[query] = asked
        return asked

    def _host_url(self, scheme: str, host: str) -> str:
        """``request.host_url`` (Werkzeug's get_current_url: ``scheme://host/`` as an IRI), by scheme and host."""
        url = self._host_urls.get((scheme, host))
        if url is None:
            url = get_current_url(scheme, host)
            if len(self._host_urls) < 64:  # a server is reached at a handful of names
                self._host_urls[(scheme, host)] = url
        return url

    def _deflate_taken(self, header: str) -> bool:
        """Whether Accept-Encoding ``header`` takes deflate, as ``request.accept_encodings`` reads it (by header)."""
        taken = self._takes_deflate.get(header)
        if taken is None:
            taken = "deflate" in parse_accept_header(header)
            if len(self._takes_deflate) < 64:  # browsers send a handful of these
                self._takes_deflate[header] = taken
        return taken

    def _session(self, environ: dict) -> dict | None:  # type: ignore[type-arg]
        """The session as Flask reads it (:meth:`LiveFragment.session_of`), kept by the Cookie header that sent it.

        A browser sends the same cookie with every request, and a signature that verified once verifies
        again under the same keys: what is kept is the session and when it was signed, so that its age is
        still checked at each request as Flask checks it (0 to the session's lifetime).  Kept only for a
        session Flask would read as it is (not a permanent one it sends again), at most
        :data:`SESSIONS_KEPT` of them, and never for a request without a cookie or with a bad one (those
        are read again).
        """
        header = environ.get("HTTP_COOKIE")
        app = self.app
        keys = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        lifetime = int(app.permanent_session_lifetime.total_seconds())
        kept = self._sessions.get(header) if header else None
        if kept is not None and kept[0] == keys and 0 <= int(time.time()) - kept[1] <= lifetime:
            return kept[2]
        data = self.cookies.session_of(environ)
        if data and header:
            signed = _signed_at(parse_cookie(environ).get(app.session_interface.get_cookie_name(app), ""))
            if signed is not None:
                if len(self._sessions) >= SESSIONS_KEPT:
                    self._sessions.clear()  # a flood of cookies: start again rather than keep them all
                self._sessions[header] = (keys, signed, data)
        return data

    def _csrf_token(self, data: dict) -> str | None:  # type: ignore[type-arg]
        """The CSRF token ``flask_wtf.csrf.generate_csrf`` makes for this session; None when it would first make
        the session's secret (Flask then sends a cookie)."""
        config = self.app.config
        field = config.get("WTF_CSRF_FIELD_NAME") or "csrf_token"
        raw = data.get(field)
        if not isinstance(raw, str):
            return None
        secret = config.get("WTF_CSRF_SECRET_KEY") or self.app.secret_key
        if not secret:
            return None
        kept = self._csrf
        if kept is None or kept[0] != secret:
            kept = self._csrf = (secret, URLSafeTimedSerializer(secret, salt=_CSRF_SALT))
        # the token is the secret signed with the second it is made in: the same second makes the same
        # token, so one made this second for this session's secret is the one generate_csrf would make
        now = int(time.time())
        made = self._tokens.get(raw)
        if made is not None and made[0] == now and made[1] == secret:
            return made[2]
        token: str = kept[1].dumps(raw)
        if len(self._tokens) >= SESSIONS_KEPT:
            self._tokens.clear()
        self._tokens[raw] = (now, secret, token)
        return token

    def _response_headers(self, scheme: str) -> list[tuple[str, str]]:
        """The Flask path's headers of a kept group page sent compressed, in its order, :data:`_LENGTH` for its length."""
        kept = self._headers.get(scheme)
        if kept is not None:
            return kept
        with self._lock:
            if scheme not in self._headers:
                # the view reads the session's flashed messages
                self._headers[scheme] = headers_flask_sends(
                    self.app, "/g/key", scheme, "_flashes", lambda: kept_pages.deflated_response(b"x"),
                    {"content-length": _LENGTH},
                )
            return self._headers[scheme]


def _signed_at(value: str) -> int | None:
    """When a signed cookie that verified was signed: the timestamp itsdangerous puts before its signature."""
    parts = value.rsplit(".", 2)
    if len(parts) != 3:
        return None
    try:
        return bytes_to_int(base64_decode(parts[1]))
    except (BadData, ValueError):
        return None


def init_app(app: Flask) -> None:
    """Put the middleware in front of the app (behind the host check and a trusted proxy's headers)."""
    middleware = EarlyGroupPages(app, app.wsgi_app)
    app.extensions["companion_early_group_pages"] = middleware
    app.wsgi_app = middleware  # type: ignore[method-assign]
