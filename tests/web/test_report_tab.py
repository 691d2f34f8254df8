"""The report page of a night the group's tab settled part of: the records, what remains, Mark paid only for it.

The night is tests/night/test_tab.py's ON_COUNTS (imported without its tab records): three players
on chip counts at 0.25 EUR a chip, Ann -20, Bob -10, Cat +30, so its plan is Ann pays Cat 20 chips
(5.00 EUR) and Bob pays Cat 10 chips (2.50 EUR).  The group's tab then clears Ann fully (her 5.00 to
Cat) and Bob partly (1.10 to Cat): Bob still owes Cat 2.50 - 1.10 = 1.40 EUR, which is 5.6 chips.
"""

from __future__ import annotations

import html as markup
import io
import json
import re

from companion.db.models import Event, Night
from companion.extensions import db
from night.test_tab import ON_COUNTS

ANN = [{"player": "Ann", "amount": "5.00", "payer": "Ann", "payee": "Cat", "ref": "TAB-1"},
       {"player": "Cat", "amount": "-5.00", "payer": "Ann", "payee": "Cat", "ref": "TAB-1"}]
BOB = [{"player": "Bob", "amount": "1.10", "payer": "Bob", "payee": "Cat", "ref": "TAB-2"},
       {"player": "Cat", "amount": "-1.10", "payer": "Bob", "payee": "Cat", "ref": "TAB-2"}]


def import_night(client, app, document) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Import ``document``; (its id, its keeper's address)."""
    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(document).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303, response.get_data(as_text=True)
    key = response.headers["Location"].split("/k/")[1].split("/")[0].split("?")[0]
    with app.app_context():
        night = db.session.query(Night).filter_by(keeper_key=key).one()
        return night.id, f"/k/{key}"


def night_without_tab() -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in json.loads(json.dumps(ON_COUNTS)).items() if k != "tab_cleared"}


def offered(html: str) -> list[tuple[str, str, int]]:
    """(payer, payee, chips) of each payment the page offers to mark paid."""
    forms = re.findall(
        r'name="payer" value="([^"]+)"><input type="hidden" name="payee" value="([^"]+)">'
        r'<input type="hidden" name="chips" value="(\d+)">\s*<button type="submit" class="big">Mark paid', html
    )
    return [(a, b, int(c)) for a, b, c in forms]


def version(app, night_id: int) -> int:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.get(Night, night_id).version


def test_with_no_tab_record_the_report_offers_the_nights_plan_as_always(client, app):
    _, url = import_night(client, app, night_without_tab())
    html = markup.unescape(client.get(f"{url}/report").get_data(as_text=True))
    assert offered(html) == [("Ann", "Cat", 20), ("Bob", "Cat", 10)]
    assert "group's tab" not in html


def test_the_keepers_report_shows_the_tabs_records_and_offers_only_what_remains(client, app, clear_through_tab):
    night_id, url = import_night(client, app, night_without_tab())
    clear_through_tab(night_id, *ANN, *BOB)
    for view in ("", "?view=pairwise"):
        html = markup.unescape(client.get(f"{url}/report{view}").get_data(as_text=True))
        # 1.40 EUR is 5.6 chips: Mark paid offers Bob -> Cat 5 chips (1.25 EUR), nothing of Ann's
        assert offered(html) == [("Bob", "Cat", 5)]
        assert "<strong>Bob</strong> pays <strong>Cat</strong> <span class=\"amount\">1.25 EUR</span>" in html
        # the 0.15 EUR left, less than a chip, goes through the group's tab
        assert "To settle through the group's tab" in html
        assert "<strong>Bob</strong> still owes <strong>Cat</strong> 0.15 EUR: less than a chip" in html
        assert "Settled through the group's tab" in html
        assert "Ann paid off 5.00 EUR (Ann's payment to Cat, ref TAB-1)" in html
        assert "Bob paid off 1.10 EUR (Bob's payment to Cat, ref TAB-2)" in html
        assert "Settled: every balance" not in html
    # the plan's own line the tab settled is refused both ways: asked for, and posted
    asked = client.get(f"{url}/report?payer=Ann&payee=Cat&chips=20").get_data(as_text=True)
    assert "That payment is not in the plan, or it is already marked paid." in asked and 'id="confirm"' not in asked
    posted = client.post(f"{url}/paid", data={
        "version": version(app, night_id), "request_key": "k" * 32, "payer": "Ann", "payee": "Cat", "chips": "20",
    })
    assert posted.status_code == 422
    with app.app_context():
        assert db.session.query(Event).filter_by(kind="paid").count() == 0


