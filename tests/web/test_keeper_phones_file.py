"""The night file says which keeper phone recorded each record (issue 39): export, import, replay.

A night kept by two phones (the first phone and "Ben's phone", whose link is made on the share page as
tests/web/test_keeper_phones.py makes it) is exported: each game's ``recorded_by`` names, by the index of a
record in its ``stages``, the records Ben's phone began.  Imported, that file gives each of those records'
events "recorded by Ben's phone" in the history, the others "the import of a night file"; exported again it
is the same bytes.  A wrong ``recorded_by`` is refused with where it is, and nothing stored, by the home
page's import and by ``flask replay``; a file from before the key still imports.
"""

from __future__ import annotations

import copy
import html as markup
import io
import json
import re

from flask.testing import FlaskClient
from sqlalchemy import func, select

from companion.db.models import Event, Night
from companion.extensions import db
from pages import TablePage
from web.test_keeper_phones import make_phone

BEN = "Ben's phone"
IMPORT = "the import of a night file"
FIRST = "the first phone"


def _tap(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 303, response.get_data(as_text=True)[:400]


def _two_phones_night(client: FlaskClient, app, start_night) -> TablePage:  # type: ignore[no-untyped-def]
    """Friday (Ann, Ben, Cat, Dan; Ann deals first) at two phones.  The taps, in order, and the record of
    the game's ``stages`` each belongs to (a stage is its declaration and what followed it):

    ====  ===============  ==============================  ==================
    tap   phone            what                            stages[i]
    ====  ===============  ==============================  ==================
    1     Ben's phone      nobody said Yes                 0 (begins it)
    2     first phone      Ben and Cat said Yes            1 (begins it)
    3     Ben's phone      Cat wins the showdown           1
    4     Ben's phone      Ann and Dan said Yes            2 (begins it)
    5     first phone      Dan wins the showdown           2
    6     Ben's phone      nobody said Yes                 (undone: no record)
    7     Ben's phone      undo                            (no record)
    8     first phone      nobody said Yes                 3 (begins it)
    ====  ===============  ==============================  ==================

    So the file names Ben's phone for stages 0 and 2 (the stages it began) and no other: stage 1 began
    at the first phone, whose records a file leaves unnamed, though Ben's phone tapped its winner.
    """
    table = start_night()
    phone = TablePage(app.test_client(), make_phone(client, table, BEN))
    _tap(phone.declare())
    table.refresh()
    _tap(table.declare("Ben", "Cat"))
    phone.refresh()
    _tap(phone.winner("Cat"))
    _tap(phone.declare("Ann", "Dan"))
    table.refresh()
    _tap(table.winner("Dan"))
    phone.refresh()
    _tap(phone.declare())
    _tap(phone.undo())
    table.refresh()
    _tap(table.declare())
    return table


def _history(client: FlaskClient, url: str) -> list[tuple[int, str]]:
    """Each line of the games' history (the page lists the newest first): (its number, who recorded it, in the
    history's words), in the order recorded."""
    page = markup.unescape(client.get(f"{url}/history").get_data(as_text=True))
    return sorted((int(seq), who) for seq, who in
                  re.findall(r"<td>(\d+)</td>\s*<td>.*?<br><small>[^<]*? · recorded by (.*?) · ", page, re.S))


def _import(client: FlaskClient, body: bytes):  # type: ignore[no-untyped-def]
    return client.post("/import", data={"file": (io.BytesIO(body), "night.json")}, content_type="multipart/form-data")


def _stored(app) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.scalar(select(func.count(Night.id))), db.session.scalar(select(func.count(Event.id)))


def test_the_file_names_the_phone_that_began_each_record(client, app, start_night):
    table = _two_phones_night(client, app, start_night)
    # the table's own history: every tap under the phone that made it (taps 1..8 are events 1..8)
    assert _history(client, table.url) == [
        (1, BEN), (2, FIRST), (3, BEN), (4, BEN), (5, FIRST), (6, BEN), (7, BEN), (8, FIRST),
    ]
    document = json.loads(client.get(f"{table.url}/export.json").get_data())
    game = document["games"][0]
    assert len(game["stages"]) == 4  # the four stages of the docstring's table: tap 6 was undone
    assert game["recorded_by"] == {"0": BEN, "2": BEN}
    assert list(game) == ["game", "players", "first_dealer", "rules", "stages", "recorded_by"]


def test_import_gives_each_record_the_phone_the_file_names_and_exports_the_same_bytes(client, app, start_night):
    """The file's stages 0 (tap 1) and 2 (taps 4 and 5) are Ben's phone's; stages 1 (taps 2, 3) and 3 (tap 8)
    name no phone.  Import stores the live taps in order: 1, 2, 3, 4, 5, 8 become events 1 to 6, so events
    1, 4 and 5 say Ben's phone and 2, 3 and 6 the import."""
    table = _two_phones_night(client, app, start_night)
    exported = client.get(f"{table.url}/export.json").get_data()
    response = _import(client, exported)
    _tap(response)
    copy_url = response.headers["Location"]
    assert _history(client, copy_url) == [(1, BEN), (2, IMPORT), (3, IMPORT), (4, BEN), (5, BEN), (6, IMPORT)]
    assert client.get(f"{copy_url}/export.json").get_data() == exported
    # and once more: the import of the import says the same, and writes the same bytes again
    again = _import(client, client.get(f"{copy_url}/export.json").get_data())
    _tap(again)
    assert client.get(f"{again.headers['Location']}/export.json").get_data() == exported


def test_a_wrong_recorded_by_is_refused_by_the_import_naming_the_game_and_the_index(client, app, start_night):
    table = _two_phones_night(client, app, start_night)
    good = json.loads(client.get(f"{table.url}/export.json").get_data())
    before = _stored(app)
    for recorded_by, says in (
        ({"4": BEN}, "games[0] (napalm): 'recorded_by': '4': 'stages' has no record 4 (its records: 0 to 3)"),
        ({"02": BEN}, "games[0] (napalm): 'recorded_by': the key '02' is no record's index"),
        ({"0": "import"}, "games[0] (napalm): 'recorded_by': '0': \u201cimport\u201d names something else in the history"),
        ({"0": "Ben\u202e"}, "games[0] (napalm): 'recorded_by': '0': the phone's name contains a mark that changes"),
        ("Ben's phone", "games[0] (napalm): 'recorded_by' must be an object"),
    ):
        document = copy.deepcopy(good)
        document["games"][0]["recorded_by"] = recorded_by
        refused = _import(client, json.dumps(document).encode())
        assert refused.status_code == 422, recorded_by
        assert says in markup.unescape(refused.get_data(as_text=True)), recorded_by
        assert _stored(app) == before, recorded_by  # nothing stored


def test_flask_replay_refuses_a_wrong_recorded_by_and_reads_a_right_one(client, app, start_night, tmp_path):
    table = _two_phones_night(client, app, start_night)
    good = json.loads(client.get(f"{table.url}/export.json").get_data())
    path = tmp_path / "night.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["replay", str(path)])
    assert result.exit_code == 0, result.output
    bad = copy.deepcopy(good)
    bad["games"][0]["recorded_by"] = {"1": "x" * 31}
    path.write_text(json.dumps(bad), encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["replay", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert "games[0] (napalm): 'recorded_by': '1': the phone's name is at most 30 characters" in result.stderr
    assert "Traceback" not in result.output


def test_a_file_without_recorded_by_still_imports_every_record_the_imports(client, app, start_night):
    """A file from before the key: its six live taps are events 1 to 6, each recorded by the import."""
    table = _two_phones_night(client, app, start_night)
    document = json.loads(client.get(f"{table.url}/export.json").get_data())
    del document["games"][0]["recorded_by"]
    response = _import(client, json.dumps(document).encode())
    _tap(response)
    assert _history(client, response.headers["Location"]) == [(n, IMPORT) for n in range(1, 7)]
