"""Flat with the night (issue 22): every page and recording a stage at 10 stages and at about 2,000.

Run: .venv/bin/python bench/growth_bench.py [--actions 40] [--stages 1950]

In one process through Flask's test client (SQLite with ``synchronous=FULL`` and the
garbage collector settled as served, no network), two nights where nobody ever says Yes (``tests/reliability/heavy_nights``),
imported: one of 10 stages and one of ``--stages`` (1,950: the longest a game can be
while leaving room for the stages recorded here; 2,000 is the bound).  ``--actions``
times, on each night in turn: record a stage ("Nobody said Yes", the POST), then open
every page once (the first request after the action, which makes the page anew for the
new version) and once more (the page as kept).  Printed: p50 / p95 per row per night, the ratio of the
long night's p95 to the short one's (the goal: <= 1.5) and of their p50s (steadier on a
shared machine: what grows with the night shows there first).

Then the cold first page: a new Python process on the same database file, the app
created, times its first table screen and its first report of the long night (what a
worker restarted in the middle of a night pays once; goal <= 50 ms for the table), bare
and as ``serve`` starts a worker (``web.server.warm_up``: templates compiled, the newest nights
folded, before the first request).
"""

from __future__ import annotations

import argparse
import re
import secrets
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from companion.web.plumbing.server import settle_garbage_collector  # noqa: E402
from reliability.heavy_nights import import_from, night_at_the_bound  # noqa: E402
from table_bench import make_app  # noqa: E402

VERSION = re.compile(r'name="version"[^>]*value="(\d+)"')
PAGES = {
    "table screen": "/k/{k}",
    "report": "/k/{k}/report",
    "history, first page": "/k/{k}/history",
    "bank page": "/k/{k}/bank",
    "export.json": "/k/{k}/export.json",
    "report.csv": "/k/{k}/report.csv",
    "report.json": "/k/{k}/report.json",
    "players' page": "/p/{p}",
    "players' report": "/p/{p}/report",
    "players' poll (200)": "/p/{p}/live",
}
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(client, nights: dict[int, tuple[str, str]], actions: int) -> dict[int, dict[str, list[float]]]:  # type: ignore[no-untyped-def]
    """Each row's times on each night, the nights taking turns action by action.

    In turns, so that a burst of the machine's other load (this is a shared machine) falls on
    both nights alike, as the load bench interleaves its rounds: measured one night after the
    other, a burst during one night's half moved the p95 ratio by 0.5 either way.
    """
    times: dict[int, dict[str, list[float]]] = {}
    urls: dict[int, dict[str, str]] = {}
    for stages, (keeper, viewer) in nights.items():
        times[stages] = {"record a stage (POST)": []}
        for name in PAGES:
            times[stages][f"{name}, first after it"] = []
            times[stages][f"{name}, kept"] = []
        urls[stages] = {name: path.format(k=keeper, p=viewer) for name, path in PAGES.items()}
        for url in urls[stages].values():
            client.get(url, headers=BROWSER)  # the pages as this process keeps them before the first action
    for _ in range(actions):
        for stages, (keeper, _) in nights.items():
            version = VERSION.search(client.get(f"/k/{keeper}").get_data(as_text=True)).group(1)
            form = {"version": version, "request_key": secrets.token_urlsafe(16), "nobody": "Nobody said Yes"}
            start = time.perf_counter()
            response = client.post(f"/k/{keeper}/declare", data=form)
            times[stages]["record a stage (POST)"].append(time.perf_counter() - start)
            assert response.status_code == 303, response.status_code
            for label in ("first after it", "kept"):
                for name, url in urls[stages].items():
                    start = time.perf_counter()
                    page = client.get(url, headers=BROWSER)
                    times[stages][f"{name}, {label}"].append(time.perf_counter() - start)
                    assert page.status_code == 200, (url, page.status_code)
    return times


COLD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
    from table_bench import make_app
    from pathlib import Path
    app = make_app(Path({tmp!r}))
    client = app.test_client()
    if {served}:  # as ``serve`` starts a worker: templates compiled, the newest nights folded
        from companion.web.plumbing.server import warm_up
        with app.app_context():
            warm_up(app)
    for path in ("/k/{k}", "/k/{k}/report"):
        start = time.perf_counter()
        status = client.get(path, headers={{"Accept-Encoding": "gzip, deflate, br, zstd"}}).status_code
        print(f"{{(time.perf_counter() - start) * 1000:.1f}}", status)
    """
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=40)
    parser.add_argument("--stages", type=int, default=1950)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        client = app.test_client()
        nights = {}
        for number, stages in enumerate((10, args.stages), start=1):
            nights[stages] = import_from(client, f"127.0.0.{number}", night_at_the_bound(stages))
        # as ``serve`` leaves a worker before its first request: what start-up made out of the collector's
        # reach, its thresholds raised (web.server.settle_garbage_collector); with Python's defaults, a collection
        # of the older generations, walking the long night's fold, fell on one request in a few
        settle_garbage_collector()
        results = measure(client, nights, args.actions)
        short, long = results[10], results[args.stages]
        print(f"{args.actions} stages recorded on each night; in-process, SQLite; ms")
        print(f"{'':44} {'10 stages p50/p95':>20} {f'{args.stages} stages p50/p95':>22} {'p95 ratio':>10} "
              f"{'p50 ratio':>10}")
        for row in short:
            a, b = short[row], long[row]
            print(f"{row:44} {pct(a, .5) * 1000:9.2f} / {pct(a, .95) * 1000:7.2f} "
                  f"{pct(b, .5) * 1000:11.2f} / {pct(b, .95) * 1000:7.2f} {pct(b, .95) / pct(a, .95):10.2f} "
                  f"{pct(b, .5) / pct(a, .5):10.2f}")
        for served in (False, True):
            script = COLD.format(root=str(ROOT), bench=str(ROOT / "bench"), tmp=tmp, k=nights[args.stages][0],
                                 served=served)
            how = "started as serve starts it" if served else "bare (nothing warmed)"
            for attempt in range(3):
                out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
                table, report = (line.split()[0] for line in out.stdout.splitlines())
                print(f"cold worker, {how}, {attempt + 1}: first table screen {table} ms, then first report "
                      f"{report} ms ({args.stages + args.actions} stages)")


if __name__ == "__main__":
    main()
