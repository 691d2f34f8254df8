"""One process's memory and its garbage collector's pauses, serving many nights (issues 21 and 37).

Run: .venv/bin/python bench/memory_bench.py [--nights 120] [--events 100000]
     .venv/bin/python bench/memory_bench.py --mix [--ordinary 500] [--heavy 50] [--collector served|python]
                                            [--top]
     (prints plain lines; see bench/README.md and docs/reliability.md, "Memory ceiling")

The first mode (issue 21): each night is a file of 2,000 stages (the most ``/import`` takes),
imported from its own client address (``IMPORT_LIMIT`` counts per address, so addresses are
what a visitor would multiply), and then every page of it is opened: the scorekeeper's
screens, every page of its history, the players' pages, the report and its downloads.  Every
10 nights the process's resident memory (``VmRSS``) and the events behind its fold cache are
printed.  ``--events`` sets ``FOLD_CACHE_EVENTS`` (a huge value stands for the cache as it
was before issue 21, bounded by the number of nights alone).

``--mix`` (issue 37): one process serves ``--ordinary`` ordinary nights (a night of a few
games, as the group bench makes them: Napalm, Nap and High Card, 4 to 7 players) and
``--heavy`` nights of 2,000 stages, one heavy night after every ``ordinary / heavy``
ordinary ones; each night is imported from its own address and every page of it read as
above.  The process is set up as ``serve`` sets up a worker (``--collector served``: the app
loaded, then ``web.server.settle_garbage_collector``: start-up frozen, the collector's
thresholds) or with Python's own collector settings (``--collector python``).  Every
collection from the first night on is timed with ``gc.callbacks``: on the wall clock and in
the process's CPU time (``time.process_time``: steadier on a shared machine, where the wall
clock holds time the kernel gave the core to another process), by generation.  Printed:
RSS every 50 nights and at the end, the collections per generation (count, median, longest),
how many went over 50 ms, and the objects the collector tracks at the end by type.
``--top`` also traces allocations (``tracemalloc``: slower) and prints where what is still
held at the end was allocated.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
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
#: a collection longer than this is a pause a phone notices (issue 37's goal: none)
LONG_PAUSE = 0.050


def rss_mb() -> float:
    """This process's resident memory in MB (Linux: /proc/self/status)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


def heavy_only(nights: int, events: int) -> None:
    """Issue 21's mode: ``nights`` nights of 2,000 stages, RSS every 10."""
    data = night_at_the_bound()
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), FOLD_CACHE_EVENTS=events, IMPORT_LIMIT=20)
        client = app.test_client()
        print(f"FOLD_CACHE_EVENTS={events:,}; nights of {limits.MAX_STAGES:,} stages; "
              f"RSS at start {rss_mb():.0f} MB")
        started = time.perf_counter()
        for number in range(1, nights + 1):
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


