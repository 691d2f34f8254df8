"""Small charts drawn by the app itself, as inline SVG text.

Pure (no Flask): values in, markup out.  No script, no ``style`` attribute and
no ``<style>`` element, so the page's Content-Security-Policy (``style-src
'self'``) lets it render; colours are SVG presentation attributes, chosen to
read on the dark screen and on paper alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from html import escape

__all__ = ["net_chart"]

WIDTH = 340
HEIGHT = 170
LEFT = 44  # room for the axis labels
RIGHT = 8
TOP = 10
BOTTOM = 24
GOOD = "#3fb56f"
BAD = "#e0605a"
LINE = "#4fb3ff"
AXIS = "#8a94a3"


def _number(value: Decimal | int) -> str:
    text = f"{value:f}" if isinstance(value, Decimal) else str(value)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def _fmt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def net_chart(points: Sequence[tuple[str, Decimal | int]], *, label: str, unit: str = "") -> str:
    """Bars of each night's net (green up, red down) and a line of the running total.

    ``points`` are ``(night label, net)`` in date order; ``label`` names the chart
    for screen readers; ``unit`` ("chips", "EUR") goes into the tooltips.  An
    empty ``points`` gives an empty string.
    """
    if not points:
        return ""
    values = [Decimal(v) for _, v in points]
    running: list[Decimal] = []
    total = Decimal(0)
    for v in values:
        total += v
        running.append(total)
    low = min([Decimal(0), *values, *running])
    high = max([Decimal(0), *values, *running])
    if high == low:
        high = low + 1
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    span = float(high - low)

    def y(v: Decimal) -> float:
        return TOP + float(high - v) / span * plot_h

    slot = plot_w / len(points)
    bar = max(min(slot * 0.6, 40.0), 2.0)
    suffix = f" {escape(unit)}" if unit else ""
    out = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="100%" role="img" aria-label="{escape(label)}">',
        f"<title>{escape(label)}</title>",
    ]
    for v in (high, Decimal(0), low):
        out.append(
            f'<text x="{LEFT - 4}" y="{_fmt(y(v) + 4)}" text-anchor="end" font-size="10" fill="{AXIS}">'
            f"{escape(_number(v))}</text>"
        )
    zero = y(Decimal(0))
    out.append(
        f'<line x1="{LEFT}" y1="{_fmt(zero)}" x2="{WIDTH - RIGHT}" y2="{_fmt(zero)}" stroke="{AXIS}" stroke-width="1"/>'
    )
    step = max(1, len(points) // 12)  # at most about 12 labels along the bottom
    for i, ((name, _), v) in enumerate(zip(points, values)):
        cx = LEFT + slot * (i + 0.5)
        top, bottom = (y(v), zero) if v >= 0 else (zero, y(v))
        height = max(bottom - top, 0.5)
        colour = GOOD if v >= 0 else BAD
        out.append(
            f'<rect x="{_fmt(cx - bar / 2)}" y="{_fmt(top)}" width="{_fmt(bar)}" height="{_fmt(height)}" fill="{colour}">'
            f"<title>{escape(name)}: {escape(_number(v))}{suffix} (running total {escape(_number(running[i]))}{suffix})</title></rect>"
        )
        if i % step == 0 or i == len(points) - 1:
            out.append(
                f'<text x="{_fmt(cx)}" y="{HEIGHT - 8}" text-anchor="middle" font-size="10" fill="{AXIS}">{i + 1}</text>'
            )
    if len(points) > 1:
        path = " ".join(f"{_fmt(LEFT + slot * (i + 0.5))},{_fmt(y(r))}" for i, r in enumerate(running))
        out.append(f'<polyline points="{path}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    for i, r in enumerate(running):
        out.append(f'<circle cx="{_fmt(LEFT + slot * (i + 0.5))}" cy="{_fmt(y(r))}" r="3" fill="{LINE}"/>')
    out.append("</svg>")
    return "".join(out)
