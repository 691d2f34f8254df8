"""The one reader of a whole number, of a text, of a day (issue 21 items 8-12) and of an object's keys (companion.values.reading).

The values are those the outside probe sent; what each reads as is worked out by hand
from the rule: digits 0-9 only, spaces around ignored, one "+" allowed, a "-" only where
a negative number makes sense, at most 15 digits.  Of an object's keys outside its set,
the one named is the first in sorted order, as text.
"""

from __future__ import annotations

import datetime

import pytest

from decimal import Decimal

from companion.values.reading import (
    Unreadable, decimal_amount, file_text, iso_date, json_document, name, night_date, shown, text, unknown_key, whole_number,
)


@pytest.mark.parametrize(
    ("value", "number"),
    [("0", 0), ("7", 7), (" 12 ", 12), ("+1", 1), ("007", 7), ("999999999999999", 10**15 - 1), ("0" * 40 + "5", 5)],
)
def test_a_whole_number_in_digits_0_to_9_is_read(value, number):
    assert whole_number(value) == number


@pytest.mark.parametrize(
    "value",
    ["\u00b2", "\u0663", "\uff11", "\U0001d7cf", "1_0", "1 0", "1.0", "1e3", "0x1F", "\u30001", "1\x00", "", "  ", "+", "++1"],
)
def test_anything_else_is_refused_with_a_sentence(value):
    with pytest.raises(Unreadable, match="digits 0-9|enter"):
        whole_number(value, "the ante")


def test_a_number_of_more_than_fifteen_digits_is_refused_before_int_reads_it():
    with pytest.raises(Unreadable, match="more than 15 digits"):
        whole_number("1" + "0" * 4999)  # int() itself raises beyond 4,300 digits
    with pytest.raises(Unreadable, match="more than 15 digits"):
        whole_number("1" * 16)


def test_a_minus_sign_is_refused_where_no_negative_number_makes_sense_and_read_where_one_does():
    with pytest.raises(Unreadable, match="cannot be negative"):
        whole_number("-0", "the buy-in")
    assert whole_number("-3", low=None) == -3
    assert whole_number("-3", low=-5) == -3


def test_the_bounds_are_said_with_the_unit():
    with pytest.raises(Unreadable, match="^the buy-in must be 1 to 1,000,000,000 chips$"):
        whole_number("0", "the buy-in", low=1, high=10**9, unit="chips")
    with pytest.raises(Unreadable, match="^page must be at least 1$"):
        whole_number("0", "page", low=1)


def test_a_text_is_trimmed_and_checked_never_cut():
    assert text("  Texas   hold'em ", max_length=40, collapse=True) == "Texas hold'em"
    assert text("  Ann  Lee ", max_length=24) == "Ann  Lee"
    with pytest.raises(Unreadable, match="cannot be stored"):
        text("Tex\x00as", "the variant", max_length=40)
    with pytest.raises(Unreadable, match="cannot be stored"):
        text("\ud800", "a name", max_length=40)
    with pytest.raises(Unreadable, match="^a name is at most 3 characters: shorten it$"):
        text("Anna", "a name", max_length=3)
    with pytest.raises(Unreadable, match="must be text"):
        text(3, "a name", max_length=3)


@pytest.mark.parametrize(
    ("written", "read"),
    [("Ann", "Ann"), ("  Ann   Lee ", "Ann Lee"), ("Zo\u00eb", "Zo\u00eb"), ("\u05d3\u05e0\u05d9", "\u05d3\u05e0\u05d9"),
     # a family emoji is three people joined by ZERO WIDTH JOINERs (U+200D): no control, no direction mark
     ("\U0001f469\u200d\U0001f469\u200d\U0001f467", "\U0001f469\u200d\U0001f469\u200d\U0001f467")],
)
def test_a_name_in_any_script_is_read_with_its_spaces_made_one(written, read):
    assert name(written, "a member's name", max_length=24) == read


@pytest.mark.parametrize(
    "character",
    ["\x01", "\x1b", "\x7f", "\t", "\n", "\x1f", "\x85", "\x9f"],  # C0 (a tab and a line end too), DEL, C1
    ids=ascii,
)
def test_a_name_holding_a_control_character_is_refused_saying_which(character):
    with pytest.raises(Unreadable) as refused:
        name(f"A{character}nn", "a member's name", max_length=24)
    assert str(refused.value) == (
        f"a member's name contains a control character (U+{ord(character):04X}), which a name cannot hold: type it without it"
    )


