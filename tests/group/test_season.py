"""The season table and rivalries over the five nights of five_nights.py, every figure worked by hand."""

from __future__ import annotations

import datetime
from decimal import Decimal as D

import pytest

from companion.group.members import UnknownMember
from companion.group.nights import Flow, NightResult, Transfer
from companion.group.season import ALL_TIME, Period, Totals, rivalry, season
from group.five_nights import MEMBERS, NIGHTS


def money(row) -> dict:
    return dict(row.total.money)


def test_the_years_table_member_by_member() -> None:
    table = season(NIGHTS, MEMBERS, Period.year(2025))
    assert [n.night_id for n in table.nights] == ["n1", "n2", "n3", "n4", "n5"]  # date order
    ann, bob, cat, dan = table.rows
    # Ann: n1 +20 (5.00 EUR), n2 -30 (-3.00 EUR, as "ann"), n3 -10 (-5.00 GBP), n5 +40 (2.00 EUR)
    assert (ann.member, ann.nights_played) == ("Ann", 4)
    assert ann.total.chips == 20 - 30 - 10 + 40 == 20
    assert money(ann) == {"EUR": D("5.00") - D("3.00") + D("2.00"), "GBP": D("-5.00")}  # EUR 4.00
    assert ann.total.chips_only == 0
    # Bob: n1 -12 (-3.00), n2 +10 (+1.00), n3 +6 (+3.00 GBP), n4 -7 (chips only), n5 -60 (-3.00)
    assert bob.nights_played == 5
    assert bob.total == Totals(-12 + 10 + 6 - 7 - 60, {"EUR": D("-5.00"), "GBP": D("3.00")}, -7)
    # Cat: n1 -8 (-2.00), n3 -4 (-2.00 GBP), n4 +10 (chips), n5 +30 (+1.50)
    assert cat.nights_played == 4
    assert cat.total == Totals(-8 - 4 + 10 + 30, {"EUR": D("-0.50"), "GBP": D("-2.00")}, 10)
    # Dan: n2 +20 (+2.00), n3 as Daniel +8 (+4.00 GBP), n4 -3 (chips), n5 -10 (-0.50)
    assert dan.nights_played == 4
    assert dan.total == Totals(20 + 8 - 3 - 10, {"EUR": D("1.50"), "GBP": D("4.00")}, -3)
    # every currency, and the chips-only nights, add up to zero over the table
    assert sum(money(r)["EUR"] for r in table.rows) == 0  # 4.00 - 5.00 - 0.50 + 1.50
    assert sum(money(r)["GBP"] for r in table.rows) == 0  # -5.00 + 3.00 - 2.00 + 4.00
    assert sum(r.total.chips_only for r in table.rows) == 0  # -7 + 10 - 3


def test_two_currencies_are_never_added_and_chips_only_nights_stay_in_chips() -> None:
    bob = season(NIGHTS, MEMBERS).row("Bob")
    assert bob.total.of("EUR") == D("-5.00") and bob.total.of("GBP") == D("3.00") and bob.total.of(None) == -7
    assert bob.total.of("USD") == 0
    assert set(bob.total.money) == {"EUR", "GBP"}


def test_net_per_game_label() -> None:
    ann = season(NIGHTS, MEMBERS).row("Ann")
    assert dict(ann.per_game) == {
        # n1 Napalm 20 x 0.25 = 5.00, n5 Napalm 30 x 0.05 = 1.50: 50 chips, 6.50 EUR
        "Napalm": Totals(50, {"EUR": D("6.50")}, 0),
        # n2: Nap -20 x 0.10 = -2.00, the bank -10 x 0.10 = -1.00
        "Nap": Totals(-20, {"EUR": D("-2.00")}, 0),
        "The bank": Totals(-10, {"EUR": D("-1.00")}, 0),
        # n3: Pots -10 x 0.50 = -5.00 GBP
        "Pots": Totals(-10, {"GBP": D("-5.00")}, 0),
        # n5: the Bonus Round 10 x 0.05 = 0.50
        "The Bonus Round": Totals(10, {"EUR": D("0.50")}, 0),
    }
    # the games add up to the total: EUR 6.50 - 2.00 - 1.00 + 0.50 = 4.00
    assert sum(t.of("EUR") for t in ann.per_game.values()) == ann.total.of("EUR") == D("4.00")
    bob = season(NIGHTS, MEMBERS).row("Bob")
    assert bob.per_game["Betting"] == Totals(-7, {}, -7)  # n4, chips only


