"""Dealer's choice (issue 13): the games the dealer may start next, the last played first.

``GET /k/<key>/choice`` (the scorekeeper's link; the players' link gets 403): each game
opens the next-game screen with that game picked (one more tap starts it); the Bonus
Round's last roll, if any, says which game it named.
"""

from __future__ import annotations

from flask import Blueprint, render_template, url_for

from companion.service import bank as bank_service
from companion import service
from companion.games import GAMES, title_of
from companion.games.web import SCREENS, offers_of
from companion.night.choice import as_offered, next_game_offers, with_names_played
from companion.web.pages.ledger_pages import next_dealer
from companion.web.plumbing.links import keeper_night

bp = Blueprint("choice", __name__, url_prefix="/k/<key>")


def _named_games() -> dict[tuple[str, str], str | None]:
    """Every game the app can start, by the name the group plays it under, in the group's own
    order: ``(kind, name)`` to the game's offer key (a game's screens may list ``offers()``, e.g.
    a pot game's presets), or None for a game offered once by its title."""
    named: dict[tuple[str, str], str | None] = {}
    for kind in GAMES:
        if kind not in SCREENS:
            continue
        listed = offers_of(kind)
        if not listed:
            named[(kind, GAMES[kind].title)] = None
        for offer, (name, _rules) in listed.items():
            named.setdefault((kind, name), offer)
    return named


@bp.get("/choice")
def show(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    named = _named_games()
    by_title = {kind for (kind, _name), offer in named.items() if offer is None}
    tonight = [(g.kind, title_of(g.kind, g.rules)) for g in service.played_games(night)]
    available = with_names_played(tonight, list(named), by_title)
    played = as_offered(tonight, available)
    last = bank_service.ledger_of(night).last_roll
    offers = [
        {
            "kind": kind,
            "offer": named.get((kind, name)),
            "title": name,
            "played": (kind, name) in played,
            # a preset by its offer key; a game offered by its title, or by a name played tonight,
            # by that name: its next-game screen starts from the last game played under it
            "url": url_for("next_game.start", key=night.keeper_key, game=kind,
                           **({"offer": named[(kind, name)]} if named.get((kind, name)) else {"named": name})),
        }
        for kind, name in next_game_offers(played, available)
    ]
    return render_template(
        "choice/show.html",
        night=night,
        offers=offers,
        dealer=next_dealer(night),
        rolled=last[1].action.game if last is not None else None,
    )
