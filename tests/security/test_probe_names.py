"""One reader of a name, whatever way a name comes in (issue 36, item 3).

The third outside probe stored ``\\x01``, ``\\x7f``, ESC and U+202E (RIGHT-TO-LEFT OVERRIDE: "\\u202eAnn"
shows as "nnA") in a group's, a night's, a member's and an IBAN holder's name and in a currency,
through the forms and the files, and a seated player's name took U+202E.  Here each goes in by a
form, by the web's import of a file and by ``flask replay``, and each is refused (4xx, or exit 1)
naming the character, storing nothing (companion.values.reading.name).
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from companion.db.models import Group, GroupRecord, Night
from companion.extensions import db
from group.three_nights import group_document
from night.test_file import TWO_GAMES
from pages import night_form
from web.test_groups import import_group, page, stamp

#: the characters the probe stored, and what the message calls each
HOSTILE = {
    "\x01": "a control character (U+0001)",
    "\x7f": "a control character (U+007F)",
    "\x1b": "a control character (U+001B)",  # ESC
    "\u202e": "a mark that changes the direction of text (U+202E)",
}


def said(what: str, character: str) -> str:
    return f"{what} contains {HOSTILE[character]}, which a name cannot hold: type it without it"


def counts(app) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    """The groups, group records and nights stored."""
    with app.app_context():
        return tuple(db.session.scalar(select(func.count(t.id))) for t in (Group, GroupRecord, Night))  # type: ignore[return-value]


def answer_says(response: Any, message: str) -> None:
    assert response.status_code == 422, response.status_code
    assert message in html.unescape(response.get_data(as_text=True))


def replay_says(app, tmp_path: Path, body: bytes, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "file.json"
    path.write_bytes(body)
    result = app.test_cli_runner().invoke(args=["replay", str(path)])
    assert result.exit_code == 1, result.output
    assert message in result.stderr


# --- the forms --------------------------------------------------------------------------------------


@pytest.mark.parametrize("character", list(HOSTILE), ids=ascii)
@pytest.mark.parametrize(
    ("field", "what"),
    [("seat_1", "a player's name"), ("name", "the night's name"), ("currency", "the currency")],
)
def test_starting_a_night_refuses_the_character_in_a_seat_its_name_and_its_currency(app, client, character, field, what):
    typed = {"seat_1": f"A{character}nn", "name": f"Fri{character}day", "currency": f"E{character}R"}[field]
    answer_says(client.post("/nights", data=night_form(**{field: typed})), said(what, character))
    assert counts(app) == (0, 0, 0)


@pytest.mark.parametrize("character", list(HOSTILE), ids=ascii)
def test_making_a_group_refuses_the_character_in_its_name(app, client, character):
    answer_says(client.post("/groups", data={"name": f"Friday{character} poker"}), said("the group's name", character))
    assert counts(app) == (0, 0, 0)


@pytest.mark.parametrize("character", list(HOSTILE), ids=ascii)
@pytest.mark.parametrize(
    ("action", "fields", "what"),
    [
        ("members/add", {"name": "Ev{}e"}, "a member's name"),
        ("members/rename", {"member": "Ann", "new": "An{}n"}, "a member's name"),
        ("handles", {"member": "Ann", "kind": "iban", "handle": "DE89370400440532013000", "holder": "Ann{} Lee"},
         "the account holder's name"),
    ],
)
def test_a_groups_forms_refuse_the_character_in_a_members_and_a_holders_name(app, client, character, action, fields, what):
    organiser = import_group(client)
    before = counts(app)
    html_ = page(client, organiser)
    data = {**stamp(html_, f"{organiser}/{action}"), **{k: v.format(character) for k, v in fields.items()}}
    answer_says(client.post(f"{organiser}/{action}", data=data), said(what, character))
    assert counts(app) == before


# --- the files: the web's import and flask replay ----------------------------------------------------


def night_file(character: str, where: str) -> dict[str, Any]:
    document = json.loads(json.dumps(TWO_GAMES))
    if where == "players":  # Dan, who plays only the first game
        document["players"][3] = f"D{character}an"
        document["games"][0]["stages"][1]["yes"] = [f"D{character}an"]
    elif where == "name":
        document["name"] = f"Friday{character}"
    else:
        document["money"]["currency"] = f"E{character}R"
    return document


@pytest.mark.parametrize("character", list(HOSTILE), ids=ascii)
@pytest.mark.parametrize(
    ("where", "what"), [("players", "a player's name"), ("name", "the night's name"), ("currency", "the currency")]
)
def test_a_night_file_with_the_character_is_refused_by_import_and_replay(app, client, tmp_path, character, where, what):
    body = json.dumps(night_file(character, where)).encode()
    answer_says(client.post("/import", data={"file": (io.BytesIO(body), "night.json")}), said(what, character))
    assert counts(app) == (0, 0, 0)
    replay_says(app, tmp_path, body, said(what, character))


def group_file(character: str, where: str) -> dict[str, Any]:
    document = group_document()
    if where == "name":
        document["name"] = f"Friday{character} poker"
    elif where == "members":  # a member added last, whom no night seats
        document["members"].append({"added": f"Ev{character}e"})
    else:
        document["handles"]["Cat"]["iban"]["holder"] = f"Cat{character} Lee"
    return document


@pytest.mark.parametrize("character", list(HOSTILE), ids=ascii)
@pytest.mark.parametrize(
    ("where", "says"),
    [("name", "'name': {}"), ("members", "members[7] (added): {}"), ("holder", "handles.Cat.iban: {}")],
)
def test_a_group_file_with_the_character_is_refused_by_import_and_replay(app, client, tmp_path, character, where, says):
    what = {"name": "the group's name", "members": "a member's name", "holder": "the account holder's name"}[where]
    message = says.format(said(what, character))
    body = json.dumps(group_file(character, where)).encode()
    answer_says(client.post("/groups/import", data={"file": (io.BytesIO(body), "group.json")}), message)
    assert counts(app) == (0, 0, 0)
    replay_says(app, tmp_path, body, message)


def test_a_name_in_another_script_or_with_an_emoji_is_still_taken(app, client):
    # Hebrew is written right to left by itself, with no mark; a family emoji joins three with U+200D
    response = client.post("/nights", data=night_form(seat_1="\u05d3\u05e0\u05d9", seat_2="\U0001f469\u200d\U0001f467",
                                                       name="Zo\u00eb's night"))
    assert response.status_code == 303, response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(Night)).players == ["\u05d3\u05e0\u05d9", "\U0001f469\u200d\U0001f467", "Cat", "Dan"]


def test_a_group_whose_names_were_stored_before_the_rule_still_shows_them(app, client):
    """A member and a holder stored with U+202E before names were read by the one reader: the group folds them
    as stored (companion.group.members.MemberFold(stored=True)) and its page answers, rather than breaking."""
    from companion import service as services

    organiser = import_group(client)
    with app.app_context():
        group = db.session.scalar(select(Group))
        older = [("member_added", {"name": "Ev\u202ee"}),
                 ("handle_set", {"member": "Ev\u202ee", "kind": "iban",
                                 "value": {"iban": "DE89370400440532013000", "holder": "Ev\u202ee Lee", "bic": ""}})]
        for offset, (kind, payload) in enumerate(older, start=1):
            db.session.add(GroupRecord(group_id=group.id, seq=group.version + offset, kind=kind, payload=payload))
        group.version += len(older)
        db.session.commit()
    services.clear_cache()
    response = client.get(organiser)
    assert response.status_code == 200
    assert "Ev\u202ee" in html.unescape(response.get_data(as_text=True))
