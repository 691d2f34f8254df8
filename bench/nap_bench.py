"""Nap's pure engine, measured: time to score one deal, and to replay a long game's records.

Run: .venv/bin/python bench/nap_bench.py   (prints plain lines)

- One deal: pushing a plain deal, and a Pool Nap deal with a lead out of turn and a
  failed Nap (the busiest path: ante, penalty chips, payments, doubling), median of
  many runs, on a table that already holds 1000 deals (a push must not grow with the game).
- Replay: reading a 1000-deal game's records back into a fresh table (what a night
  file's import and ``flask replay`` do), median of a few runs.

Printed on 2026-11-23 on the project's machine (2 cores shared with other work, load ~4,
so the figures are noisy upper bounds; not part of ``make bench``, whose README section
the lead owns):

    push a plain deal after 1000 deals: median 33.1 µs
    push a Pool Nap failed Nap with a penalty after 1000 deals: median 46.2 µs
    replay a 1000-deal Pool Nap game from its records: median 222.9 ms

A replay costs more per deal than a single push (~0.2 ms): Python's cyclic garbage
collector walks the growing log while it replays; without it the same loop runs at
about 0.1 ms a deal.  Either is far below what a scorekeeper notices.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.games.nap.game import NAP  # noqa: E402
from companion.games.nap.table import Rules, Table, Void, make_deal  # noqa: E402

FOUR = ["Ann", "Ben", "Cat", "Dan"]


def long_game(rules: Rules, deals: int = 1000) -> Table:
    rnd = random.Random(12)
    t = Table(FOUR, "Dan", rules)
    for _ in range(deals):
        t.push(make_deal(rnd.choice(FOUR), rnd.choice((1, 2, 3, "misere", 4, "nap")), rnd.random() < 0.6))
    return t


def median_us(t: Table, deal, runs: int = 2001) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        t.push(deal)
        times.append(time.perf_counter() - start)
        t.push(Void())
    return statistics.median(times) * 1e6


def main() -> None:
    plain = long_game(Rules())
    print(f"push a plain deal after 1000 deals: median {median_us(plain, make_deal('Cat', 2, True)):.1f} µs")
    pool = long_game(Rules(variant="pool"))
    busy = make_deal("Cat", "nap", False, penalties=[("lead_out_of_turn", "Ann")])
    print(f"push a Pool Nap failed Nap with a penalty after 1000 deals: median {median_us(pool, busy):.1f} µs")
    records = NAP.write_records(pool)
    times = []
    for _ in range(7):
        fresh = Table(FOUR, "Dan", pool.rules)
        start = time.perf_counter()
        NAP.read_records(fresh, records)
        times.append(time.perf_counter() - start)
    print(f"replay a 1000-deal Pool Nap game from its records: median {statistics.median(times) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
