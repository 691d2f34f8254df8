"""A static file as the app sends it: stylesheets and scripts minified by rcssmin and rjsmin (issue 22).

The tests that compare a served file with the one in ``static/`` compare it with this:
the library's own output for the file, worked out here rather than asked of the app.
"""

from __future__ import annotations

from pathlib import Path

import rcssmin
import rjsmin

STATIC = Path(__file__).resolve().parent.parent / "static"


def as_sent(name: str) -> bytes:
    """``static/<name>`` as it crosses the network: minified if a stylesheet or script, else as it is."""
    source = (STATIC / name).read_bytes()
    if name.endswith(".css"):
        return rcssmin.cssmin(source.decode("utf-8")).encode("utf-8")
    if name.endswith(".js"):
        return rjsmin.jsmin(source.decode("utf-8")).encode("utf-8")
    return source
