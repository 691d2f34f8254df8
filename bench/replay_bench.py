"""Replaying a long night, and whether recording slows down as the night grows (pure engine).

Run: .venv/bin/python bench/replay_bench.py   (prints plain lines; ``make bench`` runs it too)

- The night: 7 players, default rules (ante 1 every hand, 5 tokens win), 150 hands
  (about 12 hours at 5 minutes a hand), built from a seeded random deck: one shuffle
  per hand, 7 cards per seat, the first 2 shown at stage 1, the first 5 at stage 2, all
  7 at stage 3, and cards entered at **every** showdown (so every showdown is ranked).
- (a) Replay: ``hand_history.loads`` of that night's hand-history JSON, i.e. parse, check and
  fold every action into a fresh table; median of several runs (the rankings cache is
  warm after the first; the first, cold run is printed too).
- (b) Recording: the cost of one more action (``Table.push``, which verifies, resolves
  and appends; a stage-1 declaration with two Yes players, so the ante is taken too) on
  a table at the start of a night and on the table at the end of this one.  Each
  repetition records the action and voids it again (the void is not timed), so both
  tables stay where they are; every batch starts from a freshly built table, so the
  start table never grows a long log of its own, and the batches of the two tables
  alternate, so that a slow spell of the shared machine falls on both alike.  The ratio end/start says whether
  recording depends on the length of the night (goal <= 1.5).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.games.napalm import Declare, Phase, Showdown, Table  # noqa: E402
from companion.games.napalm import hand_history  # noqa: E402
from companion.games.napalm import rankings  # noqa: E402
from companion.games.napalm.cards import RANKS, SUITS, Card  # noqa: E402
from companion.games.napalm.rankings import CARDS_PER_STAGE  # noqa: E402

SEVEN = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]
DECK = [Card(rank, suit) for rank in RANKS for suit in SUITS]
HANDS = 150
REPLAY_RUNS = 21
BATCHES = 40
PER_BATCH = 50


def long_night(hands: int = HANDS, seed: int = 2026) -> Table:
    """``hands`` hands of 7 players, cards entered at every showdown."""
    rng = random.Random(seed)
    table = Table(SEVEN, "Ann")
    for _ in range(hands):
        deal = rng.sample(DECK, 7 * len(SEVEN))
        hand = (table.game_number, table.hand_number)
        while (table.game_number, table.hand_number) == hand:  # a game may end mid-hand
            if table.phase is Phase.DECLARE:
                kind = rng.choice(["nobody", "one", "dealer", "two", "two", "three"])
                if kind == "nobody":
                    table.declare([])
                elif kind == "one":
                    table.declare([rng.choice(SEVEN)])
                elif kind == "dealer":
                    table.declare([table.dealer])
                else:
                    table.declare(rng.sample(SEVEN, 2 if kind == "two" else 3))
            elif table.phase is Phase.CHALLENGE:
                others = [name for name in SEVEN if name != table.dealer]
                table.challenge(rng.sample(others, rng.choice([0, 0, 1, 2])))
            else:
                needed = CARDS_PER_STAGE[int(table.stage)]
                cards = {
                    name: "".join(str(c) for c in deal[7 * SEVEN.index(name) : 7 * SEVEN.index(name) + needed])
                    for name in table.yes
                }
                table.showdown(cards=cards)
    assert table.phase is Phase.DECLARE and int(table.stage) == 1
    return table


def describe(table: Table, text: str) -> str:
    records = table.live_records()
    showdowns = [r for r in records if isinstance(r.action, Showdown)]
    by_stage = {stage: sum(1 for r in showdowns if int(r.stage) == stage) for stage in (1, 2, 3)}
    assert all(r.action.cards is not None for r in showdowns)
    assert all(by_stage.values()), f"a stage without a showdown: {by_stage}"
    return (
        f"night: {len(table.players)} players, {HANDS} hands, {len(table.games)} games finished, "
        f"{len(records)} actions, {len(showdowns)} showdowns all with cards "
        f"(stage 1: {by_stage[1]}, stage 2: {by_stage[2]}, stage 3: {by_stage[3]}), "
        f"JSON {len(text.encode()) / 1024:.1f} KB"
    )


def time_replay(text: str) -> tuple[float, float]:
    """(cold first run, warm median) seconds for ``hand_history.loads``."""
    rankings._strength.cache_clear()
    start = time.perf_counter()
    hand_history.loads(text)
    cold = time.perf_counter() - start
    samples = []
    for _ in range(REPLAY_RUNS):
        start = time.perf_counter()
        hand_history.loads(text)
        samples.append(time.perf_counter() - start)
    return cold, statistics.median(samples)


def time_recording(*builds) -> list[float]:
    """Median seconds of one ``push`` of a stage-1 declaration, on tables made by each of ``builds``.

    The batches of the tables alternate (A, B, A, B, ...), so that a slow spell of this
    shared machine falls on both alike and the ratio between them stays fair.
    """
    action = Declare(("Ben", "Cat"))
    samples: list[list[float]] = [[] for _ in builds]
    for _ in range(BATCHES):
        for build, kept in zip(builds, samples):
            table = build()
            assert table.phase is Phase.DECLARE and int(table.stage) == 1
            before = table.position
            for _ in range(PER_BATCH):
                start = time.perf_counter()
                table.push(action)
                kept.append(time.perf_counter() - start)
                table.void()
            assert table.position == before
    return [statistics.median(kept) for kept in samples]


def main() -> None:
    table = long_night()
    text = hand_history.dumps(table)
    print(describe(table, text))
    actions = len(table.live_records())

    cold, warm = time_replay(text)
    print(
        f"replay from JSON (hand_history.loads): median {warm * 1000:.1f} ms over {REPLAY_RUNS} runs "
        f"({warm / actions * 1e6:.1f} us per action); first run, cold rankings cache: {cold * 1000:.1f} ms"
    )

    start, end = time_recording(lambda: Table(SEVEN, "Ann"), lambda: hand_history.loads(text).table)
    reps = BATCHES * PER_BATCH
    print(f"record one action at the start of a night: median {start * 1e6:.1f} us ({reps} reps)")
    print(f"record one action after {HANDS} hands ({len(table.log)} records): median {end * 1e6:.1f} us ({reps} reps)")
    print(f"ratio end/start: {end / start:.2f} (goal <= 1.5)")


if __name__ == "__main__":
    main()
