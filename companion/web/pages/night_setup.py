"""The night's setup before play: its name, seats, first dealer, first game's rules and money.

``GET|POST /k/<key>/setup``: the night's form filled in as the night stands; saving it
is refused (409) once play has started, since the seating and rules are then part of
what was recorded.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from companion import service
from companion.service import NightRow
from companion.games.protocol import IllegalAction
from companion.games.web import SCREENS
from companion.night.file import Money
from companion.web.plumbing import post_redirect_get
from companion.web.forms import NightBaseForm, move_seat_up, night_form_class
from companion.web.plumbing.links import keeper_night

bp = Blueprint("setup", __name__, url_prefix="/k/<key>")

#: what a save is told once play has started
PLAY_HAS_STARTED = "Play has started: the seating and rules can no longer change."


def _refused(night: NightRow) -> Any:
    """A save after play started, redirected to the table with its message (see post_redirect_get.py)."""
    location = url_for("table.show", key=night.keeper_key)
    return post_redirect_get.refuse(location, 409, message=PLAY_HAS_STARTED, version=night.version)


def _setup_form_class(night: NightRow) -> type[NightBaseForm]:
    return night_form_class(SCREENS[night.first_game.kind].rules_fields)


def _setup_form(night: NightRow) -> NightBaseForm:
    form = _setup_form_class(night)(formdata=None)
    form.name.data = night.name
    for field, name in zip(form.seat_fields(), night.players):
        field.data = name
    game = night.first_game
    form.game.data = game.kind
    form.first_dealer.data = str(night.players.index(game.first_dealer) + 1)
    SCREENS[game.kind].fill_rules(form, game.rules)
    form.chip_value.data = f"{night.chip_value.normalize():f}" if night.chip_value else ""
    form.currency.data = night.currency
    form.submit.label.text = "Save the setup"
    return form


def _render_setup(night: NightRow, form: NightBaseForm, status: int = 200):  # type: ignore[no-untyped-def]
    rules_template = SCREENS[night.first_game.kind].rules_template
    return render_template("setup/edit.html", night=night, form=form, rules_template=rules_template), status


@bp.route("/setup", methods=["GET", "POST"])
def edit(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    if night.version != 0 and request.method == "POST":
        return _refused(night)
    if request.method != "POST":  # GET and HEAD show the form; only POST submits it
        kept = post_redirect_get.recall(0)
        if kept is None or kept.form != "setup":
            return _render_setup(night, _setup_form(night))
        form = kept.refill(_setup_form(night))
        form.game.data = night.first_game.kind
        return _render_setup(night, form, kept.status)
    form = _setup_form_class(night)()
    form.game.data = night.first_game.kind  # the first game's kind is not changed here
    form.submit.label.text = "Save the setup"
    location = url_for("setup.edit", key=night.keeper_key)
    if move_seat_up(form):
        return post_redirect_get.refuse(location, 200, form_name="setup", form=form, data=post_redirect_get.typed(form), version=0)
    if form.validate():
        try:
            service.update_setup(
                night,
                form.name.data or "",
                form.players(),
                form.first_dealer_name(),
                SCREENS[night.first_game.kind].rules_from_form(form),
                Money(form.chip_value_decimal(), (form.currency.data or "").strip()),
                expected_version=0,
            )
        except IllegalAction as error:
            form.seat_1.errors = [*form.seat_1.errors, str(error)]
        except service.StaleTable:
            return _refused(night)
        else:
            flash("Setup saved.")
            return redirect(url_for("table.show", key=night.keeper_key), code=303)
    return post_redirect_get.refuse(location, 422, form_name="setup", form=form, version=0)
