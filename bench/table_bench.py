"""The scorekeeper's table, measured: taps per hand, page weight, and server time per stage.

Run: .venv/bin/python bench/table_bench.py   (prints plain lines; see bench/README.md)

- Taps: one full hand for 6 players with one showdown per stage, played through the
  real forms; a tap is a toggle ticked or a button pressed (every control on the
  table screen is one or the other).
- Page weight: the table screen's HTML plus every asset it loads (CSS, JS, icon,
  manifest), raw and gzip-compressed.
- Server time: recording one stage (POST, redirect not followed) at the start of a
  night and at the end of a 150-hand night, median of many runs; the ratio says
  whether recording slows down as the night grows.
"""

from __future__ import annotations

import gzip
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion import service as services
from companion import create_app  # noqa: E402
from companion.extensions import db  # noqa: E402
from companion.games.napalm import Phase, Table  # noqa: E402
from companion.games.napalm import hand_history  # noqa: E402
from pages import TablePage  # noqa: E402

SIX = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


def make_app(tmp: Path, **extra: object):
    """The app every bench drives: SQLite in ``tmp`` with ``synchronous=FULL`` as served, CSRF off,
    no tap guard (a bench taps faster than a person: companion/web/plumbing/tap_guard.py); ``extra`` config on top."""
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "bench-secret-key-long-enough-for-the-benchmark",
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp / 'bench.sqlite'}",
            "WTF_CSRF_ENABLED": False,
            "TAP_GUARD_MS": 0,
            **extra,
        }
    )
    with app.app_context():
        db.create_all()
    return app


def long_night(hands: int = 150, seed: int = 7) -> str:
    """A night of ``hands`` hands for 6 players, with a showdown at most stages."""
    rng = random.Random(seed)
    table = Table(SIX, "Ann", None)
    played = 0
    while played < hands:
        start_hand = (table.game_number, table.hand_number)
        while (table.game_number, table.hand_number) == start_hand:
            if table.phase is Phase.DECLARE:
                yes = rng.sample(SIX, rng.choice([0, 2, 2, 3]))
                table.declare(yes)
            elif table.phase is Phase.CHALLENGE:
                table.challenge([])
            else:
                table.showdown(winners=[rng.choice(table.yes)])
        played += 1
    return hand_history.dumps(table)


def count_taps(page: TablePage) -> int:
    taps = 0
    for _stage in range(3):
        page.declare("Ben", "Cat")  # two toggles and "Record Yes"
        taps += 3
        page.winner("Cat")  # one button
        taps += 1
    return taps


def page_weight(client, url: str) -> tuple[int, int, list[str]]:
    html = client.get(url).get_data()
    assets = re.findall(rb'(?:href|src)="(/static/[^"]+)"', html)
    bodies = [html] + [client.get(a.decode()).get_data() for a in assets]
    raw = sum(len(b) for b in bodies)
    zipped = sum(len(gzip.compress(b)) for b in bodies)
    return raw, zipped, [a.decode() for a in assets]


def time_action(page: TablePage, action: str, data: dict[str, object], runs: int) -> float:
    """Median seconds of the POST that records ``action`` with ``data`` (then undone, so the table stays put)."""
    samples = []
    for _ in range(runs):
        stamp = page.stamp(action)
        start = time.perf_counter()
        response = page.client.post(f"{page.url}/{action}", data={**stamp, **data})
        samples.append(time.perf_counter() - start)
        assert response.status_code == 303, response.status_code
        page.refresh()
        page.undo()
    return statistics.median(samples)


def time_recording(page: TablePage, runs: int) -> float:
    """Median seconds to record a stage (a lone Yes, declared then undone)."""
    return time_action(page, "declare", {"yes": ["Ben"], "confirm": "1"}, runs)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        client = app.test_client()
        response = client.post(
            "/nights",
            data={
                **{f"seat_{i + 1}": n for i, n in enumerate(SIX)},
                "first_dealer": "1", "ante": "1", "ante_every": "1", "tokens_to_win": "99",
                "chip_value": "0.25", "currency": "EUR", "unfinished_pot": "return_antes",
            },
        )
        page = TablePage(client, response.headers["Location"])
        print(f"taps for one hand, 6 players, one showdown per stage: {count_taps(page)} (goal <= 12)")
        raw, zipped, assets = page_weight(client, page.url)
        print(f"table screen weight: {raw / 1024:.1f} KB raw, {zipped / 1024:.1f} KB gzip "
              f"(HTML + {len(assets)} assets; goal <= 40 KB)")

        with app.app_context():
            night = services.import_history(long_night())
            long_url = f"/k/{night.keeper_key}"
            events = night.version
        fresh = TablePage(client, client.post("/nights", data={
            **{f"seat_{i + 1}": n for i, n in enumerate(SIX)},
            "first_dealer": "1", "ante": "1", "ante_every": "1", "tokens_to_win": "99",
            "chip_value": "0.25", "currency": "EUR", "unfinished_pot": "return_antes",
        }).headers["Location"])
        long_page = TablePage(client, long_url)
        runs = 101
        start_median = time_recording(fresh, runs)
        end_median = time_recording(long_page, runs)
        print(f"record a stage at the start of a night: median {start_median * 1000:.2f} ms ({runs} runs)")
        print(f"record a stage after 150 hands ({events} events): median {end_median * 1000:.2f} ms ({runs} runs)")
        print(f"ratio end/start: {end_median / start_median:.2f}")
        from companion.db.models import Night

        rebuilds = []
        for _ in range(7):  # one cold rebuild is at the mercy of a garbage collection: take the median
            services.clear_cache()
            with app.app_context():
                start = time.perf_counter()
                services.table_for(db.session.get(Night, night.id))
                rebuilds.append(time.perf_counter() - start)
        print(
            "rebuild that night's fold from the event log (cold cache): "
            f"median {statistics.median(rebuilds) * 1000:.1f} ms (7 runs)"
        )


if __name__ == "__main__":
    main()
