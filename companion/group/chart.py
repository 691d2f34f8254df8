"""The season's running totals as a small SVG chart: one line per member, one chart per unit.

The season table says where everyone stands; the chart says how they got there.  Drawn as
:mod:`companion.report.charts` draws the report's (no script, no ``style``: the pages'
Content-Security-Policy allows it; colours as presentation attributes, readable on the dark
screen and on paper; ``role="img"`` with a label saying where each member ends).

Light however long the season (issue 25: a phone at the table opens it): each member is one
``<path>`` whose ``<title>`` says where they end and their highest and lowest total, drawn in
whole units of a plot one night wide (scaled to the chart's width; the stroke does not scale),
a step to the next night as short as ``l1-3``.  Over a season of up to :data:`POINTS_UP_TO`
nights each total is also a point with its own ``<title>`` (who stood where after which night);
over two hundred nights those points would weigh some 300 KB, and the season table and the
lines' titles say it in words.

Honest about units as the season is (docs/group.md): a chart is of one unit only, a currency's
money or the chips of the chips-only nights, never two added.  Its nights are the season's
nights of that unit, in order; a member's line stays flat across a night they did not play, so
every line has a point above every night and two lines can be compared night by night.

Pure: a :class:`~companion.group.season.Season` in, SVG text out.
"""

from __future__ import annotations

from decimal import Decimal
from html import escape

from companion.report.charts import AXIS, _fmt

from .nights import Unit
from .season import Season

__all__ = ["COLOURS", "running_chart", "running_totals"]

WIDTH = 340
PLOT_HEIGHT = 150
LEFT = 44  # room for the axis labels
RIGHT = 8
TOP = 10
AXIS_ROOM = 18  # the nights' numbers under the plot
LEGEND_ROW = 16
#: one colour and one dash pattern per member, in the group's order: told apart without colour too
COLOURS = ("#4fb3ff", "#ffb454", "#3fb56f", "#e0605a", "#c792ea", "#f2e85c", "#6cd4c4", "#ff8fb1")
DASHES = ("", "6 3", "2 3", "8 3 2 3")
#: up to this many nights in a chart, each running total is a point with its own title as well
POINTS_UP_TO = 31


def running_totals(season: Season, unit: Unit) -> tuple[tuple[str, ...], dict[str, list[Decimal | int]]]:
    """The titles of the season's nights in ``unit``, and each member's running total after each of them.

    Only members who played one of those nights are given; a total stays as it was over a night
    the member did not play.  Money in ``unit``'s currency, or chips on chips-only nights.
    """
    nights = [n for n in season.nights if n.unit == unit]
    titles = tuple(f"{n.date.isoformat()} {n.title}" for n in nights)
    lines: dict[str, list[Decimal | int]] = {}
    for row in season.rows:
        won = {line.night_id: line.value for line in row.nights if line.unit == unit}
        if not won:
            continue
        total: Decimal | int = Decimal(0) if unit is not None else 0
        points: list[Decimal | int] = []
        for night in nights:
            total = total + won.get(night.night_id, 0)
            points.append(total)
        lines[row.member] = points
    return titles, lines


