"""The heavy pages of a long night, measured in-process: report, table and history against a hello-world.

Run: .venv/bin/python bench/page_bench.py   (prints plain lines; see bench/README.md)

A night of 150 hands for 6 players (about 450 stages, the night of issue 14, item 12)
is imported into a fresh SQLite file; each page is then asked for 60 times through
Flask's test client (one thread, no network), and the median server time is printed
with its share of hello-world's rate (a route that does nothing, through the same app,
middleware and headers).  The report is timed twice: as every phone after the first
gets it at a version (kept per version: companion/web/pages/report.py) and rebuilt from
the fold each time (the cache emptied before each request).  The history page is the
first page of 100 actions, and its size is printed against the whole list's.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from companion import service as services  # noqa: E402
from companion.service import store  # noqa: E402
from companion.extensions import db  # noqa: E402
from table_bench import long_night, make_app  # noqa: E402

RUNS = 60


def median_ms(client, url: str, before=None) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    times = []
    size = 0
    for _ in range(RUNS):
        if before:
            before()
        t0 = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        size = len(response.get_data())
    return statistics.median(times), size


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))

        @app.get("/hello")
        def hello() -> str:
            return "ok"

        with app.app_context():
            night = services.import_history(long_night())
            key, stages = night.keeper_key, night.version
        client = app.test_client()
        client.get(f"/k/{key}")  # warm: the fold, the templates
        median_ms(client, "/hello")  # warm
        rows = [
            ("hello world (the ceiling)", *median_ms(client, "/hello")),
            ("report, kept for the version", *median_ms(client, f"/k/{key}/report")),
            ("report, rebuilt every time", *median_ms(client, f"/k/{key}/report", store._derived.clear)),
            ("table screen", *median_ms(client, f"/k/{key}")),
            ("history, first page of 100", *median_ms(client, f"/k/{key}/history")),
        ]
        hello_ms = rows[0][1]
        print(f"a night of {stages} events; median of {RUNS} requests each, in-process (Flask test client)")
        print(f"{'page':34} {'ms':>7} {'KB':>7} {'of hello-world':>15}")
        for name, ms, size in rows:
            print(f"{name:34} {ms:7.2f} {size / 1024:7.1f} {hello_ms / ms:15.1%}")
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


if __name__ == "__main__":
    main()
