"""Issue 21, item 14: the scorekeeper's tap that never arrives (the table's Wi-Fi drops for a few seconds).

The network goes in Chromium (Playwright's offline mode) just before the scorekeeper taps.
The table screen must say at once that the tap was not sent, stay as it was with the same
request key, send the tap by itself when the network is back, and record it once.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from browser.phone import double_tap, start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]


def recorded_with(live_server, request_key: str) -> int:  # type: ignore[no-untyped-def]
    """How many events the database holds under this form's request key."""
    from companion.extensions import db
    from companion.db.models import Event

    with live_server.app.app_context():
        return db.session.scalar(select(func.count(Event.id)).where(Event.request_key == request_key))


def the_form_key(page) -> str:  # type: ignore[no-untyped-def]
    form = page.locator("form", has=page.get_by_role("button", name="Nobody said Yes"))
    return form.locator('input[name="request_key"]').input_value()


def test_a_tap_with_the_network_gone_is_kept_on_the_screen_and_sent_once_when_it_is_back(
    live_server, new_phone, shots, problems, wait_until
):
    context = new_phone()
    page = context.new_page()
    start_night(page, live_server.url, NAMES, tokens_to_win=5, shots=shots)
    table_url = page.url
    key = the_form_key(page)

    # the Wi-Fi drops; the scorekeeper taps "Nobody said Yes", twice in a hurry as thumbs do
    context.set_offline(True)
    double_tap(page, page.get_by_role("button", name="Nobody said Yes"), 150)
    note = page.locator(".unsent")
    seconds = wait_until(note.is_visible, 1, "the note that the tap was not sent")
    shots(page, "tap not sent")
    assert note.get_attribute("role") == "alert"
    assert note.inner_text().startswith("Not sent: no network."), note.inner_text()
    # the screen is the one tapped: same address, same stage, same request key, nothing recorded
    assert page.url == table_url
    assert the_form_key(page) == key
    assert "Nobody said Yes" in page.get_by_role("button", name="Nobody said Yes").inner_text()
    assert recorded_with(live_server, key) == 0

    # a few seconds later the network is back: the tap goes by itself and the next screen shows
    page.wait_for_timeout(2500)
    assert recorded_with(live_server, key) == 0  # nothing went while offline
    with page.expect_navigation(wait_until="load", timeout=10_000):
        context.set_offline(False)
    shots(page, "sent when the network came back")
    assert page.url == table_url
    assert page.locator(".unsent").count() == 0
    assert not page.locator(".flash.warn, .errors").all_inner_texts()
    # recorded once: one event with that key, and the screen has moved on (version 1, a new key)
    assert recorded_with(live_server, key) == 1
    assert the_form_key(page) != key
    print(f"\nthe tap was said not sent {seconds:.2f} s after it; recorded once when the network came back")
    # the table's own poll ("another phone recorded") failed while offline: expected, not a fault
    problems.seen[:] = [p for p in problems.seen if not re.search(r"ERR_INTERNET_DISCONNECTED", p)]


def test_a_server_out_of_reach_while_the_phone_thinks_it_is_online_keeps_the_tap_until_one_more_tap(
    live_server, new_phone, problems, wait_until
):
    """The Wi-Fi is up but the server cannot be reached (the phone went to mobile data, the
    router dropped it): the browser still says it is online, so the screen asks the server first."""
    context = new_phone()
    page = context.new_page()
    start_night(page, live_server.url, NAMES, tokens_to_win=5)
    table_url = page.url
    key = the_form_key(page)
    page.route("**/healthz", lambda route: route.abort("connectionrefused"))
    page.get_by_role("button", name="Nobody said Yes").click()
    wait_until(page.locator(".unsent").is_visible, 2, "the note that the tap was not sent")
    assert (page.url, the_form_key(page), recorded_with(live_server, key)) == (table_url, key, 0)
    # the server answers again; one more tap (or the retry, whichever comes first) sends it, once
    page.unroute("**/healthz")
    with page.expect_navigation(wait_until="load", timeout=10_000):
        page.get_by_role("button", name="Nobody said Yes").click()
    assert recorded_with(live_server, key) == 1
    assert the_form_key(page) != key
    assert not page.locator(".flash.warn, .errors").all_inner_texts()
    problems.seen[:] = [p for p in problems.seen if not re.search(r"/healthz|ERR_CONNECTION_REFUSED", p)]