class Collections:
    """Every collection's wall and process CPU time, by generation, from :meth:`start` on (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, float, float]] = []  # (generation, wall s, CPU s)
        self.longest: list[tuple[float, float, int, int]] = []  # the ten longest: (CPU s, wall s, generation, collected)
        self._at = (0.0, 0.0)
        self._on = False

    def start(self) -> None:
        self._on = True
        gc.callbacks.append(self._callback)

    def stop(self) -> None:
        self._on = False
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict) -> None:  # type: ignore[type-arg]
        if phase == "start":
            self._at = (time.perf_counter(), time.process_time())
        elif self._on:
            wall, cpu = time.perf_counter() - self._at[0], time.process_time() - self._at[1]
            self.seen.append((info["generation"], wall, cpu))
            self.longest = sorted([*self.longest, (cpu, wall, info["generation"], info["collected"])], reverse=True)[:10]

    def lines(self) -> list[str]:
        out = []
        for generation in (0, 1, 2):
            mine = [(wall, cpu) for gen, wall, cpu in self.seen if gen == generation]
            if not mine:
                out.append(f"  generation {generation}: none")
                continue
            walls = [w * 1000 for w, _ in mine]
            cpus = [c * 1000 for _, c in mine]
            out.append(f"  generation {generation}: {len(mine)} collections; wall median {statistics.median(walls):.2f} ms, "
                       f"longest {max(walls):.1f} ms; CPU median {statistics.median(cpus):.2f} ms, longest {max(cpus):.1f} ms; "
                       f"over 50 ms: {sum(w > 50 for w in walls)} wall, {sum(c > 50 for c in cpus)} CPU")
        walls = [w for _, w, _ in self.seen]
        cpus = [c for _, _, c in self.seen]
        if walls:
            out.append(f"  all: {len(walls)} collections, {sum(walls):.2f} s wall / {sum(cpus):.2f} s CPU in all; "
                       f"longest {max(walls) * 1000:.1f} ms wall, {max(cpus) * 1000:.1f} ms CPU; over 50 ms: "
                       f"{sum(w > LONG_PAUSE for w in walls)} wall, {sum(c > LONG_PAUSE for c in cpus)} CPU")
        out.append("  the longest in CPU time (generation, CPU / wall ms, objects collected): " + "; ".join(
            f"{gen}, {cpu * 1000:.0f} / {wall * 1000:.0f}, {collected:,}" for cpu, wall, gen, collected in self.longest))
        return out


def ordinary_night(index: int) -> bytes:
    """A night of three games (Napalm, Nap, High Card) for 4 to 7 players, as the group bench makes them."""
    from group_bench import night_document

    return json.dumps(night_document(index, random.Random(index))).encode()


def import_night(client, address: str, data: bytes) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    return import_from(client, address, data)


def freeze_survivors(phase: str, info: dict[str, int]) -> None:
    """``--collector served+freeze``: after each full collection, ``gc.freeze()`` what survived it.

    Measured, not shipped (bench/README.md, "Memory and the collector's pauses"): it halves a full
    collection, but what is alive at the freeze and dies later inside a cycle (a request in flight,
    a traceback) is never freed, a leak that grows with a server's uptime.
    """
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()


def mixed(ordinary: int, heavy: int, collector: str, top: bool, events: int) -> None:
    """Issue 37's mode: ``ordinary`` ordinary nights and ``heavy`` nights of 2,000 stages in one process."""
    if top:
        import tracemalloc

        tracemalloc.start(8)
    heavy_data = night_at_the_bound()
    every = max(1, ordinary // heavy) if heavy else ordinary + 1
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), IMPORT_LIMIT=1_000_000, FOLD_CACHE_EVENTS=events)
        client = app.test_client()
        client.get("/", headers=BROWSER)  # the app's first request: what it loads on first use is start-up's
        if collector in ("served", "served+freeze"):
            from companion.web.plumbing.server import settle_garbage_collector

            settle_garbage_collector()
        if collector == "served+freeze":
            gc.callbacks.append(freeze_survivors)
        print(f"FOLD_CACHE_EVENTS={events:,}, derived values {store.DERIVED_EVENTS_PER_EVENT} times that; "
              f"{ordinary} ordinary nights and {heavy} of {limits.MAX_STAGES:,} stages (one after every {every}); "
              f"collector {collector} (thresholds {gc.get_threshold()}, frozen {gc.get_freeze_count():,}); "
              f"RSS at start {rss_mb():.0f} MB", flush=True)
        at_start = gc.get_freeze_count()
        timed = Collections()
        timed.start()
        started = time.perf_counter()
        plan = []
        heavy_left = heavy
        for number in range(1, ordinary + 1):
            plan.append(("ordinary", number))
            if heavy_left and number % every == 0:
                plan.append(("heavy", heavy - heavy_left + 1))
                heavy_left -= 1
        plan += [("heavy", heavy - left + 1) for left in range(heavy_left, 0, -1)]
        peak = 0.0
        for served, (kind, number) in enumerate(plan, 1):
            address = f"10.{served // 62500}.{served // 250 % 250}.{served % 250 + 1}"
            data = heavy_data if kind == "heavy" else ordinary_night(number)
            keeper, viewer = import_night(client, address, data)
            stages = limits.MAX_STAGES if kind == "heavy" else 1
            for url in every_page(keeper, viewer, stages):
                response = client.get(url, environ_base={"REMOTE_ADDR": address}, headers=BROWSER)
                assert response.status_code in (200, 303), (url, response.status_code)
            peak = max(peak, rss_mb())
            if served % 50 == 0 or served == len(plan):
                folds, derived = store.cache_weight()
                walls = [w for _, w, _ in timed.seen]
                cpus = [c for _, _, c in timed.seen]
                print(f"{served:4d} nights ({kind} {number}): RSS {rss_mb():4.0f} MB; cache {len(store._cache)} folds, "
                      f"{folds:,} events, {derived:,} in derived values; collections {len(walls)}, longest "
                      f"{max(walls, default=0) * 1000:.0f} ms wall / {max(cpus, default=0) * 1000:.0f} ms CPU; "
                      f"{time.perf_counter() - started:.0f} s", flush=True)
        timed.stop()
        print(f"end: RSS {rss_mb():.0f} MB (highest seen after a night: {peak:.0f} MB); "
              f"{time.perf_counter() - started:.0f} s")
        print("collections while serving:")
        for line in timed.lines():
            print(line)
        if freeze_survivors in gc.callbacks:
            gc.callbacks.remove(freeze_survivors)
        walked = len(gc.get_objects())
        cpu, thread, wall = time.process_time(), time.thread_time(), time.perf_counter()
        gc.collect()
        print(f"a full collection by hand at the end, walking {walked:,} objects (not frozen): "
              f"{(time.process_time() - cpu) * 1000:.1f} ms process CPU, {(time.thread_time() - thread) * 1000:.1f} ms "
              f"this thread's, {(time.perf_counter() - wall) * 1000:.1f} ms wall")
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        print(f"frozen at the end: {frozen:,} objects (start-up's {at_start:,}); unfrozen and collected, "
              f"{gc.collect():,} were garbage (cycles frozen alive that died later: what freezing leaks); "
              f"RSS {rss_mb():.0f} MB")
        tracked = gc.get_objects()
        print(f"objects the collector tracks at the end (start-up's among them): {len(tracked):,}; by type: "
              + ", ".join(f"{name} {count:,}" for name, count in Counter(type(o).__name__ for o in tracked).most_common(12)))
        del tracked
        derived_kinds: Counter[str] = Counter()
        for (what, _night), _kept in list(store._derived._items.items()):
            derived_kinds[what.split("/")[0].split("(")[0]] += 1
        print("derived values kept, by kind: " + ", ".join(f"{k} {n}" for k, n in derived_kinds.most_common()))
        tracked_now = len(gc.get_objects())
        for name, forget in (("the folds", store._cache.clear), ("the derived values", store._derived.clear),
                             ("the pages kept across nights", app.extensions["companion_pages_across_nights"].clear),
                             ("the compressed bodies", lambda: [kept._map.clear() for kept in gc.get_objects()
                                                                 if type(kept).__name__ == "_Kept"])):
            forget()
            gc.collect()
            now = len(gc.get_objects())
            print(f"forgetting {name}: {tracked_now - now:,} tracked objects fewer; RSS {rss_mb():.0f} MB")
            tracked_now = now
        if top:
            import tracemalloc

            snapshot = tracemalloc.take_snapshot()
            print("held at the end, by where it was allocated (tracemalloc, top 15):")
            for stat in snapshot.statistics("traceback")[:15]:
                frames = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in list(stat.traceback)[:4])
                print(f"  {stat.size / 1024 / 1024:7.1f} MB in {stat.count:,} blocks: {frames}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=120, help="the first mode's nights of 2,000 stages")
    parser.add_argument("--events", type=int, default=store.FOLD_CACHE_EVENTS, help="FOLD_CACHE_EVENTS (first mode)")
    parser.add_argument("--mix", action="store_true", help="ordinary nights and heavy ones in one process (issue 37)")
    parser.add_argument("--ordinary", type=int, default=500)
    parser.add_argument("--heavy", type=int, default=50)
    parser.add_argument("--collector", choices=("served", "served+freeze", "python"), default="served")
    parser.add_argument("--top", action="store_true", help="trace allocations and print what is held at the end")
    parser.add_argument("--derived", type=int, default=store.DERIVED_EVENTS_PER_EVENT,
                        help="store.DERIVED_EVENTS_PER_EVENT (8: as before issue 37)")
    args = parser.parse_args()
    store.DERIVED_EVENTS_PER_EVENT = args.derived  # read when the app configures the cache
    if args.mix:
        mixed(args.ordinary, args.heavy, args.collector, args.top, args.events)
    else:
        heavy_only(args.nights, args.events)


if __name__ == "__main__":
    main()
