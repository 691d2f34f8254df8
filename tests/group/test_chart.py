"""The season's running-total chart over the five nights of five_nights.py, its points worked by hand."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal as D

from companion.group.chart import running_chart, running_totals
from companion.group.members import Added, members_from
from companion.group.nights import NightResult
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


def _long_season() -> tuple[list[NightResult], object]:
    """Forty chips-only nights, 2024-01-02 to 2024-02-10 (night k on 1 January + k days): Ann wins 3 chips from
    Bob at each of the first twenty, then loses 5 to him at each of the last twenty."""
    members = members_from([Added("Ann"), Added("Bob")])
    nights = []
    for k in range(1, 41):
        ann = 3 if k <= 20 else -5
        nights.append(NightResult(f"n{k}", datetime.date(2024, 1, 1) + datetime.timedelta(days=k), f"Night {k}",
                                  None, None, {"Ann": ann, "Bob": -ann}))
    return nights, members


def test_a_long_season_is_one_light_path_per_member_its_title_saying_where_they_stood() -> None:
    nights, members = _long_season()
    svg = running_chart(season(nights, members), None)
    assert "<circle" not in svg and svg.count("<path ") == 2  # no point of its own past 31 nights
    # Ann: +3 x 20 = +60 after night 20 (2024-01-21), then 60 - 5 x 20 = -40 after night 40 (2024-02-10)
    assert "<title>Ann: \u221240 chips after 40 nights; highest +60 after 2024-01-21 Night 20, lowest \u221240 after " \
        "2024-02-10 Night 40</title>" in svg
    # Bob the other way: -60 after night 20, +40 at the end, his highest
    assert "<title>Bob: +40 chips after 40 nights; highest +40 after 2024-02-10 Night 40, lowest \u221260 after " \
        "2024-01-21 Night 20</title>" in svg
    # the plot from +60 (height 0) to -60 (height 150): a total v is (60 - v) / 120 x 150 down, rounded;
    # Ann starts at 0 (75 down), is at +60 (0 down) after night 20 and at -40 (125 down) after night 40
    ann = re.search(r'<path d="M0 (\d+)l([^"]+)"[^>]*><title>Ann', svg)
    assert ann and ann[1] == "75"
    steps = [int(n) for n in re.findall(r"-?\d+", ann[2].replace("1-", "1 -"))]
    dx, dy = steps[0::2], steps[1::2]
    assert dx == [1] * 40 and 75 + sum(dy[:20]) == 0 and 75 + sum(dy) == 125
    assert "style" not in svg and "<script" not in svg
