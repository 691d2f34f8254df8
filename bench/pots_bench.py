"""Fixed-stake pots and the chip bank: actions per usual deal, and what one rule costs (pure engine).

Run: .venv/bin/python bench/pots_bench.py   (prints plain lines; ``make bench`` runs it too)

- Actions per usual deal: on a High Card table (4 players, ante 1), the engine actions a
  usual deal needs after the antes (the winner; the antes ride in its record): goal 1.
  The screens' taps are the web layer's, counted once it lands; this is the floor.
- Bank events for a whole table's buy-in (8 players, one amount): goal 1 event (the
  screen's goal is 2 taps: the amount and the button).
- Microseconds per action: ``PotTable.push`` of a win (antes included), of a NASDAQ sale
  above the limit and of a high-low split, each pushed and voided again (the void not
  timed) so the table stays put; median of 2001 runs.
- Replay: ``read_records`` of a 500-deal NASDAQ night's ``deals`` into a fresh table.
- The bank: ``Bank.check`` with a tally for 10 players.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.pots.engine import HighLow, Sale, Win  # noqa: E402
from companion.games.pots.game import POTS  # noqa: E402
from companion.night.bank import Bank  # noqa: E402

PLAYERS = ("Ann", "Ben", "Cat", "Dan")


def micro(table, action, runs: int = 2001) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        table.push(action)
        times.append(time.perf_counter() - start)
        table.void()
    return statistics.median(times) * 1e6


def main() -> None:
    high_card = POTS.new_state(PLAYERS, None, POTS.rules_from_dict({"preset": "high_card"}), None)
    before = high_card.version
    high_card.win("Cat")
    print(f"engine actions per usual fixed-stake deal after the antes: {high_card.version - before} (goal 1)")
    bank = Bank(tuple(f"P{i}" for i in range(8)))
    bank.everyone_buys_in(100)
    print(f"bank events for a whole table's buy-in, 8 players: {bank.version} (goal 1; screen goal 2 taps)")

    nasdaq = POTS.new_state(PLAYERS, None, POTS.rules_from_dict({"preset": "nasdaq", "sale_limit": 5}), None)
    print(f"push a win (antes taken): median {micro(high_card, Win(('Ann',))):.1f} us")
    print(f"push a sale above the limit: median {micro(nasdaq, Sale('Cat', 'Ann', 12)):.1f} us")
    print(f"push a high-low split: median {micro(nasdaq, HighLow(('Ann',), ('Ben', 'Cat'))):.1f} us")

    for deal in range(500):
        nasdaq.into_pot(PLAYERS[deal % 4], 2, "bid")
        nasdaq.sell(PLAYERS[(deal + 1) % 4], PLAYERS[(deal + 2) % 4], 3 + deal % 11)
        nasdaq.high_low([PLAYERS[deal % 4]], [PLAYERS[(deal + 3) % 4]])
    deals = POTS.write_records(nasdaq)
    runs = []
    for _ in range(5):
        fresh = POTS.new_state(PLAYERS, None, nasdaq.rules, None)
        start = time.perf_counter()
        POTS.read_records(fresh, deals)
        runs.append(time.perf_counter() - start)
    print(f"replay 500 NASDAQ deals (1500 actions): median {statistics.median(runs) * 1e3:.1f} ms (5 runs)")

    names = tuple(f"P{i}" for i in range(10))
    big = Bank(names)
    big.everyone_buys_in(100)
    for name in names:
        big.cash_out(name, 100)
    tally = {name: 0 for name in names}
    times = []
    for _ in range(2001):
        start = time.perf_counter()
        big.check(tally)
        times.append(time.perf_counter() - start)
    print(f"bank check with a tally, 10 players: median {statistics.median(times) * 1e6:.1f} us")


if __name__ == "__main__":
    main()
