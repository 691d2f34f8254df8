"""One reader of a number and of a text, whatever way a value comes in (issue 21, items 8 to 12).

Each way in used to read numbers its own way: ``"²".isdigit()`` is true and ``int("²")``
raises (a players' link made the report answer 500), ``int()`` reads ``"1_0"`` as 10 and
refuses 5,000 digits with a ValueError (start-a-night answered 500), ``Decimal()`` read
``"٠.٢٥"`` as 0.25 (a night file took what the form refused), and a NUL in the betting
game's variant was stored by one form and refused by the next.  Here the same hostile
values go in by a form field, a query string and a night file (``/import`` and ``flask
replay``), and each gets the same verdict, worked out by hand from what
:mod:`companion.values.reading` says a number is: digits 0-9, spaces around ignored, one ``+``
allowed, nothing else.
"""

from __future__ import annotations

import html as htmllib
import io
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.games.web import SCREENS
from companion.db.models import Event, Night
from pages import FOUR, night_form
from security.support import Site

FIVE_THOUSAND_DIGITS = "1" + "0" * 4999
#: value -> the whole number it is (None: refused), by hand from companion.values.reading's rule
WHOLE: dict[str, int | None] = {
    "\u00b2": None,  # superscript two: str.isdigit() says yes, int() raises
    "\u0663": None,  # Arabic-Indic three: int() reads it
    "\uff11": None,  # full-width one
    "\U0001d7cf": None,  # mathematical bold one
    "1_0": None,  # int() reads it as 10
    " 1 ": 1,  # spaces around: what a phone keyboard adds
    FIVE_THOUSAND_DIGITS: None,  # int() raises beyond 4,300 digits
    "-0": None,  # no sign where no negative number makes sense
    "1\x00": None,  # NUL
    "+1": 1,
    "": None,  # nothing: the field is required
}
#: the same values as a chip value: as a whole number, but empty means a chips-only night (0)
CHIP_VALUE: dict[str, Decimal | None] = {
    **{value: (None if whole is None else Decimal(whole)) for value, whole in WHOLE.items()},
    "\u0660.\u0662\u0665": None,  # Arabic-Indic 0.25: Decimal() reads it
    "": Decimal("0"),
}


def nights(app) -> list[Night]:
    with app.app_context():
        found = list(db.session.scalars(select(Night).order_by(Night.id)))
        for night in found:
            _ = (night.first_game.rules, night.chip_value)
        return found


def night_count(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(Night.id)))


# --- a whole number ----------------------------------------------------------------------------


@pytest.mark.parametrize("typed", list(WHOLE), ids=lambda v: ascii(v)[:24])
def test_a_whole_number_gets_the_same_verdict_on_a_form_field_and_in_a_query_string(app, client, typed):
    expected = WHOLE[typed]
    # a form field: the night's ante (a WholeNumberField)
    started = client.post("/nights", data=night_form(ante=typed))
    if expected is None:
        assert started.status_code == 422, started.status_code
        assert ("This field is required." if typed == "" else "Enter a whole number in digits 0-9") in started.get_data(as_text=True)
        assert night_count(app) == 0
    else:
        assert started.history[0].status_code == 303 if started.history else started.status_code == 303
        assert [n.first_game.rules["ante"] for n in nights(app)] == [expected]
    # another form field: the bank's "everyone buys in" chips (read by the bank's own view)
    site = Site(app)
    night = site.seat()
    bank = client.post(f"/k/{night.keeper}/bank/everyone", data={**site.submit("bank.everyone", night), "chips": typed})
    if expected is None:
        assert bank.status_code == 422, bank.status_code
    else:
        assert bank.status_code == 303, bank.status_code
        with app.app_context():
            last = db.session.scalars(select(Event).where(Event.night_id == night.id).order_by(Event.seq.desc())).first()
            assert last is not None and last.payload["chips"] == expected
    # a query string: the history's page (there is one page, page 1)
    page = client.get(f"/k/{night.keeper}/history", query_string={"page": typed})
    assert page.status_code == (400 if expected is None else 200), page.status_code


