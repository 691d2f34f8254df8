"""A night as the group sees it, made from a night file: figures worked by hand in tests/night/test_file.py."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal as D

import pytest

from companion.group.nights import Flow, Transfer
from companion.group.result import NotSettled, night_report, night_result
from companion.money.settle import Payment
from companion.night import file as nightfile
from night.test_file import POKER_ON_COUNTS, TWO_GAMES
from night.test_ledger_file import GRID, night as ledger_night

DAY = datetime.date(2025, 3, 7)


def result(document, paid=()):  # type: ignore[no-untyped-def]
    return night_result(nightfile.from_dict(document), night_id="1", date=DAY, title="Friday", paid=paid)


def test_a_night_of_two_games_gives_its_nets_parts_flows_plan_and_payments_paid():
    night = result(TWO_GAMES, paid=[Payment("Ben", "Ann", 4)])
    assert (night.night_id, night.date, night.title) == ("1", DAY, "Friday")
    assert (night.currency, night.chip_value, night.unit) == ("EUR", D("0.25"), "EUR")
    # game 1: Ben lost 4 to Cat in a side bet, the pot's antes returned; game 2: Ann takes the pot of 6
    assert dict(night.net) == {"Ann": 4, "Ben": -6, "Cat": 2, "Dan": 0}
    # both games are Napalm: one part; Dan played game 1 (ante 1 paid and returned): a part of 0
    assert {n: dict(p) for n, p in night.parts.items()} == {
        "Ann": {"Napalm": 4}, "Ben": {"Napalm": -6}, "Cat": {"Napalm": 2}, "Dan": {"Napalm": 0}
    }
    # pair by pair: the side bet Ben -> Cat 4; game 2's pot: Ben and Cat each pay Ann their ante of 2
    assert [(f.payer, f.payee, f.chips) for f in night.flows] == [("Ben", "Ann", 2), ("Ben", "Cat", 4), ("Cat", "Ann", 2)]
    assert night.flows[1] == Flow("Ben", "Cat", 4, ("Side bets: Ben lost 4 to Cat and won 0 from Cat: Ben owes 4.",))
    # the plan: Ben pays Ann 4 x 0.25 = 1.00 and Cat 2 x 0.25 = 0.50; Ann's 1.00 marked paid
    assert night.planned == (Transfer("Ben", "Ann", D("1.00")), Transfer("Ben", "Cat", D("0.50")))
    assert night.paid == (Transfer("Ben", "Ann", D("1.00")),)
    assert night.cleared == ()


def test_a_night_of_one_game_that_breaks_itself_down_is_counted_under_its_title():
    one_game = {**TWO_GAMES, "games": [TWO_GAMES["games"][0]]}
    night = result(one_game)
    # its report is Napalm's own part alone, whose lines carry no title: the game's is used
    assert {n: dict(p) for n, p in night.parts.items()} == {
        "Ann": {"Napalm": 0}, "Ben": {"Napalm": -4}, "Cat": {"Napalm": 4}, "Dan": {"Napalm": 0}
    }


def test_a_night_on_chip_counts_is_chips_only_with_the_bank_line():
    night = result(POKER_ON_COUNTS)
    assert (night.currency, night.chip_value, night.unit) == (None, None, None)
    assert dict(night.net) == {"Ann": -10, "Ben": 10, "Cat": 0}
    # Napalm's tally: Ann 0, Ben -3, Cat +3; the bank's line is counts - bought less the games:
    # Ann -10 - 0 = -10, Ben 10 + 3 = 13, Cat 0 - 3 = -3; the poker game moves no chip the app sees
    assert {n: dict(p) for n, p in night.parts.items()} == {
        "Ann": {"Napalm": 0, "The bank": -10}, "Ben": {"Napalm": -3, "The bank": 13}, "Cat": {"Napalm": 3, "The bank": -3}
    }
    # on a chips-only night amounts are whole chips
    assert night.planned == (Transfer("Ann", "Ben", D(10)),)


def test_the_bonus_round_is_a_part_of_its_own():
    # tests/night/test_ledger_file.py: the game Ann 0, Ben -3, Cat +3; the Bonus Round Ann +4, Ben -1, Cat -3
    bonus = [{"grid": GRID, "lucky_chips": 1, "rolls": [
        {"roller": "Ann", "faces": [20], "game": "Game 20"},
        {"lucky": "Ben", "faces": [7]},
        {"roller": "Cat", "faces": [7], "game": "Game 7"},
    ]}]
    night = result(ledger_night(bonus=bonus, money={"chip_value": "0.10", "currency": "GBP"}))
    assert dict(night.net) == {"Ann": 4, "Ben": -4, "Cat": 0}
    assert {n: dict(p) for n, p in night.parts.items()} == {
        "Ann": {"Napalm": 0, "Bonus Round": 4}, "Ben": {"Napalm": -3, "Bonus Round": -1}, "Cat": {"Napalm": 3, "Bonus Round": -3}
    }
    assert night.planned == (Transfer("Ben", "Ann", D("0.40")),)  # 4 x 0.10


def test_a_night_on_chip_counts_that_do_not_balance_is_not_settled():
    document = json.loads(json.dumps(POKER_ON_COUNTS))
    document["bank"].pop()  # Cat never cashes out: the counts cannot be checked
    with pytest.raises(NotSettled, match="cannot settle yet"):
        result(document)


def test_the_report_is_the_one_its_page_builds():
    report = night_report(nightfile.from_dict(TWO_GAMES), [Payment("Ben", "Cat", 2)])
    assert [(p.name, p.net_chips, p.money) for p in report.players] == [
        ("Ann", 4, D("1.00")), ("Ben", -6, D("-1.50")), ("Cat", 2, D("0.50")), ("Dan", 0, D("0.00"))
    ]
    assert [(line.payer, line.payee, line.paid) for line in report.plan] == [("Ben", "Ann", False), ("Ben", "Cat", True)]
