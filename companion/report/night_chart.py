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


def _run_length(count: int, bound: int) -> int:
    """How many neighbouring points each drawn run takes: 1 (every point drawn) up to ``bound``."""
    return 1 if count <= bound else -(-count // (bound // 4))


def _drawn_in(points: Sequence[int], start: int, end: int) -> list[int]:
    """The indexes drawn of the run ``start``..``end`` (excluded): its first, last, lowest and highest, in order."""
    if end - start == 1:
        return [start]
    part = points[start:end]
    return sorted({start, start + part.index(min(part)), start + part.index(max(part)), end - 1})


def drawn_points(points: Sequence[int], bound: int = MAX_POINTS) -> list[int]:
    """The indexes of ``points`` a line is drawn through: all of them, or at most ``bound`` on a long night (issue 22).

    A point per action made the report grow with the night (each chart of a 2,000-stage
    night had 2,000 points; the page was about 290 KB), though the chart is 292 px wide.
    The points are cut into runs of ``ceil(count / (bound // 4))`` neighbours, at most
    ``bound // 4`` runs each a column of about two pixels, and of each run the first, the
    last, the lowest and the highest are kept (the first of equals), in order: every peak
    and trough and both ends are drawn exactly where they were, and in a column the line
    only ever went between its lowest and highest, so at the drawn width it looks the same.
    The runs start at multiples of their length, so while a line is appended to and its
    run length stays, its whole runs are drawn as they were (:func:`line_points`).
    """
    count = len(points)
    run = _run_length(count, bound)
    if run == 1:
        return list(range(count))
    kept: list[int] = []
    for start in range(0, count, run):
        kept.extend(_drawn_in(points, start, min(start + run, count)))
    return kept


@dataclass(frozen=True)
class DrawnLine:
    """What a player's line as drawn keeps for the next version of the night (issue 22).

    ``run``: the points per run; ``prefix``: the points of the runs drawn whole, those that
    end before the line's last point (which a bank's step at the end moves); ``text``: those
    runs' drawn points as the polyline writes them.  Never changed once made.
    """

    run: int
    prefix: tuple[int, ...]
    text: str


def _points_text(points: Sequence[int], indexes: Sequence[int]) -> str:
    return " ".join([f"{i},{points[i]}" for i in indexes])


def line_points(points: Sequence[int], kept: DrawnLine | None = None, bound: int = MAX_POINTS) -> tuple[str, DrawnLine]:
    """The polyline's points of :func:`drawn_points`, each ``index,chips`` (the chart's transform places them), and what to keep.

    A night is recorded by appending, so a line after an action is the line before with a
    point or two more: the runs ``kept`` drew whole are written again only when its points
    are not this line's first points (an undo) or the run length changed (every 150 points
    past :data:`MAX_POINTS`); else only the runs after them are (the report's first request
    after each action had drawn all 600 points of each line anew: a 2,000-stage night's
    report cost 1.5x a short one's).  The text is the same either way.
    """
    count = len(points)
    run = _run_length(count, bound)
    whole = max(0, (count - 1) // run) * run  # the points of the runs that end before the last point
    reused = 0
    pieces: list[str] = []
    if kept is not None and kept.run == run and len(kept.prefix) <= whole:
        if tuple(points[: len(kept.prefix)]) == kept.prefix:
            reused = len(kept.prefix)
            if kept.text:
                pieces.append(kept.text)
    for start in range(reused, whole, run):
        pieces.append(_points_text(points, _drawn_in(points, start, start + run)))
    done = " ".join(pieces)
    tail = [i for start in range(whole, count, run) for i in _drawn_in(points, start, min(start + run, count))]
    text = " ".join(part for part in (done, _points_text(points, tail)) if part)
    return text, DrawnLine(run, tuple(points[:whole]), done)


def _number(value: float) -> str:
    """A transform's number: exact enough for 2,000 points (``repr``), short when it is whole."""
    return str(int(value)) if value == int(value) else repr(value)


def player_chart(
    name: str, points: Sequence[int], game_starts: Sequence[int], *, first_game: int = 1, ledger: str = "",
    line: str | None = None,
) -> str:
    """A line of ``name``'s net chips over the night, games marked; "" with nothing recorded.

    ``ledger``: the last step is what the night's own ledger adds beside the games ("Bank": on
    chip counts, the counts beyond the games), marked with its name, so the line ends at the
    player's result (issue 20, item 4).  ``line``: the polyline's points as :func:`line_points`
    wrote them for these ``points`` (made here when not given).

    The polyline's points are each action's number and the player's chips then, placed on the
    plot by its ``transform`` (``vector-effect`` keeps the stroke 2 px wide): a point drawn once
    is written the same at every later version, however long the night grows."""
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
    if line is None:
        line = line_points(points)[0]
    scale = plot_h / (high - low)  # pixels per chip, up
    matrix = " ".join(_number(v) for v in (step, 0, 0, -scale, LEFT, TOP + high * scale))
    out.append(
        f'<polyline points="{line}" transform="matrix({matrix})" vector-effect="non-scaling-stroke" '
        f'fill="none" stroke="{LINE}" stroke-width="2"/>'
    )
    colour = GOOD if final >= 0 else BAD
    out.append(f'<circle cx="{_fmt(x(len(points) - 1))}" cy="{_fmt(y(final))}" r="3.5" fill="{colour}"/>')
    out.append("</svg>")
    return "".join(out)
