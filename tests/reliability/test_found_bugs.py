"""One test per bug the reliability tests found, each named for the behaviour it pins down.

Several answered 500 only on PostgreSQL (NUL characters, values wider than a
column), which is why the suite runs on both databases.
"""

from __future__ import annotations

import io
import json

from sqlalchemy import func, select

from companion.extensions import db
from companion.db.models import Event, Night
from pages import TablePage, night_form


def _counts(app) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    with app.app_context():
        return (db.session.scalar(select(func.count()).select_from(Night)),
                db.session.scalar(select(func.count()).select_from(Event)))


def _import(client, document: dict | bytes):  # type: ignore[no-untyped-def]
    body = document if isinstance(document, bytes) else json.dumps(document).encode()
    return client.post("/import", data={"file": (io.BytesIO(body), "night.json")}, content_type="multipart/form-data")


HISTORY = {"format": "napalm-hand-history/1", "players": ["Ann", "Ben"], "stages": []}


def test_a_superscript_digit_or_a_bad_dealer_in_the_seat_mover_is_no_server_error(client):
    assert client.post("/nights", data={**night_form(), "move_up": "²"}).status_code == 303
    response = client.post("/nights", data={**night_form(), "move_up": "2", "first_dealer": "abc"})
    assert response.status_code == 200  # the seats are swapped and shown again; the dealer is seat 1


def test_a_number_hundreds_of_digits_long_is_a_form_error(start_night, app):
    t = start_night()
    response = t.client.post(f"{t.url}/declare", data={"version": "9" * 400, "request_key": "k" * 20, "nobody": "1"})
    assert response.status_code == 422
    assert "Enter a whole number in digits 0-9, at most 15 of them." in response.get_data(as_text=True)
    response = t.client.post("/nights", data=night_form(ante="9" * 400))
    assert response.status_code == 422
    assert _counts(app) == (1, 0)


def test_text_no_database_can_store_is_refused_with_a_message(client, app):
    for field in ("name", "seat_1", "currency"):
        response = client.post("/nights", data=night_form(**{field: "Ann\x00"}))
        assert response.status_code == 422, field
        assert "cannot be stored" in response.get_data(as_text=True)
    surrogate = json.dumps(HISTORY).replace('"Ben"', '"\\ud800"').encode()
    response = _import(client, surrogate)
    assert response.status_code == 422 and "cannot be stored" in response.get_data(as_text=True)
    assert _import(client, {**HISTORY, "players": ["Ann", "B\u0000n"]}).status_code == 422
    assert _counts(app) == (0, 0)


def test_a_value_wider_than_its_column_is_refused_not_cut(client, app):
    response = client.post("/nights", data=night_form(chip_value="123456789012"))
    assert response.status_code == 422 and "at most 99,999,999.9999" in response.get_data(as_text=True)
    response = _import(client, {**HISTORY, "rules": {"chip_value": "1e50"}})
    assert response.status_code == 422
    response = _import(client, {**HISTORY, "name": "N" * 81})
    assert response.status_code == 422 and "longer than 80 characters" in response.get_data(as_text=True)
    assert _import(client, {**HISTORY, "name": "N" * 80}).status_code == 303
    assert _counts(app) == (1, 0)


def test_a_link_with_characters_no_key_has_is_not_found(client):
    for path in ("/k/abc%00def", "/p/abc%00def", "/k/%E2%80%AE" + "x" * 10, "/p/' OR '1'='1"):
        assert client.get(path).status_code == 404, path


def test_an_export_of_a_night_named_in_any_script_has_headers_a_server_can_send(start_night):
    t = start_night(name="金曜日のナポーム")
    response = t.client.get(f"{t.url}/export.json")
    assert response.status_code == 200
    disposition = response.headers["Content-Disposition"]
    disposition.encode("latin-1")  # waitress sends headers as Latin-1, and answered 500 before
    assert 'filename="night.json"' in disposition  # an ASCII fallback, and the name itself in filename*


def test_a_doubled_tap_on_rank_the_cards_is_answered_already_recorded(start_night, app):
    t = start_night()
    t.declare("Ben", "Cat")
    stamp = t.stamp("cards")
    fields = dict(zip(("cards_0", "cards_1"), ("As Ad", "Ks Qd")))
    first = t.post("cards", fields, stamp=stamp)
    assert first.status_code == 303
    again = t.post("cards", fields, stamp=stamp)  # the showdown it recorded is over now
    assert again.status_code == 303
    assert "Already recorded" in t.html
    other = t.post("cards", {"cards_0": "2c 3c", "cards_1": "Ks Qd"}, stamp=stamp)
    assert other.status_code == 409
    assert _counts(app) == (1, 2)


def test_the_table_a_request_verifies_against_does_not_move_when_another_phone_records(start_night, app):
    """On PostgreSQL writers are not serialised at BEGIN: a request that had read the table at
    version v could verify its action against the cached fold after another phone's commit had
    pushed v+1 into it, and refuse a legal action as illegal (a 422 with the wrong reason)."""
    from companion import service as services

    t = start_night()
    t.declare()  # version 1: nobody said Yes
    other_phone = TablePage(t.client, t.url)
    with app.app_context():
        night = db.session.scalar(select(Night))
        mine = services.table_for(night)  # what a request at version 1 verifies against
        position, log = mine.position, mine.log
    other_phone.declare("Ben", "Cat")  # another phone records version 2
    assert t.client.get(t.url).status_code == 200  # and the cached fold moves on
    assert mine.position == position and mine.log == log
    assert mine.phase.value == "declare" and mine.version == 1