def running_chart(season: Season, unit: Unit) -> str:
    """Each member's running total over the season's nights in ``unit``, as SVG; "" with no such night."""
    titles, lines = running_totals(season, unit)
    if not titles or not lines:
        return ""
    shown = unit or "chips"
    label = f"Running totals over {season.period.label}, in {shown}: " + "; ".join(
        f"{member} {_signed(points[-1])}" for member, points in lines.items()
    )
    values = [v for points in lines.values() for v in points]
    low, high = min(0, *values), max(0, *values)
    if high == low:
        high = low + 1
    legend_rows = (len(lines) + 1) // 2
    height = TOP + PLOT_HEIGHT + AXIS_ROOM + legend_rows * LEGEND_ROW + 4
    plot_w = WIDTH - LEFT - RIGHT
    # a point before the first night (everyone at 0), then one after each night
    step = plot_w / len(titles)
    span = float(high - low)

    def x(i: int) -> float:
        return LEFT + step * i

    def y(v: Decimal | int) -> float:
        return TOP + float(high - v) / span * PLOT_HEIGHT

    out = [
        f'<svg class="chart season-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" role="img" aria-label="{escape(label)}">',
        f"<title>{escape(label)}</title>",
    ]
    for v in sorted({high, 0, low}, reverse=True):
        out.append(
            f'<text x="{LEFT - 4}" y="{_fmt(y(v) + 4)}" text-anchor="end" font-size="10" fill="{AXIS}">'
            f"{escape(_plain(v))}</text>"
        )
    out.append(f'<line x1="{LEFT}" y1="{_fmt(y(0))}" x2="{WIDTH - RIGHT}" y2="{_fmt(y(0))}" stroke="{AXIS}" stroke-width="1"/>')
    every = max(1, len(titles) // 12)  # at most about 12 numbers along the bottom
    for i in range(len(titles)):
        if i % every == 0 or i == len(titles) - 1:
            out.append(
                f'<text x="{_fmt(x(i + 1))}" y="{TOP + PLOT_HEIGHT + 13}" text-anchor="middle" font-size="10" '
                f'fill="{AXIS}">{i + 1}</text>'
            )
    few = len(titles) <= POINTS_UP_TO
    if not few:  # the plot in whole units, one night wide: the lines' steps are short to write
        out.append(f'<g transform="translate({LEFT} {TOP}) scale({_fmt(step)} 1)">')
    for index, (member, points) in enumerate(lines.items()):
        colour, dash = COLOURS[index % len(COLOURS)], DASHES[index % len(DASHES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        if few:
            path = " ".join(f"{_fmt(x(i))},{_fmt(y(v))}" for i, v in enumerate([0, *points]))
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dashed}/>')
            for i, v in enumerate(points):
                out.append(
                    f'<circle cx="{_fmt(x(i + 1))}" cy="{_fmt(y(v))}" r="2.5" fill="{colour}">'
                    f"<title>{escape(member)} after {escape(titles[i])}: {escape(_signed(v))} {escape(shown)}</title></circle>"
                )
        else:
            heights = [round(y(v) - TOP) for v in [0, *points]]
            out.append(f'<path d="M0 {heights[0]}l{_steps(heights)}" fill="none" stroke="{colour}" stroke-width="2"'
                       f' vector-effect="non-scaling-stroke"{dashed}>'
                       f"<title>{escape(_line_title(member, points, titles, shown))}</title></path>")
    if not few:
        out.append("</g>")
    for index, (member, points) in enumerate(lines.items()):
        colour, dash = COLOURS[index % len(COLOURS)], DASHES[index % len(DASHES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        row, column = divmod(index, 2)
        lx = LEFT + column * (plot_w / 2)
        ly = TOP + PLOT_HEIGHT + AXIS_ROOM + row * LEGEND_ROW + 8
        out.append(
            f'<line x1="{_fmt(lx)}" y1="{ly - 4}" x2="{_fmt(lx + 18)}" y2="{ly - 4}" stroke="{colour}" stroke-width="2"{dashed}/>'
            f'<text x="{_fmt(lx + 22)}" y="{ly}" font-size="11" fill="{colour}">'
            f"{escape(member)} {escape(_signed(points[-1]))}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def _steps(heights: list[int]) -> str:
    """A line through ``heights`` one unit apart as a path's relative steps after its start: "1-3 1 0 1 2"."""
    return " ".join(f"1{'-' if b < a else ' '}{abs(b - a)}" for a, b in zip(heights, heights[1:]))


def _line_title(member: str, points: list[Decimal | int], titles: tuple[str, ...], shown: str) -> str:
    """What a member's line says: where they end, and their highest and lowest total, after which night."""
    high = max(range(len(points)), key=lambda i: (points[i], -i))
    low = min(range(len(points)), key=lambda i: (points[i], i))
    return (
        f"{member}: {_signed(points[-1])} {shown} after {len(points)} night{'s' if len(points) != 1 else ''}; "
        f"highest {_signed(points[high])} after {titles[high]}, lowest {_signed(points[low])} after {titles[low]}"
    )


def _plain(value: Decimal | int) -> str:
    """An amount as the tables show it: chips whole, money with two places unless finer ("1.50", "0.125")."""
    if isinstance(value, int):
        return str(value)
    cents = value.quantize(Decimal("0.01"))
    return f"{cents if cents == value else value.normalize():f}"


def _signed(value: Decimal | int) -> str:
    """A running total as the chart says it: "+1.50", "−2", "0" (a true minus sign, as the report's)."""
    text = _plain(value)
    if not value:
        return "0"
    if text == "0":
        return text
    return "\u2212" + text[1:] if text.startswith("-") else "+" + text
