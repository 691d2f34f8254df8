"""A large import never stalls the other tables (issue 15, item 1): the file is read and
replayed before any database lock is taken, and a night holds a bounded number of stages
and records, refused beyond with a message naming the limit."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest
from sqlalchemy import func, select

from companion import service as services
from companion.service import nights
from companion.values import limits
from companion.extensions import db
from companion.db.models import Event, Night
from companion.games.napalm import Declare
from companion.games.napalm import hand_history
from conftest import EXTERNAL_DB
from reliability.heavy_nights import night_at_the_bound as quiet_night  # nobody says Yes: always legal
from security.support import PLAYERS, RULES, SETTINGS, Site


def upload(client, data: bytes, request_key: str = "k" * 43):
    form = {"file": (io.BytesIO(data), "night.json"), "request_key": request_key}
    return client.post("/import", data=form, content_type="multipart/form-data")


def test_the_file_is_read_while_another_table_can_still_write(app, client, monkeypatch):
    """While the file is parsed, no transaction of this request is open and (on SQLite)
    another connection takes the write lock at once."""
    seen: list[tuple[bool, str]] = []
    real = nights.nightfile.loads  # the one reader /import uses (v1 and v2 files)

    def watching(text):  # type: ignore[no-untyped-def]
        in_transaction = db.session().in_transaction()
        other = "not SQLite"
        if not EXTERNAL_DB:
            path = db.engine.url.database
            connection = sqlite3.connect(path, timeout=0)
            try:
                connection.execute("BEGIN IMMEDIATE")
                connection.execute("ROLLBACK")
                other = "wrote"
            except sqlite3.OperationalError as error:
                other = str(error)
            finally:
                connection.close()
        seen.append((in_transaction, other))
        return real(text)

    monkeypatch.setattr(nights.nightfile, "loads", watching)
    response = upload(client, quiet_night(30))
    assert response.status_code == 303
    assert seen == [(False, "not SQLite" if EXTERNAL_DB else "wrote")]


def test_a_file_at_the_stage_bound_imports_and_one_stage_more_is_refused_naming_the_limit(app, client):
    assert limits.MAX_STAGES == 2_000
    assert upload(client, quiet_night(2_000), "a" * 43).status_code == 303
    with app.app_context():
        night = db.session.scalar(select(Night))
        assert night.version == 2_000
    refused = upload(client, quiet_night(2_001), "b" * 43)
    assert refused.status_code == 422
    assert "the file holds 2,001 stages; a night holds at most 2,000" in refused.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Night.id))) == 1


def test_flask_replay_refuses_the_same_file_with_the_same_message(app, tmp_path):
    path = tmp_path / "huge.json"
    path.write_bytes(quiet_night(150_000))
    result = app.test_cli_runner().invoke(args=["replay", str(path)])
    assert result.exit_code == 1
    assert "the file holds 150,000 stages; a night holds at most 2,000" in result.stderr


def test_recording_stops_at_the_most_records_a_night_holds_but_payments_can_still_be_marked(
    app, site: Site, monkeypatch
):
    monkeypatch.setattr(limits, "MAX_RECORDS", 4)
    monkeypatch.setattr(limits, "RECORDS_FOR_SETTLING", 1)
    night = site.seat()
    with app.app_context():
        for version in range(4):  # four hands where nobody says Yes: 4 antes each
            services.record(night.id, Declare(()), version)
        with pytest.raises(services.IllegalAction, match=r"the most one night can hold \(4\)"):
            services.record(night.id, Declare(()), 4)
    page = app.test_client().post(
        f"/k/{night.keeper}/declare", data={"version": "4", "request_key": "r" * 43, "nobody": "1"}
    )
    assert page.status_code == 422
    assert "the most one night can hold (4): start a new night to play on" in page.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Event.id)).where(Event.night_id == night.id)) == 4
        # settle-up: a payment still goes in
        services.mark_paid(night.id, "Ann", "Ben", 1, 4)
        assert db.session.get(Night, night.id).version == 5


def test_a_file_whose_stages_make_more_records_than_a_night_holds_is_refused(monkeypatch):
    monkeypatch.setattr(limits, "MAX_RECORDS", 5)
    document = json.loads(quiet_night(5))
    assert len(hand_history.from_dict(document).table.live_records()) == 5
    document["stages"].append({"yes": []})
    with pytest.raises(hand_history.HistoryError, match="the file's stages make 6 records; a night holds at most 5"):
        hand_history.from_dict(document)