def test_marking_what_remains_then_the_tabs_last_record_shows_the_night_settled(client, app, clear_through_tab):
    night_id, url = import_night(client, app, night_without_tab())
    clear_through_tab(night_id, *ANN, *BOB)
    confirm = client.get(f"{url}/report?payer=Bob&payee=Cat&chips=5").get_data(as_text=True)
    assert 'id="confirm"' in confirm and "Confirm: Bob paid Cat 1.25 EUR?" in confirm
    posted = client.post(f"{url}/paid", data={
        "version": version(app, night_id), "request_key": "b" * 32, "payer": "Bob", "payee": "Cat", "chips": "5",
    })
    assert posted.status_code == 303
    html = markup.unescape(client.get(f"{url}/report").get_data(as_text=True))
    # Bob -1.40 + 1.25 = -0.15: nothing a chip can pay; the tab settles it
    assert offered(html) == [] and "0.15 EUR: less than a chip" in html
    clear_through_tab(night_id, {"player": "Bob", "amount": "0.15", "payer": "Bob", "payee": "Cat", "ref": "TAB-3"},
                      {"player": "Cat", "amount": "-0.15", "payer": "Bob", "payee": "Cat", "ref": "TAB-3"})
    html = markup.unescape(client.get(f"{url}/report").get_data(as_text=True))
    assert offered(html) == [] and "Mark paid" not in html
    assert "Settled: every balance on this night is zero, part of it through the group's tab." in html
    # the players' page says the same, and never offers Mark paid
    with app.app_context():
        viewer = db.session.get(Night, night_id).viewer_key
    seen = markup.unescape(client.get(f"/p/{viewer}/report").get_data(as_text=True))
    assert "Settled: every balance on this night is zero" in seen and "Mark paid" not in seen
    assert "Bob paid off 0.15 EUR (Bob's payment to Cat, ref TAB-3)" in seen
    # and the players' standings no longer say "if the night were settled now, you pay …"
    client.get(f"/p/{viewer}/me?name=Bob")  # this phone is Bob's
    standings = markup.unescape(client.get(f"/p/{viewer}").get_data(as_text=True))
    assert "Part of this night was settled through the group's tab: the report shows what remains to pay." in standings
    assert "If the night were settled now" not in standings


def test_the_history_says_each_record_of_the_tab(client, app, clear_through_tab):
    night_id, url = import_night(client, app, night_without_tab())
    clear_through_tab(night_id, *ANN)
    html = markup.unescape(client.get(f"{url}/history").get_data(as_text=True))
    assert ("Settled through the group's tab: Ann paid off 5.00 EUR of what they owed here, in Ann's "
            "payment to Cat (ref TAB-1).") in html
    assert "Cat received 5.00 EUR of what they were owed here" in html


