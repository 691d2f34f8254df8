"""The season's running-total chart over the five nights of five_nights.py, its points worked by hand."""

from __future__ import annotations

import re
from decimal import Decimal as D

from companion.group.chart import running_chart, running_totals
from companion.group.season import Period, season
from group.five_nights import MEMBERS, NIGHTS


def test_the_running_totals_in_euros_night_by_night() -> None:
    titles, lines = running_totals(season(NIGHTS, MEMBERS), "EUR")
    # the euro nights: n1 (0.25 a chip), n2 (0.10), n5 (0.05); n3 is in pounds, n4 chips only
    assert titles == ("2025-03-07 Friday Napalm", "2025-03-21 Nap and the bank", "2025-04-25 Napalm and the Bonus Round")
    # Ann: +5.00, then -3.00 (as "ann") = 2.00, then +2.00 = 4.00
    assert lines["Ann"] == [D("5.00"), D("2.00"), D("4.00")]
    # Bob: -3.00, +1.00 = -2.00, -3.00 = -5.00
    assert lines["Bob"] == [D("-3.00"), D("-2.00"), D("-5.00")]
    # Cat did not play n2: her line stays flat there; -2.00, -2.00, +1.50 = -0.50
    assert lines["Cat"] == [D("-2.00"), D("-2.00"), D("-0.50")]
    # Dan did not play n1: 0, +2.00, -0.50 = 1.50
    assert lines["Dan"] == [D("0"), D("2.00"), D("1.50")]


def test_chips_only_nights_have_a_chart_of_their_own_of_those_who_played_them() -> None:
    titles, lines = running_totals(season(NIGHTS, MEMBERS), None)
    assert titles == ("2025-04-18 Betting for chips",)
    # n4: Bob -7, Cat +10, Dan -3; Ann did not play a chips-only night: no line
    assert lines == {"Bob": [-7], "Cat": [10], "Dan": [-3]}


def test_the_chart_is_labelled_for_screen_readers_and_titles_every_point() -> None:
    svg = running_chart(season(NIGHTS, MEMBERS), "GBP")
    # n3 alone is in pounds: Ann -5.00, Bob +3.00, Cat -2.00, Dan (as Daniel) +4.00
    label = "Running totals over all time, in GBP: Ann \u22125.00; Bob +3.00; Cat \u22122.00; Dan +4.00"
    assert f'role="img" aria-label="{label}"' in svg
    assert f"<title>{label}</title>" in svg
    assert "<title>Dan after 2025-04-04 Pots in London: +4.00 GBP</title>" in svg
    assert svg.count("<polyline") == 4 and svg.count("<circle") == 4
    assert "style" not in svg and "<script" not in svg  # the pages' CSP forbids both


def test_a_member_is_told_apart_by_the_dash_of_the_line_too() -> None:
    svg = running_chart(season(NIGHTS, MEMBERS), "EUR")
    dashes = re.findall(r'<polyline [^>]*?(?:stroke-dasharray="([^"]+)")?/>', svg)
    assert len(dashes) == 4 and len(set(dashes)) == 4


def test_no_night_in_the_unit_no_chart() -> None:
    assert running_chart(season(NIGHTS, MEMBERS, Period.year(2024)), "EUR") == ""
    assert running_chart(season(NIGHTS, MEMBERS), "USD") == ""
