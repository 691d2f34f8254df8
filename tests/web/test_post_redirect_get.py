"""Issue 14, bug 3: every POST answers 303, refusals included, so reload never re-sends a form.

A refused submit redirects to its page's own GET address (``?refused=<token>``); that
page answers with the refusal's status and shows what was typed, with the reason.
These tests use a client that does NOT follow the refusal's redirect by itself.
"""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from companion.extensions import db
from companion.db.models import Event, Night
from pages import night_form


def _post(client, url: str, data: dict):  # type: ignore[no-untyped-def]
    """POST through the plain FlaskClient: the 303 itself, not the page it leads to."""
    return FlaskClient.open(client, url, method="POST", data=data)


def _events(app) -> int:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.query(Event).count()


def test_wrong_cards_redirect_to_the_table_which_shows_them_as_typed_with_the_reason(start_night, client, app):
    t = start_night()
    t.declare("Ben", "Cat")
    fields = dict(re.findall(r'class="cardfield">([^<]+?) <input[^>]*name="(cards_\d+)"', t.html))
    response = _post(client, f"{t.url}/cards", {**t.stamp("cards"), fields["Ben"]: "As Kd", fields["Cat"]: "Ks"})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.startswith(t.url + "?refused=") and "/cards" not in location
    page = client.get(location)
    body = page.get_data(as_text=True)
    assert page.status_code == 422
    assert "needs 2 cards for Cat, got 1" in body
    assert 'value="As Kd"' in body and 'value="Ks"' in body  # what was typed is kept
    # reloading the address shows the same page and sends nothing
    again = client.get(location)
    assert again.status_code == 422 and "needs 2 cards for Cat, got 1" in again.get_data(as_text=True)
    assert _events(app) == 1
    # the plain table address is the plain table
    assert client.get(t.url).status_code == 200


def test_a_stale_submit_redirects_to_the_table_which_answers_409(start_night, client, app):
    t = start_night()
    stamp = t.stamp("declare")
    t.declare()  # another phone moved on
    response = _post(client, f"{t.url}/declare", {**stamp, "yes": ["Ben"], "confirm": "1"})
    assert response.status_code == 303 and "refused=" in response.headers["Location"]
    page = client.get(response.headers["Location"])
    assert page.status_code == 409 and "changed" in page.get_data(as_text=True)
    assert _events(app) == 1


def test_once_the_table_moved_on_a_refusal_keeps_its_reason_but_not_the_old_form(start_night, client):
    t = start_night()
    t.declare("Ben", "Cat")
    response = _post(client, f"{t.url}/showdown", {**t.stamp("showdown"), "winner": "Dan"})
    location = response.headers["Location"]
    assert client.get(location).status_code == 422
    t.refresh()
    t.winner("Ben")  # recorded from another screen before the refusal's page was read
    page = client.get(location)
    body = page.get_data(as_text=True)
    assert page.status_code == 422
    assert "That was not recorded: Dan did not say Yes" in body
    assert "Stage 2" in body  # the table as it is now
    # the plain address is the plain table
    assert client.get(t.url).status_code == 200


def test_starting_a_night_with_bad_seats_redirects_home_keeping_the_names(client, app):
    response = _post(client, "/nights", night_form(seat_2="", seat_3="", seat_4="", seat_1="Ann", name="Late"))
    assert response.status_code == 303 and response.headers["Location"].startswith("/?refused=")
    page = client.get(response.headers["Location"])
    body = page.get_data(as_text=True)
    assert page.status_code == 422
    assert 'value="Ann"' in body and 'value="Late"' in body
    with app.app_context():
        assert db.session.query(Night).count() == 0


def test_the_up_button_redirects_to_the_form_with_the_seats_swapped(client, app):
    response = _post(client, "/nights", night_form(move_up="2"))
    assert response.status_code == 303
    page = client.get(response.headers["Location"])
    body = page.get_data(as_text=True)
    assert page.status_code == 200
    assert re.search(r'name="seat_1"[^>]*value="Ben"', body) and re.search(r'name="seat_2"[^>]*value="Ann"', body)
    with app.app_context():
        assert db.session.query(Night).count() == 0


def test_setup_errors_redirect_to_the_setup_page_keeping_what_was_typed(start_night, client, app):
    t = start_night()
    response = _post(client, f"{t.url}/setup", night_form(seat_2="", seat_3="", seat_4="", tokens_to_win="0"))
    assert response.status_code == 303 and response.headers["Location"].startswith(f"{t.url}/setup?refused=")
    page = client.get(response.headers["Location"])
    assert page.status_code == 422
    assert re.search(r'name="tokens_to_win"[^>]*value="0"', page.get_data(as_text=True))
    with app.app_context():
        assert db.session.query(Night).one().players == ["Ann", "Ben", "Cat", "Dan"]
