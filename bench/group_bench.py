"""The group across nights, measured: the tab's plan, the season table, the group's view and a tab payment.

Run from the project root:  .venv/bin/python bench/group_bench.py [--runs N] [--nights 200]

Two parts (issue 25):

1. The tab's plan (:func:`companion.group.tab.tab`, pure) over made-up
   :class:`~companion.group.nights.NightResult` values: a group of 15 members who all end
   with a debt or a credit (the exact fewest-payments search, the largest it takes) and one of
   30 (the greedy plan).  Each night seats 6 members with random nets that add up to zero, none
   of it paid, from a fixed seed; the seed's draw is kept only when every member ends with a
   balance and, at 15, no smaller group of balances adds up to zero (the plan needs 14
   payments: "worst-ish", as ``settle_bench.py``).  Checked every run: every amount is a
   Decimal and, for every member, their balance plus what the plan has them pay less what it
   has them receive is exactly zero; then the plan is paid through :func:`~companion.group.tab.pay`
   and the tab over the nights with those records is settled.
2. A group of ``--nights`` stored nights (200 by default: four years of Fridays), imported
   through the service as one group file (``companion-group/1``: 12 members; each night 4 to 7
   of them at Napalm, Nap and High Card, in euros at 0.10, 0.25 or 0.50 a chip; half the nights
   paid at the table, a quarter partly, a quarter not) into a fresh SQLite file
   (``synchronous=FULL``, as served), then:

   - ``group_view`` (the whole service view: members, every night as the group sees it, the
     season, the tab) cold, as a new process sees it (every night folded and reported anew:
     the process's caches emptied before each run); made anew from each night's result kept
     per version (:mod:`companion.service.group_nights`), as after a group command; and kept
     (the same group version and nights: one query to check the nights' versions);
   - the season table (:func:`companion.group.season.season`) and the tab over those nights
     alone (pure);
   - ``pay_tab``: a payment of the tab's plan, one at a time (the payer whose debt is spread
     over the most nights first), each clearing several nights (one ``tab_cleared`` event per
     night touched, in one unit of work), and the first ``group_view`` after it (only the
     nights the payment moved on are reported anew).

Speed goals live here, never in timed tests.  The group's pages under load (``/g/<key>``,
``/m/<key>``) are in ``load_bench.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from companion.group.members import Added, Members, members_from  # noqa: E402
from companion.group.nights import NightResult, Transfer  # noqa: E402
from companion.group.season import ALL_TIME, season  # noqa: E402
from companion.group.tab import Tab, TabPayment, pay, tab, with_cleared  # noqa: E402
from companion.money.amounts import to_money  # noqa: E402
from companion.money.settle import settle_up  # noqa: E402
from companion.night import file as nightfile  # noqa: E402

SEED = 20251124
#: the stored group's members; each night seats 4 to 7 of them
MEMBERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lea"]
FIRST_FRIDAY = datetime.date(2022, 1, 7)


def median_ms(call: Callable[[], object], runs: int, before: Callable[[], object] | None = None) -> float:
    """Median wall time of ``runs`` calls, in milliseconds (``before`` runs untimed before each)."""
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


# --- 1. the tab's plan, pure --------------------------------------------------------------------


def made_up_nights(size: int, count: int, rng: random.Random) -> tuple[Members, list[NightResult]]:
    """``count`` unpaid nights of a ``size``-member group, 6 seated a night, in euros at 0.25 a chip."""
    names = [f"member{i:02}" for i in range(size)]
    members = members_from([Added(n) for n in names])
    nights = []
    chip = Decimal("0.25")
    for i in range(count):
        seated = sorted(rng.sample(names, 6))
        chips = [rng.randint(-2000, 2000) for _ in range(5)]
        net = dict(zip(seated, [*chips, -sum(chips)]))
        planned = tuple(Transfer(p.payer, p.payee, to_money(p.chips, chip)) for p in settle_up(net))
        nights.append(NightResult(
            night_id=str(i + 1), date=FIRST_FRIDAY + datetime.timedelta(weeks=i), title=f"Night {i + 1}",
            currency="EUR", chip_value=chip, net=net, parts={n: {"Napalm": c} for n, c in net.items()},
            planned=planned,
        ))
    return members, nights


def worst_ish_group(size: int, count: int, rng: random.Random) -> tuple[Members, list[NightResult], Tab]:
    """A draw where every member ends with a balance; at 15 or fewer, one whose plan needs ``size - 1`` payments."""
    while True:
        members, nights = made_up_nights(size, count, rng)
        running = tab(nights, members)
        balances = running.balances.get("EUR", {})
        if len(balances) == size and (size > 15 or len(running.plan["EUR"]) == size - 1):
            return members, nights, running


def check_plan_clears(members: Members, nights: Sequence[NightResult], running: Tab) -> None:
    """Every member's balance cleared by the plan, exactly in Decimal; paying it settles the tab."""
    for unit, balances in running.balances.items():
        after = dict(balances)
        for payment in running.plan[unit]:
            assert isinstance(payment.amount, Decimal), payment
            after[payment.payer] += payment.amount  # the payer owed (negative): paying brings them up
            after[payment.payee] -= payment.amount
        assert all(isinstance(b, Decimal) and b == 0 for b in after.values()), after
    records = pay(nights, members, [p for plan in running.plan.values() for p in plan])
    assert tab(with_cleared(nights, records), members).settled, "the plan, paid, leaves something open"


