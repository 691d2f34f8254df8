"""A night file's "paid": the settle-up payments marked paid (companion.night.paid via companion.night.file).

The night (worked by hand): Ann, Ben, Cat.  Game 1, Napalm, ante 2, one token wins: antes 2 each make
a pot of 6; Ann alone says Yes, her token reaches 1 and she takes the pot: Ann −2 + 6 = +4, Ben −2,
Cat −2.  Game 2, Napalm, Ann and Ben only, ante 2, one token wins: a pot of 4; Ann alone says Yes and
takes it: Ann +2, Ben −2.  The night: Ann +6, Ben −4, Cat −2; the fewest payments: Ben pays Ann 4,
Cat pays Ann 2.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from companion.money.settle import Payment
from companion.night import file as nightfile
from companion.night.file import NightFileError

THREE = ["Ann", "Ben", "Cat"]
OWED = {
    "format": "companion-night/2",
    "name": "Paid in part",
    "players": THREE,
    "games": [
        {"game": "napalm", "first_dealer": "Ann", "rules": {"ante": 2, "tokens_to_win": 1},
         "stages": [{"stage": 1, "yes": ["Ann"]}]},
        {"game": "napalm", "players": ["Ann", "Ben"], "first_dealer": "Ann", "rules": {"ante": 2, "tokens_to_win": 1},
         "stages": [{"stage": 1, "yes": ["Ann"]}]},
    ],
}
BEN_PAID = {"payer": "Ben", "payee": "Ann", "chips": 4}
CAT_PAID = {"payer": "Cat", "payee": "Ann", "chips": 2}


def night(**extra: Any) -> dict[str, Any]:
    return {**copy.deepcopy(OWED), **extra}


def replay(document: dict[str, Any]) -> dict[str, Any]:
    return nightfile.replay_summary(nightfile.loads(json.dumps(document)))


def test_the_night_owes_ben_to_ann_4_and_cat_to_ann_2():
    summary = replay(night())
    assert summary["players"] == {"Ann": {"net_chips": 6}, "Ben": {"net_chips": -4}, "Cat": {"net_chips": -2}}
    assert summary["payments"] == [{"from": "Ben", "to": "Ann", "chips": 4}, {"from": "Cat", "to": "Ann", "chips": 2}]
    assert "paid" not in summary  # nothing marked paid: the summary is what it always was


def test_the_payments_marked_paid_are_read_in_the_order_recorded():
    read = nightfile.loads(json.dumps(night(paid=[CAT_PAID, BEN_PAID])))
    assert read.paid == (Payment("Cat", "Ann", 2), Payment("Ben", "Ann", 4))


def test_replay_says_which_payments_are_paid_already():
    summary = replay(night(paid=[BEN_PAID]))
    # the balances stay what the night made; the payments say which one was made
    assert summary["players"]["Ben"] == {"net_chips": -4}
    assert summary["payments"] == [
        {"from": "Ben", "to": "Ann", "chips": 4, "paid": True},
        {"from": "Cat", "to": "Ann", "chips": 2, "paid": False},
    ]
    assert summary["paid"] == [{"from": "Ben", "to": "Ann", "chips": 4}]


def test_a_payment_in_parts_is_within_what_is_open():
    """Ben pays Ann 1, then 3: 4 in all, what he owes; neither marks the plan's line of 4."""
    summary = replay(night(paid=[{"payer": "Ben", "payee": "Ann", "chips": 1}, {"payer": "Ben", "payee": "Ann", "chips": 3}]))
    assert [p["paid"] for p in summary["payments"]] == [False, False]
    assert summary["paid"] == [{"from": "Ben", "to": "Ann", "chips": 1}, {"from": "Ben", "to": "Ann", "chips": 3}]


def test_the_payments_are_written_back_as_read_and_a_night_without_any_writes_no_key():
    document = night(paid=[CAT_PAID, BEN_PAID])
    read = nightfile.loads(json.dumps(document))
    written = nightfile.to_dict(read.name, read.play, read.money, paid=read.paid)
    assert written["paid"] == [CAT_PAID, BEN_PAID] and list(written)[-1] == "paid"
    assert nightfile.loads(json.dumps(written)).paid == read.paid
    bare = nightfile.loads(json.dumps(night()))
    assert nightfile.dumps(bare.name, bare.play, bare.money) == nightfile.dumps(bare.name, bare.play, bare.money, paid=())
    assert "paid" not in nightfile.to_dict(bare.name, bare.play, bare.money)
    assert nightfile.loads(json.dumps(night(paid=[]))).paid == ()


