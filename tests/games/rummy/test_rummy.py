"""Rummy scores, the tests' own game: its rules worked by hand, and a night of it played through the web.

Ann, Ben and Cat, stake 2.  Deal 1: Ben goes out with Ann holding 5 points and Cat 12:
Ann pays Ben 10, Cat pays Ben 24 (Ann −10, Ben +34, Cat −24).
"""

from __future__ import annotations

import re

import pytest

from companion import service as services
from companion.games.protocol import IllegalAction
from companion.games.fold import Transfer

from .game import GAME, Deal, Rules, RummyTable

PLAYERS = ("Ann", "Ben", "Cat")


def test_every_other_player_pays_the_winner_the_points_left_in_their_hand_times_the_stake() -> None:
    table = RummyTable(PLAYERS, "Ann", Rules(stake=2))
    record = table.push(Deal("Ben", (("Ann", 5), ("Cat", 12))))
    assert record.transfers == (Transfer("Ann", "Ben", 10, "points"), Transfer("Cat", "Ben", 24, "points"))
    assert table.net_chips == {"Ann": -10, "Ben": 34, "Cat": -24}
    assert table.dealer == "Ben"  # the deal passes left
    table.push(Deal("Ann", (("Ben", 0), ("Cat", 3))))  # Ben holds nothing: pays nothing
    assert table.net_chips == {"Ann": -4, "Ben": 34, "Cat": -30}


def test_a_deal_must_say_every_other_hand_and_no_more() -> None:
    table = RummyTable(PLAYERS, None, Rules())
    with pytest.raises(IllegalAction, match="each hand but Ben's"):
        table.push(Deal("Ben", (("Ann", 5),)))
    with pytest.raises(IllegalAction, match="Zed is not playing"):
        table.push(Deal("Zed", (("Ann", 5), ("Ben", 1), ("Cat", 2))))
    with pytest.raises(IllegalAction, match="whole number from 0 to 200"):
        table.push(Deal("Ben", (("Ann", -1), ("Cat", 2))))
    assert table.version == 0


def test_its_rules_are_the_base_games_reading_of_its_dataclass() -> None:
    assert GAME.rules_from_dict({"stake": 3}) == Rules(3)
    assert GAME.rules_to_dict(Rules()) == {"stake": 1}
    with pytest.raises(IllegalAction, match="'stake' must be a whole number"):
        GAME.rules_from_dict({"stake": "3"})
    with pytest.raises(IllegalAction, match="unknown rule 'jokers'"):
        GAME.rules_from_dict({"jokers": True})


def _nets(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-player="(\w+)">.*?class="num net[^"]*">([^<]+)<', html, re.S))


def _stamp(html: str, action: str) -> dict[str, str]:
    """The version and request key of the form posting to ``action`` (a key may start with "-")."""
    form = re.search(rf'action="/k/[\w-]+/{action}"[^>]*>(.*?)</form>', html, re.S)
    assert form, f"no {action} form"
    version = re.search(r'name="version"[^>]*value="(\d+)"', form.group(1))
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', form.group(1))
    assert version and key
    return {"version": version.group(1), "request_key": key.group(1)}


def test_a_night_of_rummy_scores_is_played_through_the_web(app, rummy) -> None:
    client = app.test_client()
    home = client.get("/?game=rummy").get_data(as_text=True)
    assert '<option value="rummy" selected>' in home and 'name="stake"' in home
    seats = {"seat_1": "Ann", "seat_2": "Ben", "seat_3": "Cat", "first_dealer": "1", "chip_value": "0.10", "currency": "EUR"}
    started = client.post("/nights", data={**seats, "name": "Rummy", "game": "rummy", "stake": "2",
                                           "request_key": services.new_key()})
    assert started.status_code == 303, started.get_data(as_text=True)[-800:]
    table = started.headers["Location"]
    page = client.get(table).get_data(as_text=True)
    assert "Who went out?" in page and "Ann deals" in page
    # Ann's points in seat 1's field, Cat's in seat 3's; Ben's own field is left empty
    deal = {**_stamp(page, "deal"), "winner": "Ben", "left_0": "5", "left_2": "12"}
    assert client.post(f"{table}/deal", data=deal).status_code == 303
    page = client.get(table).get_data(as_text=True)
    assert _nets(page) == {"Ann": "-10", "Ben": "+34", "Cat": "-24"}
    # the undo is the framework's: the deal is taken back, every chip with it
    assert client.post(f"{table}/undo", data=_stamp(page, "undo")).status_code == 303
    page = client.get(table).get_data(as_text=True)
    assert _nets(page) == {"Ann": "0", "Ben": "0", "Cat": "0"}
    # a hand without its points is refused by name, and nothing is recorded
    refused = client.post(f"{table}/deal", data={**_stamp(page, "deal"), "winner": "Cat", "left_0": "7"})
    assert refused.status_code == 422 and "enter the points left in Ben&#39;s hand" in refused.get_data(as_text=True)
    page = client.get(table).get_data(as_text=True)
    deal = {**_stamp(page, "deal"), "winner": "Cat", "left_0": "7", "left_1": "0"}
    assert client.post(f"{table}/deal", data=deal).status_code == 303
    # Cat went out: Ann pays 14, Ben holds nothing
    key = table.rsplit("/", 1)[-1]
    report = client.get(f"/k/{key}/report").get_data(as_text=True)
    payments = re.findall(r'data-payer="(\w+)" data-payee="(\w+)" data-chips="(\d+)"', report)
    assert payments == [("Ann", "Cat", "14")]
    assert "stake 2 a point" in report
    # in its own words (issue 23): points, and no pot
    said = " ".join(re.sub(r"<[^>]+>", " ", report).split())
    assert "<th scope=\"col\" class=\"num\">Points</th>" in report and "Points: lost 14 to Cat." in said
    assert "side bet" not in report.lower() and 'class="closing"' not in report
    history = client.get(f"/k/{key}/history").get_data(as_text=True)
    assert "Ben went out: paid by Ann 10, Cat 24" in history and "Undone: deal 1" in history
    assert "Cat went out: paid by Ann 14" in history
    # dealer's choice offers it by its title, after the app's own games
    choice = client.get(f"/k/{key}/choice").get_data(as_text=True)
    assert 'data-game="rummy"' in choice and "Rummy scores" in choice
