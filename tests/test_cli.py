"""``flask --app companion replay FILE``: hand-typed files, payments worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# Night A of tests/report/test_report.py, as a hand-history file: four players, Ann
# deals first, ante 1 on every hand, 2 tokens win.
#
# Game 1 (Ann, Ben, Cat deal; 3 hands, 3 antes each, pot 12 to Ann):
#   side bets: Ben pays Cat 4 (hand 1), Ben pays Cat 8 and Dan 8 (hand 2, a tie);
#   tokens: Ann, Dan, Ann: Ann's 2nd token takes the pot of 12.
#   nets: Ann -3 + 12 = +9, Ben -3 - 20 = -23, Cat -3 + 12 = +9, Dan -3 + 8 = +5.
# Game 2 (Dan deals, then Ann): 2 antes each, pot 8, unfinished;
#   side bets: Ben pays Ann 4 and Cat 4; tokens: Dan 1, Ben 1.
#   nets: Ann +11, Ben -33, Cat +11, Dan +3 (sum -8: the pot).
STAGES = [
    {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]},
    {"stage": 2, "yes": []},
    {"stage": 3, "yes": ["Ann"], "challengers": []},
    {"stage": 1, "yes": []},
    {"stage": 2, "yes": ["Ben"], "challengers": ["Cat", "Dan"], "winners": ["Cat", "Dan"]},
    {"stage": 3, "yes": ["Dan"]},
    {"stage": 1, "yes": ["Ann"]},
    {"stage": 1, "yes": ["Ann", "Ben"], "winners": ["Ann"]},
    {"stage": 2, "yes": ["Ben", "Cat"], "cards": {"Ben": "As Kd Qc Jh 9s", "Cat": "7h 5d 4c 3s 2h"}},
    {"stage": 3, "yes": ["Dan"], "challengers": []},
    {"stage": 1, "yes": ["Ben"]},
]


def history(unfinished_pot: str, **extra: object) -> dict:
    return {
        "format": "napalm-hand-history/1",
        "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 2, "chip_value": "0.25", "currency": "EUR",
                  "unfinished_pot": unfinished_pot},
        "players": ["Ann", "Ben", "Cat", "Dan"],
        "first_dealer": "Ann",
        "stages": STAGES,
        **extra,
    }


def replay(app, path: Path):
    return app.test_cli_runner().invoke(args=["replay", str(path)])


def write(tmp_path: Path, data: object, name: str = "night.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_replay_prints_the_standings_and_the_payments_with_antes_returned(app, tmp_path):
    result = replay(app, write(tmp_path, history("return_antes")))
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {n: p["net_chips"] for n, p in out["players"].items()} == {"Ann": 11, "Ben": -33, "Cat": 11, "Dan": 3}
    assert out["pot"] == 8 and out["games"] == [{"winner": "Ann", "pot": 12}]
    assert out["dealer"] == "Ann" and out["next_stage"] == 2
    # Each player's 2 antes in game 2 come back: Ann 13, Ben -31, Cat 13, Dan 5.
    # Ben alone owes, so he pays the three others.
    assert out["payments"] == [
        {"from": "Ben", "to": "Ann", "chips": 13},
        {"from": "Ben", "to": "Cat", "chips": 13},
        {"from": "Ben", "to": "Dan", "chips": 5},
    ]
    assert out["unfinished_pot"] == {"choice": "return_antes", "pot": 8, "carried": 0}


def test_replay_with_the_pot_split_among_the_leaders(app, tmp_path):
    # Ben and Dan hold 1 token each: 4 chips each.  Ann 11, Ben -29, Cat 11, Dan 7.
    out = json.loads(replay(app, write(tmp_path, history("split_leaders"))).stdout)
    assert out["payments"] == [
        {"from": "Ben", "to": "Ann", "chips": 11},
        {"from": "Ben", "to": "Cat", "chips": 11},
        {"from": "Ben", "to": "Dan", "chips": 7},
    ]
    assert "Ben 4, Dan 4" in out["note"]


def test_replay_with_the_pot_carried(app, tmp_path):
    # The pot stays for next time, the antes in it left out: the plan of "returned".
    out = json.loads(replay(app, write(tmp_path, history("carry"))).stdout)
    assert [p["chips"] for p in out["payments"]] == [13, 13, 5]
    # Game 2's pot of 8 is 2 antes of each: the next night's file starts with them.
    assert out["unfinished_pot"] == {
        "choice": "carry", "pot": 8, "carried": 8, "carried_shares": {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}
    }


def test_replay_of_a_finished_night_with_two_debtors(app, tmp_path):
    # Ann, Ben, Cat, Dan; Ann deals; 1 token wins.
    # S1: Ben and Cat, pot 4: Cat wins, Ben pays her 4.   Ann -1, Ben -5, Cat +3, Dan -1
    # S2: all four; Ann and Dan tie: Ben and Cat each pay each of them 4.
    #                                                    Ann +7, Ben -13, Cat -5, Dan +7
    # S3: Ben alone: a token, the game and the pot of 4. Ben -9.   Sum 0, pot 0.
    # 9 + 5 owed to 7 + 7: no pair cancels, so 3 payments.
    data = {
        "format": "napalm-hand-history/1",
        "rules": {"tokens_to_win": 1},
        "players": ["Ann", "Ben", "Cat", "Dan"],
        "stages": [
            {"yes": ["Ben", "Cat"], "winners": ["Cat"]},
            {"yes": ["Ann", "Ben", "Cat", "Dan"], "winners": ["Ann", "Dan"]},
            {"yes": ["Ben"]},
        ],
    }
    out = json.loads(replay(app, write(tmp_path, data)).stdout)
    assert {n: p["net_chips"] for n, p in out["players"].items()} == {"Ann": 7, "Ben": -9, "Cat": -5, "Dan": 7}
    assert out["pot"] == 0 and "note" not in out
    payments = out["payments"]
    assert len(payments) == 3
    paid = {n: sum(p["chips"] for p in payments if p["from"] == n) for n in ("Ben", "Cat")}
    got = {n: sum(p["chips"] for p in payments if p["to"] == n) for n in ("Ann", "Dan")}
    assert paid == {"Ben": 9, "Cat": 5} and got == {"Ann": 7, "Dan": 7}
    assert payments == sorted(payments, key=lambda p: (p["from"], p["to"]))


def test_replay_of_a_night_not_begun_has_no_payments(app, tmp_path):
    data = {"format": "napalm-hand-history/1", "players": ["Ann", "Ben"]}
    out = json.loads(replay(app, write(tmp_path, data)).stdout)
    assert out["payments"] == [] and out["pot"] == 0


# A night that starts with a pot carried in: Ann, Ben, Cat; Ann deals; ante 1, 5 tokens
# win; the carried pot holds Ann 2, Ben 1.
#   start: pot 3, Ann -2, Ben -1, Cat 0.
#   hand 1 (Ann deals): S1 ante, pot 6, -3/-2/-1; Ben and Cat, Cat wins: Ben pays her 6:
#   -3/-8/+5.  S2: Cat alone, a token.  S3: nobody.
#   hand 2 (Ben deals): S1 ante, pot 9, -4/-9/+4; Ann alone, a token.
# Game 1 is unfinished; the stakes in its pot of 9: Ann 2+1+1 = 4, Ben 1+1+1 = 3, Cat 2.
CARRIED_NIGHT = {
    "format": "napalm-hand-history/1",
    "players": ["Ann", "Ben", "Cat"],
    "carried_in": {"Ann": 2, "Ben": 1},
    "stages": [
        {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]},
        {"stage": 2, "yes": ["Cat"]},
        {"stage": 3, "yes": []},
        {"stage": 1, "yes": ["Ann"]},
    ],
}


@pytest.mark.parametrize(
    ("choice", "payments", "unfinished"),
    [
        # each gets their own stake back: Ann 0, Ben -6, Cat 6
        ("return_antes", [{"from": "Ben", "to": "Cat", "chips": 6}], {"choice": "return_antes", "pot": 9, "carried": 0}),
        # leaders Ann and Cat (1 token); from Ben's left Cat, Ann: Cat 5, Ann 4: Ann 0, Ben -9, Cat 9
        ("split_leaders", [{"from": "Ben", "to": "Cat", "chips": 9}], {"choice": "split_leaders", "pot": 9, "carried": 0}),
        # the stakes left out as returned (Ann 0, Ben -6, Cat 6); all 9 go on
        (
            "carry",
            [{"from": "Ben", "to": "Cat", "chips": 6}],
            {"choice": "carry", "pot": 9, "carried": 9, "carried_shares": {"Ann": 4, "Ben": 3, "Cat": 2}},
        ),
    ],
)
def test_replay_of_a_night_with_a_carried_pot(app, tmp_path, choice, payments, unfinished):
    data = {**CARRIED_NIGHT, "rules": {"unfinished_pot": choice}}
    out = json.loads(replay(app, write(tmp_path, data)).stdout)
    assert {n: p["net_chips"] for n, p in out["players"].items()} == {"Ann": -4, "Ben": -9, "Cat": 4}
    assert {n: p["tokens"] for n, p in out["players"].items()} == {"Ann": 1, "Ben": 0, "Cat": 1}
    assert out["pot"] == 9 and out["games"] == [] and out["dealer"] == "Ben" and out["next_stage"] == 2
    assert out["payments"] == payments
    assert out["unfinished_pot"] == unfinished


def test_replay_of_a_carried_pot_before_anything_is_played(app, tmp_path):
    out = json.loads(replay(app, write(tmp_path, {**CARRIED_NIGHT, "stages": []})).stdout)
    # pot 3, Ann -2, Ben -1: returned, everyone is square
    assert out["pot"] == 3
    assert {n: p["net_chips"] for n, p in out["players"].items()} == {"Ann": -2, "Ben": -1, "Cat": 0}
    assert out["payments"] == []
    assert out["note"] == "Unfinished game: pot of 3 chips; each player's antes in the unfinished game are returned (Ann 2, Ben 1, the pot carried in from the previous night included)."


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not valid JSON"),
        ({"format": "napalm-hand-history/1", "players": ["Ann"]}, "Napalm needs 2 to 7 players"),
        ({**history("return_antes"), "colour": "red"}, "unknown key 'colour'"),
        (
            {**history("return_antes"), "stages": [{"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Dan"]}]},
            "stages[0] (game 1, hand 1, stage 1): Dan did not say Yes",
        ),
        ({**CARRIED_NIGHT, "carried_in": {"Gus": 3}}, "'carried_in': the carried pot holds 3 chips of Gus, who is not seated tonight"),
        ({**CARRIED_NIGHT, "carried_in": {"Ann": 0}}, "'carried_in': Ann's chips must be a whole number, 1 or more"),
    ],
)
def test_an_invalid_file_exits_non_zero_with_one_line_and_no_traceback(app, tmp_path, content, says):
    result = replay(app, write(tmp_path, content))
    assert result.exit_code != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


def test_a_missing_file_exits_non_zero_with_one_line(app, tmp_path):
    result = replay(app, tmp_path / "nowhere.json")
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "nowhere.json" in lines[0]
    assert "Traceback" not in result.output


def test_replay_of_a_night_file_prints_each_game_and_one_settle_up(app, tmp_path):
    from night.test_file import TWO_GAMES

    result = replay(app, write(tmp_path, TWO_GAMES))
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    # worked out in tests/night/test_file.py: game 1 Ben -4, Cat +4; game 2 Ann +4, Ben -2, Cat -2
    assert printed["players"] == {
        "Ann": {"net_chips": 4}, "Ben": {"net_chips": -6}, "Cat": {"net_chips": 2}, "Dan": {"net_chips": 0}
    }
    assert [g["game"] for g in printed["games"]] == ["napalm", "napalm"]
    assert sorted((p["from"], p["to"], p["chips"]) for p in printed["payments"]) == [("Ben", "Ann", 4), ("Ben", "Cat", 2)]


def test_replay_of_a_wrong_night_file_names_the_game_and_record(app, tmp_path):
    from night.test_file import TWO_GAMES

    document = json.loads(json.dumps(TWO_GAMES))
    document["games"][1]["stages"][0]["yes"] = ["Dan"]
    result = replay(app, write(tmp_path, document))
    assert result.exit_code == 1
    assert "games[1] (napalm): stages[0]" in result.output and "Traceback" not in result.output


def test_replay_of_a_night_file_with_bank_records_settles_on_the_counts(app, tmp_path):
    """Issue 20 item 1: no "settle_on", bank records: the counts settle the night, as /import does.
    tests/night/test_file.py's POKER_ON_COUNTS: count − bought = Ann −10, Ben +10, Cat 0 (not the
    Napalm tally's Ben −3, Cat +3): Ann pays Ben 10."""
    from night.test_file import POKER_ON_COUNTS

    result = replay(app, write(tmp_path, POKER_ON_COUNTS))
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed["settle_on"] == "bank"
    assert printed["payments"] == [{"from": "Ann", "to": "Ben", "chips": 10}]


