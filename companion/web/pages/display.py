"""The table display: the night on a tablet or a TV, read only, by a link of its own (issue 39, docs/display.md).

``GET /d/<key>`` is the whole screen; its live part follows the table by ``/d/<key>/stream`` (Server-Sent
Events through the players' page's hub, web/plumbing/live_push.py: the same topic per night, a viewer kind of its
own) or, where the stream is not offered or the browser has no EventSource, by polling ``/d/<key>/live``
with the ETag it last saw (static/app.js, the players' page's code).  The display link opens these three
addresses and nothing else (web/plumbing/links.py, :func:`~companion.web.plumbing.links.display_night`); replaced or taken
back, it is an unknown link: 404, counted against the client.

The display knows no game by name: it shows the standings every page reads (:class:`Standings`), with the
game's own parts (its status, its columns and cells, its words for a record: templates/games/<kind>/parts.html),
as the players' page does.  A display is one screen per table, so nothing here is kept per version beyond
the standings themselves (web/pages/standings.py).
"""

from __future__ import annotations

import hashlib
import hmac

from flask import Blueprint, current_app, make_response, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from companion import service
from companion.service import NightRow
from companion.night.standings import Standings
from companion.web.plumbing import live_push
from companion.web.plumbing.links import display_night
from companion.web.pages.standings import RECENT, standings_of

bp = Blueprint("display", __name__, url_prefix="/d/<key>")

#: the display's kind of viewer in the night's topic: the players' pages' kinds are a player's name or None
VIEWER = ("display",)


def display_etag(night: NightRow, link: str) -> str:
    """The display's live part's ETag: its version (static/app.js reads ``-v<n>-``) and an HMAC of the night
    and the display link under the app's secret, which changes when the link is replaced."""
    secret = str(current_app.config["SECRET_KEY"]).encode()
    digest = hmac.new(secret, f"{night.id}:display:{link}".encode(), hashlib.sha256).hexdigest()[:20]
    return f"d-v{night.version}-{digest}"


def _fragment(night: NightRow, st: Standings) -> str:
    return render_template("display/_live.html", night=night, st=st)


@bp.get("")
def show(key: str):  # type: ignore[no-untyped-def]
    """The display page: the table's live part, full screen, kept awake where the browser can."""
    night = display_night(key)
    st = standings_of(night, RECENT)
    stream_url = url_for("display.stream", key=key) if live_push.offered() else None
    return render_template(
        "display/show.html", night=night, st=st, etag=display_etag(night, key), stream_url=stream_url,
        live_url=url_for("display.live", key=key),
    )


@bp.get("/live")
def live(key: str):  # type: ignore[no-untyped-def]
    """The live part, or 304 when the table has not changed since the ETag the display sends (the poll)."""
    night = display_night(key)
    tag = display_etag(night, key)
    if request.if_none_match.contains(tag):
        response = make_response("", 304)
    else:
        response = make_response(_fragment(night, standings_of(night, RECENT)))
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/stream")
def stream(key: str):  # type: ignore[no-untyped-def]
    """The live part pushed at each change, its event id the night's version (web/plumbing/live_push.py).

    A wrong, replaced or taken-back link is a 404 before anything is streamed; a link replaced or taken back
    while streaming ends the stream (the night's stamp no longer holds it), and the display's next ask gets
    that 404.  The fragment is rendered once per version for every display of the night (its viewer kind).
    """
    night = display_night(key)
    stamp = live_push.night_stamp(*service.night_stamps([night.id])[night.id])
    return live_push.stream(live_push.NIGHT, night.id, key, stamp, VIEWER, lambda: _pushed(key))


def _pushed(key: str) -> tuple[str, str] | None:
    """(the night's version, the display's live part) as the database has them now; None: the link opens nothing
    now (the stream ends)."""
    try:
        night = display_night(key)
    except HTTPException:
        return None
    return str(night.version), _fragment(night, standings_of(night, RECENT))
