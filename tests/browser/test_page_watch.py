"""The harness itself: the page watch that the other browser tests rely on does see a CSP violation.

Without this, "no console errors" could pass because nothing was listening.
"""

from __future__ import annotations

import pytest

from browser.phone import CSP_PROBE, Problems

pytestmark = pytest.mark.browser


def test_the_page_watch_sees_a_csp_violation(live_server, browser, wait_until):
    context = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        context.add_init_script(CSP_PROBE)
        seen = Problems()
        context.on("page", seen.watch)
        page = context.new_page()
        page.goto(live_server.url + "/")
        assert page.evaluate("document.querySelector('script[src*=\"/app.js\"]') !== null")
        assert not seen.seen, seen.seen
        # An inline script and an image from elsewhere: the app's CSP blocks both.
        page.evaluate(
            """() => {
              const s = document.createElement("script"); s.textContent = "window.ran = true";
              document.body.appendChild(s);
              document.body.insertAdjacentHTML("beforeend", '<img src="http://192.0.2.1/x.png">');
            }"""
        )
        wait_until(lambda: len(seen.seen) >= 2, 3.0, "the watch reports the CSP violations")
        assert page.evaluate("window.ran === undefined"), "the inline script ran: no CSP?"
        text = "\n".join(seen.seen)
        assert "script-src" in text and "img-src" in text, text
    finally:
        context.close()
