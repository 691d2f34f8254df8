"""A night of several games: the next game started from the table, the night counted once.

The night: Ann, Ben, Cat, Dan; Ann deals first; ante 1, 5 tokens, antes returned.
Game 1: antes 1 each (pot 4); Ben and Cat say Yes, Cat wins: Ben pays Cat 4; Dan alone
says Yes at stage 2: a token.  Then game 2 starts with Dan sitting out: ante 2, 1 token
wins.  Game 1 stops with its pot of 4 unfinished: each ante of 1 comes back, so it closes
at Ann 0, Ben −4, Cat +4, Dan 0.  In game 2 Ben deals; Ann alone says Yes: antes 2 each
(pot 6), her token wins the pot: Ann +4, Ben −2, Cat −2.  The night: Ann +4, Ben −6,
Cat +2, Dan 0; Ben pays Ann 4 and Cat 2.
"""

from __future__ import annotations

import json
import re

from companion.extensions import db
from companion.db.models import Event, Game, Night
from pages import TablePage


def next_game_page(client, page: TablePage, query: str = "") -> str:  # type: ignore[no-untyped-def]
    response = client.get(f"{page.url}/next-game{query}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def stamp_of(html: str) -> dict[str, str]:
    version = re.search(r'name="version"[^>]*value="(\d+)"', html)
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', html)
    assert version and key
    return {"version": version.group(1), "request_key": key.group(1)}


def second_game(**changes: object) -> dict[str, object]:
    form: dict[str, object] = {
        "game": "napalm", "players": ["Ann", "Ben", "Cat"], "first_dealer": "Ben",
        "ante": "2", "ante_every": "1", "tokens_to_win": "1", "unfinished_pot": "split_leaders",
    }
    form.update(changes)
    return form


def play_game_one(start_night) -> TablePage:  # type: ignore[no-untyped-def]
    page = start_night()
    page.declare("Ben", "Cat")
    page.winner("Cat")
    page.declare("Dan")
    assert [page.net(n) for n in ("Ann", "Ben", "Cat", "Dan")] == [-1, -5, 3, -1]
    return page


def test_the_next_game_is_offered_with_the_deal_passed_on_and_the_same_rules(start_night, client):
    page = play_game_one(start_night)
    assert f'href="{page.url}/next-game"' in page.html
    html = next_game_page(client, page)
    # everyone seated plays unless unticked; the hand in progress was Ann's deal: Ben deals next
    for name in ("Ann", "Ben", "Cat", "Dan"):
        assert re.search(rf'name="players" value="{name}" checked', html)
    assert re.search(r'<option selected value="Ben">Ben</option>|<option value="Ben" selected>Ben</option>', html)
    assert re.search(r'name="ante"[^>]*value="1"', html) and re.search(r'name="tokens_to_win"[^>]*value="5"', html)


def test_two_games_with_different_rules_are_counted_once_over_the_night(start_night, client, app):
    page = play_game_one(start_night)
    stamp = stamp_of(next_game_page(client, page))
    response = client.post(f"{page.url}/next-game", data={**stamp, **second_game()})
    assert response.status_code == 303
    page.refresh()
    assert "Game 2 of the night: Napalm starts, Ben deals." in page.html
    assert "Tonight's 2nd game: Napalm" in page.html
    # game 1 closed with its antes returned: the standings count the night
    assert [page.net(n) for n in ("Ann", "Ben", "Cat")] == [0, -4, 4]
    assert "Sitting this game out:" in page.html and "Dan 0" in page.html
    assert page.dealer() == "Ben" and page.pot() == 0
    page.declare("Ann")  # antes 2 each: pot 6; her lone Yes is her first token, and 1 wins
    assert [page.net(n) for n in ("Ann", "Ben", "Cat")] == [4, -6, 2]

    report = json.loads(client.get(f"{page.url}/report.json").get_data(as_text=True))
    assert {p["name"]: p["net_chips"] for p in report["players"]} == {"Ann": 4, "Ben": -6, "Cat": 2, "Dan": 0}
    assert sorted((p["from"], p["to"], p["chips"]) for p in report["payments"]) == [("Ben", "Ann", 4), ("Ben", "Cat", 2)]
    # money: a chip is worth 0.25 EUR
    assert {p["name"]: p["money"] for p in report["players"]} == {"Ann": "1.00", "Ben": "-1.50", "Cat": "0.50", "Dan": "0.00"}
    html = client.get(f"{page.url}/report").get_data(as_text=True)
    assert "1st game (Napalm), game 1" in html and "2nd game (Napalm), game 1" in html

    exported = json.loads(client.get(f"{page.url}/export.json").get_data(as_text=True))
    assert [(g["players"], g["first_dealer"], g["rules"]["ante"]) for g in exported["games"]] == [
        (["Ann", "Ben", "Cat", "Dan"], "Ann", 1), (["Ann", "Ben", "Cat"], "Ben", 2)
    ]
    assert exported["games"][1]["stages"] == [{"stage": 1, "yes": ["Ann"]}]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == page.key))
        assert [(g.position, g.kind) for g in night.games] == [(1, "napalm"), (2, "napalm")]
        kinds = [e.kind for e in db.session.scalars(db.select(Event).where(Event.night_id == night.id).order_by(Event.seq))]
        assert kinds == ["declare", "showdown", "declare", "game", "declare"]


