"""The players' link: shown with its QR code, so the other phones at the table can open it; and new links.

``GET /k/<key>/share`` and ``/players-qr.svg``: the link as other phones must open it
(this machine's address on the local network when the app is opened on the machine
itself, with a warning when they cannot); ``POST /k/<key>/rotate``: replace the
players' or the scorekeeper's link, the old one then opens nothing.
"""

from __future__ import annotations

import re

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, url_for

from companion import service
from companion.db.models import Night
from companion.web import qr
from companion.web.addresses import shared_url
from companion.web.forms import KEY_PATTERN, RotateForm
from companion.web.links import keeper_night
from companion.web.security import RotationMemory
from companion.web.this_browser import remember

bp = Blueprint("share", __name__, url_prefix="/k/<key>")


def players_url(night: Night) -> tuple[str, str | None]:
    """The players' link as other phones must open it, and a warning when they can't."""
    return shared_url(url_for("players.show", key=night.viewer_key))


@bp.get("/share")
def show(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    url, warning = players_url(night)
    return render_template(
        "share/show.html",
        night=night,
        url=url,
        warning=warning,
        rotate=RotateForm(formdata=None),
        request_key=service.new_key(),  # makes a doubled "Make a new link" safe
    )


@bp.get("/players-qr.svg")
def players_qr(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    url, _ = players_url(night)
    return Response(qr.svg(url), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@bp.post("/rotate")
def rotate(key: str):  # type: ignore[no-untyped-def]
    request_key = request.form.get("request_key", "")
    rotations: RotationMemory = current_app.extensions["companion_rotations"]
    location, conflict = rotations.recall(request_key, key, request.form.get("which", ""))
    if conflict:
        message = "This form was already submitted with different content; nothing was changed."
        return render_template("error.html", code=409, error_message=message), 409
    if location is not None:  # a repeat of a rotation already made: the same answer
        flash("Already done: the new link is below; the old one no longer works.")
        return redirect(location, code=303)
    night = keeper_night(key)
    form = RotateForm()
    if not form.validate() or not re.fullmatch(KEY_PATTERN, request_key):
        abort(400, "choose which link to replace")
    service.rotate_link(night, form.which.data)
    remember(night)  # this browser's list knows the new scorekeeper link even if the answer is lost
    location = url_for("share.show", key=night.keeper_key)
    rotations.keep(request_key, key, form.which.data, location)
    flash("A new players' link is ready; the old one no longer works." if form.which.data == "viewer"
          else "A new scorekeeper link is ready; the old one no longer works. Keep this page's address.")
    return redirect(location, code=303)
