"""The table screen's first load, file by file: what a phone with nothing cached moves (issue 22).

Run: .venv/bin/python bench/first_load_bench.py   (prints plain lines; see bench/README.md)

A fresh night of six players, its table screen opened once: the HTML, every static file
the page names (stylesheet, script, manifest, icons), the service worker (/sw.js) and the
files of the app shell the worker keeps that the page did not already load.  Each is
printed with its raw bytes (as the browser holds it) and its gzip bytes (level 6, for
comparison: the static files are sent as they are; the HTML is sent compressed).
The goal is the raw bytes of the page, what it links and the service worker: at most 40 KB.
The worker then keeps the app shell, which adds the one icon the page did not load
(icon-512.png): printed last, apart.
"""

from __future__ import annotations

import gzip
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from table_bench import SIX, make_app  # noqa: E402  (one bench app)

GOAL_KB = 40


def first_load(client, url: str) -> list[tuple[str, bytes]]:  # type: ignore[no-untyped-def]
    """Each address a first load of ``url`` fetches, in order, with the body the browser gets."""
    html = client.get(url).get_data()
    addresses = [a.decode() for a in re.findall(rb'(?:href|src)="(/static/[^"]+)"', html)]
    worker = client.get("/sw.js").get_data()
    addresses.append("/sw.js")
    addresses += [a.decode() for a in re.findall(rb'"(/static/[^"]+)"', worker)]
    seen: set[str] = set()
    loaded = [(url, html)]
    for address in addresses:
        if address in seen:
            continue
        seen.add(address)
        loaded.append((address, worker if address == "/sw.js" else client.get(address).get_data()))
    return loaded


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        client = make_app(Path(tmp)).test_client()
        table_url = client.post(
            "/nights",
            data={
                **{f"seat_{i + 1}": n for i, n in enumerate(SIX)},
                "first_dealer": "1", "ante": "1", "ante_every": "1", "tokens_to_win": "99",
                "chip_value": "0.25", "currency": "EUR", "unfinished_pot": "return_antes",
            },
        ).headers["Location"]
        loaded = first_load(client, table_url)
    raw = zipped = 0
    for address, body in loaded:
        packed = len(gzip.compress(body, 6))
        raw += len(body)
        zipped += packed
        name = "table screen (HTML)" if address == table_url else address.split("?")[0]
        print(f"{name:34} {len(body) / 1024:6.1f} KB raw {packed / 1024:6.1f} KB gzip")
        if address == "/sw.js":
            linked = len(loaded[: loaded.index((address, body))])
            print(f"{'  the page and what it links':34} {(raw - len(body)) / 1024:6.1f} KB raw "
                  f"({linked} files, as table_bench.py counts)")
            print(f"{'  with the service worker':34} {raw / 1024:6.1f} KB raw {zipped / 1024:6.1f} KB gzip "
                  f"(goal <= {GOAL_KB} KB raw)")
    print(f"{'first load, with the shell kept':34} {raw / 1024:6.1f} KB raw {zipped / 1024:6.1f} KB gzip "
          f"({len(loaded)} files)")


if __name__ == "__main__":
    main()
