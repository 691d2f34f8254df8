"""A QR code the app drew, read back as a phone's camera would: the SVG's path drawn into pixels, then zxing.

One reader for every test that scans a code (the players' and members' links, the SEPA transfer code).
"""

from __future__ import annotations

import re

import zxingcpp


def svg_to_pixels(svg: str, scale: int = 8) -> tuple[memoryview, int]:
    """Draw the SVG's path (``M x y h n v1 h-n z`` runs of dark modules on white) into a grayscale image;
    (the image, its size in modules)."""
    size = int(re.search(r'viewBox="0 0 (\d+) \1"', svg).group(1))
    dark = [[False] * size for _ in range(size)]
    path = re.search(r'<path[^>]* d="([^"]*)"', svg).group(1)
    runs = re.findall(r"M(\d+) (\d+)h(\d+)v1h-(\d+)z", path)
    assert "".join(f"M{x} {y}h{n}v1h-{m}z" for x, y, n, m in runs) == path, "the path holds only module runs"
    for x, y, n, m in runs:
        assert n == m
        for i in range(int(n)):
            dark[int(y)][int(x) + i] = True
    side = size * scale
    pixels = bytes(0 if dark[y // scale][x // scale] else 255 for y in range(side) for x in range(side))
    return memoryview(pixels).cast("B", (side, side)), size


def scan(svg: str) -> zxingcpp.Barcode:
    """The one QR code in the picture ``svg`` draws."""
    image, _ = svg_to_pixels(svg)
    found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    assert len(found) == 1, "no QR code found in the picture"
    return found[0]


def decode_qr(svg: str) -> str:
    """What the QR code ``svg`` draws says."""
    return scan(svg).text
