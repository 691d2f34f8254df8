"""The night's next game: the game at the table stops, and the next starts with its players and rules.

``GET|POST /k/<key>/next-game?game=<kind>[&offer=<preset>]``: the game's players, first
dealer and rules, proposed from the night so far; picking another game shows its own
rules before anything starts (issue 20, item 5).  Dealer's choice (web/choice.py) opens
it with a game picked.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from companion import service
from companion.extensions import db
from companion.db.models import Night
from companion.games import GAMES
from companion.games.protocol import IllegalAction
from companion.games.web import SCREENS, offers_of
from companion.web import post_redirect_get
from companion.web import tap_guard
from companion.web.forms import fresh, next_game_form_class, picked_another_game
from companion.web.links import keeper_night, recorded_by
from companion.web.stale import refusal_words
from companion.web.standings import standings_of

bp = Blueprint("next_game", __name__, url_prefix="/k/<key>")


def _refused(night: Night, message: str) -> Any:
    """A stale or doubled start, redirected to the table with its message (see post_redirect_get.py)."""
    location = url_for("table.show", key=night.keeper_key)
    return post_redirect_get.refuse(location, 409, message=message, version=night.version)


def _next_game_form(night: Night, kind: str, formdata: Any = None) -> Any:
    screens = SCREENS[kind]
    form = next_game_form_class(screens.rules_fields)(formdata=formdata)
    form.game.choices = [(k, GAMES[k].title) for k in GAMES if k in SCREENS]
    form.players.choices = [(n, n) for n in night.players]
    form.first_dealer.choices = [(n, n) for n in night.players]
    return form


def _offer_of(kind: str, key: str | None) -> tuple[str, tuple[str, Any]] | None:
    """One of the game's offers (``?offer=``: a game the group plays under its own name), or None."""
    found = offers_of(kind).get(key or "")
    return (str(key), found) if found is not None else None


def _render_next_game(  # type: ignore[no-untyped-def]
    night: Night, kind: str, form: Any, status: int = 200, message: str | None = None, offer: Any = None
):
    return (
        render_template(
            "next_game/start.html", night=night, form=form, kind=kind,
            title=offer[1][0] if offer is not None else GAMES[kind].title,
            offer=offer[0] if offer is not None else None,
            rules_template=SCREENS[kind].rules_template, st=standings_of(night), message=message,
            stopping=service.play_for(night).current.stopping(),
        ),
        status,
    )


@bp.route("/next-game", methods=["GET", "POST"])
def start(key: str):  # type: ignore[no-untyped-def]
    """Start the night's next game: the one at the table stops, and its closing applies from then on."""
    night = keeper_night(key)
    kind = request.values.get("game") or service.play_for(night).current.setup.kind
    if kind not in SCREENS or kind not in GAMES:
        abort(400, "choose one of the games offered")
    offer = _offer_of(kind, request.values.get("offer"))
    location = url_for("next_game.start", key=night.keeper_key, game=kind,
                       **({"offer": offer[0]} if offer is not None else {}))
    if request.method != "POST":
        kept = post_redirect_get.recall(night.version)
        form = _next_game_form(night, kind)
        if kept is not None and kept.form == "next_game":  # the refused form, as typed, with its errors
            kept.refill(form)
            form.game.data = kind
        else:
            defaults = service.next_game_defaults(night, kind, offer[1][1] if offer is not None else None)
            form.game.data = kind
            form.players.data = list(defaults.players)
            form.first_dealer.data = defaults.first_dealer
            SCREENS[kind].fill_rules(form, defaults.rules)
        fresh(form, night.version)
        status = kept.status if kept is not None else 200
        return _render_next_game(night, kind, form, status, message=kept.message if kept else None, offer=offer)
    shown = request.form.get("rules_of") or kind  # a page that says nothing showed the picked game's
    if shown != kind or request.form.get("show_rules"):
        # the picked game's own rules and players, shown before anything starts (issue 20, item 5)
        if shown not in SCREENS:
            abort(400, "choose one of the games offered")
        if request.form.get("show_rules"):
            return post_redirect_get.refuse(location, 200, version=night.version)
        return post_redirect_get.refuse(location, 422, message=picked_another_game(kind, "Start this game"), version=night.version)
    form = _next_game_form(night, kind, request.form)
    if not form.validate():
        return post_redirect_get.refuse(location, 422, form_name="next_game", form=form, version=night.version)
    if tap_guard.too_soon(night, form.version.data):
        return _refused(night, tap_guard.TOO_SOON)
    try:
        result = service.start_game(
            night.id, kind, form.players.data, form.first_dealer.data, SCREENS[kind].rules_from_form(form),
            form.version.data, form.request_key.data, recorded_by=recorded_by(),
        )
    except IllegalAction as error:
        form.form_errors.append(str(error))
        return post_redirect_get.refuse(location, 422, form_name="next_game", form=form, version=night.version)
    except (service.StaleTable, service.KeyConflict) as refusal:
        db.session.expire_all()
        now = db.session.get(Night, night.id)
        return _refused(now, refusal_words(refusal, now, form.version.data))
    flash(("Already recorded: " if result.repeated else "") + result.summary)
    return redirect(url_for("table.show", key=night.keeper_key), code=303)
