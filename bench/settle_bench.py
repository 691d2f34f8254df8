"""Time settle_up at 7, 12, 15 and 30 players.

Run from the project root:  .venv/bin/python bench/settle_bench.py [--runs N]

The exact search costs the same for any balances of a given size (it visits
all 2**n subsets), so the inputs only need to be realistic and "worst-ish":
every player has a non-zero balance and no two balances cancel out, so no
obvious pairs shrink the problem.  Balances come from a fixed seed, so every
run times the same inputs.  Up to 15 players take the exact path (the default
``exact_limit``); 30 players take the greedy fallback.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.money.settle import settle_up  # noqa: E402

SIZES = (7, 12, 15, 30)
SEED = 20240601


def worst_ish_balances(players: int, rng: random.Random) -> dict[str, int]:
    """Non-zero balances in -500..500 that sum to zero with no cancelling pair."""
    while True:
        chips = [rng.choice([-1, 1]) * rng.randint(1, 500) for _ in range(players - 1)]
        chips.append(-sum(chips))
        no_pair = all(a + b for i, a in enumerate(chips) for b in chips[i + 1 :])
        if chips[-1] and no_pair:
            return {f"player{i:02}": c for i, c in enumerate(chips)}


def median_ms(balances: dict[str, int], runs: int) -> tuple[float, int]:
    """Median wall time of ``runs`` calls in milliseconds, and the plan length."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        plan = settle_up(balances)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, len(plan)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="timed runs per size (default 21)")
    args = parser.parse_args(argv)
    rng = random.Random(SEED)
    print(f"settle_up, median of {args.runs} runs, Python {sys.version.split()[0]}")
    print(f"{'players':>7}  {'path':<6}  {'payments':>8}  {'median ms':>9}")
    for players in SIZES:
        balances = worst_ish_balances(players, rng)
        settle_up(balances)  # warm-up
        ms, payments = median_ms(balances, args.runs)
        path = "exact" if players <= 15 else "greedy"
        print(f"{players:>7}  {path:<6}  {payments:>8}  {ms:>9.2f}")


if __name__ == "__main__":
    main()
