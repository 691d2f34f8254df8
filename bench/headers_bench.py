"""The security headers: the app's own hook against Flask-Talisman set up to send the same headers.

Run: .venv/bin/pip install flask-talisman && .venv/bin/python bench/headers_bench.py [--requests 4000] [--rounds 7]
     (Flask-Talisman is not one of the app's dependencies: without it this prints how to get it and exits)

Issue 37 asks for a headers extension where it replaces code of ours with the same behaviour, measured
first.  Three bare Flask apps of one route answer the same request through Flask's test client:

* ``bare``: no hook at all (the yardstick);
* ``ours``: the app's own hook, ``companion.web.plumbing.security.set_headers``, on a night's page (``/k/...``);
* ``talisman``: Flask-Talisman set up for the same headers it can send (the same CSP, ``DENY``, no
  referrer, ``nosniff``, no forced HTTPS, HSTS only over HTTPS, no Secure cookie on the LAN's plain
  HTTP), plus the hook the app would still need for what Talisman does not send: the
  Cross-Origin-Opener-Policy and the per-path ``Cache-Control: no-store`` and ``X-Robots-Tag``.

Each round times every app's requests back to back; printed: the median over the rounds of the
microseconds a request costs above the bare app, and the headers each sends (so that "the same
behaviour" can be read off, not assumed).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flask import Flask, Response  # noqa: E402

from companion.web.plumbing.security import CSP, HSTS, set_headers  # noqa: E402

PATH = "/k/abc/table"
#: the headers the app decides; Content-Type and Content-Length are Flask's own
DECIDED = ("Content-Security-Policy", "Referrer-Policy", "X-Content-Type-Options", "X-Frame-Options",
           "Cross-Origin-Opener-Policy", "Cache-Control", "X-Robots-Tag", "Strict-Transport-Security",
           "Permissions-Policy")


def bare_app() -> Flask:
    app = Flask("bare")
    app.add_url_rule("/k/<key>/table", "table", lambda key: "ok")
    return app


def ours() -> Flask:
    app = bare_app()
    app.after_request(set_headers)
    return app


def talisman() -> Flask:
    from flask_talisman import Talisman  # type: ignore[import-not-found]

    app = bare_app()
    policy = dict(part.strip().split(" ", 1) for part in CSP.split(";"))
    Talisman(app, force_https=False, frame_options="DENY", content_security_policy=policy,
             referrer_policy="no-referrer", strict_transport_security=True,
             strict_transport_security_max_age=int(HSTS.split("=")[1]), strict_transport_security_include_subdomains=False,
             session_cookie_secure=False, permissions_policy={})

    def rest(response: Response) -> Response:
        from flask import request

        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        if request.path.startswith(("/k/", "/p/", "/d/", "/g/", "/m/")):
            response.headers.setdefault("Cache-Control", "no-store")
            response.headers.setdefault("X-Robots-Tag", "noindex")
        return response

    app.after_request(rest)
    return app


def per_request(app: Flask, requests: int) -> float:
    client = app.test_client()
    started = time.perf_counter()
    for _ in range(requests):
        client.get(PATH)
    return (time.perf_counter() - started) / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    try:
        import flask_talisman  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        print("Flask-Talisman is not installed: .venv/bin/pip install flask-talisman, then run this again")
        return
    apps = {"bare": bare_app(), "ours": ours(), "talisman": talisman()}
    sent = {}
    for name, app in apps.items():
        response = app.test_client().get(PATH)
        sent[name] = {h: response.headers[h] for h in DECIDED if h in response.headers}
        print(f"{name:>9}: " + "; ".join(f"{h}: {v[:40]}" for h, v in sent[name].items()))
    print("the same headers, every value in full:", "yes" if sent["ours"] == sent["talisman"] else
          f"no: {set(sent['ours'].items()) ^ set(sent['talisman'].items())}")
    costs: dict[str, list[float]] = {name: [] for name in apps}
    for _ in range(args.rounds):
        for name, app in apps.items():
            costs[name].append(per_request(app, args.requests))
    bare = statistics.median(costs["bare"])
    print(f"bare Flask: {bare * 1e6:.1f} µs a request (median of {args.rounds} rounds of {args.requests:,})")
    for name in ("ours", "talisman"):
        extra = statistics.median(c - b for c, b in zip(costs[name], costs["bare"]))
        print(f"{name:>9}: +{extra * 1e6:.1f} µs a request over the bare app ({statistics.median(costs[name]) / bare:.2f}×)")


if __name__ == "__main__":
    main()
