"""Issue 14: what got in the way of a new scorekeeper at a real game, each tapped at 360×740.

Seats and numbers are worked out by hand from RULES.md; lists are in seat order.
"""

from __future__ import annotations

import re

import pytest

from browser.phone import start_night

pytestmark = pytest.mark.browser


def _seats(form) -> list[str]:  # type: ignore[no-untyped-def]
    return [form.get_by_label(f"Seat {i}", exact=True).input_value() for i in range(1, 5)]


def test_the_up_arrow_moves_a_seat_up_on_the_home_page_and_on_the_setup_page(live_server, new_phone, shots):
    page = new_phone().new_page()
    page.goto(live_server.url + "/")
    form = page.locator("form.night")
    for seat, name in enumerate(["Ann", "Ben", "Cat"], start=1):
        form.get_by_label(f"Seat {seat}", exact=True).fill(name)
    # ↑ beside seat 3 swaps Cat with Ben; the night is not started
    with page.expect_navigation(wait_until="load"):
        form.get_by_role("button", name="move seat 3 up").click()
    shots(page, "home after up")
    assert "/k/" not in page.url
    form = page.locator("form.night")
    assert _seats(form) == ["Ann", "Cat", "Ben", ""]
    with page.expect_navigation(wait_until="load"):
        form.get_by_role("button", name="move seat 2 up").click()
    form = page.locator("form.night")
    assert _seats(form) == ["Cat", "Ann", "Ben", ""]
    with page.expect_navigation(wait_until="load"):
        form.get_by_role("button", name="Start the night").click()
    assert re.search(r"/k/[A-Za-z0-9_-]{40,}$", page.url)
    assert [r.get_attribute("data-player") for r in page.locator("table.standings tbody tr").all()] == [
        "Cat", "Ann", "Ben"
    ]

    # the same on "Change seats and rules": ↑ moves, it does not save
    page.get_by_role("link", name="Change seats and rules").click()
    page.wait_for_load_state()
    form = page.locator("form.night")
    with page.expect_navigation(wait_until="load"):
        form.get_by_role("button", name="move seat 3 up").click()
    shots(page, "setup after up")
    assert page.url.endswith("/setup") or "/setup" in page.url
    assert _seats(page.locator("form.night")) == ["Cat", "Ben", "Ann", ""]
    assert "Setup saved" not in page.locator("main").inner_text()
