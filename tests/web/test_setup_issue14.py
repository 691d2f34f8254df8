"""Issue 14, item 7: setting up a night as a new scorekeeper would."""

from __future__ import annotations

import re

from companion.extensions import db
from companion.db.models import Night
from pages import night_form


def _nights(app) -> list[Night]:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.query(Night).all()


def test_a_name_longer_than_24_characters_is_refused_with_a_message_not_cut(client, app):
    home = client.get("/").get_data(as_text=True)
    seat = re.search(r'<input[^>]*name="seat_1"[^>]*>', home)
    assert seat and "maxlength" not in seat.group(0)  # the browser does not silently cut it
    long_name = "Bartholomew Montgomery Jr"  # 25 characters
    assert len(long_name) == 25
    response = client.post("/nights", data=night_form(seat_1=long_name))
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "a name is at most 24 characters" in body
    assert f'value="{long_name}"' in body  # kept whole, to be shortened by the person
    assert _nights(app) == []


def test_an_empty_seat_as_first_dealer_is_refused(client, app):
    response = client.post("/nights", data=night_form(first_dealer="6"))  # seats 1-4 are filled
    assert response.status_code == 422
    assert "seat 6 is empty" in response.get_data(as_text=True)
    assert _nights(app) == []


def test_the_first_dealer_is_chosen_by_name(client, app):
    response = client.post("/nights", data=night_form(first_dealer="3"))
    assert response.status_code == 303
    [night] = _nights(app)
    assert night.first_game.first_dealer == "Cat"
    setup = client.get(response.headers["Location"] + "/setup").get_data(as_text=True)
    options = re.findall(r'<option value="(\d)"( selected)?>([^<]+)</option>', setup)
    assert [(v, label) for v, _, label in options][:5] == [
        ("1", "Ann"), ("2", "Ben"), ("3", "Cat"), ("4", "Dan"), ("5", "Seat 5 (empty)")
    ]
    assert [v for v, sel, _ in options if sel] == ["3"]


def test_a_chips_only_night_never_shows_money(client, app):
    home = client.get("/").get_data(as_text=True)
    value = re.search(r'<input[^>]*name="chip_value"[^>]*>', home)
    assert value and 'value=""' in value.group(0)
    response = client.post("/nights", data=night_form(chip_value=""))
    url = response.headers["Location"]
    [night] = _nights(app)
    assert night.chip_value == 0
    # Ann deals; Ben alone says Yes: the ante takes 1 from each of 4 (pot 4), a token to Ben
    page = client.get(url).get_data(as_text=True)
    version = re.search(r'name="version"[^>]*value="(\d+)"', page).group(1)
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', page).group(1)
    client.post(f"{url}/declare", data={"version": version, "request_key": key, "yes": ["Ben"], "confirm": "1"})
    for page in (client.get(url), client.get(url + "/report")):
        text = page.get_data(as_text=True)
        assert page.status_code == 200
        assert "0.00" not in text and "Money" not in text