@pytest.mark.parametrize("typed", list(WHOLE), ids=lambda v: ascii(v)[:24])
def test_the_reports_chip_count_on_a_players_link_reads_the_same_whole_numbers(app, client, typed):
    """Item 8: ``?c1=²`` and a 5,000-digit count made the report answer 500 on both links.  The report's
    own count form is gone (issue 20 item 13: the Bank page counts): such an address is only the report."""
    night = Site(app).seat()
    for link, key in (("p", night.viewer), ("k", night.keeper)):
        response = client.get(f"/{link}/{key}/report", query_string={"count": "1", "buy_in": "100", "c1": typed})
        assert response.status_code == 200, (link, response.status_code)
        page = htmllib.unescape(response.get_data(as_text=True))
        assert "Compare with the ledger" not in page and "the ledger expects" not in page


# --- a decimal: the chip value ------------------------------------------------------------------


def night_file(chip_value: str) -> bytes:
    document = {
        "format": "companion-night/2",
        "name": "Friday",
        "players": ["Ann", "Ben", "Cat"],
        "money": {"chip_value": chip_value, "currency": "EUR"},
        "games": [{"game": "betting", "rules": {"variant": "Texas hold'em"}, "deals": [{"dealer": "Ann"}]}],
    }
    return json.dumps(document).encode()


@pytest.mark.parametrize("typed", list(CHIP_VALUE), ids=lambda v: ascii(v)[:24])
def test_a_chip_value_gets_the_same_verdict_on_the_form_on_import_and_on_replay(app, client, tmp_path: Path, typed):
    """Item 12: a night file took "1_0" as 10, "٠.٢٥" as 0.25 and "１" as 1, the form refused them."""
    expected = CHIP_VALUE[typed]
    formed = client.post("/nights", data=night_form(chip_value=typed))
    imported = client.post("/import", data={"file": (io.BytesIO(night_file(typed)), "night.json")},
                           content_type="multipart/form-data")
    path = tmp_path / "night.json"
    path.write_bytes(night_file(typed))
    replayed = app.test_cli_runner().invoke(args=["replay", str(path)])
    if expected is None:
        assert (formed.status_code, imported.status_code, replayed.exit_code) == (422, 422, 1)
        assert night_count(app) == 0
        assert replayed.stderr.startswith("error: ")
    else:
        assert (formed.status_code, imported.status_code, replayed.exit_code) == (303, 303, 0), replayed.output
        assert [n.chip_value for n in nights(app)] == [expected, expected]


# --- a text --------------------------------------------------------------------------------------


def form_fields(page: str, action: str) -> dict[str, str | list[str]]:
    """What a browser sends for the form posting to ``action`` as the page shows it (no button)."""
    form = next(
        (f for f in re.finditer(r"<form\b([^>]*)>(.*?)</form>", page, re.S)
         if re.search(rf'action="{re.escape(action)}(\?[^"]*)?"', f.group(1)) and 'method="post"' in f.group(1).lower()),
        None,
    )
    assert form, f"no form posting to {action}"
    fields: dict[str, str | list[str]] = {}
    controls = re.findall(r"<(select)\b([^>]*)>(.*?)</select>|<(input|textarea)\b([^>]*)>", form.group(2), re.S)
    for select, select_attrs, options, other, other_attrs in controls:
        tag, attrs = (select, select_attrs) if select else (other, other_attrs)
        name = re.search(r'\bname="([^"]*)"', attrs)
        if not name:
            continue
        kind = (re.search(r'\btype="([^"]*)"', attrs) or re.search("()", "")).group(1)
        value = htmllib.unescape((re.search(r'\bvalue="([^"]*)"', attrs) or re.search("()", "")).group(1))
        if kind in ("submit", "file") or (kind in ("checkbox", "radio") and "checked" not in attrs):
            continue
        if tag == "select":
            chosen = re.search(r'<option(?=[^>]*\bselected)[^>]*value="([^"]*)"', options) or re.search(
                r'<option[^>]*value="([^"]*)"', options)
            value = htmllib.unescape(chosen.group(1)) if chosen else ""
        if kind == "checkbox":
            fields.setdefault(name.group(1), [])
            fields[name.group(1)].append(value)  # type: ignore[union-attr]
        else:
            fields[name.group(1)] = value
    return fields


