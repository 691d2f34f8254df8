"""The hand-history file: the issue's example, round trips, and every way a file is refused.

Standings are worked out by hand from RULES.md (arithmetic in the comments).
"""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from companion.games.napalm import hand_history
from companion.games.napalm.hand_history import HistoryError, Settings
from companion.games.napalm.table import Phase, Rules, Stage, Table

DOCS = Path(__file__).resolve().parents[3] / "docs" / "hand-history.md"

# The issue's example, with real cards for Dan.  Ann: As Ks 2d 3c 9h 9d 4s; Dan: Kh Kd 2h 3h
# 4h 5h 6h: fourteen different cards.
SPEC_EXAMPLE = {
    "format": "napalm-hand-history/1",
    "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
    "players": ["Ann", "Ben", "Cat", "Dan"],
    "first_dealer": "Ann",
    "stages": [
        {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]},
        {"stage": 2, "yes": []},
        {"stage": 3, "yes": ["Ann"], "challengers": ["Dan"], "cards": {"Ann": "AsKs2d3c9h9d4s", "Dan": "KhKd2h3h4h5h6h"}},
    ],
}

# Hand 1, dealer Ann: ante 4 x 1, pot 4, everyone -1.
# Stage 1: Ben pays Cat 4 -> Ann -1, Ben -5, Cat 3, Dan -1.
# Stage 2: nobody.
# Stage 3: Ann (dealer) alone, Dan challenges; Ann has a pair of nines, Dan a 6-high
# straight flush in hearts: Ann pays Dan 4 -> Ann -5, Dan 3.
# Hand 2 is next, dealt by Ben (left of Ann), at stage 1; the pot of 4 stays.
SPEC_STANDINGS = {
    "players": {
        "Ann": {"net_chips": -5, "tokens": 0},
        "Ben": {"net_chips": -5, "tokens": 0},
        "Cat": {"net_chips": 3, "tokens": 0},
        "Dan": {"net_chips": 3, "tokens": 0},
    },
    "pot": 4,
    "games": [],
    "dealer": "Ben",
    "next_stage": 1,
}


