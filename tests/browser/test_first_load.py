"""Issue 22: a phone's first load of the table screen moves each static file over the network once.

The service worker keeps the app shell for when the network is gone.  It used to fetch
the shell again by plain addresses (``/static/app.css``, never cached) right after the
page had loaded the same files by their fingerprinted ones: 78 KB on the wire instead
of 32 KB.  Now it asks for the very addresses the page loaded (immutable), which the
browser's cache answers.  The server counts what reaches it.
"""

from __future__ import annotations

from collections import Counter

import pytest

from browser.phone import start_night

pytestmark = pytest.mark.browser


def test_a_first_load_of_the_table_screen_moves_each_static_file_once(live_server, new_phone, shots):
    scorekeeper = new_phone().new_page()
    start_night(scorekeeper, live_server.url, ["Ann", "Ben", "Cat"], tokens_to_win=5, shots=shots)
    table_url = scorekeeper.url

    asked: Counter[str] = Counter()
    app = live_server.app
    inner = app.wsgi_app

    def counting(environ, start_response):  # type: ignore[no-untyped-def]
        if environ.get("PATH_INFO", "").startswith("/static/"):
            asked[environ["PATH_INFO"]] += 1
        return inner(environ, start_response)

    app.wsgi_app = counting  # type: ignore[method-assign]
    try:
        phone = new_phone().new_page()  # another phone, nothing cached: its first load
        phone.goto(table_url)
        # the service worker is installed (its shell kept) and active
        assert phone.evaluate("navigator.serviceWorker.ready.then(() => true)") is True
        kept = phone.evaluate(
            "caches.open('companion-shell-v1').then(c => c.keys()).then(r => r.map(q => new URL(q.url).pathname))"
        )
    finally:
        app.wsgi_app = inner  # type: ignore[method-assign]
    shell = {"/static/app.css", "/static/app.js", "/static/icon.svg", "/static/icon-192.png",
             "/static/icon-512.png", "/static/manifest.webmanifest"}
    assert set(kept) == shell  # kept for offline, each under its plain path
    assert asked["/static/app.css"] == 1 and asked["/static/app.js"] == 1
    assert all(count == 1 for count in asked.values()), asked  # nothing crossed the network twice
    assert set(asked) <= shell