def tab_plans(runs: int) -> None:
    rng = random.Random(SEED)
    print(f"the tab's plan (group.tab.tab over NightResults, unpaid nights of 6), median of {runs} runs")
    print(f"{'members':>7}  {'nights':>6}  {'path':<6}  {'payments':>8}  {'median ms':>9}  plan clears every balance")
    for size, count in ((15, 60), (30, 120)):
        members, nights, running = worst_ish_group(size, count, rng)
        check_plan_clears(members, nights, running)
        ms = median_ms(lambda: tab(nights, members), runs)
        path = "exact" if size <= 15 else "greedy"
        print(f"{size:>7}  {count:>6}  {path:<6}  {len(running.plan['EUR']):>8}  {ms:>9.2f}  "
              f"yes (Decimal, exact; paid through pay(), the tab is settled)")


# --- 2. a group of stored nights ----------------------------------------------------------------


def night_document(index: int, rng: random.Random) -> dict[str, Any]:
    """A night file of 4 to 7 members: a game of Napalm, one of Nap (the first four seats), one of High Card."""
    seated = set(rng.sample(MEMBERS, rng.randint(4, 7)))
    players = [m for m in MEMBERS if m in seated]
    stages = []
    for _ in range(rng.randint(8, 20)):
        yes = rng.sample(players, rng.choice([0, 1, 2, 2, 3]))
        stages.append({"yes": yes, "winners": [rng.choice(yes)]} if len(yes) >= 2 else {"yes": yes})
    four = players[:4]
    deals = [{"bidder": rng.choice(four), "bid": rng.randint(1, 4), "made": rng.random() < 0.6}
             for _ in range(rng.randint(3, 10))]
    pots = [{"pots": [{"winners": [rng.choice(players)]}]} for _ in range(rng.randint(3, 10))]
    return {
        "format": nightfile.FORMAT,
        "name": f"Friday {index + 1}",
        "players": players,
        "money": {"chip_value": rng.choice(["0.10", "0.25", "0.50"]), "currency": "EUR"},
        "games": [
            {"game": "napalm", "first_dealer": players[0], "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
             "stages": stages},
            {"game": "nap", "players": four, "first_dealer": four[1], "deals": deals},
            {"game": "pots", "rules": {"preset": "high_card"}, "deals": pots},
        ],
    }


def group_file(nights: int, seed: int = SEED) -> str:
    """A ``companion-group/1`` file of ``nights`` weekly nights: half paid at the table, a quarter partly, a quarter not."""
    rng = random.Random(seed)
    entries = []
    for i in range(nights):
        document = night_document(i, rng)
        payments = nightfile.replay_summary(nightfile.from_dict(document))["payments"]
        paid = payments if i % 4 < 2 else payments[:1] if i % 4 == 2 else []
        entries.append({"date": (FIRST_FRIDAY + datetime.timedelta(weeks=i)).isoformat(), "night": document,
                        "paid": [{"from": p["from"], "to": p["to"], "chips": p["chips"]} for p in paid]})
    return json.dumps({"format": "companion-group/1", "name": "Friday cards",
                       "members": [{"added": m} for m in MEMBERS], "nights": entries})


