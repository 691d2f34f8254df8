"""The night's next game: the game at the table stops, and the next starts with its players and rules.

``GET|POST /k/<key>/next-game?game=<kind>[&offer=<preset>|&named=<name>]``: the game's players,
first dealer and rules, proposed from the night so far (``named``: from the last game played
under that name, as dealer's choice offers it); picking another game shows its own
rules before anything starts (issue 20, item 5).  Dealer's choice (web/pages/choice.py) opens
it with a game picked.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from companion import service
from companion.service import NightRow
from companion.games import GAMES, title_of
from companion.games.protocol import IllegalAction
from companion.games.web import SCREENS, game_picks, offer_matching, offers_of, pick_of, read_pick
from companion.web.plumbing import post_redirect_get
from companion.web.plumbing import tap_guard
from companion.web.forms import fresh, next_game_form_class, picked_another_game
from companion.web.plumbing.links import keeper_night, recorded_by
from companion.web.plumbing.stale import refusal_words
from companion.web.pages.standings import standings_of

bp = Blueprint("next_game", __name__, url_prefix="/k/<key>")


def _refused(night: NightRow, message: str) -> Any:
    """A stale or doubled start, redirected to the table with its message (see post_redirect_get.py)."""
    location = url_for("table.show", key=night.keeper_key)
    return post_redirect_get.refuse(location, 409, message=message, version=night.version)


def _next_game_form(night: NightRow, kind: str, formdata: Any = None) -> Any:
    screens = SCREENS[kind]
    form = next_game_form_class(screens.rules_fields)(formdata=formdata)
    # the list offers each game once by its name (game_picks); a bare kind still reads (a page of before)
    form.game.choices = game_picks() + [(k, GAMES[k].title) for k in GAMES if k in SCREENS and offers_of(k)]
    form.players.choices = [(n, n) for n in night.players]
    form.first_dealer.choices = [(n, n) for n in night.players]
    return form


def _offer_of(kind: str, key: str | None) -> tuple[str, tuple[str, Any]] | None:
    """One of the game's offers (``?offer=``: a game the group plays under its own name), or None."""
    found = offers_of(kind).get(key or "")
    return (str(key), found) if found is not None else None


def _named_of(night: NightRow, kind: str, raw: str | None) -> str | None:
    """``?named=``: the game's title or a name a game of ``kind`` was played under tonight, else None
    (a name the night never used is not shown as the game's heading)."""
    if not raw:
        return None
    names = {GAMES[kind].title} | {title_of(g.kind, g.rules) for g in service.played_games(night) if g.kind == kind}
    return raw if raw in names else None


def _render_next_game(  # type: ignore[no-untyped-def]
    night: NightRow, kind: str, form: Any, status: int = 200, message: str | None = None, offer: Any = None,
    named: str | None = None,
):
    return (
        render_template(
            "next_game/start.html", night=night, form=form, kind=kind,
            title=offer[1][0] if offer is not None else named or GAMES[kind].title,
            offer=offer[0] if offer is not None else None,
            picks=game_picks(),
            # the offer goes in the game list's value; a name the game was played under, in the address
            action_args={"named": named} if named else {},
            rules_template=SCREENS[kind].rules_template, st=standings_of(night), message=message,
            stopping=service.play_for(night).current.stopping(),
        ),
        status,
    )


@bp.route("/next-game", methods=["GET", "POST"])
def start(key: str):  # type: ignore[no-untyped-def]
    """Start the night's next game: the one at the table stops, and its closing applies from then on."""
    night = keeper_night(key)
    # the game list's value: a kind, or a kind and one of its offers ("pots:high_card"); else ?offer=
    picked = request.values.get("game") or service.play_for(night).current.setup.kind
    kind, offer_key = read_pick(picked)
    if kind not in SCREENS or kind not in GAMES:
        abort(400, "choose one of the games offered")
    offer = _offer_of(kind, offer_key or request.values.get("offer"))
    named = None if offer is not None else _named_of(night, kind, request.values.get("named"))
    if request.method != "POST":
        if offer is None and offers_of(kind):  # a game listed by its offers shows one: the one played last
            offer = _offer_of(kind, offer_matching(kind, service.next_game_defaults(night, kind).rules))
        kept = post_redirect_get.recall(night.version)
        form = _next_game_form(night, kind)
        if kept is not None and kept.form == "next_game":  # the refused form, as typed, with its errors
            kept.refill(form)
        else:
            defaults = service.next_game_defaults(night, kind, offer[1][1] if offer is not None else None, named)
            form.players.data = list(defaults.players)
            form.first_dealer.data = defaults.first_dealer
            SCREENS[kind].fill_rules(form, defaults.rules)
        form.game.data = pick_of(kind, offer[0] if offer is not None else None)
        fresh(form, night.version)
        status = kept.status if kept is not None else 200
        return _render_next_game(night, kind, form, status, message=kept.message if kept else None, offer=offer,
                                 named=named)
    location = url_for("next_game.start", key=night.keeper_key, game=kind,
                       **({"offer": offer[0]} if offer is not None else {"named": named} if named else {}))
    # the page says which game's rules and players it showed; one that says nothing showed the picked game's
    shown = request.form.get("rules_of") or picked
    if shown != picked or request.form.get("show_rules"):
        # the picked game's own rules and players, shown before anything starts (issue 20, item 5)
        if read_pick(shown)[0] not in SCREENS:
            abort(400, "choose one of the games offered")
        if request.form.get("show_rules"):
            return post_redirect_get.refuse(location, 200, version=night.version)
        title = offer[1][0] if offer is not None else None
        return post_redirect_get.refuse(location, 422, message=picked_another_game(kind, "Start this game", title),
                                        version=night.version)
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
        now = service.night_again(night.id)
        return _refused(now, refusal_words(refusal, now, form.version.data))
    flash(("Already recorded: " if result.repeated else "") + result.summary)
    return redirect(url_for("table.show", key=night.keeper_key), code=303)