#: the seats each game's default rules take (the fixed-stake pots' first preset is a game for two)
SEATS = {"pots": {"seat_1": "Ann", "seat_2": "Ben"}}


def start_fields(client, kind: str) -> dict[str, str | list[str]]:
    return {**form_fields(client.get(f"/?game={kind}").get_data(as_text=True), "/nights"), **SEATS.get(kind, FOUR)}


def test_a_nul_in_the_betting_games_variant_is_refused_by_every_form_and_by_the_night_file(app, client, tmp_path):
    """Item 11: "Start the night" stored it, and the night's own export was then refused on import."""
    variant = "Texas\x00hold'em"
    started = client.post("/nights", data={**start_fields(client, "betting"), "variant": variant})
    assert started.status_code == 422
    assert "cannot be stored" in started.get_data(as_text=True)
    assert night_count(app) == 0
    # the next-game form of a night under way
    ok = client.post("/nights", data=start_fields(client, "betting"))
    assert ok.status_code == 303
    table = ok.headers["Location"]
    page = client.get(f"{table}/next-game?game=betting").get_data(as_text=True)
    fields = form_fields(page, f"{table}/next-game")
    refused = client.post(f"{table}/next-game", data={**fields, "variant": variant})
    assert refused.status_code == 422 and "cannot be stored" in refused.get_data(as_text=True)
    # the night file, on /import and flask replay
    document = json.loads(night_file("0.25"))
    document["games"][0]["rules"]["variant"] = variant
    path = tmp_path / "night.json"
    path.write_text(json.dumps(document))
    imported = client.post("/import", data={"file": (io.BytesIO(path.read_bytes()), "night.json")},
                           content_type="multipart/form-data")
    assert imported.status_code == 422 and "cannot be stored" in imported.get_data(as_text=True)
    replayed = app.test_cli_runner().invoke(args=["replay", str(path)])
    assert replayed.exit_code == 1 and "cannot be stored" in replayed.stderr
    assert night_count(app) == 1  # the good one only


def test_a_betting_night_started_by_the_form_exports_a_file_its_own_import_takes(app, client):
    started = client.post("/nights", data={**start_fields(client, "betting"), "variant": "  Texas   hold'em "})
    assert started.status_code == 303
    exported = client.get(f"{started.headers['Location']}/export.json").get_data()
    assert json.loads(exported)["games"][0]["rules"]["variant"] == "Texas hold'em"
    again = client.post("/import", data={"file": (io.BytesIO(exported), "night.json")}, content_type="multipart/form-data")
    assert again.status_code == 303


# --- a seat's number: 5,000 digits on start-a-night and setup (item 10) ----------------------------


@pytest.mark.parametrize("kind", list(SCREENS))
@pytest.mark.parametrize("where", ["start a night", "setup"])
def test_a_five_thousand_digit_first_dealer_is_refused_and_a_move_up_ignored_on_every_nights_form(app, client, kind, where):
    """14 of 14 such forms answered 500: int() refuses more than 4,300 digits."""
    if where == "start a night":
        action, fields = "/nights", start_fields(client, kind)
    else:
        started = client.post("/nights", data=start_fields(client, kind))
        assert started.status_code == 303
        action = f"{started.headers['Location']}/setup"
        fields = {**form_fields(client.get(action).get_data(as_text=True), action)}
    before = night_count(app)
    refused = client.post(action, data={**fields, "first_dealer": FIVE_THOUSAND_DIGITS})
    assert refused.status_code == 422
    assert "choose the first dealer" in refused.get_data(as_text=True)
    assert night_count(app) == before
    # a 5,000-digit ↑ is no seat's button: the form is submitted as it is
    moved = client.post(action, data={**fields, "move_up": FIVE_THOUSAND_DIGITS})
    assert moved.status_code == 303
