"""A night without Napalm speaks its own game's words (issue 23): Napalm is one game among others.

The table, the players' page (and its live part) and the history of a night whose only game is a
pot game, Nap or poker with real betting never say "token", "side bet" or "hand history": those
are Napalm's words.  A night of Napalm still does, where they are its own.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from sqlalchemy import select

from companion.extensions import db
from companion.db.models import Night
from pages import TablePage

SEATS = {"seat_1": "Ann", "seat_2": "Ben", "seat_3": "Cat", "seat_4": "Dan"}
NAPALM_WORDS = ("token", "side bet", "hand history")

#: each game as a night's first game: its rules' fields, and one action recorded in it
FIRST_GAMES = {
    # High Card, ante 1 from each of four: Cat wins the pot of 4
    "pots": ({"preset": "high_card", "ante": "1", "stake_a": "2", "stake_b": "3", "sale_limit": ""},
             "win", {"winner": "Cat", "pot": "pot"}),
    # Nap, stake 1: Ben bids 2 and makes it: each other player pays him 2
    "nap": ({"variant": "plain", "stake": "1", "misere": "y"}, "deal", {"bidder": "Ben", "bid": "2", "result": "made"}),
    # poker with real betting: the deal is played (the chips on the table settle it)
    "betting": ({"variant": "Texas hold'em"}, "deal", {}),
}


def words_of(html: str) -> str:
    return unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split())).lower()


def start(client, kind: str) -> TablePage:  # type: ignore[no-untyped-def]
    rules, action, data = FIRST_GAMES[kind]
    response = client.post("/nights", data={
        "game": kind, "rules_of": kind, "name": "Friday", **SEATS, "first_dealer": "1", "chip_value": "0.25",
        "currency": "EUR", **rules,
    })
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    page = TablePage(client, response.headers["Location"])
    recorded = page.post(action, data)
    assert recorded.status_code == 303, page.html[:2000]
    return page


def viewer_of(app, page: TablePage) -> str:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.scalar(select(Night.viewer_key).where(Night.keeper_key == page.key))


@pytest.mark.parametrize("kind", sorted(FIRST_GAMES))
def test_no_page_of_a_night_without_napalm_says_token_side_bet_or_hand_history(app, client, kind):
    page = start(client, kind)
    viewer = viewer_of(app, page)
    pages = {
        "table": page.url, "history": f"{page.url}/history", "players": f"/p/{viewer}",
        "live": f"/p/{viewer}/live",
    }
    for name, path in pages.items():
        response = client.get(path)
        assert response.status_code == 200, path
        text = words_of(response.get_data(as_text=True))
        if name != "players":  # the page itself and its live part list the action recorded
            assert "nothing recorded yet" not in text, f"{kind}'s {name} page"
        said = [word for word in NAPALM_WORDS if word in text]
        assert said == [], f"{kind}'s {name} page says {said}"


def test_the_history_of_a_napalm_night_still_says_tokens_where_they_move(start_night, client):
    page = start_night()  # Napalm: Ann, Ben, Cat, Dan; Ann deals; ante 1, 5 tokens
    history = words_of(client.get(f"{page.url}/history").get_data(as_text=True))
    assert "chips and tokens" not in history  # nothing recorded: nothing moved yet
    page.declare("Ben")  # the ante, and Ben's lone Yes: a token to Ben
    history = words_of(client.get(f"{page.url}/history").get_data(as_text=True))
    assert "chips and tokens" in history and "ben +1 token" in history
