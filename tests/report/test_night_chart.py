"""Issue 17: each player's chips over the night, worked out by hand, and drawn as SVG."""

from __future__ import annotations

import re

from companion.games.napalm import Rules, Table
from companion.report.night_chart import MAX_POINTS, chips_over_the_night, drawn_points, player_chart


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


def placed(svg: str) -> list[tuple[float, float]]:
    """The polyline's points where the chart draws them, in px: each (action, chips) through its transform."""
    found = re.search(r'<polyline points="([^"]+)" transform="matrix\(([^)]+)\)" vector-effect="non-scaling-stroke"', svg)
    a, b, c, d, e, f = (float(v) for v in found.group(2).split())
    pairs = [tuple(float(n) for n in pair.split(",")) for pair in found.group(1).split()]
    return [(a * i + c * v + e, b * i + d * v + f) for i, v in pairs]


def drawn_at(svg: str) -> list[str]:
    """:func:`placed`, each to a tenth of a pixel as the chart's other marks are written."""
    from companion.report.charts import _fmt

    return [f"{_fmt(x)},{_fmt(y)}" for x, y in placed(svg)]


def test_the_line_of_a_long_night_is_every_point_where_it_was_computed_one_by_one():
    """Each point is written as (its action's number, the chips then) and placed by the polyline's transform
    (issue 22: a point drawn once is written the same at every later version); where it lands is where each
    point was worked out on its own: x = 40 + 292 / (n - 1) * i, y = 14 + (high - v) / (high - low) * 90."""
    import random

    rng = random.Random(5)
    for count in (2, 3, 7, 600):  # 600: the most a line is drawn through whole (MAX_POINTS)
        points = [rng.randint(-60, 45) for _ in range(count)]
        low, high = min(0, *points), max(0, *points)
        expected = [(40 + 292 / (count - 1) * i, 14 + (high - v) / (high - low) * 90) for i, v in enumerate(points)]
        found = placed(player_chart("Ann", points, []))
        assert len(found) == count
        assert all(abs(x - ex) < 1e-6 and abs(y - ey) < 1e-6 for (x, y), (ex, ey) in zip(found, expected))
    # by hand, three points 0, 2, -2: x 40, 186, 332 (146 px a step); 22.5 px a chip; 0 in the middle at 59,
    # 2 at the top, 14, -2 at the bottom, 104
    svg = player_chart("Ann", [0, 2, -2], [])
    assert '<polyline points="0,0 1,2 2,-2" transform="matrix(146 0 0 -22.5 40 59)"' in svg
    assert drawn_at(svg) == ["40,59", "186,14", "332,104"]


def test_a_short_line_is_drawn_through_every_point():
    assert MAX_POINTS == 600
    assert drawn_points([0, -1, 2, 1]) == [0, 1, 2, 3]
    assert drawn_points(list(range(600))) == list(range(600))


def test_a_long_line_keeps_of_each_run_its_first_last_lowest_and_highest_in_order():
    # bound 8: two runs of 5.  Run 1, indexes 0-4: 0, 3, -1, 2, 5: first 0, lowest -1 at 2,
    # highest 5 at 4, which is also its last.  Run 2, indexes 5-9: 1, -4, 2, 0, 1: first 5,
    # lowest -4 at 6, highest 2 at 7, last 9 (index 8, a 0 between the peak and the end, goes).
    assert drawn_points([0, 3, -1, 2, 5, 1, -4, 2, 0, 1], bound=8) == [0, 2, 4, 5, 6, 7, 9]


def test_a_long_nights_line_keeps_its_ends_its_peak_and_its_trough_exactly_within_the_bound():
    # 2,000 points, 0 but for a trough of -5 at 777, a peak of 9 at 1234 and 3 at the end.
    # y: 14 + (9 - v) / 14 * 90: 0 -> 71.9, -5 -> 104, 9 -> 14, 3 -> 52.6;
    # x: 40 + 292 / 1999 * i: 777 -> 153.5, 1234 -> 220.3, 1999 -> 332.
    points = [0] * 2000
    points[777], points[1234], points[-1] = -5, 9, 3
    drawn = drawn_at(player_chart("Ann", points, []))
    assert len(drawn) <= 600
    assert drawn[0] == "40,71.9" and drawn[-1] == "332,52.6"
    assert [point for point in drawn if not point.endswith(",71.9")] == ["153.5,104", "220.3,14", "332,52.6"]


def test_a_line_drawn_from_the_one_kept_is_the_line_drawn_afresh_and_draws_only_its_new_runs(monkeypatch):
    """:func:`line_points` with what the version before kept gives the same points as drawn afresh, through
    2,100 actions (past MAX_POINTS, where the runs grow every 150 points), undos of the last few points and a
    bank's step at the end that moves with every action; while the night is only appended to and the runs
    keep their length, only the run just made whole and the last one are looked at (issue 22)."""
    import random

    from companion.report import night_chart
    from companion.report.night_chart import line_points

    looked: list[tuple[int, int]] = []
    real = night_chart._drawn_in
    monkeypatch.setattr(night_chart, "_drawn_in", lambda p, a, b: (looked.append((a, b)), real(p, a, b))[1])
    rng = random.Random(9)
    points, kept, undos, steady = [0], None, 0, 0
    for _ in range(2100):
        undo = rng.random() < 0.03 and len(points) > 4
        if undo:
            del points[-rng.randint(1, 3):]
            undos += 1
        else:
            points.append(points[-1] + rng.randint(-4, 4))
        line = points + [points[-1] + 7]  # the bank's step, as the report ends each line at the player's result
        before = kept
        looked.clear()
        text, kept = line_points(line, kept)
        looked_at = list(looked)
        assert text == line_points(line)[0] == " ".join(f"{i},{line[i]}" for i in drawn_points(line))
        if not undo and before is not None and before.run == kept.run:
            assert len(looked_at) <= 2, looked_at  # the run made whole since, and the last
            steady += 1
    assert undos > 30 and steady > 1900 and kept.run > 1