@pytest.mark.parametrize(
    "paid, message",
    [
        ({}, "'paid' must be a list of the payments marked paid, in order"),
        (None, "'paid' must be a list of the payments marked paid, in order"),
        ([CAT_PAID, ["Ben", "Ann", 4]], "'paid'[1]: each payment must be an object such as"),
        ([CAT_PAID, {**BEN_PAID, "ref": "x"}], "'paid'[1]: unknown key 'ref'"),
        ([{"payer": "Ben", "payee": "Ann"}], "'paid'[0]: 'chips' is missing"),
        ([{"payer": "Zed", "payee": "Ann", "chips": 4}], "'paid'[0]: 'payer': 'Zed' is not seated tonight"),
        ([{"payer": "Ben", "payee": 7, "chips": 4}], "'paid'[0]: 'payee' must be a seated player's name"),
        ([{"payer": "Ben", "payee": "Ben", "chips": 4}], "'paid'[0]: a payment is between two different players"),
        ([{**BEN_PAID, "chips": 4.0}], "'paid'[0]: 'chips' must be a whole number written without a decimal point"),
        ([{**BEN_PAID, "chips": "4"}], "'paid'[0]: 'chips' must be a whole number written without a decimal point"),
        ([{**BEN_PAID, "chips": True}], "'paid'[0]: 'chips' must be a whole number written without a decimal point"),
        ([{**BEN_PAID, "chips": 0}], "'paid'[0]: 'chips' must be 1 to 1,000,000,000"),
        ([{**BEN_PAID, "chips": -4}], "'paid'[0]: 'chips' cannot be negative"),
        ([{**BEN_PAID, "chips": 10**20}], "'paid'[0]: 'chips' has more than 15 digits"),
    ],
)
def test_a_wrong_payment_is_refused_naming_the_entry(paid, message):
    with pytest.raises(NightFileError) as refused:
        nightfile.loads(json.dumps(night(paid=paid)))
    assert message in str(refused.value)


def test_a_payment_the_balances_no_longer_owe_is_taken_back_as_the_table_recorded_it():
    """A file takes back every night the app exports, and *Mark paid* at a night outside a group checks only
    the players and the chips: a payment marked before play went on (an undo, another deal), one from the
    pair-by-pair view beyond the payer's whole balance (Ben owes 4, paid 5), one the other way (Ann to
    Ben) and a second like the first are kept in the order marked.  Only the first Ben->Ann 4 marks the
    plan's line; Cat->Ann 2 is still open."""
    paid = [{**BEN_PAID, "chips": 5}, {"payer": "Ann", "payee": "Ben", "chips": 1}, BEN_PAID, BEN_PAID]
    summary = replay(night(paid=paid))
    assert summary["payments"] == [
        {"from": "Ben", "to": "Ann", "chips": 4, "paid": True},
        {"from": "Cat", "to": "Ann", "chips": 2, "paid": False},
    ]
    assert summary["paid"] == [{"from": p["payer"], "to": p["payee"], "chips": p["chips"]} for p in paid]


def test_a_payment_on_chip_counts_that_no_longer_balance_is_kept_and_nothing_is_offered():
    """tests/night/test_file.py's POKER_ON_COUNTS: Ann pays Ben 10 (count − bought: Ann −10, Ben +10, Cat 0).
    Without Cat's count the bank does not balance (a count corrected after the payment): the payment is
    kept, and no payment is offered until it balances again."""
    from night.test_file import POKER_ON_COUNTS

    counted = {**POKER_ON_COUNTS, "paid": [{"payer": "Ann", "payee": "Ben", "chips": 10}]}
    assert replay(counted)["payments"] == [{"from": "Ann", "to": "Ben", "chips": 10, "paid": True}]
    open_bank = replay({**counted, "bank": POKER_ON_COUNTS["bank"][:-1]})
    assert open_bank["payments"] == [] and open_bank["paid"] == [{"from": "Ann", "to": "Ben", "chips": 10}]



@pytest.mark.parametrize(
    "payer, payee, chips, message",
    [
        ("Ben", "Zed", 4, "a payment is between two different players at this table"),
        ("Ben", "Ben", 4, "a payment is between two different players at this table"),
        ("Ben", "Ann", 0, "a payment is a positive whole number of chips"),
        ("Ben", "Ann", True, "a payment is a positive whole number of chips"),
        ("Ben", "Ann", 4.0, "a payment is a positive whole number of chips"),
    ],
)
def test_the_check_mark_paid_makes_is_the_files(payer, payee, chips, message):
    """companion.service.recording.mark_paid calls the same check the file's entries pass."""
    from companion.games import IllegalAction
    from companion.night.paid import refuse_payment

    refuse_payment(THREE, "Ben", "Ann", 4)  # a payment of the plan: nothing to say
    with pytest.raises(IllegalAction, match=message):
        refuse_payment(THREE, payer, payee, chips)
