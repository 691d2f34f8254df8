"""Each player's chips over the night, as small SVG charts (issue 14, item 17).

Pure (no Flask): a game's live records in, SVG text out, drawn like
:mod:`companion.report.charts` (no script, no ``style``: the page's CSP allows it).
A point per recorded action: the player's net chips after it (a long night's line is
drawn through at most :data:`MAX_POINTS` of them, every peak and trough kept).  The start of each
game after the first is marked with a dashed line and its number.  Any game will do:
the chart reads only what the fold gives every game (:mod:`companion.games.fold`):
its players, its live records and their ``transfers``, a pot carried in
(``carried_in``), and a record's ``game`` where a game is itself several games to a
target (Napalm's); it names no game.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from html import escape

from companion.games.fold import FoldTable
from companion.report.charts import AXIS, BAD, GOOD, LINE, _fmt
from collections.abc import Mapping, Sequence
from typing import Any

WIDTH = 340
HEIGHT = 120
LEFT = 40
RIGHT = 8
TOP = 14
BOTTOM = 16
MARK = "#ffd479"
#: the most points a player's line is drawn through (see :func:`drawn_points`)
MAX_POINTS = 600


def move_chips(net: dict[str, int], record: Any) -> None:
    """Add ``record``'s transfers to each player's ``net`` (a pot or pool, ``None``, is no one's line).

    One place for the chart series made from the whole night and for those extended by appending
    (:class:`ChipSeries`), so that the two cannot count a transfer differently."""
    for t in record.transfers:
        if t.payer is not None:
            net[t.payer] -= t.chips
        if t.payee is not None:
            net[t.payee] += t.chips


def chips_over_the_night(table: Any) -> tuple[dict[str, list[int]], list[int]]:
    """(each player's net chips: at the start and after each live action, the indexes where a game starts).

    A pot carried in counts in its contributors' nets from the start, as on the table.
    The last point of each series is the player's net on the table now.  Any game's
    table will do: its live records' transfers (a pot or pool is ``None``) make the
    series; a record's ``game`` (where it has one) marks where each of its games to a target starts.
    """
    carried_in = table.carried_in
    net = {name: -carried_in.get(name, 0) for name in table.players}
    series = {name: [chips] for name, chips in net.items()}
    game_starts: list[int] = []
    game = 1
    for index, record in enumerate(table.live_records(), start=1):
        if record.game != game:
            game = record.game
            game_starts.append(index - 1)
        move_chips(net, record)
        for name in table.players:
            series[name].append(net[name])
    return series, game_starts


def chips_over_games(
    games: Sequence[tuple[Any, Mapping[str, int]]], seated: Sequence[str]
) -> tuple[dict[str, list[int]], list[int]]:
    """The same over a night of several games: each (table, its closing balances), in order.

    A game after the first starts from where the one before closed (its unfinished pot
    dealt with by its rules), and ends, as on the table, at its players' nets now; a
    player who sits a game out stays flat through it.  Marked: where each of the night's
    games starts (a game's own games to a target are not marked then).
    """
    if len(games) == 1:
        return chips_over_the_night(games[0][0])
    series: dict[str, list[int]] = {name: [] for name in seated}
    starts: list[int] = []
    before = {name: 0 for name in seated}
    for number, (table, closed) in enumerate(games):
        points, _ = chips_over_the_night(table)
        length = len(next(iter(points.values())))
        if number:
            # this game's first point is where the one before closed: the step from that
            # game's last point is its closing (antes returned, a pot split)
            starts.append(len(series[seated[0]]))
        for name in seated:
            own = points.get(name)
            series[name].extend([before[name] + v for v in own] if own else [before[name]] * length)
        for name, chips in closed.items():
            before[name] += chips
    return series, starts


@dataclass(frozen=True)
class ChipSeries:
    """:func:`chips_over_games` of a night's played games, with what it takes to extend it by appending (issue 22).

    ``series`` and ``game_starts`` are :func:`chips_over_games`' answer.  The rest says what they
    were made from, so that :meth:`extended` can prove a later fold only appended to it:
    ``games``, each played game's (number, records in its log); of the last game, the running
    ``net`` of its players, the ``game`` its last live record was in (a game of several games to a
    target) and ``before``, where each seated player stood when it started; ``single``: the night
    has one game (its own games to a target are marked then, and its players alone have a line).
    Never changed once made: :meth:`extended` gives a new one.
    """

    series: Mapping[str, Sequence[int]]
    game_starts: tuple[int, ...]
    games: tuple[tuple[int, int], ...]
    net: Mapping[str, int]
    game: int
    before: Mapping[str, int]
    single: bool

    @classmethod
    def of(cls, games: Sequence[tuple[int, Any, Mapping[str, int]]], seated: Sequence[str]) -> ChipSeries:
        """The series of ``games``, each (its number in the night, its table, its closing balances), from their live records."""
        series, starts = chips_over_games([(table, closed) for _, table, closed in games], seated)
        last = games[-1][1]
        carried_in = last.carried_in
        before = {name: 0 for name in seated}
        for _, _, closed in games[:-1]:
            for name, chips in closed.items():
                before[name] += chips
        net = {name: -carried_in.get(name, 0) for name in last.players}
        game = 1
        for record in last.live_records():
            game = record.game
            move_chips(net, record)
        return cls(
            {name: tuple(points) for name, points in series.items()}, tuple(starts),
            tuple((number, table.version) for number, table, _ in games), net, game, before, len(games) == 1,
        )

    def extended(self, games: Sequence[tuple[int, Any, Mapping[str, int]]]) -> ChipSeries | None:
        """The series of ``games``, a later fold of the same night, made by appending; None when that is not proved.

        The ledger is append-only, so each game's log now begins with its log then.  When the
        night's played games are the same, every game but the last has no record since and the
        last one's records since are none of them an undo (``voids`` is None), no record was
        voided since: its live records are those then and, after them, every record since, in
        order (:meth:`~companion.games.fold.FoldTable.live_records`), and its points are those
        then with one more after each.  Anything else (an undo, a game started or taken back, a
        game whose live records are not the fold's own) returns None: made anew from the whole fold.
        """
        now = tuple((number, table.version) for number, table, _ in games)
        if len(now) != len(self.games) or any(a != b for a, b in zip(now[:-1], self.games[:-1])):
            return None
        (number, kept), (number_now, length) = self.games[-1], now[-1]
        table = games[-1][1]
        if number != number_now or length < kept or type(table).live_records is not FoldTable.live_records:
            return None
        added = table.log[kept:]
        if any(record.voids is not None for record in added):
            return None
        net, game, starts = dict(self.net), self.game, list(self.game_starts)
        series = {name: list(points) for name, points in self.series.items()}
        count = len(next(iter(series.values())))
        for record in added:
            if self.single and record.game != game:
                starts.append(count - 1)
            game = record.game
            move_chips(net, record)
            for name, points in series.items():
                points.append(self.before.get(name, 0) + net.get(name, 0))
            count += 1
        return ChipSeries(
            {name: tuple(points) for name, points in series.items()}, tuple(starts), now, net, game, self.before,
            self.single,
        )


#: a generous width of one character of a label at font-size 10 (digits and "G" in the usual sans fonts)
LABEL_CHAR = 7.0


def game_labels(marks: list[tuple[float, str]]) -> list[tuple[float, str, int, str]]:
    """Where each game's label goes: ``(x, anchor, y, text)`` for the marks ``(x of the line, text)``.

    A label sits right of its line, above the plot; one that would run past the chart's right
    edge ends at its line instead (a clipped "G6 G" was printed, issue 20, item 16).  Games
    of a record or two start a few pixels apart: a label that would overlap the one before
    goes to the row under the plot, and where both rows are taken it is left out (its
    dashed line and the line's title stay).
    """
    rows = (TOP - 3, HEIGHT - 3)
    ends = dict.fromkeys(rows, float("-inf"))  # the right end of the last label in each row
    placed: list[tuple[float, str, int, str]] = []
    for at, text in marks:
        width = LABEL_CHAR * len(text)
        left, anchor = at + 2, "start"
        if left + width > WIDTH:
            left, anchor = at - 2 - width, "end"
        for row in rows:
            if left >= ends[row] + 3:
                ends[row] = left + width
                placed.append((left if anchor == "start" else left + width, anchor, row, text))
                break
    return placed


def drawn_points(points: Sequence[int], bound: int = MAX_POINTS) -> list[int]:
    """The indexes of ``points`` a line is drawn through: all of them, or at most ``bound`` on a long night (issue 22).

    A point per action made the report grow with the night (each chart of a 2,000-stage
    night had 2,000 points; the page was about 290 KB), though the chart is 292 px wide.
    The points are cut into ``bound // 4`` runs of neighbours, each a column of at most two
    pixels, and of each run the first, the last, the lowest and the highest are kept (the
    first of equals), in order: every peak and trough and both ends are drawn exactly
    where they were, and in a column the line only ever went between its lowest and
    highest, so at the drawn width it looks the same.
    """
    count = len(points)
    if count <= bound:
        return list(range(count))
    runs = bound // 4
    kept: list[int] = []
    for run in range(runs):
        start, end = run * count // runs, (run + 1) * count // runs
        part = points[start:end]
        low, high = min(part), max(part)
        ends = (start, start + part.index(low), start + part.index(high), end - 1)
        kept.extend(sorted(set(ends)))
    return kept


@functools.lru_cache(maxsize=4)
def _xs(count: int) -> dict[int, str]:
    """The x of point i of ``count`` across the plot, as written, by i: filled as drawn, shared by every player's line.

    Formatting two numbers for each point of each player's line was most of the report's time on a
    long night (issue 22): the x's are the same for every player, and a y depends on the value alone.
    Only the points drawn (:func:`drawn_points`) are formatted.
    """
    return {}


def player_chart(
    name: str, points: list[int], game_starts: list[int], *, first_game: int = 1, ledger: str = ""
) -> str:
    """A line of ``name``'s net chips over the night, games marked; "" with nothing recorded.

    ``ledger``: the last step is what the night's own ledger adds beside the games ("Bank": on
    chip counts, the counts beyond the games), marked with its name, so the line ends at the
    player's result (issue 20, item 4)."""
    if len(points) < 2:
        return ""
    low, high = min(0, min(points)), max(0, max(points))
    if high == low:
        high = low + 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / (len(points) - 1)

    def x(i: int) -> float:
        return LEFT + step * i

    def y(v: int) -> float:
        return TOP + (high - v) / (high - low) * plot_h

    final = points[-1]
    label = f"{name}'s chips over the night: {final:+d} now" if final else f"{name}'s chips over the night: 0 now"
    out = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="100%" role="img" aria-label="{escape(label)}">',
        f"<title>{escape(label)}</title>",
    ]
    for v in sorted({high, 0, low}, reverse=True):
        out.append(
            f'<text x="{LEFT - 4}" y="{_fmt(y(v) + 4)}" text-anchor="end" font-size="10" fill="{AXIS}">{v}</text>'
        )
    out.append(f'<line x1="{LEFT}" y1="{_fmt(y(0))}" x2="{WIDTH - RIGHT}" y2="{_fmt(y(0))}" stroke="{AXIS}" stroke-width="1"/>')
    for n, start in enumerate(game_starts, start=first_game + 1):
        out.append(
            f'<line x1="{_fmt(x(start))}" y1="{TOP}" x2="{_fmt(x(start))}" y2="{HEIGHT - BOTTOM}" '
            f'stroke="{MARK}" stroke-width="1" stroke-dasharray="3 3"><title>game {n} starts</title></line>'
        )
    marks = [(x(start), f"G{n}") for n, start in enumerate(game_starts, start=first_game + 1)]
    if ledger:
        at = len(points) - 1
        out.append(
            f'<line x1="{_fmt(x(at))}" y1="{TOP}" x2="{_fmt(x(at))}" y2="{HEIGHT - BOTTOM}" '
            f'stroke="{MARK}" stroke-width="1" stroke-dasharray="3 3"><title>{escape(ledger)}</title></line>'
        )
        marks.append((x(at), ledger))
    for at, anchor, row, text in game_labels(marks):
        ends = ' text-anchor="end"' if anchor == "end" else ""
        out.append(f'<text x="{_fmt(at)}" y="{row}"{ends} font-size="10" fill="{MARK}">{escape(text)}</text>')
    xs = _xs(len(points))  # the same for every player's chart of the night
    drawn = drawn_points(points)
    for i in drawn:
        if i not in xs:
            xs[i] = _fmt(x(i))
    # a night's nets repeat: each value drawn formatted once
    ys = {v: _fmt(y(v)) for v in {points[i] for i in drawn}}
    path = " ".join([f"{xs[i]},{ys[points[i]]}" for i in drawn])
    out.append(f'<polyline points="{path}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    colour = GOOD if final >= 0 else BAD
    out.append(f'<circle cx="{_fmt(x(len(points) - 1))}" cy="{_fmt(y(final))}" r="3.5" fill="{colour}"/>')
    out.append("</svg>")
    return "".join(out)