def docs_json(marker: str, after: str = "") -> dict:
    """The first JSON block of docs/hand-history.md after ``marker`` (the first ``marker`` after ``after``)."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(marker, text.index(after) if after else 0)
    block = re.search(r"```json\n(.*?)```", text[start:], re.DOTALL)
    assert block is not None
    return json.loads(block.group(1))


def docs_example() -> dict:
    """The worked example of docs/hand-history.md (the JSON block after its marker)."""
    return docs_json("<!-- worked-example")


def docs_replay_output() -> dict:
    """What the docs say ``flask --app companion replay`` prints for the worked example."""
    return docs_json("So replaying the file prints")


def load(document: dict) -> hand_history.History:
    return hand_history.loads(json.dumps(document))


def with_stage(document: dict, index: int, **changes) -> dict:
    """A copy of ``document`` with ``stages[index]`` changed (a value of None removes the key)."""
    changed = copy.deepcopy(document)
    for key, value in changes.items():
        if value is None:
            changed["stages"][index].pop(key, None)
        else:
            changed["stages"][index][key] = value
    return changed


def assert_round_trip(loaded: hand_history.History) -> None:
    text = hand_history.dumps(loaded.table, loaded.settings, loaded.name)
    again = hand_history.loads(text)
    assert hand_history.standings(again.table) == hand_history.standings(loaded.table)
    assert hand_history.to_dict(again.table, again.settings, again.name) == hand_history.to_dict(
        loaded.table, loaded.settings, loaded.name
    )
    assert again.table.position == loaded.table.position
    assert (again.settings, again.name) == (loaded.settings, loaded.name)


# --- the issue's example ----------------------------------------------------------------------


def test_the_issues_example_loads_and_gives_hand_computed_standings():
    loaded = load(SPEC_EXAMPLE)
    assert hand_history.standings(loaded.table) == SPEC_STANDINGS
    assert loaded.settings == Settings()
    assert loaded.name is None


def test_the_issues_example_survives_export_and_import_unchanged():
    loaded = load(SPEC_EXAMPLE)
    assert_round_trip(loaded)
    # The file written back is the file read (the example already has every optional
    # key the writer writes).
    assert hand_history.to_dict(loaded.table) == SPEC_EXAMPLE


def test_the_stage_numbers_are_optional():
    bare = copy.deepcopy(SPEC_EXAMPLE)
    for entry in bare["stages"]:
        del entry["stage"]
    assert hand_history.standings(load(bare).table) == SPEC_STANDINGS


def test_rules_and_first_dealer_and_stages_have_defaults():
    loaded = load({"format": "napalm-hand-history/1", "players": ["Ann", "Ben"]})
    assert loaded.table.rules == Rules(ante=1, ante_every=1, tokens_to_win=5)
    assert loaded.table.first_dealer == "Ann"
    assert hand_history.standings(loaded.table) == {
        "players": {"Ann": {"net_chips": 0, "tokens": 0}, "Ben": {"net_chips": 0, "tokens": 0}},
        "pot": 0,
        "games": [],
        "dealer": "Ann",
        "next_stage": 1,
    }


# --- the worked example of the docs -------------------------------------------------------------


def test_the_docs_worked_example_gives_the_standings_the_docs_work_out():
    loaded = load(docs_example())
    # Worked out in docs/hand-history.md, entry by entry:
    # game 1 ends when Dan takes his 2nd token at stage 1 of hand 3, pot 12;
    # game 2: Ann 4, Ben -12, Cat 8, Dan -4, pot 4, Ben 1 token, Dan deals, stage 3 pending.
    expected = {
        "players": {
            "Ann": {"net_chips": 4, "tokens": 0},
            "Ben": {"net_chips": -12, "tokens": 1},
            "Cat": {"net_chips": 8, "tokens": 0},
            "Dan": {"net_chips": -4, "tokens": 0},
        },
        "pot": 4,
        "games": [{"winner": "Dan", "pot": 12}],
        "dealer": "Dan",
        "next_stage": 3,
    }
    assert hand_history.standings(loaded.table) == expected
    printed = docs_replay_output()
    assert {key: printed[key] for key in expected} == expected
    assert loaded.table.phase is Phase.CHALLENGE
    assert loaded.name == "Friday at Ann's"
    assert loaded.settings == Settings(chip_value=Decimal("0.25"), currency="EUR", unfinished_pot="return_antes")


def test_the_docs_show_what_the_replay_command_prints_for_the_worked_example():
    from companion.games.napalm.hand_history import replay_summary  # the command's output, without a Flask app

    printed = docs_replay_output()
    # return_antes: game 2's pot of 4 goes back 1 each: Ann 5, Ben -11, Cat 9, Dan -3,
    # settled in 3 payments (4 players, no smaller group squares itself): Ben pays Ann 2
    # and Cat 9, Dan pays Ann 3.
    assert printed["payments"] == [
        {"from": "Ben", "to": "Ann", "chips": 2},
        {"from": "Ben", "to": "Cat", "chips": 9},
        {"from": "Dan", "to": "Ann", "chips": 3},
    ]
    assert replay_summary(load(docs_example())) == printed


def test_the_docs_worked_example_round_trips_with_its_name_settings_and_in_progress_entry():
    loaded = load(docs_example())
    assert_round_trip(loaded)
    exported = hand_history.to_dict(loaded.table, loaded.settings, loaded.name)
    assert exported["stages"][-1] == {"stage": 3, "yes": ["Dan"], "in_progress": True}


def test_the_error_messages_shown_in_the_docs_are_the_ones_given():
    example = docs_example()
    with pytest.raises(HistoryError) as caught:
        load(with_stage(example, 4, yes=["Cat"], challengers=[]))
    assert str(caught.value) == (
        "stages[4] (game 1, hand 2, stage 2): 'challengers' is only for a stage where the dealer alone said Yes"
    )
    with pytest.raises(HistoryError) as caught:
        load(with_stage(example, 7, cards=None, winners=["Cat"]))
    assert str(caught.value) == "stages[7] (game 2, hand 1, stage 1): Cat did not say Yes and cannot win this showdown"


# --- export and import of a night played on a Table ---------------------------------------------


def played_night() -> Table:
    """A night with voids, a challenge, cards, a finished game and a pending showdown."""
    table = Table(["Ann", "Ben", "Cat"], "Cat", Rules(ante=2, ante_every=2, tokens_to_win=2))
    table.declare(["Ann", "Ben"])
    table.showdown(cards={"Ann": "AhAd", "Ben": "KhKd"})
    table.declare(["Cat"])
    table.void()  # typed the wrong player
    table.declare(["Cat"])
    table.challenge([])
    table.declare(["Ben"])
    table.declare(["ann"])  # a name in another case is the same player; Ann deals
    table.challenge([])
    table.declare(["Ann"])
    table.challenge([])  # her 2nd token: game 1 over
    table.declare(["Ann", "Cat"])
    return table


def test_a_played_night_exports_without_its_voided_actions_and_imports_to_the_same_place():
    table = played_night()
    settings = Settings(chip_value=Decimal("0.1"), currency="$", unfinished_pot="split_leaders")
    exported = hand_history.to_dict(table, settings, "Tuesday")
    # 10 live actions in 6 stage entries: 1 (Ann v Ben), 2 (Cat unchallenged), 3 (Ben), then
    # hand 2: 1 (ann unchallenged), 2 (Ann unchallenged, game over), then game 2: 1 (Ann v Cat,
    # pending).
    assert [e.get("yes") for e in exported["stages"]] == [
        ["Ann", "Ben"], ["Cat"], ["Ben"], ["ann"], ["Ann"], ["Ann", "Cat"]
    ]
    assert [e.get("challengers") for e in exported["stages"]] == [None, [], None, [], [], None]
    assert len(table.live_records()) == 10
    assert exported["stages"][-1]["in_progress"] is True
    again = hand_history.loads(hand_history.dumps(table, settings, "Tuesday"))
    assert again.table.position == table.position
    assert hand_history.standings(again.table) == hand_history.standings(table)
    assert hand_history.to_dict(again.table, again.settings, again.name) == exported
    assert (again.settings, again.name) == (settings, "Tuesday")


def test_a_played_nights_standings_are_worked_out_by_hand():
    # Ann, Ben, Cat; Cat deals; ante 2 on hands 1, 3...; 2 tokens win.
    # Hand 1: pot 6, all -2.  Stage 1: Ann's aces beat Ben's kings, Ben pays 6: Ann 4, Ben -8.
    # Stage 2: Cat (dealer) unchallenged, token.  Stage 3: Ben, token.
    # Hand 2 (Ann deals, no ante, pot 6): stage 1 Ann (dealer) unchallenged, token; stage 2
    # again, her 2nd token: she takes 6,
    # Ann 10.  Game 2, hand 1 (Ben deals): ante, pot 6: Ann 8, Ben -10, Cat -4.
    standings = hand_history.standings(played_night())
    assert standings == {
        "players": {
            "Ann": {"net_chips": 8, "tokens": 0},
            "Ben": {"net_chips": -10, "tokens": 0},
            "Cat": {"net_chips": -4, "tokens": 0},
        },
        "pot": 6,
        "games": [{"winner": "Ann", "pot": 6}],
        "dealer": "Ben",
        "next_stage": 1,
    }


# --- in_progress ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("last", "phase", "yes"),
    [
        ({"stage": 1, "yes": ["Ben"], "in_progress": True}, Phase.CHALLENGE, ("Ben",)),
        ({"stage": 1, "yes": ["Ann", "Ben"], "in_progress": True}, Phase.SHOWDOWN, ("Ann", "Ben")),
        ({"stage": 1, "yes": ["Ben"], "challengers": ["Ann"], "in_progress": True}, Phase.SHOWDOWN, ("Ann", "Ben")),
    ],
    ids=["challenge pending", "showdown pending", "showdown after a challenge pending"],
)
def test_an_in_progress_last_entry_round_trips(last, phase, yes):
    document = {
        "format": "napalm-hand-history/1",
        "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
        "players": ["Ann", "Ben"],
        "first_dealer": "Ben",
        "stages": [last],
    }
    loaded = load(document)
    assert loaded.table.phase is phase
    assert loaded.table.yes == yes
    assert loaded.table.pot == 2  # the ante was taken when the entry was recorded
    assert hand_history.to_dict(loaded.table) == document
    assert_round_trip(loaded)


def test_a_dealer_alone_without_challengers_took_the_token_unless_the_entry_is_in_progress():
    document = {
        "format": "napalm-hand-history/1",
        "players": ["Ann", "Ben"],
        "first_dealer": "Ben",
        "stages": [{"yes": ["Ben"]}],
    }
    loaded = load(document)
    # No 'challengers' key: nobody challenged, Ben (the dealer) takes a token; stage 2 is next.
    assert loaded.table.tokens == {"Ann": 0, "Ben": 1}
    assert loaded.table.stage is Stage.DEUCE_TO_SEVEN_LOW
    # The app writes the empty challenge out.
    assert hand_history.to_dict(loaded.table)["stages"] == [{"stage": 1, "yes": ["Ben"], "challengers": []}]
    pending = with_stage(document, 0, in_progress=True)
    assert load(pending).table.phase is Phase.CHALLENGE


def test_in_progress_is_only_allowed_on_the_last_entry():
    document = copy.deepcopy(SPEC_EXAMPLE)
    document["stages"][0]["in_progress"] = True
    with pytest.raises(HistoryError, match=r"^stages\[0\] .*only the last stage can be in progress"):
        load(document)


# --- refused files -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("index", "changes", "message"),
    [
        (1, {"winner": ["Ben"]}, r"stages\[1\] \(game 1, hand 1, stage 2\): unknown key 'winner'"),
        (1, {"stage": 3}, r"stages\[1\] \(game 1, hand 1, stage 2\): this is stage 2, not stage 3"),
        (1, {"stage": "2"}, r"stages\[1\] .*'stage' must be 1, 2 or 3"),
        (0, {"yes": ["Ben"], "winners": None, "challengers": ["Cat"]}, r"stages\[0\] .*'challengers' is only for"),
        (0, {"winners": None}, r"stages\[0\] .*give 'winners' or 'cards'"),
        (2, {"winners": None, "cards": None}, r"stages\[2\] .*give 'winners' or 'cards'"),
        (1, {"yes": None}, r"stages\[1\] .*'yes' is missing"),
        (1, {"yes": ["Zed"]}, r"stages\[1\] .*'Zed' is not at this table"),
        (1, {"yes": "Ben"}, r"stages\[1\] .*'yes' must be a list of names"),
        (0, {"winners": ["Ann"]}, r"stages\[0\] .*Ann did not say Yes"),
        (2, {"challengers": ["Ann"]}, r"stages\[2\] .*Ann is the dealer"),
        (2, {"winners": ["Ann"]}, r"stages\[2\] .*the cards say Dan won, not Ann"),
        (2, {"cards": {"Ann": "AsKs2d3c9h9d", "Dan": "KhKd2h3h4h5h6h"}}, r"stages\[2\] .*needs 7 cards for Ann, got 6"),
        (2, {"cards": {"Ann": "AsKs2d3c9h9d4s", "Dan": "AsKd2h3h4h5h6h"}}, r"stages\[2\] .*As is shown twice"),
        (2, {"cards": {"Ann": "AsKs2d3c9h9d4s"}}, r"stages\[2\] .*Dan missing"),
        (2, {"cards": ["AsKs"]}, r"stages\[2\] .*'cards' must map each Yes player"),
        (1, {"winners": ["Ben"]}, r"stages\[1\] .*'winners' and 'cards' are only for"),
        (1, {"in_progress": "yes"}, r"stages\[1\] .*'in_progress' must be true or false"),
    ],
)
def test_a_wrong_stage_entry_is_refused_naming_where_it_is(index, changes, message):
    with pytest.raises(HistoryError, match="^" + message):
        load(with_stage(SPEC_EXAMPLE, index, **changes))


def test_a_card_shown_by_another_player_earlier_in_the_hand_is_refused_naming_the_entry():
    document = copy.deepcopy(SPEC_EXAMPLE)
    # Cat won stage 1 with the ace of spades, which Ann then shows at stage 3.
    document["stages"][0] = {"stage": 1, "yes": ["Ben", "Cat"], "cards": {"Ben": "2c2s", "Cat": "AsAh"}}
    with pytest.raises(HistoryError, match=r"^stages\[2\] .*As is shown twice in this hand \(Cat and Ann\)"):
        load(document)


def test_an_entry_that_is_not_an_object_is_refused():
    document = copy.deepcopy(SPEC_EXAMPLE)
    document["stages"][1] = ["Ben"]
    with pytest.raises(HistoryError, match=r"^stages\[1\] .*each stage must be an object"):
        load(document)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ('{"format": "napalm-hand-history/1",}', "not valid JSON"),
        (b"\xff\xfe{", "not valid JSON"),
        ("[]", "one JSON object"),
        ("42", "one JSON object"),
        ('"napalm"', "one JSON object"),
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ("x" * (hand_history.MAX_BYTES + 1), "larger than"),
    ],
    ids=["truncated", "trailing comma", "not UTF-8", "a list", "a number", "a string", "very deep", "too large"],
)
def test_a_file_that_is_not_a_hand_history_object_is_refused(text, message):
    with pytest.raises(HistoryError, match=message):
        hand_history.loads(text)


def test_nesting_deeper_than_the_format_is_refused():
    document = copy.deepcopy(SPEC_EXAMPLE)
    deep: list = ["Ben"]
    for _ in range(10):
        deep = [deep]
    document["stages"][1]["yes"] = deep
    with pytest.raises(HistoryError, match="nested too deeply"):
        load(document)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": "napalm-hand-history/2"}, "'format' must be"),
        ({"format": None}, "'format' must be"),
        ({"colour": "red"}, "unknown key 'colour' at the top level"),
        ({"players": "Ann Ben"}, "'players' must be a list"),
        ({"players": ["Ann"]}, "2 to 7 players"),
        ({"players": ["Ann", "Ben", "ann"]}, "two players are called"),
        ({"first_dealer": "Zed"}, "first dealer 'Zed' is not at this table"),
        ({"stages": {"0": {}}}, "'stages' must be a list"),
        ({"rules": []}, "'rules' must be an object"),
        ({"rules": {"ante_every": 3}}, "rules: the ante is paid on every hand"),
        ({"rules": {"tokens_to_win": 0}}, "rules: tokens to win"),
        ({"rules": {"ante": "1"}}, "rules: ante must be a whole number"),
        ({"rules": {"antes": 1}}, "unknown rule 'antes'"),
        ({"rules": {"chip_value": 0.25}}, "'chip_value' must be a decimal written as a string"),
        ({"rules": {"chip_value": "-1"}}, "'chip_value': A chip value can't be negative"),
        ({"rules": {"chip_value": "abc"}}, "is not a number"),
        ({"rules": {"unfinished_pot": "burn"}}, "'unfinished_pot' must be one of"),
        ({"name": 7}, "'name' must be text"),
    ],
)
def test_a_wrong_top_level_value_is_refused(changes, message):
    document = copy.deepcopy(SPEC_EXAMPLE)
    for key, value in changes.items():
        if value is None:
            document.pop(key)
        else:
            document[key] = value
    with pytest.raises(HistoryError, match=message):
        load(document)


def test_from_dict_refuses_what_is_not_an_object():
    with pytest.raises(HistoryError, match="one JSON object"):
        hand_history.from_dict(["format"])


# --- a game that ends in the middle of a hand -------------------------------------------------


def test_after_a_game_ends_mid_hand_the_next_entry_is_stage_1_dealt_by_the_next_seat():
    document = {
        "format": "napalm-hand-history/1",
        "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 1},
        "players": ["Ann", "Ben", "Cat"],
        "first_dealer": "Cat",
        "stages": [
            {"stage": 1, "yes": ["Ann"]},  # pot 3; Ann's token wins it at once: Ann 2, Ben -1, Cat -1
            {"stage": 1, "yes": []},  # game 2, Ann deals: ante, pot 3; Ann 1, Ben -2, Cat -2
        ],
    }
    loaded = load(document)
    assert hand_history.standings(loaded.table) == {
        "players": {
            "Ann": {"net_chips": 1, "tokens": 0},
            "Ben": {"net_chips": -2, "tokens": 0},
            "Cat": {"net_chips": -2, "tokens": 0},
        },
        "pot": 3,
        "games": [{"winner": "Ann", "pot": 3}],
        "dealer": "Ann",
        "next_stage": 2,
    }
    assert loaded.table.stage is Stage.DEUCE_TO_SEVEN_LOW
    wrong = with_stage(document, 1, stage=2)
    with pytest.raises(HistoryError, match=r"^stages\[1\] \(game 2, hand 1, stage 1\): this is stage 1, not stage 2"):
        load(wrong)


# --- a pot carried in from the previous night ---------------------------------------------------


def carried_example() -> dict:
    """The example of "A pot carried in" in docs/hand-history.md (the JSON block after its marker)."""
    return docs_json("<!-- carried-example")


def carried_replay_output() -> dict:
    """What the docs say replaying the carried example prints."""
    return docs_json("Replaying the file prints:", after="<!-- carried-example")


def test_the_docs_carried_example_gives_the_standings_the_docs_work_out():
    from companion.games.napalm.hand_history import replay_summary

    loaded = load(carried_example())
    # Start: pot 6 (Friday's 2 of Ann, Ben, Cat), nets -2/-2/-2/0.  Ben deals.
    # S1 ante: pot 10, -3/-3/-3/-1; Cat a token.  S2: Dan pays Ann 10: 7/-3/-3/-11.
    # S3: Cat's 2nd token, the pot of 10: 7/-3/7/-11.  Game 2, Cat deals: ante, pot 4,
    # 6/-4/6/-12; Dan a token.  Carry: the 4 antes (1 each) go on; tonight 7/-3/7/-11:
    # Dan pays Ann 7 and Cat 4, Ben pays Cat 3.
    assert hand_history.standings(loaded.table) == {
        "players": {
            "Ann": {"net_chips": 6, "tokens": 0},
            "Ben": {"net_chips": -4, "tokens": 0},
            "Cat": {"net_chips": 6, "tokens": 0},
            "Dan": {"net_chips": -12, "tokens": 1},
        },
        "pot": 4,
        "games": [{"winner": "Cat", "pot": 10}],
        "dealer": "Cat",
        "next_stage": 2,
    }
    printed = carried_replay_output()
    assert printed["unfinished_pot"] == {
        "choice": "carry", "pot": 4, "carried": 4, "carried_shares": {"Ann": 1, "Ben": 1, "Cat": 1, "Dan": 1}
    }
    assert printed["payments"] == [
        {"from": "Ben", "to": "Cat", "chips": 3},
        {"from": "Dan", "to": "Ann", "chips": 7},
        {"from": "Dan", "to": "Cat", "chips": 4},
    ]
    assert replay_summary(loaded) == printed


def test_the_docs_carried_example_before_anything_is_played_and_after_its_first_entry():
    document = carried_example()
    start = load({**document, "stages": []}).table
    assert (start.pot, start.net_chips) == (6, {"Ann": -2, "Ben": -2, "Cat": -2, "Dan": 0})
    # After stages[0]: pot 10; returned antes give back Ann 3, Ben 3, Cat 3, Dan 1: all square.
    from companion.games.napalm.closing import close_night

    first = load({**document, "stages": document["stages"][:1]}).table
    closing = close_night(first, "return_antes")
    assert closing.shares == {"Ann": 3, "Ben": 3, "Cat": 3, "Dan": 1}
    assert set(closing.net.values()) == {0}


def test_a_carried_pot_round_trips_and_is_written_only_when_there_is_one():
    loaded = load(carried_example())
    assert_round_trip(loaded)
    exported = hand_history.to_dict(loaded.table, loaded.settings, loaded.name)
    assert exported["carried_in"] == {"Ann": 2, "Ben": 2, "Cat": 2}
    assert list(exported) == ["format", "name", "rules", "players", "first_dealer", "carried_in", "stages"]
    assert "carried_in" not in hand_history.to_dict(load(SPEC_EXAMPLE).table)
    assert "carried_in" not in hand_history.to_dict(load({**SPEC_EXAMPLE, "carried_in": {}}).table)
    # names in another case are the seated players', in seat order
    again = load({**SPEC_EXAMPLE, "carried_in": {"dan": 1, "ann": 3}})
    assert hand_history.to_dict(again.table)["carried_in"] == {"Ann": 3, "Dan": 1}


@pytest.mark.parametrize(
    ("carried_in", "message"),
    [
        ({"Gus": 3}, "'carried_in': the carried pot holds 3 chips of Gus, who is not seated tonight"),
        ({"Ann": 0}, "'carried_in': Ann's chips must be a whole number, 1 or more, not 0"),
        ({"Ann": -1}, "'carried_in': Ann's chips must be a whole number, 1 or more, not -1"),
        ({"Ann": "2"}, "'carried_in': Ann's chips must be a whole number, 1 or more, not \"2\""),
        ({"Ann": 2.5}, "'carried_in': Ann's chips must be a whole number, 1 or more, not 2.5"),
        ({"Ann": True}, "'carried_in': Ann's chips must be a whole number, 1 or more, not true"),
        ({"Ann": None}, "'carried_in': Ann's chips must be a whole number, 1 or more, not null"),
        ({"Ann": [2]}, "'carried_in': Ann's chips must be a whole number, 1 or more, not a list or object"),
        ({"Ann": 2, "ANN": 1}, "'carried_in': Ann is listed twice in the carried pot"),
        ([["Ann", 2]], "'carried_in' must map each contributor to their chips in the carried pot, e.g. {\"Ann\": 2}"),
        (6, "'carried_in' must map each contributor"),
    ],
)
def test_a_wrong_carried_pot_is_refused_in_one_line(carried_in, message):
    with pytest.raises(HistoryError) as refused:
        load({**SPEC_EXAMPLE, "carried_in": carried_in})
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)


def test_the_carried_pot_error_shown_in_the_docs_is_the_one_given():
    text = DOCS.read_text(encoding="utf-8")
    for line in (
        "'carried_in': the carried pot holds 3 chips of Gus, who is not seated tonight",
        "'carried_in': Ann's chips must be a whole number, 1 or more, not 0",
        "'carried_in' must map each contributor to their chips in the carried pot, e.g. {\"Ann\": 2}",
    ):
        assert line in text