def test_best_and_worst_night_per_currency_the_earlier_on_a_tie() -> None:
    table = season(NIGHTS, MEMBERS)
    ann, bob = table.row("Ann"), table.row("Bob")
    # Ann in EUR: n1 +5.00, n2 -3.00, n5 +2.00; in GBP only n3
    assert (ann.best["EUR"].night_id, ann.worst["EUR"].night_id) == ("n1", "n2")
    assert ann.best["GBP"] == ann.worst["GBP"] and ann.best["GBP"].money == D("-5.00")
    assert None not in ann.best  # Ann played no chips-only night
    # Bob in EUR: n1 -3.00, n2 +1.00, n5 -3.00: best n2; worst n1 and n5 tie, the earlier n1
    assert (bob.best["EUR"].night_id, bob.worst["EUR"].night_id) == ("n2", "n1")
    # ranked by money, not chips: n5's -60 chips are worth no less than n1's -12
    assert (bob.worst["EUR"].chips, bob.worst["EUR"].money) == (-12, D("-3.00"))
    assert bob.best[None].chips == -7  # the chips-only night


def test_the_running_total_night_by_night() -> None:
    ann = season(NIGHTS, MEMBERS).row("Ann")
    points = [(p.night_id, p.total.chips, dict(p.total.money)) for p in ann.running]
    assert points == [
        ("n1", 20, {"EUR": D("5.00")}),
        ("n2", -10, {"EUR": D("2.00")}),  # 20 - 30; 5.00 - 3.00
        ("n3", -20, {"EUR": D("2.00"), "GBP": D("-5.00")}),  # -10 - 10
        ("n5", 20, {"EUR": D("4.00"), "GBP": D("-5.00")}),  # -20 + 40; 2.00 + 2.00
    ]
    assert ann.running[-1].total == ann.total


def test_a_months_table_against_the_years() -> None:
    april = season(NIGHTS, MEMBERS, Period.month(2025, 4))
    march = season(NIGHTS, MEMBERS, Period.month(2025, 3))
    year = season(NIGHTS, MEMBERS, Period.year(2025))
    assert april.period.label == "April 2025" and (april.period.start, april.period.end) == (
        datetime.date(2025, 4, 1),
        datetime.date(2025, 4, 30),
    )
    assert [n.night_id for n in april.nights] == ["n3", "n4", "n5"]
    # April: Ann n3 -10 (-5.00 GBP), n5 +40 (+2.00 EUR)
    assert april.row("Ann").nights_played == 2
    assert april.row("Ann").total == Totals(30, {"GBP": D("-5.00"), "EUR": D("2.00")}, 0)
    # Bob n3 +6 (3.00 GBP), n4 -7, n5 -60 (-3.00)
    assert april.row("Bob").total == Totals(-61, {"GBP": D("3.00"), "EUR": D("-3.00")}, -7)
    # Cat n3 -4 (-2.00 GBP), n4 +10, n5 +30 (1.50)
    assert april.row("Cat").total == Totals(36, {"GBP": D("-2.00"), "EUR": D("1.50")}, 10)
    # Dan n3 +8 (4.00 GBP), n4 -3, n5 -10 (-0.50)
    assert april.row("Dan").total == Totals(-5, {"GBP": D("4.00"), "EUR": D("-0.50")}, -3)
    # March: n1 and n2; Cat played only n1 (-2.00)
    assert march.row("Cat").nights_played == 1 and march.row("Cat").total == Totals(-8, {"EUR": D("-2.00")}, 0)
    # the two months make the year, member by member and figure by figure
    for m, a, y in zip(march.rows, april.rows, year.rows):
        assert m.nights_played + a.nights_played == y.nights_played
        assert m.total.chips + a.total.chips == y.total.chips
        assert m.total.chips_only + a.total.chips_only == y.total.chips_only
        for currency in ("EUR", "GBP"):
            assert m.total.of(currency) + a.total.of(currency) == y.total.of(currency)
    # the year is all time here; 2024 had none of these nights
    assert year.rows == season(NIGHTS, MEMBERS, ALL_TIME).rows
    assert all(r.nights_played == 0 and r.total == Totals() for r in season(NIGHTS, MEMBERS, Period.year(2024)).rows)


