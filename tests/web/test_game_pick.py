"""The game picked from the list is the game that starts (issue 20, item 5).

The list of games used to sit in a form of its own ("Show its rules", a GET), while
*Start* sent the other form, which named the game whose rules were shown: picking
Nap and tapping *Start this game* started Napalm.  Now the list is part of the form
that starts the game, and the form says whose rules it showed (``rules_of``): a start
that picked another game than the one shown starts nothing and shows the picked
game's rules, with a sentence that says so.
"""

from __future__ import annotations

import re

from companion.extensions import db
from companion.db.models import Game, Night
from pages import night_form
from web.test_night_of_games import next_game_page, play_game_one, second_game, stamp_of


def post_form_of(html: str, action: str) -> str:
    """The inside of the page's POST form that posts to ``action``."""
    found = re.search(rf'<form method="post" action="{re.escape(action)}[^"]*"[^>]*>(.*?)</form>', html, re.S)
    assert found, f"no POST form to {action}"
    return found.group(1)


def games_of(app) -> list[str]:  # type: ignore[no-untyped-def]
    with app.app_context():
        return [g.kind for g in db.session.query(Game).order_by(Game.night_id, Game.position)]


# --- the next-game screen -------------------------------------------------------------------


def test_the_game_list_is_in_the_form_that_starts_the_next_game(start_night, client):
    page = play_game_one(start_night)
    form = post_form_of(next_game_page(client, page), f"{page.url}/next-game")
    assert re.search(r'<select[^>]*name="game"', form), "the Game list must be sent by Start this game"
    assert re.search(r'name="rules_of" value="napalm"', form)


def test_a_start_that_picked_nap_under_napalms_rules_starts_nothing_and_shows_naps_rules(start_night, client, app):
    page = play_game_one(start_night)
    stamp = stamp_of(next_game_page(client, page))
    version = int(stamp["version"])
    # the page showed Napalm's rules; the list was switched to Nap and Start tapped
    shown = client.post(f"{page.url}/next-game", data={**stamp, **second_game(game="nap", rules_of="napalm")})
    assert shown.history[0].status_code == 303 and "game=nap" in shown.history[0].headers["Location"]
    assert games_of(app) == ["napalm"]  # nothing started
    with app.app_context():
        assert db.session.query(Night).one().version == version
    assert shown.status_code == 422
    html = shown.get_data(as_text=True)
    assert "You picked Nap: nothing has started yet." in html
    form = post_form_of(html, f"{page.url}/next-game")
    assert 'name="rules_of" value="nap"' in form and 'name="variant"' in form and 'name="ante"' not in form
    assert re.search(r'<option selected value="nap">|<option value="nap" selected>', form)
    # the second tap, on Nap's own rules, starts Nap
    response = client.post(f"{page.url}/next-game", data={
        **stamp_of(html), "game": "nap", "rules_of": "nap", "players": ["Ann", "Ben", "Cat", "Dan"],
        "first_dealer": "Ben", "variant": "plain", "misere": "y", "stake": "1",
    })
    assert response.status_code == 303
    assert games_of(app) == ["napalm", "nap"]


def test_show_its_rules_posts_the_form_and_starts_nothing(start_night, client, app):
    page = play_game_one(start_night)
    stamp = stamp_of(next_game_page(client, page))
    shown = client.post(f"{page.url}/next-game", data={
        **stamp, **second_game(game="nap", rules_of="napalm", show_rules="1")})
    assert shown.history[0].status_code == 303 and games_of(app) == ["napalm"]
    assert shown.status_code == 200
    html = shown.get_data(as_text=True)
    assert "nothing has started" not in html and 'name="rules_of" value="nap"' in html


def test_a_rules_of_that_is_no_game_is_refused(start_night, client, app):
    page = play_game_one(start_night)
    stamp = stamp_of(next_game_page(client, page))
    response = client.post(f"{page.url}/next-game", data={**stamp, **second_game(rules_of="chess")})
    assert response.status_code == 400 and games_of(app) == ["napalm"]


# --- the home page's First game ------------------------------------------------------------


def test_the_first_game_list_is_in_the_form_that_starts_the_night(client):
    form = post_form_of(client.get("/").get_data(as_text=True), "/nights")
    assert re.search(r'<select[^>]*name="game"', form), "the First game list must be sent by Start the night"
    assert 'name="rules_of" value="napalm"' in form


def test_a_night_started_with_nap_picked_under_napalms_rules_shows_naps_rules_with_the_seats_kept(client, app):
    shown = client.post("/nights", data=night_form(game="nap", rules_of="napalm", name="Picked Nap"))
    assert shown.history[0].headers["Location"].startswith("/?refused=")
    with app.app_context():
        assert db.session.query(Night).count() == 0
    assert shown.status_code == 422
    html = shown.get_data(as_text=True)
    assert "You picked Nap: nothing has started yet." in html
    form = post_form_of(html, "/nights")
    assert 'name="rules_of" value="nap"' in form and 'name="variant"' in form and 'name="ante"' not in form
    # what was typed stays: the name, the seats, the money; Nap's rules are its defaults (Misère on)
    assert 'value="Picked Nap"' in form and 'value="Dan"' in form and 'value="0.25"' in form
    assert re.search(r'name="misere"[^>]*checked|checked[^>]*name="misere"', form)
    assert not re.search(r'name="wellington"[^>]*checked|checked[^>]*name="wellington"', form)


def test_show_its_rules_on_the_home_page_keeps_what_was_typed(client, app):
    shown = client.post("/nights", data=night_form(game="nap", rules_of="napalm", show_rules="1"))
    assert shown.history[0].status_code == 303
    with app.app_context():
        assert db.session.query(Night).count() == 0
    assert shown.status_code == 200
    form = post_form_of(shown.get_data(as_text=True), "/nights")
    assert 'value="Ann"' in form and 'value="Friday"' in form and 'name="stake"' in form
