"""One process's memory while visitors without a link import nights at the file bound and read every page.

Run: .venv/bin/python bench/memory_bench.py [--nights 120] [--events 100000]
     (prints plain lines; see bench/README.md and docs/reliability.md, "Memory ceiling")

Each night is a file of 2,000 stages (the most ``/import`` takes), imported from its own
client address (``IMPORT_LIMIT`` counts per address, so addresses are what a visitor
would multiply), and then every page of it is opened: the scorekeeper's screens, every
page of its history, the players' pages, the report and its downloads.  Every 10
nights the process's resident memory (``VmRSS``) and the events behind its fold cache
are printed.  ``--events`` sets ``FOLD_CACHE_EVENTS`` (a huge value stands for the
cache as it was before issue 21, bounded by the number of nights alone).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from companion.service import store  # noqa: E402
from companion.values import limits  # noqa: E402
from reliability.heavy_nights import every_page, import_from, night_at_the_bound  # noqa: E402
from table_bench import make_app  # noqa: E402


#: what Chromium asks for: pages kept compressed and downloads compressed once are held too (issue 22)
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}


def rss_mb() -> float:
    """This process's resident memory in MB (Linux: /proc/self/status)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=120)
    parser.add_argument("--events", type=int, default=store.FOLD_CACHE_EVENTS, help="FOLD_CACHE_EVENTS")
    args = parser.parse_args()
    data = night_at_the_bound()
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), FOLD_CACHE_EVENTS=args.events, IMPORT_LIMIT=20)
        client = app.test_client()
        print(f"FOLD_CACHE_EVENTS={args.events:,}; nights of {limits.MAX_STAGES:,} stages; "
              f"RSS at start {rss_mb():.0f} MB")
        started = time.perf_counter()
        for number in range(1, args.nights + 1):
            address = f"127.0.{number // 250}.{number % 250 + 1}"
            keeper, viewer = import_from(client, address, data)
            for url in every_page(keeper, viewer, limits.MAX_STAGES):
                response = client.get(url, environ_base={"REMOTE_ADDR": address}, headers=BROWSER)
                assert response.status_code in (200, 303), (url, response.status_code)
            if number % 10 == 0:
                gc.collect()
                folds, derived = store.cache_weight()
                print(f"{number:4d} nights: RSS {rss_mb():6.0f} MB; cache {len(store._cache)} folds, "
                      f"{folds:,} events in folds, {derived:,} in derived values; "
                      f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
