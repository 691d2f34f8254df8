"""The players' view: read-only standings that follow the table live.

The page follows the table by ``/p/<key>/stream`` (Server-Sent Events, web/live_push.py: each change
pushed the moment it is committed), where the browser and the server allow it, and otherwise polls
``/p/<key>/live`` with the ETag it last saw (the path without JavaScript's EventSource, kept working).  Almost every poll is
answered before Flask runs, by the middleware of web/live_poll.py (a 304 for an
unchanged table, or the fragment put together from the parts this process keeps);
the views here answer the rest (the first poll of a version in a process, a HEAD, a
scorekeeper's link), the page itself and "this is me".
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, make_response, redirect, render_template, request, session, url_for
from werkzeug.exceptions import HTTPException

from companion import service
from companion.db.models import Night
from companion.night.standings import Standings
from companion.web import kept_pages, live_push
from companion.web.links import viewer_night
from companion.web.live_poll import (
    FOUND,
    RECENT,
    STANDINGS,
    LiveFragment,
    current_version,
    etag_of,
    live_fragment_response,
    mark_me,
    player_of,
    shared_parts,
)
from companion.web.standings import standings_of

bp = Blueprint("players", __name__, url_prefix="/p/<key>")


def _me(night: Night) -> str | None:
    me = session.get("me", {}).get(str(night.id))
    return me if me in night.players else None


def players_page(key: str, me: str | None) -> tuple[str, str, str | None]:
    """What the kept players' page depends on besides (night, version): the link it was opened by, and "me"
    (the page answered before Flask, web/early_pages.py, looks it up by the same name)."""
    return ("players", key, me)


@bp.get("")
def show(key: str):  # type: ignore[no-untyped-def]
    """The players' page: kept per version and "me" (issue 22), as the scorekeeper's pages are.

    One indexed read of the version (as a poll's) and, when this process keeps the page
    at that version for this phone's player, no ORM at all.
    """
    found = current_version(key)
    if found is not None:
        night_id, version, _tag = found
        st = service.derived(STANDINGS, night_id, version)
        if st is not None:
            page = kept_pages.kept_page(players_page(key, player_of(session, night_id, st)), night_id, version)
            if page is not None:
                return page
    night = viewer_night(key)
    st = standings_of(night, RECENT)
    me = player_of(session, night.id, st)
    return kept_pages.render_kept(players_page(key, me), night.id, night.version, lambda flashed: _render_show(night, st, me, flashed))


def _render_show(night: Night, st: Standings, me: str | None, flashed: Any) -> str:
    top, table, bottom = shared_parts(night.id, night.version, st)
    mine = current_app.jinja_env.get_template("players/_live_parts.html").module.mine(st, me)  # type: ignore[attr-defined]
    shared = {"top": top, "mine": mine, "table": mark_me(table, me), "bottom": bottom}
    stream_url = url_for("players.stream", key=request.view_args["key"]) if live_push.offered() else None  # type: ignore[index]
    return render_template(
        "players/show.html", night=night, st=st, me=me, etag=etag_of(night), shared=shared, flashed=flashed,
        stream_url=stream_url,
    )


@bp.get("/live")
def live(key: str):  # type: ignore[no-untyped-def]
    """The live part of the page, or 304 when the table has not changed.

    Polls are mostly answered by the middleware (:class:`~.live_poll.NotModified`); this is the
    first poll of a version in this process, a HEAD, or a scorekeeper's link.  Both
    answers come from one indexed read when this process has already shown the table
    at this version (see :func:`~.standings.standings_of`); the fragment depends on
    nothing else but who "me" is.
    """
    found = request.environ[FOUND] if FOUND in request.environ else current_version(key)
    if found is not None:
        night_id, version, tag = found
        if request.if_none_match.contains(tag):
            return _not_modified(tag)
        st = service.derived(STANDINGS, night_id, version)
        if st is not None:
            return _live_response(night_id, version, st, player_of(session, night_id, st), tag)
    night = viewer_night(key)
    tag = etag_of(night)
    if request.if_none_match.contains(tag):
        return _not_modified(tag)
    return _live_response(night.id, night.version, standings_of(night, RECENT), _me(night), tag)


def _live_response(night_id: int, version: int, st: Standings, me: str | None, tag: str):  # type: ignore[no-untyped-def]
    parts = shared_parts(night_id, version, st)
    fragment: LiveFragment = current_app.extensions["companion_live_fragment"]
    return live_fragment_response(fragment.render(st, me, parts), tag)


def _not_modified(tag: str):  # type: ignore[no-untyped-def]
    """A 304 with the Vary its 200 would carry (RFC 9110, 15.4.5): the fragment depends on the session."""
    response = make_response("", 304)
    response.set_etag(tag)
    response.vary.add("Cookie")
    return response


@bp.get("/stream")
def stream(key: str):  # type: ignore[no-untyped-def]
    """The live part of the page pushed at each change (Server-Sent Events; web/live_push.py), its event id the
    night's version.

    A wrong or replaced link is a 404 before anything is streamed (counted against the client as any wrong
    link); a link replaced while streaming ends the stream, and the phone's next ask gets that 404.  The
    fragment is the poll's (:func:`live`), rendered once per version and per player the phones say they
    are ("me", read from the session when the stream opens), the same bytes for every phone of that kind.
    """
    night = viewer_night(key)
    chosen = session.get("me", {}).get(str(night.id))
    viewer = chosen if isinstance(chosen, str) else None
    stamp = live_push.night_stamp(*service.night_stamps([night.id])[night.id])
    return live_push.stream(live_push.NIGHT, night.id, key, stamp, viewer, lambda: _pushed(key))


def _pushed(key: str) -> tuple[str, str] | None:
    """(the night's version, the live fragment for this request's "me") as the database has them now; None: the
    link no longer opens a night (the stream ends)."""
    try:
        night = viewer_night(key)
    except HTTPException:
        return None
    st = standings_of(night, RECENT)
    fragment: LiveFragment = current_app.extensions["companion_live_fragment"]
    body = fragment.render(st, player_of(session, night.id, st), shared_parts(night.id, night.version, st))
    return str(night.version), body


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
