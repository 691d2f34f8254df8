"""The group file, companion-group/1: read strictly, written back to the same values, refused naming where.

The group and its three nights are worked out by hand in three_nights.py.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal as D
from typing import Any

import pytest

from companion.group import file as groupfile
from companion.group.file import GroupFileError
from companion.group.members import Added, Merged, Renamed
from companion.group.nights import Cleared, Transfer
from companion.group.pay_links import Iban, PayPalMe, Venmo
from companion.group.tab import TabPayment, pay, tab
from companion.money.settle import Payment
from group.three_nights import GROUP, group_document


def test_a_group_file_reads_its_name_members_handles_and_nights():
    group = groupfile.from_dict(GROUP)
    assert group.name == "Friday poker"
    assert group.records == (
        Added("Ann"), Added("Ben"), Added("Cat"), Added("Dan"), Added("Daniel"), Merged("Dan", "Daniel"), Renamed("Ben", "Benjamin")
    )
    assert group.members.names == ("Ann", "Benjamin", "Cat", "Dan")
    assert group.members.member("daniel") == "Dan" and group.members.member("Ben") == "Benjamin"
    assert dict(group.handles) == {
        "Cat": (PayPalMe("CatLee"), Iban("DE89370400440532013000", "Cat Lee")),
        "Benjamin": (Venmo("ben-jamin"),),
    }
    first, second, third = group.nights
    assert [n.date for n in group.nights] == [datetime.date(2025, 3, 7), datetime.date(2025, 3, 14), datetime.date(2025, 3, 21)]
    # each night's id is its place in the file; its title its name, or "Night n"
    assert [(r.night_id, r.title) for r in group.results] == [("1", "Friday at Ann's"), ("2", "Friday at Ann's"), ("3", "Night 3")]
    assert first.paid == (Payment("Ben", "Ann", 4), Payment("Ben", "Cat", 2))
    assert first.result.paid == (Transfer("Ben", "Ann", D("1.00")), Transfer("Ben", "Cat", D("0.50")))
    # night 2: Ann -3, Ben -4, Cat +9, Daniel -2 at 0.25: the plan 0.75, 1.00, 0.50 to Cat; Ben's paid
    assert second.result.planned == (
        Transfer("Ann", "Cat", D("0.75")), Transfer("Ben", "Cat", D("1.00")), Transfer("Daniel", "Cat", D("0.50"))
    )
    assert second.result.paid == (Transfer("Ben", "Cat", D("1.00")),)
    assert second.cleared == (Cleared("2", "Dan", D("0.50"), "Dan", "Cat"), Cleared("2", "Cat", D("-0.50"), "Dan", "Cat"))
    assert third.result.unit is None and dict(third.result.net) == {"Ann": -10, "Ben": 10, "Cat": 0}
    assert third.paid == () and third.cleared == ()


def test_the_cleared_records_are_those_the_tab_appends_for_the_payment():
    # without its records night 2 leaves Dan owing 0.50 to Cat; the tab's payment of it appends exactly the file's two
    document = group_document()
    del document["nights"][1]["cleared"]
    bare = groupfile.from_dict(document)
    records = pay(bare.results, bare.members, [TabPayment("Dan", "Cat", "EUR", D("0.50"))])
    assert records == groupfile.from_dict(GROUP).nights[1].cleared


def test_the_tab_of_the_file_is_what_is_left_owed():
    group = groupfile.from_dict(GROUP)
    owed = tab(group.results, group.members)
    # EUR: night 1 settled; night 2 Ann -0.75, Cat +1.25 - 0.50 = +0.75, Dan -0.50 + 0.50 = 0; chips: night 3 unpaid
    assert dict(owed.balances["EUR"]) == {"Ann": D("-0.75"), "Cat": D("0.75")}
    assert dict(owed.balances[None]) == {"Ann": D(-10), "Benjamin": D(10)}
    assert owed.plan["EUR"] == (TabPayment("Ann", "Cat", "EUR", D("0.75")),)
    assert owed.plan[None] == (TabPayment("Ann", "Benjamin", None, D(10)),)


def test_writing_then_reading_gives_the_same_values():
    group = groupfile.from_dict(GROUP)
    again = groupfile.loads(groupfile.dumps(group))
    assert again.name == group.name and again.records == group.records and again.members == group.members
    assert dict(again.handles) == dict(group.handles)
    assert again.results == group.results
    assert [(n.date, n.paid) for n in again.nights] == [(n.date, n.paid) for n in group.nights]
    assert groupfile.to_dict(again) == groupfile.to_dict(group)
    written = groupfile.to_dict(group)
    # what is written: the records as the file's kinds, money as strings, each night a night file
    assert written["members"][5:] == [{"merged": "Daniel", "into": "Dan"}, {"renamed": "Ben", "to": "Benjamin"}]
    assert written["handles"]["Cat"] == {"paypal_me": "CatLee", "iban": {"iban": "DE89370400440532013000", "holder": "Cat Lee"}}
    assert written["nights"][1]["cleared"][1] == {"member": "Cat", "amount": "-0.50", "from": "Dan", "to": "Cat"}
    assert written["nights"][2]["night"]["bank"][0] == {"everyone_buys_in": 50}
    assert "paid" not in written["nights"][2] and "cleared" not in written["nights"][0]


def test_names_are_read_as_the_table_reads_them_and_handles_as_pasted():
    document = group_document()
    document["members"][0] = {"added": "  Ann  "}
    document["handles"] = {"cat": {"paypal_me": "https://paypal.me/CatLee", "iban": {"iban": "de89 3704 0044 0532 0130 00", "holder": "Cat Lee", "bic": "cobadeffxxx"}}}
    group = groupfile.from_dict(document)
    assert group.records[0] == Added("Ann")
    assert dict(group.handles) == {"Cat": (PayPalMe("CatLee"), Iban("DE89370400440532013000", "Cat Lee", "COBADEFFXXX"))}


def change(path: str, value: Any = None, *, delete: bool = False) -> dict[str, Any]:
    """The group file with the value at ``path`` ("nights.1.paid.0.chips") set (or deleted)."""
    document = group_document()
    *parents, last = path.split(".")
    held: Any = document
    for key in parents:
        held = held[int(key)] if isinstance(held, list) else held[key]
    key_: Any = int(last) if isinstance(held, list) else last
    if delete:
        del held[key_]
    elif isinstance(held, list) and key_ == len(held):
        held.append(value)
    else:
        held[key_] = value
    return document


def renamed_in_night(index: int, old: str, new: str) -> dict[str, Any]:
    document = group_document()
    night = json.dumps(document["nights"][index]["night"]).replace(f'"{old}"', f'"{new}"')
    document["nights"][index]["night"] = json.loads(night)
    return document


@pytest.mark.parametrize(
    ("document", "says"),
    [
        (change("extra", 1), "the top level: unknown key 'extra'"),
        (change("format", "companion-night/2"), "this is not a group file: a group file says \"format\": \"companion-group/1\""),
        (change("format", "companion-group/2"), "'format' must be \"companion-group/1\""),
        (change("name", ""), "'name': the group's name cannot be empty"),
        (change("name", 7), "'name': the group's name must be text"),
        (change("nights.1.notes", "x"), "nights[1]: unknown key 'notes'"),
        (change("nights.0.date", delete=True), "nights[0]: 'date' is missing"),
        # a member record naming an unknown member, and one that cannot apply
        (change("members.7", {"merged": "Zed", "into": "Dan"}), "members[7] (merged): no member of the group is called 'Zed'"),
        (change("members.7", {"added": "ann"}), "members[7] (added): 'ann' is already 'Ann'"),
        (change("members.7", {"renamed": "Cat"}), "members[7] (renamed): 'to' is missing"),
        (change("members.7", {"added": "Eve", "to": "Dan"}), "members[7] (added): unknown key 'to'"),
        (change("members.7", {"removed": "Cat"}), "members[7] must hold one of 'added', 'merged'"),
        # a night that does not replay, or is not a night file of this format
        (change("nights.1.night.games.1.deals.0.bid", 7), "nights[1].night: games[1] (nap): deals[0]"),
        (change("nights.0.night.format", "napalm-hand-history/1"), "nights[0].night must be a night file of the format \"companion-night/2\""),
        (change("nights.0.night.colour", "red"), "nights[0].night: unknown key 'colour' at the top level"),
        # a night seating a name no member goes by, or two names of one member
        (renamed_in_night(2, "Cat", "Eve"), "nights[2].night.players[2]: no member of the group is called 'Eve'"),
        (change("members.7", {"merged": "Cat", "into": "Ann"}), "nights[0].night: 'Ann' and 'Cat' both played night '1'"),
        # days: one spelling, in the order played
        (change("nights.1.date", "2025-3-14"), "nights[1].date: the night's date must be a day written YYYY-MM-DD"),
        (change("nights.1.date", "2025-02-30"), "nights[1].date: the night's date is no day of the calendar"),
        (change("nights.1.date", "2025-03-01"), "nights[1].date: 2025-03-01 is before the night listed before it (2025-03-07)"),
        # payments marked paid: chips as a JSON integer, between players of the night
        (change("nights.0.paid.0.chips", 4.0), "nights[0].paid[0].chips: chips are a whole number written without a decimal point"),
        (change("nights.0.paid.0.chips", "4"), "nights[0].paid[0].chips: chips are a whole number written without a decimal point"),
        (change("nights.0.paid.0.chips", 0), "nights[0].paid[0].chips: the chips must be 1 to 1,000,000,000"),
        (change("nights.0.paid.0.from", "Benjamin"), "nights[0].paid[0]: 'from' must be a player seated at the night"),
        (change("nights.0.paid.0.to", "Ben"), "nights[0].paid[0]: Ben cannot pay themselves"),
        # the night's payments are listed beside it, once: never also in the night file's own "paid"
        (change("nights.0.night.paid", [{"payer": "Ben", "payee": "Ann", "chips": 4}]),
         "nights[0].night: a group file lists the night's payments marked paid beside it, under nights[0].paid"),
        # the tab's records: money as a string, exact; each moves a balance towards zero, never past it
        (change("nights.1.cleared.0.amount", 0.5), "nights[1].cleared[0].amount: an amount is a decimal written as a string"),
        (change("nights.1.cleared.0.amount", "0.5e0"), "nights[1].cleared[0].amount:"),
        (change("nights.1.cleared.0.amount", "0.00001"), "nights[1].cleared[0].amount:"),
        (change("nights.1.cleared.0.amount", "0.75"), "Dan's balance on this night is -0.50: 0.75 does not move it towards zero"),
        (change("nights.1.cleared.1.amount", "0.50"), "nights[1].cleared[1].amount: Cat's record of this payment is below zero"),
        (change("nights.1.cleared.0.member", "Ann"), "nights[1].cleared[0]: Ann is neither who paid (Dan) nor who was paid (Cat)"),
        (change("nights.1.cleared.0.member", "Zed"), "nights[1].cleared[0].member: no member of the group is called 'Zed'"),
        (change("nights.0.cleared", [{"member": "Dan", "amount": "0.50", "from": "Dan", "to": "Cat"}]),
         "nights[0].cleared[0].amount: Dan's balance on this night is 0"),
        (change("nights.2.cleared", [{"member": "Ann", "amount": "2.5", "from": "Ann", "to": "Benjamin"}]),
         "nights[2].cleared[0].amount: the amount is in chips on a chips-only night: a whole number, not 2.5"),
        (change("nights.1.cleared.0.to", delete=True), "nights[1].cleared[0]: 'to' is missing"),
        # a record on its own (Dan's side of his payment to Cat, without Cat's): no tab makes one (issue 35)
        (change("nights.1.cleared.1", delete=True),
         "nights[1]: the tab's records in EUR do not add up: a payment through the tab clears its payer's debts"),
        # payments marked paid that overpay the night (Ann is owed 4 chips, 1.00 at 0.25: paid 6, 1.50, she is
        # left at -0.50), or run from who is owed to who owes (night 3: Ann owes Ben 10; Ben paying Ann 3 leaves
        # Ann owing 13)
        (change("nights.0.paid.0.chips", 6),
         "nights[0].paid: the payments leave Ann's balance on this night at -0.50 where its plan's is 1.00"),
        (change("nights.2.paid", [{"from": "Ben", "to": "Ann", "chips": 3}]),
         "nights[2].paid: the payments leave Ann's balance on this night at -13 where its plan's is -10"),
        # pay handles: each read by its kind's reader, for a member
        (change("handles.Cat.iban.iban", "DE88370400440532013000"), "handles.Cat.iban: the IBAN's check digits do not match"),
        (change("handles.Zed", {"venmo": "zed-zed"}), "handles.Zed: no member of the group is called 'Zed'"),
        (change("handles.Benjamin.cashapp", "ben"), "handles.Benjamin: unknown key 'cashapp'"),
        (change("handles.Benjamin", {}), "handles.Benjamin must be an object with at least one of"),
        (change("handles.ben", {"venmo": "ben-jamin"}), "handles.ben: Benjamin's handles are given twice"),
    ],
)
def test_a_wrong_group_file_is_refused_naming_where(document, says):
    with pytest.raises(GroupFileError) as refused:
        groupfile.from_dict(document)
    assert says in str(refused.value)


def a_year_after_today() -> datetime.date:
    return datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=366)


@pytest.mark.parametrize(
    ("night", "day"),
    # a day too early on the first night, a day too late on the last (the dates never go back)
    [(0, "0001-01-01"), (0, "1999-12-31"), (2, "9999-12-31"), (2, "the day after a year ahead")],
)
def test_a_nights_date_before_2000_or_more_than_a_year_ahead_is_refused_naming_where(night, day):
    written = str(a_year_after_today() + datetime.timedelta(days=1)) if day.startswith("the") else day
    with pytest.raises(GroupFileError) as refused:
        groupfile.from_dict(change(f"nights.{night}.date", written))
    assert str(refused.value) == (
        f"nights[{night}].date: the night's date must be a day from 2000-01-01 to {a_year_after_today()}, not {written}"
    )


def test_a_nights_date_on_the_first_day_of_2000_or_a_year_ahead_is_read():
    document = change("nights.0.date", "2000-01-01")
    document["nights"][2]["date"] = str(a_year_after_today())
    group = groupfile.from_dict(document)
    assert [n.date for n in group.nights] == [datetime.date(2000, 1, 1), datetime.date(2025, 3, 14), a_year_after_today()]


def with_key_twice(document: dict[str, Any], path: str, key: str, value: Any) -> str:
    """The text of ``document`` with ``key`` written a second time, with ``value``, in the object at ``path``."""
    held: Any = document
    for step in path.split(".") if path else []:
        held = held[int(step)] if isinstance(held, list) else held[step]
    held["\u0000twice"] = None
    text = json.dumps(document)
    assert text.count('"\\u0000twice": null') == 1
    return text.replace('"\\u0000twice": null', f"{json.dumps(key)}: {json.dumps(value)}")


@pytest.mark.parametrize(
    ("path", "key", "value", "says"),
    [
        ("", "name", "Saturday poker", "the top level: the key 'name' is written twice"),
        ("nights.1", "date", "2025-03-15", "nights[1]: the key 'date' is written twice"),
        ("nights.1.night", "players", ["Ann", "Ben"], "nights[1].night: the key 'players' is written twice"),
        ("nights.0.paid.0", "chips", 40, "nights[0].paid[0]: the key 'chips' is written twice"),
        ("handles.Cat.iban", "holder", "Eve", "handles.Cat.iban: the key 'holder' is written twice"),
    ],
)
def test_a_key_written_twice_in_one_object_is_refused_naming_where(path, key, value, says):
    # json.loads alone would keep the second value: a group called "Saturday poker", 40 chips paid
    with pytest.raises(GroupFileError) as refused:
        groupfile.loads(with_key_twice(group_document(), path, key, value))
    assert str(refused.value) == f"{says}; an object names each key once"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not valid JSON"),
        ("[]", "the file must hold one JSON object"),
        ("[" * 20 + "]" * 20, "nested too deeply"),
    ],
)
def test_a_file_that_is_no_json_object_is_refused_before_anything_is_read(text, says):
    with pytest.raises(GroupFileError, match=says):
        groupfile.loads(text)


def test_only_a_file_saying_its_format_is_a_group_file():
    assert groupfile.declares_group(json.dumps(GROUP))
    assert not groupfile.declares_group(json.dumps(GROUP["nights"][0]["night"]))
    assert not groupfile.declares_group("not json")