@pytest.mark.parametrize(
    "mark",
    ["\u202e", "\u202a", "\u202b", "\u202c", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f",
     "\u061c"],
    ids=ascii,
)
def test_a_name_holding_a_mark_that_changes_the_direction_of_text_is_refused_saying_which(mark):
    # "\u202eAnn" shows as "nnA": one name shown as another
    with pytest.raises(Unreadable) as refused:
        name(f"{mark}Ann", "the group's name", max_length=80)
    assert str(refused.value) == (
        f"the group's name contains a mark that changes the direction of text (U+{ord(mark):04X}), which a name cannot"
        " hold: type it without it"
    )


def test_a_name_is_refused_as_a_text_is_when_it_cannot_be_stored_or_is_too_long():
    with pytest.raises(Unreadable, match="^a name contains characters that cannot be stored"):
        name("A\x00nn", "a name", max_length=24)
    with pytest.raises(Unreadable, match="^a name is at most 3 characters: shorten it$"):
        name("Anna", "a name", max_length=3)


def test_a_value_quoted_in_a_message_is_short_and_shows_nothing_invisible():
    assert shown("a\x00b") == "a\ufffdb"
    assert shown("x" * 30) == "x" * 20 + "\u2026"


def test_a_day_is_read_in_one_spelling_only():
    assert iso_date("2025-03-07") == datetime.date(2025, 3, 7)
    assert iso_date("2024-02-29") == datetime.date(2024, 2, 29)  # a leap year's


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("20250307", "must be a day written YYYY-MM-DD"),  # date.fromisoformat reads it
        ("2025-W10-5", "must be a day written YYYY-MM-DD"),  # … and this
        ("2025-3-7", "must be a day written YYYY-MM-DD"),
        (" 2025-03-07", "must be a day written YYYY-MM-DD"),
        ("\u0662\u0660\u0662\u0665-03-07", "must be a day written YYYY-MM-DD"),  # Arabic-Indic digits
        ("2025-02-29", "is no day of the calendar"),
        (20250307, "must be a day written YYYY-MM-DD"),
    ],
)
def test_any_other_day_is_refused_with_a_sentence(value, says):
    with pytest.raises(Unreadable, match=says):
        iso_date(value, "the night's date")


#: a day to count from: 366 days after it is 2027-11-30 (2027 is no leap year: 365 days to 2027-11-29, one more)
TODAY = datetime.date(2026, 11, 29)


@pytest.mark.parametrize("value", ["2000-01-01", "2025-03-07", "2026-11-29", "2027-11-30"])
def test_a_nights_day_is_read_from_the_first_of_2000_to_a_year_after_today(value):
    assert night_date(value, today=TODAY) == datetime.date.fromisoformat(value)


@pytest.mark.parametrize("value", ["0001-01-01", "1999-12-31", "2027-12-01", "9999-12-31"])
def test_a_nights_day_before_2000_or_more_than_a_year_ahead_is_refused_saying_the_range(value):
    with pytest.raises(Unreadable) as refused:
        night_date(value, today=TODAY)
    assert str(refused.value) == f"the night's date must be a day from 2000-01-01 to 2027-11-30, not {value}"


def test_a_nights_day_is_still_read_in_one_spelling_only():
    with pytest.raises(Unreadable, match="must be a day written YYYY-MM-DD"):
        night_date("20250307", today=TODAY)


def document(text: str) -> object:
    return json_document(text, max_bytes=1_000, max_depth=8, what="a night file")


def test_a_json_object_naming_a_key_twice_is_refused_naming_where():
    # json.loads alone keeps the last: {"a": 2}
    with pytest.raises(Unreadable, match="^the top level: the key 'a' is written twice; an object names each key once$"):
        document('{"a": 1, "a": 2}')
    with pytest.raises(Unreadable, match="^games\\[1\\].rules: the key 'ante' is written twice"):
        document('{"games": [{"rules": {"ante": 1}}, {"rules": {"ante": 1, "tokens": 5, "ante": 2}}]}')
    with pytest.raises(Unreadable, match="^nights\\[0\\].night: the key 'players' is written twice"):
        document('{"nights": [{"night": {"players": [], "players": ["Ann"]}}]}')


