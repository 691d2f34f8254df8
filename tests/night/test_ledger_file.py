"""A night file's "settle_on", "bank" and "bonus" (companion.night.ledger via companion.night.file), worked by hand.

The night: Ann, Ben, Cat; one Napalm game in which Ben and Cat say Yes and Cat wins (antes 1,
pot 3 returned at the end): Ann 0, Ben −3, Cat +3.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pytest

from companion.night import file as nightfile

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


def test_with_a_game_of_real_betting_the_replay_checks_only_that_the_bank_balances():
    """The Napalm game above, then poker with real betting (its pots settled by the chips on the
    table, which the app does not see).  Everyone bought 50; the counts 40, 60, 50 are not bought +
    the Napalm tally (50, 47, 53), yet the bank balances (150 back of 150), so the night settles on
    them, count − bought: Ann −10, Ben +10, Cat 0; Ann pays Ben 10."""
    document = night(settle_on="bank", bank=[
        {"everyone_buys_in": 50},
        {"cash_out": "Ann", "chips": 40}, {"cash_out": "Ben", "chips": 60}, {"cash_out": "Cat", "chips": 50},
    ])
    document["games"].append({"game": "betting", "rules": {"variant": "Texas hold'em"}, "deals": [{"dealer": "Ann"}]})
    summary = replay(document)
    assert "not_settled" not in summary["bank"]
    # count − bought: Ann −10, Ben +10, Cat 0 (not the Napalm tally 0, −3, +3: the betting moved chips)
    assert nets(summary) == {"Ann": -10, "Ben": 10, "Cat": 0}
    assert summary["payments"] == [{"from": "Ann", "to": "Ben", "chips": 10}]


def test_a_file_with_bank_records_and_no_settle_on_settles_on_the_counts():
    """Issue 20 item 1 (the rule changed: the tally was the default).  The Napalm game (Ann 0, Ben −3,
    Cat +3), then poker; everyone bought 50, counts 40, 60, 50 (150 back of 150): Ann −10, Ben +10,
    Cat 0; Ann pays Ben 10.  The old default gave the tally's Ben pays Cat 3."""
    document = night(bank=[
        {"everyone_buys_in": 50},
        {"cash_out": "Ann", "chips": 40}, {"cash_out": "Ben", "chips": 60}, {"cash_out": "Cat", "chips": 50},
    ])
    document["games"].append({"game": "betting", "rules": {"variant": "Texas hold'em"}, "deals": [{"dealer": "Ann"}]})
    summary = replay(document)
    assert summary["settle_on"] == "bank"
    assert nets(summary) == {"Ann": -10, "Ben": 10, "Cat": 0}
    assert summary["payments"] == [{"from": "Ann", "to": "Ben", "chips": 10}]


def test_a_file_may_keep_the_tally_for_a_night_recorded_chip_by_chip():
    # everyone bought 50 for the Napalm game alone and chose the tally: Ben pays Cat 3, no count needed
    summary = replay(night(settle_on="tally", bank=[{"everyone_buys_in": 50}]))
    assert "bank" not in summary and nets(summary) == {"Ann": 0, "Ben": -3, "Cat": 3}
    assert summary["payments"] == [{"from": "Ben", "to": "Cat", "chips": 3}]


def test_a_file_with_poker_cannot_settle_on_the_tally():
    document = night(settle_on="tally", bank=[{"everyone_buys_in": 50}])
    document["games"].append({"game": "betting", "rules": {}, "deals": []})
    with pytest.raises(nightfile.NightFileError) as refused:
        nightfile.loads(json.dumps(document))
    assert "'settle_on': Poker with real betting is played tonight" in str(refused.value)


def test_a_poker_file_with_no_bank_records_has_no_payments_until_the_counts():
    document = night()
    document["games"].append({"game": "betting", "rules": {}, "deals": [{"dealer": "Ann"}]})
    summary = replay(document)
    assert summary["bank"]["not_settled"] == "nobody has bought in" and summary["payments"] == []