def stored_group(runs: int, nights: int) -> None:
    from sqlalchemy import select

    from companion import service as services
    from companion.db.models import Group, GroupNight, Night
    from companion.extensions import db
    from companion.service import store
    from table_bench import make_app

    text = group_file(nights)
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        with app.app_context():
            start = time.perf_counter()
            group_id = services.import_group(text).id
            imported = (time.perf_counter() - start) * 1000

            def fresh() -> Group:
                db.session.remove()  # as a new request: nothing held from the last one
                return db.session.get(Group, group_id)

            def night_versions() -> dict[int, int]:
                rows = db.session.execute(
                    select(Night.id, Night.version).join(GroupNight, GroupNight.night_id == Night.id)
                    .where(GroupNight.group_id == group_id)
                )
                return {night_id: version for night_id, version in rows}

            cold_runs = max(3, runs // 4)
            cold = median_ms(lambda: services.group_view(fresh()), cold_runs, store.clear_cache)
            view = services.group_view(fresh())
            kept_view = (f"group-view {ALL_TIME!r}", group_id)  # where group_view keeps it (store's derived values)
            anew = median_ms(lambda: services.group_view(fresh()), runs, lambda: store._derived.pop(kept_view))
            warm = median_ms(lambda: services.group_view(fresh()), runs)
            results = [k.result for k in view.nights]
            season_ms = median_ms(lambda: season(results, view.members), runs)
            tab_ms = median_ms(lambda: tab(results, view.members), runs)
            open_nights = len({o.night_id for o in view.tab.open.get("EUR", ())})
            payments_before = len(view.tab.plan.get("EUR", ()))

            # the tab paid, one payment of its plan at a time: the payer with the most nights open first
            paying, after_view, cleared = [], [], []
            for _ in range(min(runs, payments_before)):
                group = fresh()
                current = services.group_view(group)
                plan = current.tab.plan.get("EUR", ())
                if not plan:
                    break
                spread = {m: len({o.night_id for o in current.tab.open["EUR"] if o.member == m and o.amount < 0})
                          for m in current.members.names}
                payment = max(plan, key=lambda p: spread.get(p.payer, 0))
                before = night_versions()
                version = group.version
                db.session.remove()
                start = time.perf_counter()
                services.pay_tab(group_id, [payment], version, None)
                paying.append(time.perf_counter() - start)
                after = night_versions()
                cleared.append(sum(1 for n, v in after.items() if v != before[n]))
                start = time.perf_counter()
                services.group_view(fresh())
                after_view.append(time.perf_counter() - start)
            final = services.group_view(fresh())
            db.session.remove()
            db.engine.dispose()

    counted = len(view.nights)
    print(f"a group of {nights} stored nights ({counted} counted, {len(view.in_play)} in play), "
          f"{len(view.members.names)} members, SQLite (synchronous=FULL); imported as one group file in {imported:.0f} ms")
    print(f"group_view, cold (every night folded and reported anew): median {cold:.1f} ms ({cold_runs} runs)")
    print(f"group_view, made anew from the nights' results kept per version: median {anew:.2f} ms ({runs} runs)")
    print(f"group_view, kept (the same group version and nights): median {warm:.2f} ms ({runs} runs)")
    print(f"the season table over {counted} nights (group.season.season): median {season_ms:.2f} ms ({runs} runs)")
    print(f"the tab over {counted} nights, {open_nights} of them still open, {payments_before} payments "
          f"(group.tab.tab): median {tab_ms:.2f} ms ({runs} runs)")
    if paying:
        print(f"pay_tab, one payment of the plan: median {statistics.median(paying) * 1000:.1f} ms "
              f"({len(paying)} payments; nights cleared per payment: {', '.join(map(str, cleared))})")
        print(f"group_view, first after that payment (only the nights it moved on reported anew): "
              f"median {statistics.median(after_view) * 1000:.1f} ms ({len(after_view)} runs)")
    left = len(final.tab.plan.get("EUR", ()))
    print(f"the tab after those payments: {left} payment{'s' if left != 1 else ''} left in its plan")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="timed runs of each quick measure (default 21)")
    parser.add_argument("--nights", type=int, default=200, help="stored nights in the group (default 200)")
    args = parser.parse_args(argv)
    args.runs = min(max(args.runs, 3), 1001)
    args.nights = min(max(args.nights, 1), 2000)
    print(f"Python {sys.version.split()[0]}")
    tab_plans(args.runs)
    stored_group(args.runs, args.nights)


if __name__ == "__main__":
    main()
