"""Each kind of kept page a phone opens, answered before Flask and by Flask, timed in-process (issue 22).

Run: .venv/bin/python bench/early_pages_bench.py [calls]   (prints plain lines; see bench/README.md)

A night of 150 hands for 6 players (table_bench.long_night) is imported into a fresh SQLite file,
with CSRF on as served.  Each page of a kind registered in companion/web/early_pages.py is opened once
by a browser (so it is kept and the browser holds its cookie), then the same request (Accept-Encoding:
gzip, deflate, the browser's cookie) is made ``calls`` times (2,000 by default) straight into the
app's WSGI callable: once through the whole app (the page answered before Flask) and once to the
callable behind that middleware (Flask's own path: context, routing, session, CSRF, hooks).  The mean
time per call is printed, and a bare WSGI hello-world's called the same way: the server's own cost
(socket, HTTP parsing; some 90-120 µs a request under the load bench) is in none of these figures.
"""

from __future__ import annotations

import sys
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from werkzeug.test import EnvironBuilder  # noqa: E402

from companion import service as services  # noqa: E402
from companion.extensions import db  # noqa: E402
from companion.web.early_pages import ANSWERED  # noqa: E402
from table_bench import long_night, make_app  # noqa: E402

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000


def hello(environ, start_response):  # type: ignore[no-untyped-def]
    start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "2")])
    return [b"ok"]


def per_call_us(wsgi, environ: dict) -> float:  # type: ignore[no-untyped-def,type-arg]
    def start_response(status, headers, exc_info=None):  # type: ignore[no-untyped-def]
        return None

    def once() -> None:
        chunks = wsgi(dict(environ), start_response)
        b"".join(chunks)
        getattr(chunks, "close", lambda: None)()

    once()
    return timeit.timeit(once, number=CALLS) / CALLS * 1e6


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), WTF_CSRF_ENABLED=True)
        with app.app_context():
            night = services.import_history(long_night())
            keeper, viewer = night.keeper_key, night.viewer_key
        early = app.extensions["companion_early_pages"]
        pages = [
            ("players' page", f"/p/{viewer}"),
            ("players' report", f"/p/{viewer}/report"),
            ("table screen", f"/k/{keeper}"),
            ("keeper's report", f"/k/{keeper}/report"),
            ("history", f"/k/{keeper}/history"),
            ("bank page", f"/k/{keeper}/bank"),
            ("players' CSV", f"/p/{viewer}/report.csv"),
            ("report.json", f"/k/{keeper}/report.json"),
            ("night file", f"/k/{keeper}/export.json"),
            ("home page", "/"),
            ("Ann's page", "/players/Ann"),
        ]
        browser = app.test_client()
        browser.get(f"/k/{keeper}")  # the scorekeeper's phone: its cookie holds the night and a CSRF secret
        hello_us = per_call_us(hello, EnvironBuilder(path="/hello").get_environ())
        print(f"a night of {night.version} events; mean of {CALLS} WSGI calls each, in-process, one thread")
        print(f"{'page':18} {'Flask µs':>9} {'early µs':>9} {'faster':>7}")
        print(f"{'hello-world':18} {hello_us:9.1f}")
        for name, path in pages:
            assert browser.get(path, headers={"Accept-Encoding": "gzip, deflate"}).status_code == 200
            headers = {"Host": "localhost", "Accept-Encoding": "gzip, deflate"}
            cookie = browser.get_cookie("session")
            if cookie is not None:
                headers["Cookie"] = f"session={cookie.value}"
            base, _, query = path.partition("?")
            environ = EnvironBuilder(path=base, query_string=query, headers=headers).get_environ()
            probe = dict(environ)
            app.wsgi_app(probe, lambda *a: None)
            assert probe.get(ANSWERED), f"{name}: not answered early"
            flask_us, early_us = per_call_us(early.wsgi_app, environ), per_call_us(app.wsgi_app, environ)
            print(f"{name:18} {flask_us:9.1f} {early_us:9.1f} {flask_us / early_us:6.1f}x")
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


if __name__ == "__main__":
    main()