def test_replay_of_a_night_file_with_a_payment_marked_paid_says_which_is_paid(app, tmp_path):
    """tests/night/test_paid.py's night (Ann +6, Ben −4, Cat −2), Ben's 4 chips to Ann marked paid."""
    from night.test_paid import OWED

    result = replay(app, write(tmp_path, {**OWED, "paid": [{"payer": "Ben", "payee": "Ann", "chips": 4}]}))
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed["payments"] == [
        {"from": "Ben", "to": "Ann", "chips": 4, "paid": True}, {"from": "Cat", "to": "Ann", "chips": 2, "paid": False},
    ]
    assert printed["paid"] == [{"from": "Ben", "to": "Ann", "chips": 4}]
    refused = replay(app, write(tmp_path, {**OWED, "paid": [{"payer": "Cat", "payee": "Cat", "chips": 2}]}))
    assert refused.exit_code != 0 and "'paid'[0]: a payment is between two different players" in refused.output


# --- a group file (companion-group/1): the season table and the tab -------------------------------


def test_replay_of_a_group_file_prints_its_season_and_its_tab(app, tmp_path):
    """The three nights of tests/group/three_nights.py, worked out there and below."""
    from group.three_nights import GROUP

    result = replay(app, write(tmp_path, GROUP, "group.json"))
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed["group"] == "Friday poker"
    assert printed["members"] == ["Ann", "Benjamin", "Cat", "Dan"]  # Daniel merged into Dan, Ben renamed
    assert printed["nights"] == [
        {"night": "1", "date": "2025-03-07", "title": "Friday at Ann's", "currency": "EUR", "chip_value": "0.25"},
        {"night": "2", "date": "2025-03-14", "title": "Friday at Ann's", "currency": "EUR", "chip_value": "0.25"},
        {"night": "3", "date": "2025-03-21", "title": "Night 3", "currency": None, "chip_value": None},
    ]
    season = printed["season"]
    assert season["period"] == "all time"
    ann, benjamin, cat, dan = season["members"]
    # Ann: +4, -3 (EUR at 0.25: +1.00 - 0.75 = +0.25) and -10 on the chips-only night
    assert ann["member"] == "Ann" and ann["nights_played"] == 3
    assert ann["net"] == {"chips": -9, "money": {"EUR": "0.25"}, "chips_only": -10}
    # per game: Napalm +4 (night 1) + 0 (night 2) + 0 (night 3); Nap -2; High Card -1; the bank -10
    assert ann["per_game"] == {
        "Napalm": {"chips": 4, "money": {"EUR": "1.00"}, "chips_only": 0},
        "Nap": {"chips": -2, "money": {"EUR": "-0.50"}, "chips_only": 0},
        "High Card": {"chips": -1, "money": {"EUR": "-0.25"}, "chips_only": 0},
        "The bank": {"chips": -10, "money": {}, "chips_only": -10},
    }
    # best and worst per unit: euros ranked by money, the chips-only night apart
    assert ann["best"] == [
        {"currency": "EUR", "night": "1", "date": "2025-03-07", "chips": 4, "money": "1.00"},
        {"currency": None, "night": "3", "date": "2025-03-21", "chips": -10, "money": None},
    ]
    assert ann["worst"][0] == {"currency": "EUR", "night": "2", "date": "2025-03-14", "chips": -3, "money": "-0.75"}
    # Benjamin (Ben): -6 (-1.50), -4 (-1.00), +10 chips; his Napalm -6 - 4 - 3 = -13 (-2.50 and -3 chips only)
    assert benjamin["net"] == {"chips": 0, "money": {"EUR": "-2.50"}, "chips_only": 10}
    assert benjamin["per_game"]["Napalm"] == {"chips": -13, "money": {"EUR": "-2.50"}, "chips_only": -3}
    assert benjamin["per_game"]["The bank"] == {"chips": 13, "money": {}, "chips_only": 13}
    # Cat: +2 (0.50), +9 (2.25), 0
    assert cat["net"] == {"chips": 11, "money": {"EUR": "2.75"}, "chips_only": 0}
    # Dan: 0 on night 1, -2 as Daniel on night 2 (-0.50); he did not play night 3 nor High Card
    assert dan["nights_played"] == 2
    assert dan["net"] == {"chips": -2, "money": {"EUR": "-0.50"}, "chips_only": 0}
    assert set(dan["per_game"]) == {"Napalm", "Nap"}
    # the tab: night 1 paid; night 2 Ann -0.75 and Cat +1.25 - 0.50 (Dan's payment through the tab); night 3 unpaid
    assert printed["tab"] == {
        "settled": False,
        "units": [
            {
                "currency": "EUR",
                "balances": {"Ann": "-0.75", "Cat": "0.75"},
                "open": [
                    {"night": "2", "date": "2025-03-14", "member": "Ann", "amount": "-0.75"},
                    {"night": "2", "date": "2025-03-14", "member": "Cat", "amount": "0.75"},
                ],
                "plan": [{"from": "Ann", "to": "Cat", "amount": "0.75"}],
            },
            {
                "currency": None,
                "balances": {"Ann": -10, "Benjamin": 10},
                "open": [
                    {"night": "3", "date": "2025-03-21", "member": "Ann", "chips": -10},
                    {"night": "3", "date": "2025-03-21", "member": "Benjamin", "chips": 10},
                ],
                "plan": [{"from": "Ann", "to": "Benjamin", "chips": 10}],
            },
        ],
    }


