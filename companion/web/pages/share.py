"""The night's links: the players' link with its QR code, the table display's, the keeper phones, and new links.

``GET /k/<key>/share`` and ``/players-qr.svg``: the players' link as other phones must open it
(this machine's address on the local network when the app is opened on the machine
itself, with a warning when they cannot); ``POST /k/<key>/rotate``: replace the
players' or this phone's scorekeeper link, the old one then opens nothing.

The keeper phones (issue 39, docs/keepers.md): the share page lists which phones keep score, each
other phone's link with its QR code; ``POST /k/<key>/phones`` gives another phone a keeper link of
its own, named; ``GET /k/<key>/phones/take-back?phone=…`` asks once more, in words, and ``POST``
there takes a phone's link back (this phone's own: "hand over and leave").

The table display (issue 39, docs/display.md): ``POST /k/<key>/display`` makes its read-only link (a new one
replaces the old) or takes it back; the share page shows it with its QR code.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, url_for

from companion import service
from companion.service import NightRow
from companion.web.plumbing import post_redirect_get, qr
from companion.web.plumbing.addresses import shared_url
from companion.games import IllegalAction
from companion.web.forms import KEY_PATTERN, DisplayLinkForm, KeeperPhoneForm, RotateForm, TakeBackForm, fresh
from companion.web.plumbing.links import KeeperPhone, keeper_night, this_phone
from companion.web.plumbing.security import RotationMemory
from companion.web.plumbing.this_browser import remember, remember_link

bp = Blueprint("share", __name__, url_prefix="/k/<key>")


def players_url(night: NightRow) -> tuple[str, str | None]:
    """The players' link as other phones must open it, and a warning when they can't."""
    return shared_url(url_for("players.show", key=night.viewer_key))


def qr_image(url: str, title: str) -> str:
    """``url``'s QR code as an image's address (``data:``): a phone's own link, shown on the share page
    without a route of its own (every route takes the night's link alone)."""
    return "data:image/svg+xml;base64," + base64.b64encode(qr.svg(url, title=title).encode()).decode("ascii")


def render_share(night: NightRow, phone_form: Any = None, status: int = 200):  # type: ignore[no-untyped-def]
    """The share page: the players' link, the keeper phones (this one marked), and the forms that change them."""
    url, warning = players_url(night)
    me = this_phone()
    keepers = service.keepers_of(night.id)
    made = request.args.get("made", "")
    phones = []
    for phone in keepers.others:
        link = shared_url(url_for("table.show", key=phone.key))[0]
        phones.append({
            "id": phone.id, "name": phone.name, "url": link, "me": me is not None and me.id == phone.id,
            "qr": qr_image(link, f"QR code of {phone.name}'s keeper link"), "open": made == str(phone.id),
        })
    display = None
    display_key = service.display_key_of(night.id)
    if display_key is not None:
        link = shared_url(url_for("display.show", key=display_key))[0]
        display = {"url": link, "qr": qr_image(link, "QR code of the table display's link")}
    if phone_form is None:
        phone_form = KeeperPhoneForm(formdata=None)
        phone_form.request_key.data = service.new_key()
    return render_template(
        "share/show.html",
        night=night,
        url=url,
        warning=warning,
        rotate=RotateForm(formdata=None),
        request_key=service.new_key(),  # makes a doubled "Make a new link" safe
        keepers=keepers,
        phones=phones,
        first_is_me=me is None,
        phone_form=phone_form,
        display=display,
        display_form=DisplayLinkForm(formdata=None),
    ), status


@bp.get("/share")
def show(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    kept = post_redirect_get.recall()
    if kept is None or kept.form != "phone":
        return render_share(night)
    form = kept.refill(KeeperPhoneForm(formdata=None))
    form.request_key.data = service.new_key()
    return render_share(night, form, kept.status)


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
    me = this_phone()
    if me is not None and form.which.data == "keeper":  # a keeper phone's "scorekeeper link" is its own
        try:
            new = service.replace_phone_link(night.id, me.id)
        except IllegalAction as error:
            abort(422, str(error))
        remember_link(night.id, new)  # this browser's list opens the night by the new link, even if the answer is lost
        location = url_for("share.show", key=new)
        rotations.keep(request_key, key, form.which.data, location)
        flash("A new keeper link for this phone is ready; the old one no longer works. Keep this page's address.")
        return redirect(location, code=303)
    service.rotate_link(night, form.which.data)
    remember(night)  # this browser's list knows the new scorekeeper link even if the answer is lost
    location = url_for("share.show", key=night.keeper_key)
    rotations.keep(request_key, key, form.which.data, location)
    flash("A new players' link is ready; the old one no longer works." if form.which.data == "viewer"
          else "A new scorekeeper link is ready; the old one no longer works. Keep this page's address.")
    return redirect(location, code=303)


# --- the table display -------------------------------------------------------------------------


@bp.post("/display")
def display_link(key: str):  # type: ignore[no-untyped-def]
    """Make the night's table display link (a new one replaces the old), or take it back (docs/display.md).

    Either way the old display link opens nothing from then on (404, as any unknown link); nothing in the
    ledger changes.  A doubled tap makes a second new link (the first was never scanned: the page shows the
    second) or finds the link taken back already, and says so."""
    night = keeper_night(key)
    form = DisplayLinkForm()
    if not form.validate():
        abort(400, "choose whether to make a new display link or take it back")
    back = url_for("share.show", key=night.keeper_key, _anchor="display-h")
    if form.do.data == "new":
        had = service.display_key_of(night.id) is not None
        service.new_display_link(night.id)
        flash("A new display link is ready; the old one no longer works. Scan this QR code with the tablet or TV."
              if had else "Scan this QR code with the tablet or TV: it shows the table, and can change nothing.")
    elif service.take_back_display_link(night.id):
        flash("The display link is taken back: the table display shows nothing now.")
    else:
        flash("The display link was taken back already; nothing was changed.")
    return redirect(back, code=303)


# --- the keeper phones ------------------------------------------------------------------------


@bp.post("/phones")
def make_phone(key: str):  # type: ignore[no-untyped-def]
    """Give another phone a keeper link of its own, named: the share page then shows its QR code, open."""
    night = keeper_night(key)
    form = KeeperPhoneForm()
    # a refusal goes back to the share page as every refused form does (web/plumbing/post_redirect_get.py): what was
    # typed and why, kept apart from the session cookie, shown at the form
    location = url_for("share.show", key=night.keeper_key)
    if not form.validate():
        return post_redirect_get.refuse(location, 422, form_name="phone", form=form, anchor="keepers-h")
    try:
        phone = service.make_keeper_link(night.id, form.name.data or "", form.request_key.data)
    except IllegalAction as error:
        form.name.errors = [str(error)]
        return post_redirect_get.refuse(location, 422, form_name="phone", form=form, anchor="keepers-h")
    flash(f"Scan this QR code with {phone.name}: it keeps score as this phone does, until its link is taken back.")
    return redirect(url_for("share.show", key=night.keeper_key, made=phone.id, _anchor=f"phone-{phone.id}"), code=303)


def _named(night: NightRow, which: str, me: KeeperPhone | None) -> tuple[int | None, str, bool] | None:
    """(phone id, its name, whether it is this phone) of the keeper phone ``which`` names, or None."""
    keepers = service.keepers_of(night.id)
    if which == "first":
        return (None, service.recorded_by_words(service.FIRST_PHONE), me is None) if keepers.first_phone else None
    for phone in keepers.others:
        if str(phone.id) == which:
            return phone.id, phone.name, me is not None and me.id == phone.id
    return None


@bp.get("/phones/take-back")
def confirm_take_back(key: str):  # type: ignore[no-untyped-def]
    """Ask once more, in words, before a keeper phone's link is taken back (this phone's: hand over and leave)."""
    night = keeper_night(key)
    back = url_for("share.show", key=night.keeper_key)
    heading = "Take back a keeper phone's link"
    named = _named(night, request.args.get("phone", "")[:12], this_phone())
    if named is None:
        return render_template("confirm.html", heading=heading, form=None, back=back,
                               message="Choose a phone that keeps score. Nothing was changed."), 422
    phone_id, name, mine = named
    others = [n for n in service.keepers_of(night.id).names if n != name]
    if not others:
        return render_template("confirm.html", heading=heading, form=None, back=back, message=(
            f"{name} is the only phone keeping score: give another phone a keeper link before it leaves."
        )), 422
    form = fresh(TakeBackForm(formdata=None), night.version)
    still = ", ".join(others)
    if mine:
        question = f"hand the table over and leave? This phone's link opens nothing from then on; {still} keep{'s' if len(others) == 1 else ''} score."
        yes = "Yes, hand over and leave"
    else:
        question = f"take back {name}'s link? It opens nothing from then on; {still} keep{'s' if len(others) == 1 else ''} score."
        yes = f"Yes, take back {name}'s link"
    return render_template(
        "confirm.html", heading="Hand over and leave" if mine else heading,
        action=url_for("share.take_back", key=night.keeper_key), form=form,
        fields={"phone": "first" if phone_id is None else str(phone_id)}, question=question,
        details=[f"Everything {name} recorded stays, recorded by {name}: a link taken back edits no record."],
        yes=yes, back=back,
    )


@bp.post("/phones/take-back")
def take_back(key: str):  # type: ignore[no-untyped-def]
    """Take back a keeper phone's link, once confirmed; this phone's own: it leaves for the home page."""
    request_key = request.form.get("request_key", "")
    which = request.form.get("phone", "")[:12]
    rotations: RotationMemory = current_app.extensions["companion_rotations"]
    location, conflict = rotations.recall(request_key, key, "take-back:" + which)
    if conflict:
        message = "This form was already submitted with different content; nothing was changed."
        return render_template("error.html", code=409, error_message=message), 409
    if location is not None:  # the same confirm tapped twice: its own link may be gone already
        return redirect(location, code=303)
    night = keeper_night(key)
    form = TakeBackForm()
    if not form.validate():
        abort(400, "say which phone's link to take back")
    me = this_phone()
    named = _named(night, which, me)
    back = url_for("share.show", key=night.keeper_key)
    if named is None:
        flash("That phone's link was taken back already; nothing was changed.")
        return redirect(back, code=303)
    phone_id, name, mine = named
    try:
        done = service.take_back_keeper_link(night.id, phone_id)
    except IllegalAction as error:
        return render_template("confirm.html", heading="Take back a keeper phone's link", form=None, back=back,
                               message=f"{error}. Nothing was changed."), 422
    location = url_for("home.index") if mine else back
    rotations.keep(request_key, key, "take-back:" + which, location)
    if mine:
        flash("This phone handed the table over: its link opens nothing now. Nothing recorded was lost.")
    else:
        flash(f"{done.name}'s link is taken back: it opens nothing now. What it recorded stays.")
    return redirect(location, code=303)