def test_a_date_range_includes_both_ends() -> None:
    period = Period.between(datetime.date(2025, 3, 21), datetime.date(2025, 4, 4))
    assert [n.night_id for n in season(NIGHTS, MEMBERS, period).nights] == ["n2", "n3"]
    with pytest.raises(ValueError, match="cannot end"):
        Period.between(datetime.date(2025, 4, 4), datetime.date(2025, 3, 21))


def test_rivalry_ann_and_bob_night_by_night_with_the_nights_words() -> None:
    r = rivalry(NIGHTS, MEMBERS, "ann", "BOB")
    assert (r.first, r.second) == ("Ann", "Bob")
    lines = [(n.night_id, n.chips, n.money, [f.why for f in n.flows]) for n in r.nights]
    assert lines == [
        # n1: Bob paid Ann 12 chips at 0.25: +3.00 EUR for Ann
        ("n1", 12, D("3.00"), [("side bets: Bob lost 12 to Ann",)]),
        # n2: ann paid Bob 15 chips at 0.10: -1.50 EUR
        ("n2", -15, D("-1.50"), [("bids: ann's Nap lost to Bob",)]),
        # n3: Ann paid Bob 6 chips at 0.50: -3.00 GBP
        ("n3", -6, D("-3.00"), [("pot of hand 3",)]),
        # n5: Bob paid Ann 40 chips at 0.05: +2.00 EUR
        ("n5", 40, D("2.00"), [("tokens: Bob paid Ann's Napalm",)]),
    ]
    # the flows are told with the members' names: night 2's "ann" is Ann
    assert r.nights[1].flows == (Flow("Ann", "Bob", 15, ("bids: ann's Nap lost to Bob",)),)
    # 12 - 15 - 6 + 40 = 31 chips; EUR 3.00 - 1.50 + 2.00 = 3.50; GBP -3.00
    assert r.total == Totals(31, {"EUR": D("3.50"), "GBP": D("-3.00")}, 0)


def test_rivalry_through_a_merged_name_and_a_chips_only_night() -> None:
    r = rivalry(NIGHTS, MEMBERS, "Dan", "Cat", Period.month(2025, 4))
    # n3: Cat paid Daniel (Dan) 4 chips at 0.50: +2.00 GBP; n4: Dan paid Cat 3 chips (chips only);
    # n5: Dan paid Cat 10 chips at 0.05: -0.50 EUR
    assert [(n.night_id, n.chips, n.money) for n in r.nights] == [("n3", 4, D("2.00")), ("n4", -3, None), ("n5", -10, D("-0.50"))]
    assert r.nights[0].flows[0].payee == "Dan"
    assert r.total == Totals(4 - 3 - 10, {"GBP": D("2.00"), "EUR": D("-0.50")}, -3)


def test_a_rivalry_needs_two_known_members() -> None:
    with pytest.raises(UnknownMember):
        rivalry(NIGHTS, MEMBERS, "Ann", "Eve")
    with pytest.raises(ValueError, match="one member"):
        rivalry(NIGHTS, MEMBERS, "Dan", "Daniel")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"currency": "EUR", "chip_value": None}, "go together"),
        ({"currency": "EUR", "chip_value": D(0)}, "above zero"),
        ({"net": {"Ann": 1.5, "Bob": -1}}, "int number of chips"),
        ({"parts": {"Ann": {"Napalm": 2}}}, "add up to 2, not their net 1"),
        ({"planned": (Transfer("Ann", "Bob", D("1.5")),)}, "whole number"),
        ({"planned": (Transfer("Ann", "Eve", D(1)),)}, "did not play"),
        ({"date": datetime.datetime(2025, 1, 1)}, "datetime.date"),
    ],
)
def test_a_wrong_night_is_refused_where_it_is_built(changes: dict, message: str) -> None:
    fields = {"night_id": "x", "date": datetime.date(2025, 1, 1), "title": "x", "currency": None, "chip_value": None, "net": {"Ann": 1, "Bob": -1}}
    with pytest.raises((TypeError, ValueError), match=message):
        NightResult(**{**fields, **changes})
