"""The night file, companion-night/2: a night of several games read, replayed and written.

Every figure below is worked out by hand from RULES.md (the arithmetic is in the comments).
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from companion.night import file as nightfile
from companion.night.file import NightFileError

FOUR = ["Ann", "Ben", "Cat", "Dan"]

#: Two games of Napalm with different rules; Dan sits out the second.
TWO_GAMES = {
    "format": "companion-night/2",
    "name": "Friday at Ann's",
    "players": FOUR,
    "money": {"chip_value": "0.25", "currency": "EUR"},
    "games": [
        {
            "game": "napalm",
            "first_dealer": "Ann",
            "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5, "unfinished_pot": "return_antes"},
            "stages": [
                # antes 1 each: pot 4; Ben and Cat say Yes, Cat wins: Ben pays Cat the pot, 4
                {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]},
                # Dan alone: a token
                {"stage": 2, "yes": ["Dan"]},
            ],
        },
        {
            "game": "napalm",
            "players": ["Ann", "Ben", "Cat"],
            "first_dealer": "Ben",
            "rules": {"ante": 2, "tokens_to_win": 1, "unfinished_pot": "split_leaders"},
            # antes 2 each: pot 6; Ann alone says Yes: her token reaches 1, she takes the pot of 6
            "stages": [{"stage": 1, "yes": ["Ann"]}],
        },
    ],
}


def test_the_issue_example_reads_as_a_night_of_one_napalm_game_with_nothing_played():
    night = nightfile.from_dict(
        {
            "format": "companion-night/2",
            "name": "Friday at Ann's",
            "players": FOUR,
            "money": {"chip_value": "0.25", "currency": "EUR"},
            "games": [
                {"game": "napalm", "players": FOUR, "first_dealer": "Ann",
                 "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5}, "stages": []}
            ],
        }
    )
    assert night.name == "Friday at Ann's" and night.players == tuple(FOUR)
    assert night.money == nightfile.Money(Decimal("0.25"), "EUR")
    (game,) = night.play.games
    assert game.setup.rules == {"ante": 1, "ante_every": 1, "tokens_to_win": 5, "unfinished_pot": "return_antes"}
    assert nightfile.replay_summary(night)["players"] == {n: {"net_chips": 0} for n in FOUR}


def test_two_games_with_different_rules_add_up_to_one_settle_up():
    summary = nightfile.replay_summary(nightfile.from_dict(TWO_GAMES))
    first, second = summary["games"]
    # game 1 stopped with its pot of 4 unfinished: each player's ante of 1 comes back.
    # Ann -1 +1 = 0; Ben -1 -4 +1 = -4; Cat -1 +4 +1 = +4; Dan -1 +1 = 0
    assert first["game"] == "napalm" and first["net_chips"] == {"Ann": 0, "Ben": -4, "Cat": 4, "Dan": 0}
    assert first["pot"] == 4 and first["tokens"]["Dan"] == 1 and first["next_stage"] == 3
    assert "antes in the unfinished game are returned" in first["note"]
    # game 2: Ann -2 +6 = +4, Ben -2, Cat -2; Dan did not play it
    assert second["net_chips"] == {"Ann": 4, "Ben": -2, "Cat": -2}
    assert second["games"] == [{"winner": "Ann", "pot": 6}] and second["dealer"] == "Cat"
    # the night: the sum of its games
    assert summary["players"] == {
        "Ann": {"net_chips": 4}, "Ben": {"net_chips": -6}, "Cat": {"net_chips": 2}, "Dan": {"net_chips": 0}
    }
    assert sorted((p["from"], p["to"], p["chips"]) for p in summary["payments"]) == [
        ("Ben", "Ann", 4), ("Ben", "Cat", 2)
    ]
    assert "carried" not in summary


def test_chips_carried_to_the_next_night_are_listed_apart_from_the_balances():
    document = json.loads(json.dumps(TWO_GAMES))
    document["games"][0]["rules"]["unfinished_pot"] = "carry"
    summary = nightfile.replay_summary(nightfile.from_dict(document))
    # the pot of 4 (1 from each) stays in the middle: each ante counts as returned tonight
    assert summary["games"][0]["net_chips"] == {"Ann": 0, "Ben": -4, "Cat": 4, "Dan": 0}
    assert summary["games"][0]["carried"] == summary["carried"] == {"Ann": 1, "Ben": 1, "Cat": 1, "Dan": 1}


def test_writing_then_reading_a_night_gives_the_same_games_and_balances():
    night = nightfile.from_dict(TWO_GAMES)
    again = nightfile.loads(nightfile.dumps(night.name, night.play, night.money))
    assert nightfile.replay_summary(again) == nightfile.replay_summary(night)
    written = nightfile.to_dict(again.name, again.play, again.money)
    assert [g["players"] for g in written["games"]] == [FOUR, ["Ann", "Ben", "Cat"]]
    assert written["games"][1]["rules"] == {
        "ante": 2, "ante_every": 1, "tokens_to_win": 1, "unfinished_pot": "split_leaders"
    }


def test_a_v1_hand_history_still_reads_as_one_game_and_keeps_what_it_was():
    night = nightfile.loads(json.dumps({
        "format": "napalm-hand-history/1", "players": ["Ann", "Ben"],
        "rules": {"ante": 2, "chip_value": "0.5", "currency": "$"}, "stages": [{"yes": ["Ben"]}],
    }))
    assert night.legacy is not None and night.money == nightfile.Money(Decimal("0.5"), "$")
    (game,) = night.play.games
    # antes 2 each: pot 4; Ben's lone Yes is a token, not yet the pot
    assert game.state.net_chips == {"Ann": -2, "Ben": -2} and game.state.pot == 4


def with_change(change) -> dict:  # type: ignore[no-untyped-def]
    document = json.loads(json.dumps(TWO_GAMES))
    change(document)
    return document


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(extra=1), "unknown key 'extra' at the top level"),
        (lambda d: d["money"].update(rate=2), "money: unknown key 'rate'"),
        (lambda d: d["money"].update(chip_value="100000000"), "money: 'chip_value' must be at most 99,999,999.9999"),
        (lambda d: d["games"][1].update(deals=[]), "games[1] (napalm): unknown key 'deals'"),
        (lambda d: d["games"][0].update(game="bridge"), "games[0]: 'game' must be one of betting, nap, napalm, pots"),
        (lambda d: d["games"][1].update(players=["Cat", "Ann"]), "games[1] (napalm): 'players' must be listed in seat order"),
        (lambda d: d["games"][1].update(players=["Ann", "Eve"]), "games[1] (napalm): 'Eve' is not seated tonight"),
        (lambda d: d["games"][1].update(first_dealer="Dan"), "games[1] (napalm): first dealer 'Dan' is not at this table"),
        (lambda d: d["games"][1]["rules"].update(ante="2"), "games[1] (napalm): 'ante' must be a whole number"),
        (lambda d: d["games"][1]["rules"].update(bonus=1), "games[1] (napalm): unknown rule 'bonus'"),
        (lambda d: d["games"][1]["stages"][0].update(yes=["Dan"]),
         "games[1] (napalm): stages[0] (game 1, hand 1, stage 1): the Yes players 'Dan' is not at this table"),
        (lambda d: d.update(games=[]), "'games' must be a list of the night's games"),
        (lambda d: d.update(players=["Ann"]), "'players': A night needs 2 to 7 players, not 1"),
    ],
)
def test_a_wrong_file_is_refused_with_the_game_record_and_field(change, message):
    with pytest.raises(NightFileError) as refused:
        nightfile.from_dict(with_change(change))
    assert message in str(refused.value)


#: A night of three kinds: the Napalm game above, a game of Nap, a deal of High Card.
THREE_KINDS = {
    **TWO_GAMES,
    "games": [
        TWO_GAMES["games"][0],
        # plain Nap, stake 1: Cat bids 2 and makes it: each other player pays him 2
        {"game": "nap", "first_dealer": "Ann", "deals": [{"bidder": "Cat", "bid": 2, "made": True}]},
        # High Card, ante 1: pot 3; Ben wins it
        {"game": "pots", "players": ["Ann", "Ben", "Cat"], "rules": {"preset": "high_card"},
         "deals": [{"pots": [{"winners": ["Ben"]}]}]},
    ],
}


def test_a_night_of_napalm_nap_and_a_pot_game_settles_as_the_sum_of_its_games():
    summary = nightfile.replay_summary(nightfile.from_dict(THREE_KINDS))
    napalm, nap, pots = summary["games"]
    assert napalm["net_chips"] == {"Ann": 0, "Ben": -4, "Cat": 4, "Dan": 0}
    assert nap["game"] == "nap" and nap["net_chips"] == {"Ann": -2, "Ben": -2, "Cat": 6, "Dan": -2}
    assert nap["pool"] == 0 and nap["dealer"] == "Ben"  # the deal passed left after the one deal
    assert pots["game"] == "pots" and pots["net_chips"] == {"Ann": -1, "Ben": 2, "Cat": -1}
    # the night: Ann 0 -2 -1 = -3; Ben -4 -2 +2 = -4; Cat 4 +6 -1 = +9; Dan 0 -2 = -2
    assert summary["players"] == {
        "Ann": {"net_chips": -3}, "Ben": {"net_chips": -4}, "Cat": {"net_chips": 9}, "Dan": {"net_chips": -2}
    }
    assert sum(p["chips"] for p in summary["payments"] if p["to"] == "Cat") == 9


def test_a_wrong_nap_deal_is_refused_with_the_game_and_deal():
    document = json.loads(json.dumps(THREE_KINDS))
    document["games"][1]["deals"][0]["bid"] = 7
    with pytest.raises(NightFileError) as refused:
        nightfile.from_dict(document)
    assert str(refused.value).startswith("games[1] (nap): deals[0]")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(name="Fri\x00day"), "the night's name contains characters that cannot be stored"),
        (lambda d: d["games"][0]["stages"][0].update(cards={"Ben": "\ud800"}), "the file contains characters that cannot be stored"),
        (lambda d: d["money"].update(currency="E\x00"), "the currency contains characters that cannot be stored"),
        (lambda d: d.update(name="x" * 81), "the night's name is longer than 80 characters"),
    ],
)
def test_a_night_file_is_held_to_what_a_night_can_store(change, message):
    with pytest.raises(NightFileError) as refused:
        nightfile.from_dict(with_change(change))
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("written", "says"),
    [
        # the top level's "name" twice: json.loads alone would keep "Saturday"
        ('"name": "Friday at Ann\'s",', '"name": "Friday at Ann\'s", "name": "Saturday",'),
        # the second game's ante twice: json.loads alone would play it with an ante of 9
        ('"ante": 2,', '"ante": 2, "ante": 9,'),
    ],
)
def test_a_key_written_twice_in_one_object_is_refused_naming_where(written, says):
    text = json.dumps(TWO_GAMES)
    assert text.count(written) == 1
    with pytest.raises(NightFileError) as refused:
        nightfile.loads(text.replace(written, says))
    where = "the top level: the key 'name'" if "name" in written else "games[1].rules: the key 'ante'"
    assert str(refused.value) == f"{where} is written twice; an object names each key once"


def test_a_night_file_with_more_records_than_a_night_holds_is_refused():
    # every stage here is one record (nobody said Yes): 3 games of 2,000 stages are 6,002 records
    document = json.loads(json.dumps(TWO_GAMES))
    nobody = [{"yes": []}] * 2000
    document["games"] = [{"game": "napalm", "stages": nobody} for _ in range(3)]
    with pytest.raises(NightFileError) as refused:
        nightfile.from_dict(document)
    assert "a night holds at most 5,000" in str(refused.value)


#: issue 20 item 1: a night file with bank records and no "settle_on".  Napalm: Ben and Cat say Yes,
#: Cat wins (the tally: Ann 0, Ben −3, Cat +3); then poker, whose pots the app never sees; everyone
#: bought 50; counts 40, 60, 50 (150 = bought): count − bought = Ann −10, Ben +10, Cat 0.
POKER_ON_COUNTS = {
    "format": "companion-night/2", "players": ["Ann", "Ben", "Cat"],
    "games": [{"game": "napalm", "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
               "stages": [{"yes": ["Ben", "Cat"], "winners": ["Cat"]}]},
              {"game": "betting", "rules": {"variant": "Texas hold'em"}, "deals": [{"dealer": "Ann"}]}],
    "bank": [{"everyone_buys_in": 50}, {"cash_out": "Ann", "chips": 40}, {"cash_out": "Ben", "chips": 60},
             {"cash_out": "Cat", "chips": 50}],
}
