"""The app as the load bench serves it: the real app plus ``/hello``, the ceiling.

Used only by ``bench/load_bench.py``:
``flask --app bench/load_app.py serve --host 127.0.0.1 --port N --threads 8 [--workers 2]``.
``/hello`` goes through the same server, workers, middleware and response headers
as every other route, and does nothing else: it is the most a route can be served at.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import create_app as create_companion  # noqa: E402


def create_app():  # type: ignore[no-untyped-def]
    app = create_companion()

    @app.get("/hello")
    def hello() -> str:
        return "ok"

    return app
