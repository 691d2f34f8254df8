"""The pages kept across nights answered early, timed in-process: CPU per WSGI call (issue 22).

Run: .venv/bin/python bench/known_pages_bench.py [--calls 2000] [--group-nights 60] [--databases sqlite,postgresql]

The home page and ``/players/Ann`` of a browser that keeps score of 20 nights (load_bench.history, 7 players
each), and a group's organiser's page, members' page and season table for 2023 (group_bench.group_file, 60
nights by default), each opened once so that it is kept, then the same request (Chromium's Accept-Encoding,
the browser's cookie, Host 127.0.0.1) made ``calls`` times straight into the app's WSGI callable, with CSRF
on as served.  Printed per page: whether it was answered before Flask, and the median and best of 5 batches
of the process's CPU time per call (``time.process_time``: on PostgreSQL the server's own work for a read
is not in it, only the client's).  The server's share (socket, HTTP parsing; a bare hello's 60-120 µs under
the load bench) is in none of these figures.  PostgreSQL: database ``COMPANION_BENCH_DATABASE`` (default
``companion_known_bench``) on 127.0.0.1:5432, made anew.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from werkzeug.test import EnvironBuilder  # noqa: E402

from load_bench import PG_ADMIN, postgres_available  # noqa: E402  (the same server, asked the same way)

PG_DATABASE = os.environ.get("COMPANION_BENCH_DATABASE", "companion_known_bench")
ACCEPT = "gzip, deflate, br, zstd"  # what Chromium sends


def database_url(kind: str, tmp: str) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp}/bench.sqlite"
    for sql in (f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)", f"CREATE DATABASE {PG_DATABASE}"):
        subprocess.run([*PG_ADMIN, sql], check=True, capture_output=True)
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{PG_DATABASE}"


def run(kind: str, calls: int, group_nights: int) -> None:
    from companion import create_app
    from companion import service as services
    from companion.extensions import db
    from companion.web.early_pages import ANSWERED
    from group_bench import group_file
    from load_bench import history

    tmp = tempfile.mkdtemp()
    os.environ["COMPANION_INSTANCE_PATH"] = tmp
    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url(kind, tmp), "SECRET_KEY": "b" * 48})
    with app.app_context():
        db.create_all()
        keepers = [services.import_history(history(i + 1)).keeper_key for i in range(20)]
        group = services.import_group(group_file(group_nights))
        organiser, members = group.organiser_key, group.member_key
        db.session.remove()
    knowing = app.test_client()
    for key in keepers:
        assert knowing.get(f"/k/{key}").status_code == 200
    knowing.get("/")  # its CSRF secret in the cookie
    cookie = knowing.get_cookie("session").value  # type: ignore[union-attr]
    pages = [("home page, 20 nights", "/", True), ("/players/Ann, 20 nights", "/players/Ann", True),
             (f"organiser's page, {group_nights} nights", f"/g/{organiser}", False),
             (f"members' page, {group_nights} nights", f"/m/{members}", False),
             ("season table 2023", f"/g/{organiser}?period=2023", False)]

    def start_response(status, headers, exc_info=None):  # type: ignore[no-untyped-def]
        return None

    print(f"{kind}: mean CPU per WSGI call, µs (median / best of 5 batches of {calls // 5})")
    for name, path, knows in pages:
        browser = app.test_client()
        if knows:
            browser.set_cookie("session", cookie, domain="127.0.0.1")
        headers = {"Host": "127.0.0.1", "Accept-Encoding": ACCEPT}
        for _ in range(2):  # kept, and the cookie it sets held
            sent = dict(headers)
            held = browser.get_cookie("session", domain="127.0.0.1")
            if held is not None:
                sent["Cookie"] = f"session={held.value}"
            base, _, query = path.partition("?")
            environ = EnvironBuilder(path=base, query_string=query, headers=sent).get_environ()
            chunks = app.wsgi_app(dict(environ), start_response)
            b"".join(chunks)
            answer = browser.get(path, headers={"Host": "127.0.0.1", "Accept-Encoding": ACCEPT})
            assert answer.status_code == 200, (path, answer.status_code)
        probe = dict(environ)
        b"".join(app.wsgi_app(probe, start_response))

        def once() -> None:
            chunks = app.wsgi_app(dict(environ), start_response)
            b"".join(chunks)
            getattr(chunks, "close", lambda: None)()

        for _ in range(50):
            once()
        batches = []
        for _ in range(5):
            t0 = time.process_time()
            for _ in range(calls // 5):
                once()
            batches.append((time.process_time() - t0) / (calls // 5) * 1e6)
        early = "early" if probe.get(ANSWERED) else "Flask"
        print(f"  {name:34} {early:5}  {statistics.median(batches):7.1f} / {min(batches):7.1f}", flush=True)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    if kind == "postgresql":
        logging.getLogger("companion.db.change_watch").setLevel(logging.ERROR)  # its listener's connection, dropped
        subprocess.run([*PG_ADMIN, f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)"], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--group-nights", type=int, default=60)
    parser.add_argument("--databases", default="sqlite,postgresql")
    args = parser.parse_args()
    for kind in args.databases.split(","):
        if kind == "postgresql" and not postgres_available():
            print("postgresql: not reachable on 127.0.0.1:5432 as postgres, skipped")
            continue
        run(kind, args.calls, args.group_nights)


if __name__ == "__main__":
    main()
