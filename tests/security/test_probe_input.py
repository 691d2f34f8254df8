"""Input found by the outside probe (issue 15, items 11-13): every way a file comes in
is checked by one validator, and numbers on forms are plain ASCII digits."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.db.models import Night
from pages import night_form


def good_file(**changes: object) -> dict:
    document: dict = {
        "format": "napalm-hand-history/1",
        "name": "Friday",
        "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5, "chip_value": "0.25", "currency": "EUR"},
        "players": ["Ann", "Ben", "Cat"],
        "first_dealer": "Ann",
        "stages": [{"stage": 1, "yes": []}],
    }
    for key, value in changes.items():
        if key in ("chip_value", "currency"):
            document["rules"][key] = value
        else:
            document[key] = value
    return document


#: Files the probe found replay accepted and /import refused (or that both must refuse).
BAD_FILES = {
    "a lone surrogate in a name": good_file(players=["\ud800", "Ben", "Cat"]),
    "a NUL in a player's name": good_file(players=["A\x00n", "Ben", "Cat"]),
    "a NUL in the night's name": good_file(name="Fri\x00day"),
    "a NUL in the currency": good_file(currency="E\x00R"),
    "a chip value of 1e309": good_file(chip_value="1e309"),
    "a chip value of 99999999999": good_file(chip_value="99999999999"),
    "a chip value of 1E+999999999": good_file(chip_value="1E+999999999"),
    "an 81-character night name": good_file(name="N" * 81),
}


def encoded(document: dict) -> bytes:
    # ensure_ascii keeps a lone surrogate as the escape "\ud800", as a file would hold it
    return json.dumps(document, ensure_ascii=True).encode()


def nights(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(Night.id)))


@pytest.mark.parametrize("what", list(BAD_FILES))
def test_replay_refuses_what_import_refuses_with_a_message_and_a_failing_exit(app, tmp_path: Path, what):
    path = tmp_path / "night.json"
    path.write_bytes(encoded(BAD_FILES[what]))
    result = app.test_cli_runner().invoke(args=["replay", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.output


@pytest.mark.parametrize("what", list(BAD_FILES))
def test_import_refuses_the_same_files_and_starts_no_night(app, client, what):
    data = {"file": (io.BytesIO(encoded(BAD_FILES[what])), "night.json")}
    response = client.post("/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 422
    assert nights(app) == 0


def test_the_file_reader_itself_refuses_unstorable_text_and_oversized_values():
    from companion.games.napalm import hand_history

    for what, document in BAD_FILES.items():
        with pytest.raises(hand_history.HistoryError):
            hand_history.from_dict(document)


def test_replay_still_accepts_a_good_file(app, tmp_path: Path):
    path = tmp_path / "night.json"
    path.write_bytes(encoded(good_file(name="N" * 80, chip_value="99999999.9999")))
    result = app.test_cli_runner().invoke(args=["replay", str(path)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("field", ["ante", "tokens_to_win"])
@pytest.mark.parametrize("typed", ["1_000", "\u0663", "\U0001d7cf", "\uff11"])  # 1_000, Arabic-Indic 3, bold 1, fullwidth 1
def test_a_number_that_is_not_plain_ascii_digits_is_refused_and_starts_no_night(app, client, field, typed):
    response = client.post("/nights", data=night_form(**{field: typed}))
    assert response.status_code == 422
    assert "whole number" in response.get_data(as_text=True)
    assert nights(app) == 0


def test_plain_digits_with_spaces_around_still_start_a_night(app, client):
    response = client.post("/nights", data=night_form(ante=" 2 ", tokens_to_win="3"))
    assert response.status_code == 303
    with app.app_context():
        night = db.session.scalar(select(Night))
        assert (night.first_game.rules["ante"], night.first_game.rules["tokens_to_win"]) == (2, 3)


def test_a_form_field_the_form_does_not_have_is_refused_and_starts_no_night(app, client):
    response = client.post("/nights", data=night_form(seat_8="Hal"))
    assert response.status_code == 422
    assert "seat_8" in response.get_data(as_text=True)
    assert nights(app) == 0


def test_an_unknown_field_on_the_import_form_is_refused(app, client):
    data = {"file": (io.BytesIO(encoded(good_file())), "night.json"), "owner": "me"}
    response = client.post("/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 422
    assert nights(app) == 0


def test_flask_replay_run_for_real_answers_a_lone_surrogate_with_a_message_not_a_traceback(tmp_path: Path):
    # the test runner's output stream swallows what a real terminal cannot encode: run the command itself
    import os
    import subprocess
    import sys

    path = tmp_path / "night.json"
    path.write_bytes(encoded(good_file(players=["\ud800", "Ben", "Cat"])))
    env = {**os.environ, "COMPANION_INSTANCE_PATH": str(tmp_path / "instance"), "PYTHONIOENCODING": "utf-8"}
    flask = Path(sys.executable).with_name("flask")
    result = subprocess.run(
        [str(flask), "--app", "companion", "replay", str(path)], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "cannot be stored" in result.stderr
