"""A QR code as an SVG string: a pure renderer, as python-chess's ``chess.svg`` is.

The ``qrcode`` package does the encoding; this module only draws its matrix, with
a white quiet zone so that the code scans on a dark page.  Values in, text out:
no Flask, no files, no network.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape

import qrcode
from qrcode.constants import ERROR_CORRECT_M

QUIET_ZONE = 4  # modules of white around the code, as the standard asks


def matrix(data: str) -> list[list[bool]]:
    """The code's modules (True = dark), quiet zone included."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=QUIET_ZONE)
    code.add_data(data)
    code.make(fit=True)
    return code.get_matrix()


@lru_cache(maxsize=128)
def svg(data: str, *, title: str = "QR code") -> str:
    """An SVG drawing of ``data``'s QR code that scales to any size without blurring.

    Kept for the last few codes drawn: choosing the code's mask costs some 45 ms, and a page that is
    not kept whole (a group's page showing a refusal, a report asking to confirm a payment) draws the
    same transfer's or link's code again each time it is shown."""
    modules = matrix(data)
    size = len(modules)
    runs: list[str] = []
    for y, row in enumerate(modules):
        x = 0
        while x < size:
            if row[x]:
                start = x
                while x < size and row[x]:
                    x += 1
                runs.append(f"M{start} {y}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    # quotes too: the title is also an attribute's value, and it may hold a person's name
    escaped = escape(title, quote=True)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" '
        f'shape-rendering="crispEdges" role="img" aria-label="{escaped}">'
        f"<title>{escaped}</title>"
        f'<rect width="{size}" height="{size}" fill="#fff"/>'
        f'<path fill="#000" d="{"".join(runs)}"/></svg>'
    )