def test_the_players_page_follows_the_night_into_its_next_game(start_night, client, app):
    page = play_game_one(start_night)
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == page.key))
    client.get(f"/p/{viewer}/me?name=Dan")
    stamp = stamp_of(next_game_page(client, page))
    client.post(f"{page.url}/next-game", data={**stamp, **second_game()})
    html = client.get(f"/p/{viewer}").get_data(as_text=True)
    assert "Tonight's 2nd game: Napalm" in html
    assert "<strong>Dan</strong> sits this game out: 0 chips tonight" in html
    assert "1st: Napalm" in html and "Ben -4" in html


def test_a_doubled_start_starts_one_game(start_night, client, app):
    page = play_game_one(start_night)
    stamp = stamp_of(next_game_page(client, page))
    first = client.post(f"{page.url}/next-game", data={**stamp, **second_game()})
    again = client.post(f"{page.url}/next-game", data={**stamp, **second_game()})
    assert first.status_code == again.status_code == 303
    page.refresh()
    assert "Already recorded: Game 2 of the night" in page.html
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 2


def test_a_stale_next_game_form_starts_nothing(start_night, client, app):
    page = play_game_one(start_night)
    stamp = stamp_of(next_game_page(client, page))
    page.declare()  # stage 3: nobody said Yes; the next-game form is now one action behind
    response = client.post(f"{page.url}/next-game", data={**stamp, **second_game()})
    assert response.status_code == 409
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 1


def test_a_next_game_the_rules_refuse_says_why_and_starts_nothing(start_night, client, app):
    page = play_game_one(start_night)
    cases = [
        (second_game(players=["Ann"], first_dealer="Ann"), 422, "Napalm needs 2 to 7 players, not 1"),
        (second_game(first_dealer="Dan"), 422, "first dealer &#39;Dan&#39; is not at this table"),
        (second_game(ante="-1"), 422, "Number must be between 0 and 1000000"),
        (second_game(players=["Ann", "Eve"]), 422, "is not a valid choice"),
        (second_game(game="bridge"), 400, "choose one of the games offered"),
        # no game chosen: the page's own game is shown again, saying why (it once said nothing, with a 422)
        (second_game(game=""), 422, "Not a valid choice"),
    ]
    for form, status, says in cases:
        stamp = stamp_of(next_game_page(client, page))
        response = client.post(f"{page.url}/next-game", data={**stamp, **form})
        assert response.status_code == status, (form, response.status_code)
        assert says in response.get_data(as_text=True), form
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 1


def test_the_next_game_can_start_from_one_of_a_games_offers_and_reuses_tonights_rules_for_it(app):
    """A pot game's preset is an offer: its rules are the preset's, or the last game played with it tonight."""
    from decimal import Decimal

    from companion import service as services
    from companion.games.napalm import Rules
    from companion.games.napalm import hand_history
    from security.support import napalm_night

    with app.app_context():
        night = napalm_night(
            "Offers", ["Ann", "Ben", "Cat"], "Ann", Rules(), hand_history.Settings(Decimal("0"), "", "return_antes")
        )
        # RULES-POKER.md: Tips to the Fat One starts from A=2, B=3 (pots 2, 3, 4, 6, 9)
        tips = services.next_game_defaults(night, "pots", {"preset": "tips_to_the_fat_one"})
        assert (tips.rules["preset"], tips.rules["stakes"]) == ("tips_to_the_fat_one", [2, 3, 4, 6, 9])
        nasdaq = services.next_game_defaults(night, "pots", {"preset": "nasdaq"})
        assert nasdaq.rules["preset"] == "nasdaq" and nasdaq.rules["high_low"] is True
        # High Card played tonight with an ante of 2: offered again with that ante, not the preset's 1
        started = services.start_game(
            night.id, "pots", ["Ann", "Ben", "Cat"], "Ann", {"preset": "high_card", "ante": 2}, 0, services.new_key()
        )
        assert started.seq == 1
        db.session.expire_all()
        again = services.next_game_defaults(db.session.get(Night, night.id), "pots", {"preset": "high_card"})
        assert (again.rules["preset"], again.rules["ante"]) == ("high_card", 2)
