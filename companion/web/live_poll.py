"""The players' live poll answered before Flask: WSGI middleware, earned by the load bench (issue 22).

The players' page polls ``/p/<key>/live`` with the ETag it last saw.  An unchanged table
costs a 304 and, when the change watch (db/change_watch.py) says nothing was committed
since this process last read that link's night, no read at all: the watch hears every
commit through the database (SQLite's data_version, PostgreSQL's NOTIFY), so there is
no in-process broadcast to go stale.  Otherwise the version is read in one SELECT on a
pooled driver connection of the middleware's own pool, without the ORM: every phone at
every table asks every 0.8 seconds, and almost always nothing has changed.

A poll that finds a change is answered by the same middleware when this process
already holds the parts of the fragment that are the same for every phone at that
version (``service.derived``): it reads the version the same way, verifies the
phone's session cookie as Flask would, renders that phone's "mine" section and puts
the fragment together, with no ORM session, request context or routing.  The first
poll of a version in a process goes through Flask and the ORM (the players' blueprint,
web/players.py), and keeps those parts (:func:`shared_parts`); the middleware keeps each
answer it makes, per night, version and phone's player, so a change costs one render per
player, not one per phone and poll.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
from collections.abc import Callable, Mapping
from operator import methodcaller
from typing import Any

from flask import Flask, Response, current_app, make_response, render_template, session
from markupsafe import Markup, escape
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from werkzeug.http import parse_etags

from companion import service
from companion.extensions import db
from companion.db.models import Night
from companion.night.standings import Standings
from companion.web.links import KEY_CHARS, MAX_KEY_LENGTH
from companion.web.raw_reads import READ_ENGINE, read_row
from companion.web.security import same_secret
from companion.web.session_cookie import session_cookies
from companion.web.while_unchanged import WhileUnchanged

#: how many of the last actions the players' page lists
RECENT = 6

#: what service.derived keeps for the live fragment, per night and version
STANDINGS = f"standings/{RECENT}"
PARTS = f"live-parts/{RECENT}"
#: players' links whose version the middleware keeps while nothing is committed (beyond: forgotten, read again)
KNOWN_LINKS = 10_000
#: nights whose last answers the middleware keeps, per phone's player (beyond: forgotten, rendered again)
KEPT_ANSWERS = 1_000
#: idle connections the middleware's own pool keeps (one per server thread that polls at once)
POLL_POOL_SIZE = 16


def etag_of(night: Night, secret: str | bytes | None = None) -> str:
    return _tag(night.id, night.version, night.viewer_key, secret)


def _tag(night_id: int, version: int, viewer_key: str, secret: str | bytes | None = None) -> str:
    """The live view's ETag: the version (the page's offline copy compares it) and an opaque rest.

    The rest is an HMAC of the night's id and players' link under the app's secret key:
    it changes with the night and the link, and says nothing of how many nights exist.
    """
    secret = current_app.config["SECRET_KEY"] if secret is None else secret
    key = secret.encode() if isinstance(secret, str) else secret
    digest = hmac.new(key, f"{night_id}:{viewer_key}".encode(), hashlib.sha256).hexdigest()[:20]
    return f"p-v{version}-{digest}"


#: The players' link's night, by its unique index ({} is the driver's parameter: raw_reads.read_row).
_TAG_SQL = "SELECT id, version, viewer_key FROM night WHERE viewer_key = {}"


def poll_engine(engine: Engine) -> Engine:
    """The engine the middleware reads versions with: ``engine``, or on a server database a pool of its own.

    The app's PostgreSQL pool pings the server before each use, a second round trip
    that would double the cost of a poll.  This pool does not: a connection the server
    dropped fails one poll's read, which :func:`current_version` turns into "ask the
    slow way" (the ORM, with the ping) after throwing the connection away.  Its
    connections stay in autocommit (a poll is one SELECT: no BEGIN, no ROLLBACK, nothing
    to reset when one is given back), and it keeps up to :data:`POLL_POOL_SIZE` of them:
    with the default pool of 5, a server's 8 threads opened and closed a PostgreSQL
    connection every few polls under load.  It is disposed with the app's engine.
    """
    if engine.dialect.name == "sqlite":
        return engine  # a file on this machine: its pool never pings
    own = create_engine(
        engine.url,
        pool_pre_ping=False,
        pool_size=POLL_POOL_SIZE,
        isolation_level="AUTOCOMMIT",
        pool_reset_on_return=None,
    )
    event.listen(engine, "engine_disposed", lambda _engine: own.dispose())
    return own


def current_version(
    key: str, engine: Engine | None = None, secret: str | bytes | None = None
) -> tuple[int, int, str] | None:
    """(id, version, ETag) of the night whose players' link is ``key``, as the database has it now.

    One SELECT on a pooled driver connection (no ORM session, no transaction to
    begin and roll back on SQLite).  None also means "ask the slow way": a
    scorekeeper's link or an unknown one goes through :func:`~.links.viewer_night`.
    """
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    row = read_row(engine or db.engine, _TAG_SQL, key)
    if row is None or not same_secret(key, row[2]):
        return None
    return row[0], row[1], _tag(row[0], row[1], row[2], secret)


def _scheme(environ: dict) -> str:  # type: ignore[type-arg]
    """"https" or "http", as request.is_secure sees it (the headers differ only by HSTS)."""
    return "https" if environ.get("wsgi.url_scheme") in ("https", "wss") else "http"


FOUND = "companion.live_version"
LIVE_PATH = re.compile(r"/p/([A-Za-z0-9_-]{1,%d})/live" % MAX_KEY_LENGTH)


class NotModified:
    """WSGI middleware: answer a players' poll before Flask runs, when it can.

    This is almost all the traffic of a night (every phone, every 0.8 seconds), so it
    costs at most one indexed SELECT (none while nothing is committed: :meth:`_version`)
    and no request context, session or routing.  It answers
    only a GET of ``/p/<players' link>/live`` from a client the link limiter does not
    block: a 304 when If-None-Match holds the night's current ETag, and a 200 when this
    process already keeps that version's standings and shared parts (see
    :class:`LiveFragment`).  Everything else (the first poll of a version in this
    process, a scorekeeper's link, an unknown link, a HEAD) goes on to Flask as usual.
    Both answers carry the headers the app's ``after_request`` hooks and session give
    them on that path, worked out once per process by running them.
    """

    def __init__(self, app: Flask, wsgi_app: Callable) -> None:  # type: ignore[type-arg]
        self.app = app
        self.wsgi_app = wsgi_app
        self.fragment = LiveFragment(app)
        self._headers: dict[str, list[tuple[str, str]]] = {}  # by scheme: HTTPS adds HSTS
        self._engine_of_app: Engine | None = None
        #: by players' link: what current_version read, with the change watch's generation it was read at
        self._known: WhileUnchanged[tuple[int, int, str]] = WhileUnchanged(app, methodcaller("poll_generation"), KNOWN_LINKS)
        self._lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Callable):  # type: ignore[no-untyped-def,type-arg]
        match = LIVE_PATH.fullmatch(environ.get("PATH_INFO", ""))
        if match and environ.get("REQUEST_METHOD") == "GET":
            # a valid players' link is always answered; an unknown one goes on to Flask,
            # where it is counted and braked (security.reject_unknown_link)
            found = self._version(match.group(1))
            environ[FOUND] = found  # the view need not ask again
            if found is not None:
                asked, quoted = environ.get("HTTP_IF_NONE_MATCH"), f'"{found[2]}"'
                # a phone sends back exactly the ETag it was given: no need to parse it (4 of the ~20 us here)
                if asked and (asked == quoted or parse_etags(asked).contains(found[2])):
                    headers = self._after_request_headers(_scheme(environ))
                    start_response("304 Not Modified", [("ETag", quoted), *headers])
                    return []
                answer = self.fragment.answer(environ, *found)
                if answer is not None:
                    start_response("200 OK", answer[0])
                    return [answer[1]]
        return self.wsgi_app(environ, start_response)

    def _version(self, key: str) -> tuple[int, int, str] | None:
        """:func:`current_version` of ``key``, or the one this process read when nothing was committed since.

        The change watch (db/change_watch.py) says whether anything was committed since the
        version was read: when not, no connection and no statement.  It is for the polls
        alone (on PostgreSQL another process's commit is heard a moment after it is made,
        and the phone polls again 0.8 seconds later); when it is unsure, read.
        """
        return self._known.get(key, lambda: current_version(key, self._engine(), self.app.config["SECRET_KEY"]))

    def _engine(self) -> Engine:
        if self._engine_of_app is not None:
            return self._engine_of_app
        with self._lock:
            if self._engine_of_app is None:
                with self.app.app_context():
                    self._engine_of_app = poll_engine(db.engine)
            return self._engine_of_app

    def _after_request_headers(self, scheme: str) -> list[tuple[str, str]]:
        kept = self._headers.get(scheme)
        if kept is not None:
            return kept
        with self._lock:
            if scheme not in self._headers:
                with self.app.test_request_context("/p/key/live", base_url=f"{scheme}://localhost"):
                    response = self.app.process_response(make_response("", 304))
                # never a cookie or anything about this made-up request's body or session; the Vary the
                # fragment's 200 carries (it reads the session: who "me" is), as a 304 must (RFC 9110, 15.4.5)
                skip = ("etag", "content-type", "content-length", "set-cookie", "vary", "date")
                self._headers[scheme] = [
                    *((k, v) for k, v in response.headers.items() if k.lower() not in skip), ("Vary", "Cookie"),
                ]
            return self._headers[scheme]


#: stand-ins for the values of a fragment's own headers in LiveFragment's list (NUL is in no header)
_ETAG, _LENGTH = "\x00etag", "\x00length"


class _OutsideParts(Exception):
    """_live.html used the standings or "me" outside the parts it is given."""


class _Probe:
    """Stands for ``st`` and ``me`` while :class:`LiveFragment` reads _live.html's layout: any use is an error."""

    def __getattr__(self, name: str) -> Any:
        raise _OutsideParts(name)

    def __bool__(self) -> bool:
        raise _OutsideParts("bool")

    def __str__(self) -> str:
        raise _OutsideParts("str")

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise _OutsideParts("iter")


class LiveFragment:
    """The players' live fragment (``players/_live.html``) put together from its parts, per phone.

    The top, the standings table and the bottom are the same for every phone at a
    version (:func:`shared_parts`); the "mine" section is rendered for each poll from
    the phone's own session, and its row of the table marked (:func:`mark_me`).  The
    text around the four parts is read from _live.html once per process, by rendering
    it with markers for parts: the template stays the one source of the layout.

    :meth:`answer` serves a poll without Flask: only from the standings and parts this
    process keeps for that version, with the session cookie read and checked exactly as
    Flask's signed-cookie session does, and the headers the Flask path sends (worked
    out once per process by running the app's ``after_request`` hooks and session).
    Anything it is not sure of (nothing kept yet, another session interface, a
    permanent session whose cookie Flask would send again, templates that reload)
    answers None: ask Flask.
    """

    MARKERS = ("top", "mine", "table", "bottom")

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._layout: list[str] | None | bool = False  # False: not read yet; None: cannot be used
        self._headers: dict[str, list[tuple[str, str]]] = {}  # by scheme: HTTPS adds HSTS
        self._cookies = session_cookies(app)
        #: night id -> (ETag, its answers by (the phone's player, scheme)): one render per version and player
        self._answers: dict[int, tuple[str, dict[tuple[str | None, str], tuple[list[tuple[str, str]], bytes]]]] = {}
        self._lock = threading.Lock()

    # -- the body -------------------------------------------------------------------------

    def render(self, st: Standings, me: str | None, parts: tuple[Markup, Markup, Markup]) -> str:
        """_live.html for ``me`` at ``st``'s version, as ``render_template("players/_live.html", st=st, me=me)``."""
        top, table, bottom = parts
        env = self.app.jinja_env
        mine = env.get_template("players/_live_parts.html").module.mine(st, me)  # type: ignore[attr-defined]
        table = mark_me(table, me)
        layout = self._read_layout()
        if layout is None:
            shared = {"top": top, "mine": mine, "table": table, "bottom": bottom}
            return render_template("players/_live.html", st=st, me=me, shared=shared)  # in a request
        return "".join((layout[0], top, layout[1], mine, layout[2], table, layout[3], bottom, layout[4]))

    def _read_layout(self) -> list[str] | None:
        if self.app.jinja_env.auto_reload:
            return None  # templates may change under a running (debug) server: render them each time
        if self._layout is not False:
            return self._layout  # type: ignore[return-value]
        with self._lock:
            if self._layout is False:
                self._layout = self._layout_of_template()
            return self._layout  # type: ignore[return-value]

    def _layout_of_template(self) -> list[str] | None:
        token = "\x00live-part-{}\x00"
        shared = {name: Markup(token.format(name)) for name in self.MARKERS}
        try:
            with self.app.app_context():
                html = self.app.jinja_env.get_template("players/_live.html").render(
                    st=_Probe(), me=_Probe(), shared=shared
                )
        except Exception:  # noqa: BLE001 - _OutsideParts, or an error that Flask's rendering will report
            return None
        layout = []
        for name in self.MARKERS:
            before, found, html = html.partition(token.format(name))
            if not found or "\x00" in before:
                return None
            layout.append(before)
        if "\x00" in html:
            return None
        return [*layout, html]

    # -- a poll served without Flask -------------------------------------------------------

    def answer(self, environ: dict, night_id: int, version: int, tag: str) -> tuple[list[tuple[str, str]], bytes] | None:  # type: ignore[type-arg]
        """(headers, body) of the 200 for this poll, or None to let Flask answer it."""
        st = service.derived(STANDINGS, night_id, version)
        parts = service.derived(PARTS, night_id, version)
        if st is None or parts is None or self._read_layout() is None:
            return None
        data = self.session_of(environ)
        if data is None:
            return None
        me, scheme = player_of(data, night_id, st), _scheme(environ)
        kept = self._answers.get(night_id)
        if kept is None or kept[0] != tag:
            kept = (tag, {})  # a new version (or link): the answers of the last one are of no more use
        answer = kept[1].get((me, scheme))
        if answer is not None:
            return list(answer[0]), answer[1]  # a list of its own: a server or middleware may add to it
        try:
            body = self.render(st, me, parts).encode()
        except Exception:  # noqa: BLE001 - Flask renders it again, and answers or reports the error
            return None
        values = {_ETAG: f'"{tag}"', _LENGTH: str(len(body))}
        headers = self._response_headers(scheme)
        answer = [(k, values.get(v, v)) for k, v in headers], body
        kept[1][(me, scheme)] = answer
        if night_id not in self._answers and len(self._answers) >= KEPT_ANSWERS:
            self._answers.clear()  # bounded; the next polls render again
        self._answers[night_id] = kept
        return list(answer[0]), body

    def session_of(self, environ: dict) -> dict | None:  # type: ignore[type-arg]
        """The session as Flask's SecureCookieSessionInterface.open_session reads it; None: let Flask read it.

        Read and kept by the app's one :class:`~.session_cookie.SessionCookies`, which the group's pages
        answered before Flask share (web/early_pages.py): a phone's cookie is verified once, not per poll.
        """
        return self._cookies.read(environ)

    def _response_headers(self, scheme: str) -> list[tuple[str, str]]:
        """The Flask path's 200 headers, in its order, with :data:`_ETAG` and :data:`_LENGTH` for their values."""
        kept = self._headers.get(scheme)
        if kept is not None:
            return kept
        with self._lock:
            if scheme not in self._headers:
                self._headers[scheme] = headers_flask_sends(
                    self.app, "/p/key/live", scheme, "me", lambda: live_fragment_response("x", "tag"),
                    {"etag": _ETAG, "content-length": _LENGTH},
                )
            return self._headers[scheme]


def headers_flask_sends(
    app: Flask, path: str, scheme: str, session_key: str | None, make: Callable[[], Response],
    stand_ins: Mapping[str, str],
) -> list[tuple[str, str]]:
    """The headers the Flask path sends with the answer ``make()`` makes to a GET of ``path``, in its order.

    A middleware that answers before Flask (the poll here, a group's kept page in web/early_pages.py)
    must send what Flask would: the app's after-request hooks (security headers, compression's Vary) and
    its session are run once on a made-up request that reads ``session_key`` of the session, as the view
    does (so "Vary: Cookie"); a header named in ``stand_ins`` (lower case) gets its stand-in as its value,
    filled per answer; never a cookie or a Date, which are about this made-up request.
    """
    with app.test_request_context(path, base_url=f"{scheme}://localhost") as context:
        if session_key is not None:  # None: a view that never reads the session (no "Vary: Cookie")
            session.get(session_key)
        response = app.process_response(make())
        wsgi_headers = response.get_wsgi_headers(context.request.environ)
    return [(k, stand_ins.get(k.lower(), v)) for k, v in wsgi_headers.items() if k.lower() not in ("set-cookie", "date")]


def player_of(data: Any, night_id: int, st: Standings) -> str | None:
    """The player this phone said it is at this night (its session's "me"), if they are seated."""
    me = data.get("me", {}).get(str(night_id))
    return me if isinstance(me, str) and st.seated(me) else None


def shared_parts(night_id: int, version: int, st: Standings) -> tuple[Markup, Markup, Markup]:
    """The live fragment's top, standings table (no row marked "me") and bottom, made once per version.

    They are the same for every phone at the table; only the "mine" section and the
    mark on one row of the table depend on the phone (see :func:`mark_me`).
    """
    parts = service.derived(PARTS, night_id, version)
    if parts is None:
        env = current_app.jinja_env
        live = env.get_template("players/_live_parts.html").module
        table = env.get_template("_macros.html").module.standings_table(st, None)  # type: ignore[attr-defined]
        parts = (live.top(st), table, live.bottom(st))  # type: ignore[attr-defined]
        service.keep_derived(PARTS, night_id, version, parts)
    return parts


def mark_me(table: Markup, me: str | None) -> Markup:
    """``table`` (standings_table with no "me") with ``me``'s row marked, as standings_table(st, me) renders it."""
    if not me:
        return table
    html = str(table)
    row = html.find(f' data-player="{escape(me)}">')
    start = html.rfind('<tr class="', 0, row) + len('<tr class="') if row >= 0 else -1
    if start < len('<tr class="'):
        return table
    return Markup(html[:start] + "me" + html[start:])


def live_fragment_response(body: str, tag: str):  # type: ignore[no-untyped-def]
    response = make_response(body)
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-store"  # as every page a players' link opens
    return response


def init_app(app: Flask) -> None:
    """Put the middleware in front of the app; the players' blueprint and the kept pages' one-row reads use it."""
    app.add_template_global(etag_of, "live_etag")  # the scorekeeper's page watches the same tag
    middleware = NotModified(app, app.wsgi_app)
    app.extensions["companion_live_fragment"] = middleware.fragment
    app.extensions[READ_ENGINE] = middleware._engine  # the kept pages' one-row reads too (links.keeper_link)
    app.wsgi_app = middleware  # type: ignore[method-assign]
