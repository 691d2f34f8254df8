"""The players' view: read-only standings that follow the table live.

The page follows the table by ``/p/<key>/stream`` (Server-Sent Events, web/plumbing/live_push.py: each change
pushed the moment it is committed), and, in a browser without EventSource, polls ``/p/<key>/live``
with the ETag it last saw: a 304 while the table is unchanged, decided before anything is rendered
(one read of the night's version, through the service), and otherwise the live fragment.  The page
and the fragment are kept per version and per player a phone says it is ("this is me"): every phone
at the table asks for the same version right after a change.
"""

from __future__ import annotations

import hashlib
import hmac

from flask import Blueprint, current_app, make_response, redirect, render_template, request, session, url_for
from werkzeug.exceptions import HTTPException

from companion import service
from companion.service import NightRow
from companion.night.standings import Standings
from companion.web.plumbing import kept_pages, live_push
from companion.web.plumbing.links import viewer_link, viewer_night
from companion.web.pages.standings import RECENT, standings_of

bp = Blueprint("players", __name__, url_prefix="/p/<key>")

#: what standings_of keeps for the players' page, per night and version
STANDINGS = f"standings/{RECENT}"


@bp.app_template_global("live_etag")
def etag_of(night: NightRow) -> str:
    """The live fragment's ETag of ``night`` at its version (the scorekeeper's page watches the same tag)."""
    return _tag(night.id, night.version, night.viewer_key)


def _tag(night_id: int, version: int, viewer_key: str) -> str:
    """The live view's ETag: the version (the page's offline copy compares it) and an opaque rest.

    The rest is an HMAC of the night's id and players' link under the app's secret key:
    it changes with the night and the link, and says nothing of how many nights exist.
    """
    secret = current_app.config["SECRET_KEY"]
    key = secret.encode() if isinstance(secret, str) else secret
    digest = hmac.new(key, f"{night_id}:{viewer_key}".encode(), hashlib.sha256).hexdigest()[:20]
    return f"p-v{version}-{digest}"


def player_of(night_id: int, st: Standings) -> str | None:
    """The player this phone said it is at this night (its session's "me"), if they are seated."""
    me = session.get("me", {}).get(str(night_id))
    return me if isinstance(me, str) and st.seated(me) else None


def players_page(key: str, me: str | None) -> tuple[str, str, str | None]:
    """What the kept players' page depends on besides (night, version): the link it was opened by, and "me"."""
    return ("players", key, me)


@bp.get("")
def show(key: str):  # type: ignore[no-untyped-def]
    """The players' page: kept per version and "me" (issue 22), as the scorekeeper's pages are.

    One read of the night's version by its link and, when this process keeps the page at that
    version for this phone's player, nothing else.
    """
    link = viewer_link(key)
    if link is not None:
        st = service.derived(STANDINGS, link.id, link.version)
        if st is not None:
            page = kept_pages.kept_page(players_page(key, player_of(link.id, st)), link.id, link.version)
            if page is not None:
                return page
    night = viewer_night(key)
    st = standings_of(night, RECENT)
    me = player_of(night.id, st)
    return kept_pages.render_kept(players_page(key, me), night.id, night.version, lambda flashed: _render_show(night, st, me, flashed))


def _render_show(night: NightRow, st: Standings, me: str | None, flashed: object) -> str:
    stream_url = url_for("players.stream", key=request.view_args["key"]) if live_push.offered() else None  # type: ignore[index]
    return render_template(
        "players/show.html", night=night, st=st, me=me, etag=etag_of(night), flashed=flashed, stream_url=stream_url,
    )


def fragment(night_id: int, version: int, st: Standings, me: str | None) -> str:
    """The live part of the page (``players/_live.html``) for ``me``, rendered once per version and player."""
    what = f"live/{RECENT}/{me!r}"
    kept: str | None = service.derived(what, night_id, version)
    if kept is None:
        kept = render_template("players/_live.html", st=st, me=me)
        service.keep_derived(what, night_id, version, kept)
    return kept


@bp.get("/live")
def live(key: str):  # type: ignore[no-untyped-def]
    """The live part of the page, or 304 when the table has not changed (a browser without EventSource polls it).

    The night's version is read by its link first (one statement): an If-None-Match that holds the current
    ETag is answered 304 before the session is read or anything is rendered.  A scorekeeper's link (its
    page watches this too) or an unknown one (404, counted against the client) takes the ORM's path.
    """
    link = viewer_link(key)
    if link is not None:
        night_id, version, tag = link.id, link.version, _tag(link.id, link.version, link.viewer_key)
        if request.if_none_match.contains(tag):
            return _not_modified(tag)
        st = service.derived(STANDINGS, night_id, version)
        if st is not None:
            return _live_response(fragment(night_id, version, st, player_of(night_id, st)), tag)
    night = viewer_night(key)
    tag = etag_of(night)
    if request.if_none_match.contains(tag):
        return _not_modified(tag)
    st = standings_of(night, RECENT)
    return _live_response(fragment(night.id, night.version, st, player_of(night.id, st)), tag)


def _live_response(body: str, tag: str):  # type: ignore[no-untyped-def]
    response = make_response(body)
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-store"  # as every page a players' link opens
    return response


def _not_modified(tag: str):  # type: ignore[no-untyped-def]
    """A 304 with the Vary its 200 would carry (RFC 9110, 15.4.5): the fragment depends on the session."""
    response = make_response("", 304)
    response.set_etag(tag)
    response.vary.add("Cookie")
    return response


@bp.get("/stream")
def stream(key: str):  # type: ignore[no-untyped-def]
    """The live part of the page pushed at each change (Server-Sent Events; web/plumbing/live_push.py), its event id the
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
    return str(night.version), fragment(night.id, night.version, st, player_of(night.id, st))


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
