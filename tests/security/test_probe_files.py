"""A file gets one decision whichever way it comes in (issue 36, items 1 and 6).

The third outside probe found a group file taking any day from year 1 to 9999, a JSON object
taking a key twice (the last one won, unseen), and a group file in UTF-16 read by replay and
refused by the web's import.  Here each such file goes in by the web's import
(``/groups/import`` for a group file, ``/import`` for a night file) and by ``flask --app companion
replay``, and each is refused with the same message naming where, storing nothing; the words are
worked out by hand from the reader's rule (a night's day from 2000-01-01 to a year after today,
companion.values.reading; a file's bytes are UTF-8, with or without a byte order mark).
"""

from __future__ import annotations

import datetime
import html
import io
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from companion.db.models import Group, Night
from companion.extensions import db
from group.three_nights import group_document
from night.test_file import TWO_GAMES


def stored(app) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """How many groups and nights the database holds."""
    with app.app_context():
        return db.session.scalar(select(func.count(Group.id))), db.session.scalar(select(func.count(Night.id)))


def imported(client, body: bytes, group: bool):  # type: ignore[no-untyped-def]
    """The answer to the web's import of ``body`` (a group file, or a night file), refusal followed."""
    return client.post(
        "/groups/import" if group else "/import", data={"file": (io.BytesIO(body), "file.json")},
        content_type="multipart/form-data",
    )


def replayed(app, tmp_path: Path, body: bytes):  # type: ignore[no-untyped-def]
    path = tmp_path / "file.json"
    path.write_bytes(body)
    return app.test_cli_runner().invoke(args=["replay", str(path)])


def assert_refused_everywhere(app, client, tmp_path: Path, body: bytes, group: bool, says: str) -> None:  # type: ignore[no-untyped-def]
    """``body`` refused by the web's import (422, ``says`` on the page, nothing stored) and by replay (exit 1)."""
    answer = imported(client, body, group)
    assert answer.status_code == 422, answer.status_code
    assert says in html.unescape(answer.get_data(as_text=True))
    assert stored(app) == (0, 0)
    result = replayed(app, tmp_path, body)
    assert result.exit_code == 1, result.output
    assert says in result.stderr and "Traceback" not in result.output


def group_file(**night_dates: str) -> bytes:
    """The three nights' group file, with the days given for nights 0, 1, 2 (``n0="…"``) in place of its own."""
    document = group_document()
    for night, day in night_dates.items():
        document["nights"][int(night[1:])]["date"] = day
    return json.dumps(document).encode()


def a_year_after_today() -> datetime.date:
    return datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=366)


# --- item 1: a night's day --------------------------------------------------------------------------


@pytest.mark.parametrize(("night", "day"), [(0, "0001-01-01"), (0, "1999-12-31"), (2, "9999-12-31")])
def test_a_group_file_dating_a_night_before_2000_or_years_ahead_is_refused_by_import_and_replay(
    app, client, tmp_path, night, day
):
    says = f"nights[{night}].date: the night's date must be a day from 2000-01-01 to {a_year_after_today()}, not {day}"
    assert_refused_everywhere(app, client, tmp_path, group_file(**{f"n{night}": day}), True, says)


def test_a_group_file_dating_its_nights_from_2000_to_a_year_ahead_is_imported_with_those_days(app, client):
    answer = imported(client, group_file(n0="2000-01-01", n2=str(a_year_after_today())), True)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    with app.app_context():
        days = [n.created_at.date() for n in db.session.scalars(select(Night).order_by(Night.id))]
    assert days == [datetime.date(2000, 1, 1), datetime.date(2025, 3, 14), a_year_after_today()]


# --- item 1: a key written twice ----------------------------------------------------------------------


def test_a_group_file_naming_a_key_twice_is_refused_by_import_and_replay_naming_where(app, client, tmp_path):
    text = json.dumps(group_document())
    paid = '"paid": [{"from": "Ben", "to": "Ann", "chips": 4}'
    assert text.count(paid) == 1
    # json.loads alone reads 40 chips paid, the second "chips"
    body = text.replace(paid, paid[:-1] + ', "chips": 40}').encode()
    says = "nights[0].paid[0]: the key 'chips' is written twice; an object names each key once"
    assert_refused_everywhere(app, client, tmp_path, body, True, says)


def test_a_night_file_naming_a_key_twice_is_refused_by_import_and_replay_naming_where(app, client, tmp_path):
    text = json.dumps(TWO_GAMES)
    # json.loads alone seats only Ann and Ben, the second "players" of the second game
    body = text.replace('"players": ["Ann", "Ben", "Cat"],', '"players": ["Ann", "Ben", "Cat"], "players": ["Ann", "Ben"],')
    assert body != text
    says = "games[1]: the key 'players' is written twice; an object names each key once"
    assert_refused_everywhere(app, client, tmp_path, body.encode(), False, says)


# --- item 6: one encoding, UTF-8 --------------------------------------------------------------------

NOT_UTF8 = "the file is not text in UTF-8 (it looks like UTF-16 or UTF-32): save it as UTF-8 and send it again"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
@pytest.mark.parametrize("group", [True, False], ids=["group file", "night file"])
def test_a_file_in_utf16_or_utf32_is_refused_by_import_and_replay_alike(app, client, tmp_path, encoding, group):
    # json.loads of bytes reads all three: replay took a UTF-16 group file the web's import refused
    body = json.dumps(group_document() if group else TWO_GAMES, ensure_ascii=False).encode(encoding)
    assert_refused_everywhere(app, client, tmp_path, body, group, NOT_UTF8)


@pytest.mark.parametrize("group", [True, False], ids=["group file", "night file"])
def test_a_utf8_file_with_a_byte_order_mark_is_read_by_import_and_replay_alike(app, client, tmp_path, group):
    # the web's import decoded a group file to text, whose BOM json.loads refuses; replay read it
    body = b"\xef\xbb\xbf" + json.dumps(group_document() if group else TWO_GAMES, ensure_ascii=False).encode()
    answer = imported(client, body, group)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    assert stored(app) == ((1, 3) if group else (0, 1))  # the three nights of the group file; the one night
    result = replayed(app, tmp_path, body)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    if group:
        assert summary["group"] == "Friday poker"
    else:  # game 1: Ben pays Cat the pot of 4; game 2: antes 2 from Ann, Ben, Cat, and Ann takes the 6
        assert summary["players"] == {
            "Ann": {"net_chips": 4}, "Ben": {"net_chips": -6}, "Cat": {"net_chips": 2}, "Dan": {"net_chips": 0}
        }
