"""The pot game as a game of the night: rules, events and its ``deals`` in a night file."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.protocol import GameKind, GameState, IllegalAction, RecordError
from companion.games.pots.engine import Carry, HighLow, IntoPot, PotTable, Sale, Void, Win
from companion.games.pots.game import POTS


def test_the_plug_in_is_a_game_kind_with_deals_as_its_records() -> None:
    kind: GameKind = POTS
    assert (kind.kind, kind.title, kind.records_key) == ("pots", "Fixed-stake pots", "deals")
    assert kind.event_kinds == {"into_pot", "sale", "win", "high_low", "carry", "void"}
    state = kind.new_state(["Ann", "Ben"], "Ben", kind.rules_from_dict({}), None)
    assert isinstance(state, GameState) and state.first_dealer == "Ben"


# --- rules ------------------------------------------------------------------------------


def test_a_preset_fills_in_every_rule_and_the_file_says_them_all() -> None:
    rules = POTS.rules_from_dict({"preset": "nasdaq", "sale_limit": 5})
    assert POTS.rules_to_dict(rules) == {
        "preset": "nasdaq",
        "ante": 1,
        "stakes": [],
        "stake_rule": "free",
        "carry": False,
        "high_low": True,
        "sales": True,
        "sale_limit": 5,
        "min_players": 2,
        "max_players": 10,
    }
    assert POTS.rules_from_dict(POTS.rules_to_dict(rules)) == rules
    assert POTS.title_of(rules) == "NASDAQ"


def test_no_rules_is_a_plain_fixed_stake_pot_with_an_ante_of_one() -> None:
    rules = POTS.rules_from_dict({})
    assert (rules.preset, rules.ante, rules.carry, rules.sales) == ("fixed", 1, False, False)


def test_several_pots_without_an_ante_given_ante_nothing_else() -> None:
    rules = POTS.rules_from_dict({"stakes": [1, 2, 5]})
    assert rules.ante == 0 and rules.pot_names == ("A", "B", "C")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"colour": "red"}, "unknown rule 'colour'"),
        ({"preset": "poker"}, "'preset' must be one of"),
        ({"ante": "1"}, "'ante' must be a whole number"),
        ({"ante": True}, "'ante' must be a whole number"),
        ({"carry": 1}, "'carry' must be true or false"),
        ({"stakes": [2, "3"]}, "'stakes' must be a list of whole numbers"),
        ({"sale_limit": 2.5, "sales": True}, "'sale_limit' must be a whole number or null"),
        ({"sale_limit": 5}, "a sale limit needs sales"),
        ({"ante": -1}, "the ante must be between 0"),
        ({"stakes": [2, 3], "ante": 1}, "set the ante to 0"),
        ({"stakes": [4]}, "several pots means 2 to 10 stakes"),
        ({"min_players": 5, "max_players": 3}, "the fewest players is more than the most"),
        ({"preset": "tips_to_the_fat_one", "stakes": [3, 2]}, "pot A's stake must be less than pot B's"),
    ],
)
def test_bad_rules_are_refused_naming_the_field(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        POTS.rules_from_dict(raw)


# --- events -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        IntoPot("Ann", 3, "bid"),
        IntoPot("Ann", 2, "bet", "B"),
        Sale("Cat", "Ann", 12),
        Win(("Ann", "Ben"), "C"),
        HighLow(("Ann",), ("Ben",)),
        Carry(),
        Void(),
    ],
)
def test_every_action_survives_a_trip_through_a_stored_event(action: Any) -> None:
    kind, payload = POTS.to_event(action)
    assert kind in POTS.event_kinds
    assert POTS.from_event(kind, payload) == action


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("fold", {}, "unknown event kind 'fold'"),
        ("win", {"winners": "Ann"}, "'winners' must be a list"),
        ("win", {"winners": ["Ann"], "extra": 1}, "unknown key 'extra' in a win event"),
        ("sale", {"seller": "Ann", "buyer": "Ben", "price": "3"}, "'price' must be a whole number"),
        ("into_pot", {"player": "Ann", "chips": 2, "reason": "tip"}, "'reason' must be one of bet, bid, unsold"),
        ("carry", {"pot": 2}, "'pot' must be a pot's name"),
    ],
)
def test_a_bad_stored_event_is_refused_naming_the_field(kind: str, payload: dict[str, Any], message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        POTS.from_event(kind, payload)


# --- deals in a night file ------------------------------------------------------------


def nasdaq_night() -> PotTable:
    rules = POTS.rules_from_dict({"preset": "nasdaq", "sale_limit": 5, "carry": True})
    return POTS.new_state(["Ann", "Ben", "Cat"], "Ann", rules, None)


NASDAQ_DEALS: list[dict[str, Any]] = [
    {
        "deal": 1,
        "into_pot": [{"player": "Ben", "chips": 2, "reason": "bid"}, {"player": "Ann", "chips": 1, "reason": "unsold"}],
        "sales": [{"seller": "Ben", "buyer": "Cat", "price": 12}],
        "pots": [{"high": ["Ann"], "low": ["Cat"]}],
    },
    {"deal": 2, "pots": [{"carried": True}]},
    {"deal": 3, "pots": [{"winners": ["Ann", "Ben"]}]},
    {"deal": 4, "into_pot": [{"player": "Cat", "chips": 2, "reason": "bet"}], "in_progress": True},
]


def test_deals_replay_to_the_hand_worked_balances_and_write_back_the_same() -> None:
    table = nasdaq_night()
    POTS.read_records(table, NASDAQ_DEALS)
    # deal 1: antes 3, bid 2, unsold 1, sale 12 → 8 to Ben, 4 to the pot: pot 3+2+1+4 = 10;
    #   high Ann 5, low Cat 5.  Ann −1 −1 +5 = 3; Ben −1 −2 +8 = 5; Cat −1 −12 +5 = −8
    # deal 2: antes 3, carried.  deal 3: antes 3 more → pot 6, Ann and Ben 3 each
    #   Ann 3 −2 +3 = 4; Ben 5 −2 +3 = 6; Cat −8 −2 = −10
    # deal 4: antes 3 + Cat's bet 2: pot 5.  Ann 3, Ben 5, Cat −13
    assert table.net_chips == {"Ann": 3, "Ben": 5, "Cat": -13}
    assert table.pot == 5
    assert POTS.write_records(table) == NASDAQ_DEALS
    closing = POTS.close(table, table.rules)
    # the unfinished deal's pot back: Ann 1, Ben 1, Cat 3
    assert closing.net == {"Ann": 4, "Ben": 6, "Cat": -10} and closing.carried == {}
    assert POTS.replay_extras(table) == {
        "preset": "nasdaq",
        "pots": {"pot": 5},
        "deals": 3,
        "dealer": "Ann",
        "open_pots": ["pot"],
    }


def test_the_next_dealer_is_the_deals_left_once_it_has_begun_and_nothing_carries_over() -> None:
    table = nasdaq_night()  # Ann deals first
    assert POTS.next_dealer(table) == "Ann"
    table.into_pot("Ann", 1)  # deal 1 has begun: Ann has dealt
    assert POTS.next_dealer(table) == "Ben"
    table.win("Cat")  # deal 2 is Ben's, not begun
    assert POTS.next_dealer(table) == "Ben"
    assert POTS.carries_over(table.rules) is False
    assert POTS.live_actions(table) == [IntoPot("Ann", 1), Win(("Cat",))]


def test_voided_actions_are_left_out_of_the_file() -> None:
    table = nasdaq_night()
    table.win("Cat")
    table.win("Ann")
    table.void()
    assert POTS.write_records(table) == [{"deal": 1, "pots": [{"winners": ["Cat"]}]}]


def test_tips_deals_name_each_pot() -> None:
    rules = POTS.rules_from_dict({"preset": "tips_to_the_fat_one", "stakes": [1, 2]})
    table = POTS.new_state(["Ann", "Ben"], None, rules, None)
    deals = [{"pots": [{"pot": p, "winners": ["Ann"] if p in "ACE" else ["Ann", "Ben"]} for p in "ABCDE"]}]
    POTS.read_records(table, deals)
    # stakes 1, 2, 2, 3, 4: pots 2, 4, 4, 6, 8.  Ann: −12 + 2 + 2 + 4 + 3 + 8 = 7
    assert table.net_chips == {"Ann": 7, "Ben": -7}


@pytest.mark.parametrize(
    ("deals", "index", "message"),
    [
        ("nope", None, "'deals' must be a list"),
        ([[]], 0, r"deals\[0\] \(deal 1\): each deal must be an object"),
        ([{"pots": [{"winners": ["Ann"]}], "dealer": "Ann"}], 0, "unknown key 'dealer'"),
        ([{"deal": 2, "pots": [{"winners": ["Ann"]}]}], 0, "'deal': this is deal 1, not deal 2"),
        ([{}], 0, r"deals\[0\] \(deal 1\): a deal needs its pots' results"),
        ([{"pots": [{"winners": ["Ann"]}]}, {"sales": [{"seller": "Ann", "buyer": "Ben", "price": "12"}]}], 1,
         r"deals\[1\] \(deal 2\): 'sales'\[0\]\.'price' must be a whole number"),
        ([{"into_pot": [{"player": "Ann", "chips": 2}]}], 0, "'pots': pot not ended"),
        ([{"into_pot": [{"player": "Ann", "chips": 2}], "in_progress": True}, {"pots": [{"winners": ["Ann"]}]}], 0,
         "'in_progress': only the last deal"),
        ([{"pots": [{"winners": ["Ann"]}], "in_progress": "yes"}], 0, "'in_progress' must be true or false"),
        ([{"pots": [{"winners": ["Zed"]}]}], 0, r"'pots'\[0\]: the winners 'Zed' is not playing"),
        ([{"pots": [{"winners": ["Ann"], "carried": True}]}], 0, r"'pots'\[0\]: give exactly one of"),
        ([{"pots": [{"high": ["Ann"]}]}], 0, r"'pots'\[0\]\.'low' is missing"),
        ([{"pots": [{"carried": False}]}], 0, r"'pots'\[0\]\.'carried' must be true"),
        ([{"pots": [{"winners": ["Ann"]}, {"winners": ["Ben"]}]}], 0, r"'pots'\[1\]: every pot of this deal has already ended"),
        ([{"into_pot": [{"player": "Ann", "chips": 0}], "pots": [{"winners": ["Ann"]}]}], 0,
         r"'into_pot'\[0\]\.'chips' must be a whole number of chips, 1 or more"),
        ([{"into_pot": [{"player": "Ann", "chips": 1, "reason": "tip"}]}], 0, r"'into_pot'\[0\]\.'reason' must be one of"),
        ([{"pots": [{"pot": "B", "winners": ["Ann"]}]}], 0, r"'pots'\[0\]: there is no pot 'B'"),
        ([{"pots": [{"winners": ["Ann"]}]}, {"pots": [{"winners": ["Ann"]}], "in_progress": True}], 1,
         "'in_progress': every pot of this deal has ended"),
    ],
)
def test_bad_deals_are_refused_naming_the_deal_and_the_field(deals: Any, index: int | None, message: str) -> None:
    rules = POTS.rules_from_dict({"preset": "fixed"})
    table = POTS.new_state(["Ann", "Ben"], None, rules, None)
    with pytest.raises(RecordError, match=message) as caught:
        POTS.read_records(table, deals)
    assert caught.value.index == index


def test_an_action_the_rules_refuse_is_reported_with_its_field() -> None:
    table = POTS.new_state(["Ann", "Ben", "Cat"], None, POTS.rules_from_dict({"preset": "high_card"}), None)
    with pytest.raises(RecordError, match=r"deals\[0\] \(deal 1\): 'sales'\[0\]: this game has no card sales"):
        POTS.read_records(table, [{"sales": [{"seller": "Ann", "buyer": "Ben", "price": 2}], "pots": [{"winners": ["Ann"]}]}])


def test_new_state_refuses_a_seating_the_preset_does_not_allow() -> None:
    rules = POTS.rules_from_dict({"preset": "tips_to_the_fat_one"})
    with pytest.raises(IllegalAction, match="needs 2 players"):
        POTS.new_state(["Ann", "Ben", "Cat"], None, rules, None)