def test_replay_of_a_wrong_group_file_exits_with_one_line_naming_where(app, tmp_path):
    from group.three_nights import group_document

    document = group_document()
    document["nights"][1]["night"]["games"][1]["deals"][0]["bid"] = 7
    result = replay(app, write(tmp_path, document, "group.json"))
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "nights[1].night: games[1] (nap): deals[0]" in lines[0]
    assert "Traceback" not in result.output


def test_serving_settles_the_collector_so_that_no_collection_but_a_full_one_walks_more_than_two_young_ones():
    """After start-up is frozen, a middle collection walks the survivors of two young collections at most (20,000
    allocations, not 110,000 as at Python's middle threshold of 10), and a full collection comes no sooner than
    Python's defaults made it: after (1 + 1) x (60 + 1) = 122 young collections, against (10 + 1) x (10 + 1) = 121."""
    import gc

    from companion.web.server import freeze_survivors, settle_garbage_collector

    before = gc.get_threshold()
    try:
        settle_garbage_collector()
        young, middle, old = gc.get_threshold()
        assert (young, middle, old) == (10_000, 1, 60)
        assert young * (middle + 1) == 20_000
        assert (middle + 1) * (old + 1) == 122 >= (10 + 1) * (10 + 1)
        assert gc.get_freeze_count() > 0  # what start-up made is out of every collection's reach
    finally:
        gc.callbacks.remove(freeze_survivors)
        gc.unfreeze()
        gc.set_threshold(*before)


