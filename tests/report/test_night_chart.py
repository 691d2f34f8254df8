"""Issue 17: each player's chips over the night, worked out by hand, and drawn as SVG."""

from __future__ import annotations

import re

from companion.games.napalm import Rules, Table
from companion.report.night_chart import chips_over_the_night, player_chart


def two_games() -> Table:
    """Ann, Ben, Cat; Ann deals; ante 1 every hand; 2 tokens win.

    Game 1, hand 1 (Ann deals): S1 Ben alone: ante, pot 3, everyone -1; Ben 1 token.
      S2 Ben alone: his 2nd token: he takes the pot, 3: Ben -1 + 3 = 2.  Game 1 over.
    Game 2, hand 1 (Ben deals): S1 Cat and Ann say Yes: ante, pot 3, everyone -1 more:
      Ann -2, Ben 1, Cat -2.  Ann wins: Cat pays her 3: Ann 1, Cat -5.
    Nets after each of the 4 actions:
      Ann 0, -1, -1, -2, 1;  Ben 0, -1, 2, 1, 1;  Cat 0, -1, -1, -2, -5.
    Game 2 starts after the 2nd action (index 2).
    """
    t = Table(("Ann", "Ben", "Cat"), "Ann", Rules(ante=1, ante_every=1, tokens_to_win=2))
    t.declare(["Ben"])
    t.declare(["Ben"])
    t.declare(["Cat", "Ann"])
    t.showdown(winners=["Ann"])
    return t


def test_each_players_chips_follow_the_ledger_action_by_action():
    series, game_starts = chips_over_the_night(two_games())
    assert series == {"Ann": [0, -1, -1, -2, 1], "Ben": [0, -1, 2, 1, 1], "Cat": [0, -1, -1, -2, -5]}
    assert game_starts == [2]


def test_the_chart_draws_the_line_and_marks_game_two():
    series, game_starts = chips_over_the_night(two_games())
    svg = player_chart("Cat", series["Cat"], game_starts)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert 'aria-label="Cat&#x27;s chips over the night: -5 now"' in svg
    assert ">G2</text>" in svg and "game 2 starts" in svg
    assert len(re.search(r'<polyline points="([^"]+)"', svg).group(1).split()) == 5
    assert "style" not in svg and "<script" not in svg


def test_nothing_recorded_draws_no_chart():
    t = Table(("Ann", "Ben"), "Ann", Rules(ante=1, ante_every=1, tokens_to_win=2))
    series, _ = chips_over_the_night(t)
    assert player_chart("Ann", series["Ann"], []) == ""


def test_a_night_of_two_games_is_one_line_per_player_from_each_game_to_the_next():
    from companion.report.night_chart import chips_over_games

    # game 1: antes 1 (Ann, Ben -1 each), then Ben's lone Yes; it stops with the pot of 2,
    # the antes returned: it closes at 0 each.  Game 2: Ann and Cat; antes 2, Ann's token wins it.
    first = Table(["Ann", "Ben"], "Ann", Rules(ante=1, tokens_to_win=5))
    first.declare(["Ben"])
    second = Table(["Ann", "Cat"], "Cat", Rules(ante=2, tokens_to_win=1))
    second.declare(["Ann"])
    series, starts = chips_over_games(
        [(first, {"Ann": 0, "Ben": 0}), (second, {"Ann": 2, "Cat": -2})], ["Ann", "Ben", "Cat"]
    )
    # points: game 1 start, after its one record; game 2 start (where game 1 closed), after its record
    assert series == {"Ann": [0, -1, 0, 2], "Ben": [0, -1, 0, 0], "Cat": [0, 0, 0, -2]}
    assert starts == [2]


def _labels(svg: str) -> list[tuple[float, float, int, str]]:
    """Each game label's (left, right, row, text), its width taken as 7 px a character at font-size 10."""
    found = []
    for x, y, end, text in re.findall(r'<text x="([\d.]+)" y="(\d+)"( text-anchor="end")? [^>]*>(G\d+)</text>', svg):
        width = 7 * len(text)
        left = float(x) - width if end else float(x)
        found.append((left, left + width, int(y), text))
    return found


def test_a_game_that_starts_at_the_last_action_is_labelled_inside_the_chart():
    # 13 points from x = 40 to x = 332 (the chart is 340 wide, 8 kept on the right): a game
    # starting at the last point has its line at x = 332; "G2" to its right would run to
    # 334 + 14 = 348, past 340 (printed as "G"): it ends at the line instead, 330.
    svg = player_chart("Ann", [0] * 12 + [3], [12])
    assert _labels(svg) == [(316.0, 330.0, 11, "G2")]


def test_games_that_start_close_together_have_labels_that_do_not_overlap():
    # 61 points, 292 / 60 = 4.87 px apart: games 2, 3 and 4 start at points 50, 51 and 52
    # (x = 283.3, 288.2, 293.1), each 14 px wide.  G2 above the plot; G3 would overlap it:
    # under the plot; G4 overlaps both: left out (its dashed line stays).
    svg = player_chart("Ann", list(range(61)), [50, 51, 52])
    labels = _labels(svg)
    assert [(row, text) for _, _, row, text in labels] == [(11, "G2"), (117, "G3")]
    assert svg.count("stroke-dasharray") == 3 and "game 4 starts" in svg
    for left, right, _, _ in labels:
        assert 0 <= left and right <= 340


def test_the_line_of_a_long_night_is_every_point_as_computed_one_by_one():
    """The x's are made once per length and each y once per value (issue 22): the same text as each point
    formatted on its own, worked here the way it was: x = 40 + 292 / (n - 1) * i, y = 14 + (high - v) / (high - low) * 90."""
    import random

    from companion.report.charts import _fmt

    rng = random.Random(5)
    for count in (2, 3, 7, 1981):
        points = [rng.randint(-60, 45) for _ in range(count)]
        low, high = min(0, *points), max(0, *points)
        expected = " ".join(
            f"{_fmt(40 + 292 / (count - 1) * i)},{_fmt(14 + (high - v) / (high - low) * 90)}" for i, v in enumerate(points)
        )
        assert f'<polyline points="{expected}"' in player_chart("Ann", points, [])
    # by hand, three points 0, 2, -2: x 40, 186, 332; y at 0 is the middle, 59; at 2 the top, 14; at -2 the bottom, 104
    assert '<polyline points="40,59 186,14 332,104"' in player_chart("Ann", [0, 2, -2], [])
