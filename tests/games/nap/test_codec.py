"""Nap's deal records (``deals`` in ``companion-night/2``) and its events: read strictly, written tight.

Every refusal names the deal's number and the field, and carries the record's index.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.games.protocol import IllegalAction, RecordError
from companion.games.nap.codec import deal_from_record, deal_to_record, deals_of, from_event, play_deals, to_event
from companion.games.nap.table import Deal, Penalty, Rules, Table, Void

FOUR = ("Ann", "Ben", "Cat", "Dan")


def fresh(variant: str = "plain", players: tuple[str, ...] = FOUR, **rules: Any) -> Table:
    return Table(players, players[-1], Rules(variant=variant, **rules))


# --- the issue's examples, each in a game whose variant allows it --------------------------------


@pytest.mark.parametrize(
    ("variant", "players", "line", "expected_net"),
    [
        # Cat makes 2 among four: +6, the others -2.
        ("plain", FOUR, '{"bidder": "Cat", "bid": 2, "made": true}', (-2, -2, 6, -2)),
        # Widow Nap: Dan fails Nap with the widow: 10 to each.
        ("widow", FOUR, '{"bidder": "Dan", "bid": "nap", "made": false, "widow": true}', (10, 10, 10, -30)),
        # Peep Nap: pool 8, Ben peeks (9); Ann makes Misère: +9, Ann -2+9 = 7, Ben -2-1-3 = -6, Cat, Dan -5.
        ("peep", FOUR, '{"bidder": "Ann", "bid": "misere", "made": true, "peeks": ["Ben"]}', (7, -6, -5, -5)),
        # Purchase Nap: pool 8, Cat exchanges 2 (10); Ann makes Misère: Ann 7, Ben -5, Cat -2-2-3 = -7, Dan -5.
        ("purchase", FOUR, '{"bidder": "Ann", "bid": "misere", "made": true, "exchanged": {"Cat": 2}}', (7, -5, -7, -5)),
        # Ben bids 3, Cat revokes: 3 to each of Ben, Ann, Dan.
        ("plain", FOUR, '{"bidder": "Ben", "bid": 3, "penalties": [{"kind": "revoke", "player": "Cat"}]}', (3, 3, -9, 3)),
        # Ben makes 4, Ann led out of turn: Ann -7, Ben +15, Cat, Dan -4.
        (
            "plain",
            FOUR,
            '{"bidder": "Ben", "bid": 4, "made": true, "penalties": [{"kind": "lead_out_of_turn", "player": "Ann"}]}',
            (-7, 15, -4, -4),
        ),
        # Ann fails 3 with a wrong hand elsewhere: nothing paid.
        ("plain", FOUR, '{"bidder": "Ann", "bid": 3, "made": false, "wrong_cards": "other"}', (0, 0, 0, 0)),
        # Five players, thrown in: nothing paid.
        ("plain", FOUR + ("Eve",), '{"bidder": null}', (0, 0, 0, 0, 0)),
    ],
)
def test_each_record_of_the_issue_replays_and_is_written_back_unchanged(
    variant: str, players: tuple[str, ...], line: str, expected_net: tuple[int, ...]
) -> None:
    record = json.loads(line)
    t = fresh(variant, players)
    play_deals(t, [record])
    assert tuple(t.net_chips.values()) == expected_net
    assert deals_of(t) == [record]


def test_peeks_and_exchanges_are_never_both_allowed_in_one_game() -> None:
    # The issue's third example lists both fields; no one variant has both (Peep vs Purchase Nap).
    line = {"bidder": "Ann", "bid": "misere", "made": True, "peeks": ["Ben"], "exchanged": {"Cat": 2}}
    for variant in ("peep", "purchase"):
        with pytest.raises(RecordError, match="only for"):
            play_deals(fresh(variant), [line])


def test_an_undone_deal_is_left_out_of_the_records() -> None:
    t = fresh()
    t.deal("Cat", 2, True)
    t.deal("Ann", 1, False)
    t.void()
    assert deals_of(t) == [{"bidder": "Cat", "bid": 2, "made": True}]


def test_names_are_written_as_seated() -> None:
    t = fresh("peep")
    play_deals(t, [{"bidder": "cat", "bid": "nap", "made": True, "peeks": ["ann"]}])
    assert deals_of(t) == [{"bidder": "Cat", "bid": "nap", "made": True, "peeks": ["Ann"]}]


# --- every refusal names the deal and the field ---------------------------------------------------

GOOD = {"bidder": "Cat", "bid": 2, "made": True}

REFUSALS = [
    # (variant, record, field, words in the message)
    ("plain", "Cat made 2", "deal", "must be an object"),
    ("plain", {**GOOD, "tricks": 3}, "tricks", "unknown field"),
    ("plain", {"bid": 2, "made": True}, "bidder", "is missing"),
    ("plain", {**GOOD, "bidder": 3}, "bidder", "a player's name or null"),
    ("plain", {**GOOD, "bidder": "Zed"}, "bidder", "'Zed' is not a player"),
    ("plain", {"bidder": None}, "bidder", "the dealer must bid"),
    ("plain", {"bidder": "Cat", "made": True}, "bid", "what did Cat bid"),
    ("plain", {**GOOD, "bid": "five"}, "bid", "must be 1, 2, 3, 4"),
    ("plain", {**GOOD, "bid": 2.0}, "bid", "must be 1, 2, 3, 4"),
    ("plain", {**GOOD, "bid": True}, "bid", "must be 1, 2, 3, 4"),
    ("plain", {**GOOD, "bid": 6}, "bid", "must be 1, 2, 3, 4"),
    ("plain", {**GOOD, "bid": "wellington"}, "bid", "Wellington is not played"),
    ("plain", {"bidder": "Cat", "bid": 2}, "made", "did Cat make 2"),
    ("plain", {**GOOD, "made": "yes"}, "made", "true or false"),
    ("plain", {**GOOD, "penalties": [{"kind": "revoke", "player": "Ann"}]}, "made", "neither made nor failed"),
    ("widow", {**GOOD, "widow": "yes"}, "widow", "true or false"),
    ("plain", {**GOOD, "bid": "nap", "widow": True}, "widow", "only for Widow Nap"),
    ("widow", {**GOOD, "widow": True}, "widow", "commits to Nap, not 2"),
    ("peep", {**GOOD, "peeks": "Ben"}, "peeks", "must be a list"),
    ("peep", {**GOOD, "peeks": [1]}, "peeks", "must be a list"),
    ("plain", {**GOOD, "peeks": ["Ben"]}, "peeks", "only for Peep Nap"),
    ("peep", {**GOOD, "peeks": ["Ben", "Ben"]}, "peeks", "only once"),
    ("peep", {**GOOD, "peeks": ["Zed"]}, "peeks", "'Zed' is not a player"),
    ("purchase", {**GOOD, "exchanged": ["Cat"]}, "exchanged", "must map each player"),
    ("purchase", {**GOOD, "exchanged": {"Cat": 0}}, "exchanged", "1 to 5 cards"),
    ("purchase", {**GOOD, "exchanged": {"Cat": 6}}, "exchanged", "1 to 5 cards"),
    ("purchase", {**GOOD, "exchanged": {"Cat": "2"}}, "exchanged", "1 to 5 cards"),
    ("purchase", {**GOOD, "exchanged": {"Zed": 2}}, "exchanged", "'Zed' is not a player"),
    ("plain", {**GOOD, "exchanged": {"Cat": 2}}, "exchanged", "only for Purchase Nap"),
    ("plain", {**GOOD, "penalties": {"kind": "revoke"}}, "penalties", "must be a list"),
    ("plain", {**GOOD, "penalties": ["revoke"]}, "penalties", "must be an object"),
    ("plain", {**GOOD, "penalties": [{"kind": "renege", "player": "Ann"}]}, "penalties", "'kind' must be"),
    ("plain", {**GOOD, "penalties": [{"kind": "lead_out_of_turn"}]}, "penalties", "'player' must be"),
    ("plain", {**GOOD, "penalties": [{"kind": "lead_out_of_turn", "player": "Ann", "chips": 3}]}, "penalties", "unknown field 'chips'"),
    ("plain", {**GOOD, "penalties": [{"kind": "lead_out_of_turn", "player": "Cat"}]}, "penalties", "takes the card back"),
    (
        "plain",
        {"bidder": "Cat", "bid": 2, "penalties": [{"kind": "revoke", "player": "Ann"}, {"kind": "revoke", "player": "Ben"}]},
        "penalties",
        "at most one",
    ),
    ("plain", {**GOOD, "wrong_cards": "bidder_under"}, "wrong_cards", "\"other\" or \"bidder_over\""),
    (
        "plain",
        {"bidder": "Cat", "bid": 2, "penalties": [{"kind": "revoke", "player": "Ann"}], "wrong_cards": "other"},
        "wrong_cards",
        "revoke abandons",
    ),
]


@pytest.mark.parametrize(("variant", "record", "field", "words"), REFUSALS, ids=[f"{r[2]}-{i}" for i, r in enumerate(REFUSALS)])
def test_a_bad_record_is_refused_naming_the_deal_number_and_the_field(variant: str, record: Any, field: str, words: str) -> None:
    # Two good deals first, so the bad one is deals[2], deal 3.
    t = fresh(variant)
    with pytest.raises(RecordError) as caught:
        play_deals(t, [GOOD, GOOD, record])
    message = str(caught.value)
    assert caught.value.index == 2
    assert message.startswith(f"deals[2] (deal 3): '{field}': ")
    assert words in message
    assert len(t.live_records()) == 2  # the good ones stay replayed; the bad one changed nothing


@pytest.mark.parametrize(
    ("players", "record", "field"),
    [
        (FOUR + ("Eve",), {"bidder": "Eve", "bid": 2, "made": True}, "bidder"),
        (FOUR + ("Eve",), {"bidder": None, "bid": 2}, "bid"),
        (FOUR + ("Eve",), {"bidder": None, "made": False}, "made"),
        (FOUR + ("Eve",), {"bidder": "Ann", "bid": 2, "made": True, "penalties": [{"kind": "lead_out_of_turn", "player": "Eve"}]}, "penalties"),
    ],
)
def test_with_five_players_the_dealer_out_and_a_throw_in_are_checked_by_field(players, record, field) -> None:
    t = fresh("plain", players)
    with pytest.raises(RecordError) as caught:
        play_deals(t, [record])
    assert caught.value.index == 0
    assert str(caught.value).startswith(f"deals[0] (deal 1): '{field}': ")


def test_deals_that_are_not_a_list_are_refused_as_a_whole() -> None:
    with pytest.raises(RecordError, match="'deals' must be a list") as caught:
        play_deals(fresh(), {"0": GOOD})
    assert caught.value.index is None


# --- the record codec by itself ---------------------------------------------------------------------


def test_a_full_record_reads_into_a_deal_and_back() -> None:
    record = {
        "bidder": "Ben",
        "bid": 3,
        "penalties": [{"kind": "lead_out_of_turn", "player": "Ann"}, {"kind": "revoke", "player": "Cat"}],
    }
    deal = deal_from_record(record)
    assert deal == Deal("Ben", 3, None, penalties=(Penalty("lead_out_of_turn", "Ann"), Penalty("revoke", "Cat")))
    assert deal_to_record(deal) == record


def test_a_false_widow_and_empty_extras_are_read_and_left_out_when_written() -> None:
    deal = deal_from_record({"bidder": "Ben", "bid": "nap", "made": True, "widow": False, "peeks": [], "exchanged": {}, "penalties": []})
    assert deal_to_record(deal) == {"bidder": "Ben", "bid": "nap", "made": True}


# --- events -------------------------------------------------------------------------------------


def test_a_deal_is_stored_as_its_record_and_read_back() -> None:
    deal = Deal("Ann", "misere", True, peeks=("Ben",))
    kind, payload = to_event(deal)
    assert (kind, payload) == ("deal", {"bidder": "Ann", "bid": "misere", "made": True, "peeks": ["Ben"]})
    assert from_event(kind, json.loads(json.dumps(payload))) == deal
    assert to_event(Void()) == ("void", {})
    assert from_event("void", {}) == Void()


def test_a_bad_event_is_refused() -> None:
    with pytest.raises(IllegalAction, match="unknown event kind 'declare'"):
        from_event("declare", {})
    with pytest.raises(IllegalAction, match="'bid'"):
        from_event("deal", {"bidder": "Ann", "bid": 9})
    with pytest.raises(IllegalAction, match="unknown action"):
        to_event("deal")  # type: ignore[arg-type]


def test_a_false_widow_and_empty_extras_say_nothing_in_any_variant() -> None:
    t = fresh("plain")
    play_deals(t, [{"bidder": "Cat", "bid": 2, "made": True, "widow": False, "peeks": [], "exchanged": {}, "penalties": []}])
    assert tuple(t.net_chips.values()) == (-2, -2, 6, -2)
    assert deals_of(t) == [{"bidder": "Cat", "bid": 2, "made": True}]