def test_what_survives_a_full_collection_while_serving_is_frozen_and_still_freed_once_forgotten():
    """Issue 37: each full collection walked everything a process keeps, again; after settle_garbage_collector
    what survives a full collection is frozen, so the next walks only what was kept since.  A kept value
    forgotten later (acyclic, as the folds and what is derived from them are) is freed all the same."""
    import gc
    import weakref

    from companion.web.server import freeze_survivors, settle_garbage_collector

    class Kept:
        """Stands for a fold kept in the cache."""

    before = gc.get_threshold()
    try:
        settle_garbage_collector()
        settle_garbage_collector()  # a second call adds no second callback
        assert gc.callbacks.count(freeze_survivors) == 1
        kept = [Kept()]
        watch = weakref.ref(kept[0])
        assert any(thing is kept for thing in gc.get_objects())  # not frozen yet: in reach of collections...
        frozen = gc.get_freeze_count()
        gc.collect(1)  # a middle collection freezes nothing
        assert gc.get_freeze_count() == frozen
        gc.collect()  # a full collection: what survived it is frozen
        assert gc.get_freeze_count() > frozen
        assert not any(thing is kept for thing in gc.get_objects())  # ...frozen: out of reach of every collection
        kept.clear()  # forgotten: freed by its reference count, frozen or not
        assert watch() is None
    finally:
        gc.callbacks.remove(freeze_survivors)
        gc.unfreeze()
        gc.set_threshold(*before)