def test_export_then_import_keeps_the_tabs_records_and_the_report(client, app, clear_through_tab):
    night_id, url = import_night(client, app, night_without_tab())
    clear_through_tab(night_id, *ANN, *BOB)
    exported = client.get(f"{url}/export.json").get_data(as_text=True)
    assert json.loads(exported)["tab_cleared"] == ANN + BOB
    copy_id, copy_url = import_night(client, app, json.loads(exported))
    assert json.loads(client.get(f"{copy_url}/export.json").get_data(as_text=True)) == json.loads(exported)

    def payments_part(html: str) -> str:
        part = html.split('<section class="pay"', 1)[1].split("</section>", 2)
        return re.sub(r"/k/[A-Za-z0-9_-]+/", "/k/KEY/", part[0] + part[1])

    first = client.get(f"{url}/report").get_data(as_text=True)
    again = client.get(f"{copy_url}/report").get_data(as_text=True)
    assert payments_part(first) == payments_part(again)
    assert offered(again) == [("Bob", "Cat", 5)]


def test_a_chips_only_night_offers_whole_chips_and_says_settled_at_the_end(client, app, clear_through_tab):
    document = night_without_tab()
    del document["money"]
    night_id, url = import_night(client, app, document)
    # Ann's 20 chips to Cat cleared; Bob paid off 4 of his 10: Bob -6, Cat +6
    clear_through_tab(night_id, {"player": "Ann", "amount": "20", "payer": "Ann", "payee": "Cat", "ref": "T1"},
                      {"player": "Cat", "amount": "-20", "payer": "Ann", "payee": "Cat", "ref": "T1"},
                      {"player": "Bob", "amount": "4", "payer": "Bob", "payee": "Cat", "ref": "T2"},
                      {"player": "Cat", "amount": "-4", "payer": "Bob", "payee": "Cat", "ref": "T2"})
    html = markup.unescape(client.get(f"{url}/report").get_data(as_text=True))
    assert offered(html) == [("Bob", "Cat", 6)] and "To settle through the group's tab" not in html
    assert "Bob paid off 4 chips (Bob's payment to Cat, ref T2)" in html
    client.post(f"{url}/paid", data={
        "version": version(app, night_id), "request_key": "c" * 32, "payer": "Bob", "payee": "Cat", "chips": "6",
    })
    html = markup.unescape(client.get(f"{url}/report").get_data(as_text=True))
    assert offered(html) == [] and "Settled: every balance on this night is zero" in html


def test_a_wrong_record_is_refused_by_the_night_and_nothing_is_written(app, client, clear_through_tab):
    import pytest

    from companion.games import IllegalAction

    night_id, _ = import_night(client, app, night_without_tab())
    before = version(app, night_id)
    with pytest.raises(IllegalAction, match="'player' must be a player seated at this night"):
        clear_through_tab(night_id, {**ANN[0], "player": "Dan"})
    with pytest.raises(IllegalAction, match="'amount': the amount is never zero"):
        clear_through_tab(night_id, {**ANN[0], "amount": "0.00"})
    assert version(app, night_id) == before


def test_the_json_download_holds_what_the_tab_settled_and_what_remains(client, app, clear_through_tab):
    night_id, url = import_night(client, app, night_without_tab())
    plain = json.loads(client.get(f"{url}/report.json").get_data(as_text=True))
    assert "tab" not in plain  # nothing settled through the tab: the file is as it always was
    clear_through_tab(night_id, *ANN, *BOB)
    data = json.loads(client.get(f"{url}/report.json").get_data(as_text=True))
    assert data["tab"] == {
        "cleared": [
            {"player": "Ann", "amount": "5.00", "from": "Ann", "to": "Cat", "ref": "TAB-1"},
            {"player": "Cat", "amount": "-5.00", "from": "Ann", "to": "Cat", "ref": "TAB-1"},
            {"player": "Bob", "amount": "1.10", "from": "Bob", "to": "Cat", "ref": "TAB-2"},
            {"player": "Cat", "amount": "-1.10", "from": "Bob", "to": "Cat", "ref": "TAB-2"},
        ],
        "balances": {"Ann": "0.00", "Bob": "-1.40", "Cat": "1.40"},
        "still_to_pay": [{"from": "Bob", "to": "Cat", "chips": 5, "money": "1.25"}],
        "through_the_tab": [{"from": "Bob", "to": "Cat", "amount": "0.15"}],
        "settled": False,
    }