def test_on_chip_counts_a_pot_left_for_the_next_night_is_in_nobodys_count():
    """Napalm with "carry": Ann and Ben say Yes (pot 3 of antes), Ann wins (Ben pays her 3); the night
    ends there and the pot of 3 (1 of each) stays in the middle.  Everyone bought 50: at the table
    Ann 49 + 3 = 52, Ben 49 − 3 = 46, Cat 49: 147 come back.  The tally counts the 1 in the pot as
    each one's: Ann +3, Ben −3, Cat 0; Ben pays Ann 3."""
    document = night(settle_on="bank", bank=[
        {"everyone_buys_in": 50},
        {"cash_out": "Ann", "chips": 52}, {"cash_out": "Ben", "chips": 46}, {"cash_out": "Cat", "chips": 49},
    ])
    document["games"][0]["rules"]["unfinished_pot"] = "carry"
    document["games"][0]["stages"] = [{"yes": ["Ann", "Ben"], "winners": ["Ann"]}]
    summary = replay(document)
    assert "not_settled" not in summary["bank"], summary["bank"]
    assert summary["carried"] == {"Ann": 1, "Ben": 1, "Cat": 1}
    assert nets(summary) == {"Ann": 3, "Ben": -3, "Cat": 0}
    assert summary["payments"] == [{"from": "Ben", "to": "Ann", "chips": 3}]


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
    # no "settle_on": the rule changed (issue 20 item 1): a file with bank records settles on the
    # counts without saying so, and Export writes "settle_on" only for a choice the rule would not make
    document = night(
        bank=[{"everyone_buys_in": 50}, {"cash_out": "Ann", "chips": 50}],
        bonus=[{"grid": GRID, "lucky_chips": 2, "rolls": [{"roller": "Ann", "faces": [20], "game": "Game 20"},
                                                          {"lucky": "Ben", "faces": [7]}]},
               {"grid": {**GRID, "bonuses": {}}, "lucky_chips": 1, "rolls": [{"roller": "Cat", "faces": [7], "game": "Game 7"}]}],
    )
    parsed = nightfile.loads(json.dumps(document))
    from companion.night.ledger import NightLedger

    ledger = NightLedger(parsed.players, parsed.money.chip_value)
    for seq, (kind, payload) in enumerate(parsed.ledger_events, start=1):
        ledger.apply(seq, kind, payload)
    # Ben's lucky number carries over to the second grid: Cat rolls 7 and pays Ben 1
    assert ledger.bonus_net == {"Ann": 4, "Ben": -1, "Cat": -3}
    assert ledger.settle_on == "bank"
    written = nightfile.to_dict(None, parsed.play, parsed.money, ledger)
    expected = copy.deepcopy(document)
    assert "settle_on" not in written
    for k in ("bank", "bonus"):
        assert written[k] == expected[k]


# --- Hypothesis: what Export writes, Import reads back to the same books ------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from companion.games import IllegalAction  # noqa: E402
from companion.night.ledger import NightLedger, file_keys, read_file_keys  # noqa: E402

NAMES = ("Ann", "Ben", "Cat", "Dan")
ledger_events = st.one_of(
    st.tuples(st.sampled_from(("buy_in", "rebuy", "cash_out")),
              st.fixed_dictionaries({"player": st.sampled_from(NAMES), "chips": st.integers(-1, 120)})),
    st.tuples(st.just("all_buy_in"), st.fixed_dictionaries({"chips": st.integers(0, 120)})),
    st.tuples(st.just("bank_cancel"), st.fixed_dictionaries({"seq": st.integers(1, 25)})),
    st.tuples(st.just("settle_on"), st.fixed_dictionaries({"on": st.sampled_from(("tally", "bank"))})),
    st.tuples(st.just("bonus_grid"), st.just({"grid": GRID, "lucky_chips": 1})),
    st.tuples(st.just("bonus_roll"), st.builds(lambda f, r: {"dice": "d20", "faces": [f], "game": f"Game {f}", "roller": r},
                                              st.integers(1, 20), st.sampled_from(NAMES))),
    st.tuples(st.just("bonus_lucky"), st.fixed_dictionaries({"player": st.sampled_from(NAMES),
                                                             "faces": st.lists(st.integers(1, 20), min_size=1, max_size=1)})),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(ledger_events, max_size=25))
def test_a_night_ledger_written_to_a_file_reads_back_to_the_same_books(events: list[tuple[str, dict]]) -> None:
    ledger = NightLedger(NAMES, Decimal("0"))
    for seq, (kind, payload) in enumerate(events, start=1):
        before = (ledger.bank.bought, ledger.bank.cashed_out, ledger.bonus_net, ledger.settle_on, len(ledger.bonus_log))
        try:
            ledger.verify(kind, payload)
        except IllegalAction:  # refused: nothing changes (the service writes nothing)
            assert before == (ledger.bank.bought, ledger.bank.cashed_out, ledger.bonus_net, ledger.settle_on,
                              len(ledger.bonus_log))
            continue
        ledger.apply(seq, kind, payload)
        assert sum(ledger.bonus_net.values()) == 0  # every bonus payment is player to player
    again, stored = read_file_keys(json.loads(json.dumps(file_keys(ledger))), NAMES)
    assert (again.bank.bought, again.bank.cashed_out) == (ledger.bank.bought, ledger.bank.cashed_out)
    assert again.bonus_net == ledger.bonus_net and again.lucky == ledger.lucky
    assert again.settle_on == ledger.settle_on
    assert file_keys(again) == file_keys(ledger)
    assert all(kind != "bank_cancel" for kind, _ in stored)  # live events only
