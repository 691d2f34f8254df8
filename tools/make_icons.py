"""Draw the home-screen icons, static/icon-192.png and static/icon-512.png, in pure Python.

Run: python3 tools/make_icons.py   (no Pillow needed: PNG is zlib plus CRCs)

The same picture as static/icon.svg (a gold ring on the table's dark colour, and an N),
but full-bleed and with everything inside the central 80 %, so that one file serves
both as an ordinary icon and as a "maskable" one that a phone crops to its own shape.
Shapes are drawn from signed distances, which gives smooth (anti-aliased) edges.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "static"
SIZES = (192, 512)
BACKGROUND = (0x11, 0x14, 0x18)
GOLD = (0xFF, 0xD4, 0x79)
# In the SVG's 64-unit square: the ring, and the N as three strokes.
RING_OUTER, RING_INNER = 22.0, 14.0
N_STROKES = (((27.3, 26.0), (27.3, 38.5)), ((27.3, 26.0), (36.7, 38.5)), ((36.7, 26.0), (36.7, 38.5)))
N_HALF_WIDTH = 1.7


def _segment_distance(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - ax - t * dx, y - ay - t * dy)


def _coverage(distance_inside: float, pixel: float) -> float:
    """How much of a pixel a shape covers, from the signed distance (units) to its edge."""
    return max(0.0, min(1.0, 0.5 + distance_inside / pixel))


def _mix(under: tuple[float, float, float], over: tuple[int, int, int], alpha: float) -> tuple[float, float, float]:
    return tuple(u + (o - u) * alpha for u, o in zip(under, over))  # type: ignore[return-value]


def draw(size: int) -> bytes:
    """The icon's raw RGB rows, each led by PNG filter byte 0."""
    unit = 64.0 / size  # SVG units per pixel
    rows = bytearray()
    for py in range(size):
        rows.append(0)
        y = (py + 0.5) * unit
        for px in range(size):
            x = (px + 0.5) * unit
            r = math.hypot(x - 32.0, y - 32.0)
            colour: tuple[float, float, float] = BACKGROUND
            colour = _mix(colour, GOLD, _coverage(RING_OUTER - r, unit))
            colour = _mix(colour, BACKGROUND, _coverage(RING_INNER - r, unit))
            if 24.0 <= y <= 41.0 and 25.0 <= x <= 39.0:
                d = min(_segment_distance(x, y, a, b) for a, b in N_STROKES)
                colour = _mix(colour, GOLD, _coverage(N_HALF_WIDTH - d, unit))
            rows.extend(round(c) for c in colour)
    return bytes(rows)


def png(size: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def main() -> None:
    for size in SIZES:
        path = STATIC / f"icon-{size}.png"
        path.write_bytes(png(size, draw(size)))
        print(f"wrote {path} ({path.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
