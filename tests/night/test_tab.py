"""The night event of the group's tab, ``tab_cleared``: read strictly, folded, and kept in the night file."""

from __future__ import annotations

import json
from decimal import Decimal as D

import pytest

from companion.games import IllegalAction
from companion.night import file as nightfile
from companion.night import tab as night_tab
from companion.night.file import NightFileError
from companion.night.tab import TabCleared

SEATED = ("Ann", "Bob", "Cat")


def payload(**change: object) -> dict[str, object]:
    record: dict[str, object] = {"player": "Ann", "amount": "5.00", "payer": "Ann", "payee": "Cat", "ref": "TAB-1"}
    record.update(change)
    return {k: v for k, v in record.items() if v is not None}


def test_a_record_reads_as_its_player_amount_payment_and_reference():
    assert night_tab.read(payload(), SEATED, money=True) == TabCleared("Ann", D("5.00"), "Ann", "Cat", "TAB-1")
    # below zero: Cat received part of what she was owed; an offset names one member twice
    cat = night_tab.read(payload(player="Cat", amount="-0.125"), SEATED, money=True)
    assert cat.amount == D("-0.125") and not cat.offset
    assert night_tab.read(payload(player="Bob", payer="Bob", payee="Bob"), SEATED, money=True).offset
    # a chips-only night counts whole chips
    assert night_tab.read(payload(amount="12"), SEATED, money=False).amount == D(12)


@pytest.mark.parametrize(
    ("change", "money", "message"),
    [
        ({"note": "x"}, True, "unknown key 'note'"),
        ({"ref": None}, True, "'ref' is missing"),
        ({"player": "Dan"}, True, "'player' must be a player seated at this night"),
        ({"amount": "0"}, True, "'amount': the amount is never zero"),
        ({"amount": "-0.00"}, True, "'amount': the amount is never zero"),
        ({"amount": 5}, True, "'amount': the amount must be a decimal number written as text"),
        ({"amount": "5.5"}, False, "'amount': the amount is a whole number, with no point"),
        ({"amount": "0.00001"}, True, "'amount': the amount has at most 4 decimal places"),
        ({"amount": "1e3"}, True, "'amount': the amount must be a decimal number in digits 0-9"),
        ({"payer": ""}, True, "'payer' must name a member of the group"),
        ({"payee": "x" * 25}, True, "'payee': the payee is at most 24 characters"),
        ({"ref": "r" * 81}, True, "'ref': the payment's reference is at most 80 characters"),
    ],
)
def test_a_wrong_record_is_refused_naming_its_key(change, money, message):
    with pytest.raises(IllegalAction, match=message.replace("(", r"\(")):
        night_tab.read(payload(**change), SEATED, money=money)


def test_the_history_says_each_record_in_the_nights_unit():
    ann = night_tab.read(payload(), SEATED, money=True)
    assert night_tab.describe(ann, "EUR", True) == (
        "Settled through the group's tab: Ann paid off 5.00 EUR of what they owed here, in Ann's payment to Cat "
        "(ref TAB-1)."
    )
    cat = night_tab.read(payload(player="Cat", amount="-20"), SEATED, money=False)
    assert night_tab.describe(cat, "", False) == (
        "Settled through the group's tab: Cat received 20 chips of what they were owed here, in Ann's payment "
        "to Cat (ref TAB-1)."
    )
    bob = night_tab.read(payload(player="Bob", amount="-2.5", payer="Bob", payee="Bob"), SEATED, money=True)
    assert night_tab.describe(bob, "EUR", True) == (
        "Settled through the group's tab: 2.50 EUR of what Bob was owed here set against another night (ref TAB-1)."
    )


#: three players on chip counts: each bought 100 and counted Ann 80, Bob 90, Cat 130, so the night's
#: balances are Ann -20, Bob -10, Cat +30 (the betting game moves no chip the app sees)
ON_COUNTS = {
    "format": "companion-night/2", "players": ["Ann", "Bob", "Cat"],
    "money": {"chip_value": "0.25", "currency": "EUR"},
    "games": [{"game": "betting", "rules": {"variant": "Texas hold'em"}, "deals": [{"dealer": "Ann"}]}],
    "bank": [{"everyone_buys_in": 100}, {"cash_out": "Ann", "chips": 80}, {"cash_out": "Bob", "chips": 90},
             {"cash_out": "Cat", "chips": 130}],
    "tab_cleared": [
        {"player": "Ann", "amount": "5.00", "payer": "Ann", "payee": "Cat", "ref": "TAB-1"},
        {"player": "Cat", "amount": "-5.00", "payer": "Ann", "payee": "Cat", "ref": "TAB-1"},
    ],
}


def test_a_night_file_keeps_the_tabs_records_after_the_nights_own_events_and_writes_them_back():
    night = nightfile.from_dict(json.loads(json.dumps(ON_COUNTS)))
    kinds = [kind for kind, _ in night.ledger_events]
    assert kinds == ["all_buy_in", "cash_out", "cash_out", "cash_out", "tab_cleared", "tab_cleared"]
    assert night.ledger_events[-1][1] == ON_COUNTS["tab_cleared"][1]
    from companion.group.result import night_ledger

    ledger = night_ledger(night)
    assert ledger.tab_records == (
        TabCleared("Ann", D("5.00"), "Ann", "Cat", "TAB-1"), TabCleared("Cat", D("-5.00"), "Ann", "Cat", "TAB-1"),
    )
    written = nightfile.to_dict(night.name, night.play, night.money, ledger)
    assert written["tab_cleared"] == ON_COUNTS["tab_cleared"]
    again = nightfile.from_dict(json.loads(json.dumps(written)))
    assert again.ledger_events == night.ledger_events
    # flask replay prints the balances the night left open: the tab's records do not change them
    assert nightfile.replay_summary(again)["payments"] == [
        {"from": "Ann", "to": "Cat", "chips": 20}, {"from": "Bob", "to": "Cat", "chips": 10},
    ]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"player": "Ann"}, "'tab_cleared' must be a list"),
        ([{"player": "Ann", "amount": "5.00", "payer": "Ann", "payee": "Cat"}], r"'tab_cleared'\[0\]: 'ref' is missing"),
        ([ON_COUNTS["tab_cleared"][0], {**ON_COUNTS["tab_cleared"][1], "amount": "0"}],
         r"'tab_cleared'\[1\]: 'amount': the amount is never zero"),
    ],
)
def test_a_wrong_tab_record_in_a_night_file_is_refused_naming_it(entries, message):
    with pytest.raises(NightFileError, match=message):
        nightfile.from_dict({**json.loads(json.dumps(ON_COUNTS)), "tab_cleared": entries})