def test_one_key_in_each_of_two_objects_is_no_key_written_twice():
    assert document('{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}') == {"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}


def test_a_files_bytes_are_read_as_utf8_with_or_without_a_byte_order_mark():
    assert file_text('{"name": "Caf\u00e9"}'.encode()) == '{"name": "Caf\u00e9"}'
    assert file_text(b'\xef\xbb\xbf{"name": "Caf\xc3\xa9"}') == '{"name": "Caf\u00e9"}'  # the BOM dropped
    assert file_text('\ufeff{}') == "{}"  # text already decoded, as a UTF-8 file with a BOM decodes


@pytest.mark.parametrize(
    ("encoding", "says"),
    [
        ("utf-16", "(it looks like UTF-16 or UTF-32)"),  # a byte order mark in front: FF FE
        ("utf-16-be", "(it looks like UTF-16 or UTF-32)"),  # none: "{" is 00 7B
        ("utf-32", "(it looks like UTF-16 or UTF-32)"),
        ("latin-1", "(byte 14 is not UTF-8)"),  # {"name": "Caf is 13 bytes, then é as the one byte E9: the 14th
    ],
)
def test_a_file_in_any_other_encoding_is_refused_saying_to_save_it_as_utf8(encoding, says):
    with pytest.raises(Unreadable) as refused:
        file_text('{"name": "Caf\u00e9"}'.encode(encoding))
    assert str(refused.value) == f"the file is not text in UTF-8 {says}: save it as UTF-8 and send it again"
    with pytest.raises(Unreadable, match="not text in UTF-8"):  # json.loads alone reads the first three
        document('{"name": "Caf\u00e9"}'.encode(encoding))


@pytest.mark.parametrize(
    ("value", "places", "read"),
    [("5.00", 4, Decimal("5")), (" -0.125 ", 4, Decimal("-0.125")), ("+2.5", 4, Decimal("2.5")), ("12", 0, Decimal(12)),
     ("-12", 0, Decimal(-12)), ("0.1000", 1, Decimal("0.1"))],
)
def test_an_amount_reads_exactly_as_written(value, places, read):
    assert decimal_amount(value, places=places) == read


@pytest.mark.parametrize(
    ("value", "places", "says"),
    [(2.5, 4, "must be a decimal number written as text"), ("1e3", 4, "in digits 0-9"), ("\u0663", 4, "in digits 0-9"),
     ("1_0", 4, "in digits 0-9"), ("1.5", 0, "whole number, with no point"), ("0.12345", 4, "at most 4 decimal places"),
     ("9" * 16, 4, "more than 15 digits"), ("-0", 4, "never zero"), ("", 4, "in digits 0-9")],
)
def test_any_other_amount_is_refused_with_a_sentence(value, places, says):
    with pytest.raises(Unreadable, match=says):
        decimal_amount(value, places=places, zero=False)


def test_an_amount_that_cannot_be_negative_says_so():
    with pytest.raises(Unreadable, match="cannot be negative"):
        decimal_amount("-1.50", places=2, signed=False)


def test_the_unknown_key_named_is_the_first_in_sorted_order_whatever_order_it_was_written_in():
    # unknown: "zeta" and "alpha" ("format" is allowed); sorted, "alpha" < "zeta"
    assert unknown_key({"zeta": 1, "format": 2, "alpha": 3}, {"format"}) == "alpha"
    assert unknown_key({"alpha": 3, "format": 2, "zeta": 1}, {"format"}) == "alpha"
    # sorted by code point: "Z" is 90, "b" is 98, so the capital comes first
    assert unknown_key({"b": 1, "Z": 2}, set()) == "Z"


def test_a_key_that_is_not_a_string_is_named_as_text():
    # 7 is unknown; named as the text "7"
    assert unknown_key({7: "x", "players": []}, {"players"}) == "7"
    # as text "10" < "9" < "a" (the first characters "1" 49, "9" 57, "a" 97): sorted as numbers 9 would come first,
    # and a mix of numbers and strings could not be sorted at all
    assert unknown_key({9: 0, "a": 0, 10: 0}, ()) == "10"


def test_an_object_with_only_known_keys_or_none_at_all_has_no_unknown_key():
    assert unknown_key({}, {"format"}) is None
    assert unknown_key({}, ()) is None
    assert unknown_key({"player": "Ann", "amount": "2.50"}, ("player", "amount", "ref")) is None


def test_an_empty_key_is_unknown_like_any_other():
    # "" is not allowed, so it is the key named: the answer is "", not None
    assert unknown_key({"": 1, "format": 2}, {"format"}) == ""
