"""The players' view: read-only standings that follow the table live.

The page polls ``/p/<key>/live`` with the ETag it last saw.  An unchanged table
costs one indexed read of the night's version and a 304, in any process behind
the same database, so there is no in-process broadcast to go stale.  That read
is one SELECT on a pooled driver connection, without the ORM: every phone at
every table asks every 2 seconds, and almost always nothing has changed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from flask import Blueprint, Flask, current_app, make_response, redirect, render_template, request, session, url_for
from markupsafe import Markup, escape
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from werkzeug.http import parse_etags

from .. import services
from ..extensions import db
from ..models import Night
from ..security import same_secret
from ..standings import Standings
from .common import KEY_CHARS, MAX_KEY_LENGTH, standings_of, viewer_night

#: how many of the last actions the players' page lists
RECENT = 6

bp = Blueprint("players", __name__, url_prefix="/p/<key>")


def etag_of(night: Night) -> str:
    return _tag(night.id, night.version, night.viewer_key)


def _tag(night_id: int, version: int, viewer_key: str) -> str:
    return f"n{night_id}-v{version}-{viewer_key[:6]}"


#: The players' link's night, by its unique index, in each driver's parameter style.
_TAG_SQL = "SELECT id, version, viewer_key FROM night WHERE viewer_key = {}"
_PARAM = {"qmark": "?", "format": "%s", "pyformat": "%s"}


def poll_engine(engine: Engine) -> Engine:
    """The engine the middleware reads versions with: ``engine``, or on a server database a pool of its own.

    The app's PostgreSQL pool pings the server before each use, a second round trip
    that would double the cost of a poll.  This pool does not: a connection the server
    dropped fails one poll's read, which :func:`current_version` turns into "ask the
    slow way" (the ORM, with the ping) after throwing the connection away.  It is
    disposed with the app's engine.
    """
    if engine.dialect.name == "sqlite":
        return engine  # a file on this machine: its pool never pings
    own = create_engine(engine.url, pool_pre_ping=False)
    event.listen(engine, "engine_disposed", lambda _engine: own.dispose())
    return own


def current_version(key: str, engine: Engine | None = None) -> tuple[int, int, str] | None:
    """(id, version, ETag) of the night whose players' link is ``key``, as the database has it now.

    One SELECT on a pooled driver connection (no ORM session, no transaction to
    begin and roll back on SQLite).  None also means "ask the slow way": a
    scorekeeper's link or an unknown one goes through :func:`viewer_night`.
    """
    if not key or len(key) > MAX_KEY_LENGTH or not KEY_CHARS.fullmatch(key):
        return None
    engine = engine or db.engine
    param = _PARAM.get(engine.dialect.paramstyle)
    if param is None:  # pragma: no cover - a driver with another style: the ORM path
        return None
    try:
        connection = engine.raw_connection()
    except DBAPIError:
        return None
    try:
        # one statement needs no transaction: on PostgreSQL, no BEGIN and ROLLBACK round trips
        autocommit = engine.dialect.name == "postgresql"
        if autocommit:
            connection.dbapi_connection.autocommit = True  # type: ignore[union-attr]
        cursor = connection.cursor()
        try:
            cursor.execute(_TAG_SQL.format(param), (key,))
            row = cursor.fetchone()
        finally:
            cursor.close()
            if autocommit:
                connection.dbapi_connection.autocommit = False  # type: ignore[union-attr]
    except engine.dialect.loaded_dbapi.Error:
        connection.invalidate()  # dropped by the server, most likely: the slow way decides
        return None
    finally:
        connection.close()
    if row is None or not same_secret(key, row[2]):
        return None
    return row[0], row[1], _tag(row[0], row[1], row[2])


FOUND = "companion.live_version"
LIVE_PATH = re.compile(r"/p/([A-Za-z0-9_-]{1,%d})/live" % MAX_KEY_LENGTH)


class NotModified:
    """WSGI middleware: answer a players' poll that finds nothing new (304) before Flask runs.

    This is almost all the traffic of a night (every phone, every 2 seconds), so it
    costs one indexed SELECT and no request context, session or routing.  It answers
    only a GET of ``/p/<players' link>/live`` whose If-None-Match holds the night's
    current ETag, from a client the link limiter does not block; everything else
    (a change, a scorekeeper's link, an unknown link) goes on to Flask as usual.  The
    304 carries the headers the app's ``after_request`` hooks give a 304 on that path,
    worked out once per process by running them.
    """

    def __init__(self, app: Flask, wsgi_app: Callable) -> None:  # type: ignore[type-arg]
        self.app = app
        self.wsgi_app = wsgi_app
        self._headers: list[tuple[str, str]] | None = None
        self._engine_of_app: Engine | None = None
        self._lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Callable):  # type: ignore[no-untyped-def,type-arg]
        match = LIVE_PATH.fullmatch(environ.get("PATH_INFO", ""))
        asked = environ.get("HTTP_IF_NONE_MATCH")
        if match and asked and environ.get("REQUEST_METHOD") == "GET":
            limiter = self.app.extensions["companion_link_limiter"]
            if not limiter.blocked(environ.get("REMOTE_ADDR") or "unknown"):
                found = current_version(match.group(1), self._engine())
                environ[FOUND] = found  # the view need not ask again
                if found is not None and parse_etags(asked).contains(found[2]):
                    start_response("304 Not Modified", [("ETag", f'"{found[2]}"'), *self._after_request_headers()])
                    return []
        return self.wsgi_app(environ, start_response)

    def _engine(self) -> Engine:
        if self._engine_of_app is not None:
            return self._engine_of_app
        with self._lock:
            if self._engine_of_app is None:
                with self.app.app_context():
                    self._engine_of_app = poll_engine(db.engine)
            return self._engine_of_app

    def _after_request_headers(self) -> list[tuple[str, str]]:
        if self._headers is not None:
            return self._headers
        with self._lock:
            if self._headers is None:
                with self.app.test_request_context("/p/key/live"):
                    response = self.app.process_response(make_response("", 304))
                # never a cookie or anything about this made-up request's body or session
                skip = ("etag", "content-type", "content-length", "set-cookie", "vary", "date")
                self._headers = [(k, v) for k, v in response.headers.items() if k.lower() not in skip]
            return self._headers


@bp.record_once
def _install(state) -> None:  # type: ignore[no-untyped-def]
    state.app.wsgi_app = NotModified(state.app, state.app.wsgi_app)  # type: ignore[method-assign]


def _me(night: Night) -> str | None:
    me = session.get("me", {}).get(str(night.id))
    return me if me in night.players else None


@bp.get("")
def show(key: str):  # type: ignore[no-untyped-def]
    night = viewer_night(key)
    st = standings_of(night, RECENT)
    top, table, bottom = shared_parts(night.id, night.version, st)
    me = _me(night)
    shared = {"top": top, "table": mark_me(table, me), "bottom": bottom}
    return render_template(
        "players/show.html", night=night, st=st, me=me, etag=etag_of(night), shared=shared
    )


@bp.get("/live")
def live(key: str):  # type: ignore[no-untyped-def]
    """The live part of the page, or 304 when the table has not changed.

    Both answers come from one indexed read when this process has already shown
    the table at this version (see :func:`~.common.standings_of`); the fragment
    depends on nothing else but who "me" is.
    """
    found = request.environ[FOUND] if FOUND in request.environ else current_version(key)
    if found is not None:
        night_id, version, tag = found
        if request.if_none_match.contains(tag):
            return _not_modified(tag)
        st = services.derived(f"standings/{RECENT}", night_id, version)
        if st is not None:
            me = session.get("me", {}).get(str(night_id))
            return _live_response(night_id, version, st, me if st.line(me) is not None else None, tag)
    night = viewer_night(key)
    tag = etag_of(night)
    if request.if_none_match.contains(tag):
        return _not_modified(tag)
    return _live_response(night.id, night.version, standings_of(night, RECENT), _me(night), tag)


def shared_parts(night_id: int, version: int, st: Standings) -> tuple[Markup, Markup, Markup]:
    """The live fragment's top, standings table (no row marked "me") and bottom, made once per version.

    They are the same for every phone at the table; only the "mine" section and the
    mark on one row of the table depend on the phone (see :func:`mark_me`).
    """
    what = f"live-parts/{RECENT}"
    parts = services.derived(what, night_id, version)
    if parts is None:
        env = current_app.jinja_env
        live = env.get_template("players/_live_parts.html").module
        table = env.get_template("_macros.html").module.standings_table(st, None)  # type: ignore[attr-defined]
        parts = (live.top(st), table, live.bottom(st))  # type: ignore[attr-defined]
        services.keep_derived(what, night_id, version, parts)
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


def _live_response(night_id: int, version: int, st: Standings, me: str | None, tag: str):  # type: ignore[no-untyped-def]
    top, table, bottom = shared_parts(night_id, version, st)
    shared = {"top": top, "table": mark_me(table, me), "bottom": bottom}
    response = make_response(render_template("players/_live.html", st=st, me=me, shared=shared))
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"
    return response


def _not_modified(tag: str):  # type: ignore[no-untyped-def]
    response = make_response("", 304)
    response.set_etag(tag)
    return response


@bp.get("/me")
def me(key: str):  # type: ignore[no-untyped-def]
    """'This is me': remember which player this phone belongs to (a choice, not a login)."""
    night = viewer_night(key)
    name = request.args.get("name", "")
    chosen = dict(session.get("me", {}))
    if name in night.players:
        chosen[str(night.id)] = name
    else:
        chosen.pop(str(night.id), None)
    session["me"] = chosen
    return redirect(url_for("players.show", key=key), code=303)
