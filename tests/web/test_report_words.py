"""Issue 23: the report of a night without Napalm speaks its game's words, on every page and download.

Two nights, each imported from a night file and worked out by hand:

* **Pool Nap**, stake 1, Ann deals first (RULES-NAP.md).  Deal 1: a new pool, 2 from each of the
  four (8); Cat bids 2 and makes it: 2 from each other player.  Deal 2, Ben deals and adds 2
  (pool 10); Dan bids Nap and makes it: 10 from each other player, and the pool of 10.
  Ann −14, Ben −16, Cat −6, Dan +36.
* **High Card**, ante 1, Ann, Ben and Cat (RULES-POKER.md).  Deal 1: pot 3, Ben wins it.  Deal 2:
  pot 3, carried; the night ends there and each ante of 1 goes back.  Ann −1, Ben +2, Cat −1.
"""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape

import pytest

from companion.extensions import db
from companion.db.models import Night

NAP_NIGHT = {
    "format": "companion-night/2", "name": "Nap at Ann's", "players": ["Ann", "Ben", "Cat", "Dan"],
    "money": {"chip_value": "0.25", "currency": "EUR"},
    "games": [{"game": "nap", "first_dealer": "Ann", "rules": {"variant": "pool"}, "deals": [
        {"bidder": "Cat", "bid": 2, "made": True}, {"bidder": "Dan", "bid": "nap", "made": True},
    ]}],
}
POT_NIGHT = {
    "format": "companion-night/2", "name": "High Card at Ben's", "players": ["Ann", "Ben", "Cat"],
    "money": {"chip_value": "0.25", "currency": "EUR"},
    "games": [{"game": "pots", "first_dealer": "Ann", "rules": {"preset": "high_card"}, "deals": [
        {"pots": [{"winners": ["Ben"]}]}, {"pots": [{"carried": True}]},
    ]}],
}
#: what no page of a night without Napalm may say (issue 23)
NAPALM_WORDS = ("token", "side bet", "side_bet", "hand history")


def imported(client, app, document) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Import ``document``; the scorekeeper's and the players' addresses of the night."""
    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(document).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303, response.get_data(as_text=True)[:1000]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.name == document["name"]))
        return f"/k/{night.keeper_key}", f"/p/{night.viewer_key}"


def text(html: str) -> str:
    """What a page says: its words without the markup."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def every_page(client, keeper: str, viewer: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The report as each phone sees it, both views, and its downloads, by address."""
    pages = {}
    for link in (keeper, viewer):
        for address in ("/report", "/report?view=pairwise", "/report.csv", "/report.csv?view=pairwise", "/report.json"):
            response = client.get(link + address)
            assert response.status_code == 200, link + address
            pages[link + address] = response.get_data(as_text=True)
    return pages


def heads(html: str) -> list[list[str]]:
    """The column heads of each figures table on the page."""
    return [re.findall(r"<th scope=\"col\"[^>]*>([^<]*)</th>", thead) for thead in re.findall(
        r'<table class="figures">.*?<thead>(.*?)</thead>', html, re.S)]


@pytest.mark.parametrize("document", [NAP_NIGHT, POT_NIGHT], ids=["nap", "pots"])
def test_no_page_of_a_night_without_napalm_says_token_side_bet_or_hand_history(client, app, document):
    keeper, viewer = imported(client, app, document)
    for address, body in every_page(client, keeper, viewer).items():
        said = text(body).lower()
        for word in NAPALM_WORDS:
            assert word not in said, f"{address} says {word!r}"


def test_a_nap_nights_report_has_bids_and_the_pool(client, app):
    keeper, viewer = imported(client, app, NAP_NIGHT)
    for link in (keeper, viewer):
        html = client.get(f"{link}/report").get_data(as_text=True)
        assert heads(html) == [["Game", "Bids", "Pool", "Net"]] * 4
        said = text(html)
        # Dan's line: +30 in bids, 10 from each; the pool: paid 2, took 10: +8; +36
        dan = said[said.index("Dan +36"):]
        assert "1 +30 −2 +8 +36" in dan
        assert "Bids: won 10 from Ann, 10 from Ben, 10 from Cat; lost 2 to Cat." in dan
        assert "Per game: bids won and lost (a penalty paid to another player included), the pool: paid in, won and given back, and the net." in said
    pairwise = text(client.get(f"{keeper}/report?view=pairwise").get_data(as_text=True))
    assert "Every bid is paid to the player who won it, netted per pair." in pairwise
    assert "bids +10 · through the pool +4" in pairwise  # Ben pays Dan 14: 10 in bids, his 4 in the pool Dan took
    data = client.get(f"{viewer}/report.json").get_json()
    assert data["format"] == "companion-report/2"
    assert {p["name"]: (p["bids_won"], p["pool_won"], p["net_chips"]) for p in data["players"]}["Dan"] == (
        {"Ann": 10, "Ben": 10, "Cat": 10}, 10, 36
    )


def test_a_pot_nights_report_has_antes_pots_and_sales(client, app):
    keeper, viewer = imported(client, app, POT_NIGHT)
    html = client.get(f"{viewer}/report").get_data(as_text=True)
    assert heads(html) == [["Game", "Antes", "Pots", "Sales", "Net"]] * 3
    said = text(html)
    # Ben: antes 2, the pot of 3 and 1 of the carried pot back: +4, no sale: +2
    assert "Ben +2" in said and "1 −2 +4 0 +2" in said[said.index("Ben +2"):]
    assert "Ben ends the night 2 chips up (antes −2, pots won +3, unfinished pot +1)." in said
    assert "Ann and Ben had no sale against each other." in said
    lines = client.get(f"{keeper}/report.csv").get_data(as_text=True).splitlines()
    assert lines[0] == "format,companion-report/2"
    ben = next(row for row in csv.DictReader(lines[1:]) if row["player"] == "Ben")
    assert (ben["antes"], ben["pots_won"], ben["unfinished_pot"], ben["sales_received"], ben["net_chips"]) == (
        "2", "3", "1", "0", "2"
    )


def test_a_night_of_poker_with_real_betting_shows_no_columns_and_no_unfinished_pot(client, app):
    """Poker with real betting moves no chips at the table: nothing to break down, no pot left."""
    document = {
        "format": "companion-night/2", "name": "Poker", "players": ["Ann", "Ben"],
        "games": [{"game": "betting", "first_dealer": "Ann", "rules": {"variant": "Texas hold'em"},
                   "deals": [{"dealer": "Ann"}]}],
    }
    keeper, _ = imported(client, app, document)
    html = client.get(f"{keeper}/report").get_data(as_text=True)
    assert heads(html) == [["Game", "Net"]] * 2
    assert 'class="closing"' not in html  # no "Unfinished game": the game keeps no pot
    data = client.get(f"{keeper}/report.json").get_json()
    assert set(data["players"][0]) == {"name", "seat", "net_chips", "games_won", "money", "games"}
    assert not any(key.startswith("unfinished") for key in data)


def test_a_players_history_of_nap_nights_says_bids_and_no_tokens(client, app):
    keeper, _ = imported(client, app, NAP_NIGHT)
    client.get(f"{keeper}/report")  # the scorekeeper's phone knows the night
    page = text(client.get("/players/Dan").get_data(as_text=True))
    assert "Bids +30 / −2" in page  # won 10 from each of three, lost 2 to Cat
    for word in NAPALM_WORDS:
        assert word not in page.lower(), word
