"""A night file's "settle_on", "bank" and "bonus" (companion.night_ledger via companion.nightfile), worked by hand.

The night: Ann, Ben, Cat; one Napalm game in which Ben and Cat say Yes and Cat wins (antes 1,
pot 3 returned at the end): Ann 0, Ben −3, Cat +3.
"""

from __future__ import annotations

import copy
import json

import pytest

from companion import nightfile

GRID = {"dice": "d20", "cells": [f"Game {i}" for i in range(1, 21)],
        "bonuses": {"20": {"kind": "everyone_pays_dealer", "chips": 2}}}


def night(**extra: object) -> dict:
    return {
        "format": "companion-night/2",
        "players": ["Ann", "Ben", "Cat"],
        "games": [{"game": "napalm", "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
                   "stages": [{"yes": ["Ben", "Cat"], "winners": ["Cat"]}]}],
        **extra,
    }


def replay(document: dict) -> dict:
    return nightfile.replay_summary(nightfile.loads(json.dumps(document)))


def nets(summary: dict) -> dict:
    return {name: p["net_chips"] for name, p in summary["players"].items()}


def test_without_the_keys_nothing_changes():
    summary = replay(night())
    assert nets(summary) == {"Ann": 0, "Ben": -3, "Cat": 3}
    assert summary["payments"] == [{"from": "Ben", "to": "Cat", "chips": 3}]
    assert "bank" not in summary and "bonus" not in summary


def test_bonus_payments_add_to_the_tally():
    # Ann rolls 20: everyone pays her 2 (Ann +4, Ben −2, Cat −2); Ben's lucky number is 7, Cat rolls it: Cat pays Ben 1
    bonus = [{"grid": GRID, "lucky_chips": 1, "rolls": [
        {"roller": "Ann", "faces": [20], "game": "Game 20"},
        {"lucky": "Ben", "faces": [7]},
        {"roller": "Cat", "faces": [7], "game": "Game 7"},
    ]}]
    summary = replay(night(bonus=bonus))
    assert summary["bonus"] == {"net_chips": {"Ann": 4, "Ben": -1, "Cat": -3}, "rolls": 2}
    # the night: games (0, −3, +3) + bonus (+4, −1, −3) = (+4, −4, 0)
    assert nets(summary) == {"Ann": 4, "Ben": -4, "Cat": 0}
    assert summary["payments"] == [{"from": "Ben", "to": "Ann", "chips": 4}]


def test_on_chip_counts_the_balances_are_counts_minus_bought():
    bank = [{"everyone_buys_in": 50}, {"rebuy": "Ben", "chips": 20},
            {"cash_out": "Ann", "chips": 50}, {"cash_out": "Ben", "chips": 67}, {"cash_out": "Cat", "chips": 53}]
    summary = replay(night(settle_on="bank", bank=bank))
    # bought 50, 70, 50; counts 50, 67, 53 = bought + tally (0, −3, +3)
    assert nets(summary) == {"Ann": 0, "Ben": -3, "Cat": 3}
    assert summary["bank"] == {"bought": {"Ann": 50, "Ben": 70, "Cat": 50}, "cashed_out": {"Ann": 50, "Ben": 67, "Cat": 53}}
    assert summary["payments"] == [{"from": "Ben", "to": "Cat", "chips": 3}]


def test_a_bank_that_does_not_balance_gives_no_payments_and_says_why():
    bank = [{"everyone_buys_in": 50}, {"cash_out": "Ann", "chips": 50}, {"cash_out": "Ben", "chips": 47}]
    summary = replay(night(settle_on="bank", bank=bank))
    assert summary["bank"]["not_settled"] == "Still to cash out: Cat."
    assert summary["payments"] == []


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"settle_on": "counts"}, "'settle_on' must be \"tally\""),
        ({"bank": {}}, "'bank' must be a list"),
        ({"bank": [{"cash_out": "Ann", "chips": 5}]}, "'bank'[0] (cash_out): Ann never bought in, so has nothing to cash out"),
        ({"bank": [{"buy_in": "Ann", "chips": -5}]}, "'bank'[0] (buy_in): the buy-in must be a whole number of chips, 1 to"),
        ({"bank": [{"buy_in": "Ann", "chips": "5"}]}, "'bank'[0] (buy_in): the buy-in must be a whole number of chips"),
        ({"bank": [{"buy_in": "Zed", "chips": 5}]}, "'bank'[0] (buy_in): 'Zed' is not seated tonight"),
        ({"bank": [{"buy_in": "Ann", "rebuy": "Ann"}]}, "'bank'[0] must hold one of"),
        ({"bank": [{"everyone_buys_in": 5, "chips": 5}]}, "'bank'[0] (everyone_buys_in): unknown key 'chips'"),
        ({"bonus": [{"grid": {**GRID, "dice": "3d6"}}]}, "'bonus'[0]: 'dice' must be one of 2d6, d20"),
        ({"bonus": [{"grid": GRID, "rolls": [{"roller": "Ann", "faces": [3], "game": "Napalm"}]}]},
         "'bonus'[0].'rolls'[0]: 'game': the grid's cell 3 is 'Game 3', not 'Napalm'"),
        ({"bonus": [{"grid": GRID, "rolls": [{"roller": "Zed", "faces": [3], "game": "Game 3"}]}]},
         "'bonus'[0].'rolls'[0]: the roller 'Zed' is not seated tonight"),
        ({"bonus": [{"grid": GRID, "extra": 1}]}, "'bonus'[0]: unknown key 'extra'"),
    ],
)
def test_a_bad_entry_is_refused_naming_it(extra, message):
    with pytest.raises(nightfile.NightFileError) as refused:
        nightfile.loads(json.dumps(night(**extra)))
    assert message in str(refused.value)


def test_the_keys_are_written_back_as_read():
    document = night(
        settle_on="bank",
        bank=[{"everyone_buys_in": 50}, {"cash_out": "Ann", "chips": 50}],
        bonus=[{"grid": GRID, "lucky_chips": 2, "rolls": [{"roller": "Ann", "faces": [20], "game": "Game 20"},
                                                          {"lucky": "Ben", "faces": [7]}]},
               {"grid": {**GRID, "bonuses": {}}, "lucky_chips": 1, "rolls": [{"roller": "Cat", "faces": [7], "game": "Game 7"}]}],
    )
    parsed = nightfile.loads(json.dumps(document))
    from companion.night_ledger import NightLedger

    ledger = NightLedger(parsed.players, parsed.money.chip_value)
    for seq, (kind, payload) in enumerate(parsed.ledger_events, start=1):
        ledger.apply(seq, kind, payload)
    # Ben's lucky number carries over to the second grid: Cat rolls 7 and pays Ben 1
    assert ledger.bonus_net == {"Ann": 4, "Ben": -1, "Cat": -3}
    written = nightfile.to_dict(None, parsed.play, parsed.money, ledger)
    expected = copy.deepcopy(document)
    for k in ("settle_on", "bank", "bonus"):
        assert written[k] == expected[k]
