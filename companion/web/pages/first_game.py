"""The first game of a night being set up: which games a night can start with, the night's form with a game's
rules, and that form shown again with another game's rules (*Show its rules*).

Plumbing shared by the pages that set a night up (the home page's *Start the night*, a group's *New night*):
no blueprint of its own, so neither page's blueprint imports the other's.
"""

from __future__ import annotations

from typing import Any

from flask import abort, url_for

from companion.games import GAMES
from companion.games.web import SCREENS
from companion.web.plumbing import post_redirect_get
from companion.web.forms import NightBaseForm, night_form_class, picked_another_game

__all__ = ["first_game_kind", "first_games", "night_form", "show_rules_of"]


def first_game_kind(source: Any) -> str:
    """The first game's short name a request asks for (default: the first game offered, the registry's
    first); 400 for one the app does not offer."""
    kind = source.get("game") or first_games()[0][0]
    if kind not in SCREENS or kind not in GAMES:
        abort(400, "choose one of the games offered")
    return kind


#: the night's fields that stay as typed when the first game's rules are shown anew
_NIGHT_FIELDS = ("name", *(f"seat_{i}" for i in range(1, 8)), "first_dealer", "chip_value", "currency")


def show_rules_of(kind: str, shown: str, asked: bool, here: str | None = None):  # type: ignore[no-untyped-def]
    """The night's form again with ``kind``'s rules (its defaults), the seats and money as typed, on the page
    ``here`` (the home page's address unless another: a group's *New night*).

    ``shown`` is the game whose rules the submitted page showed: its fields are the ones posted.
    Asked for (*Show its rules*, no JavaScript needed) it answers 200; a *Start the night* that
    picked another game than the one shown is refused (422) and says so.
    """
    posted = night_form(first_game_kind({"game": shown}))  # the fields the page showed, as typed
    fresh = night_form(kind, formdata=None)
    for name in _NIGHT_FIELDS:
        getattr(fresh, name).data = getattr(posted, name).data
    fresh.game.data = kind
    status = 200
    if not asked:
        fresh.form_errors.append(picked_another_game(kind, "Start the night"))
        status = 422
    return post_redirect_get.refuse(here or url_for("home.index"), status, form_name="night", form=fresh,
                                    data=post_redirect_get.typed(fresh))


def night_form(kind: str, **kwargs: Any) -> NightBaseForm:
    """The night's form with ``kind``'s rules as its first game's."""
    form = night_form_class(SCREENS[kind].rules_fields)(**kwargs)
    form.game.data = kind
    return form


def first_games() -> list[tuple[str, str]]:
    """(short name, title) of every game a night can start with: those with screens."""
    return [(kind, GAMES[kind].title) for kind in GAMES if kind in SCREENS]
