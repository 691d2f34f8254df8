"""Another night's name (issue 15, item 8): when a pot is carried into the next night, the
players of either night are not told what the other night is called; the scorekeeper is."""

from __future__ import annotations

from sqlalchemy import select

from companion import service as services
from companion.extensions import db
from companion.db.models import Night
from web.test_carried_pot import carry_form, friday, nights, text_of

SECRET_NAME = "Birthday at Cat"


def carried(start_night, client, app) -> tuple[Night, Night]:
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    assert client.post(action, data=fields).status_code == 303
    old, new = nights(app)
    with app.app_context():  # both nights renamed after the carry (the names are never frozen)
        for night, name in ((old, "Friday " + SECRET_NAME), (new, SECRET_NAME)):
            db.session.get(Night, night.id).name = name
        db.session.commit()
    services.clear_cache()
    return old, new


def test_the_old_nights_players_are_not_told_the_next_nights_name(start_night, client, app):
    old, new = carried(start_night, client, app)
    phone = app.test_client()  # a player's phone, not the scorekeeper's
    report = text_of(phone.get(f"/p/{old.viewer_key}/report").get_data(as_text=True))
    assert "The pot of 8 chips was carried into the next night." in report
    assert SECRET_NAME not in report.replace("Friday " + SECRET_NAME, "")


def test_the_next_nights_players_are_not_told_the_previous_nights_name(start_night, client, app):
    old, new = carried(start_night, client, app)
    phone = app.test_client()  # a player's phone, not the scorekeeper's
    for path in (f"/p/{new.viewer_key}", f"/p/{new.viewer_key}/live", f"/p/{new.viewer_key}/report"):
        page = text_of(phone.get(path).get_data(as_text=True))
        assert "Friday" not in page, path
        assert "carried in from the previous night" in page, path


def test_the_scorekeepers_reports_still_name_both_nights(start_night, client, app):
    old, new = carried(start_night, client, app)
    old_report = text_of(client.get(f"/k/{old.keeper_key}/report").get_data(as_text=True))
    assert f"carried into \u201c{SECRET_NAME}\u201d" in old_report
    new_report = text_of(client.get(f"/k/{new.keeper_key}/report").get_data(as_text=True))
    assert f"carried in from \u201cFriday {SECRET_NAME}\u201d" in new_report
