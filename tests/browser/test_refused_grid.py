"""Issue 21, item 4 on a 360×740 phone: a refused Bonus Round grid, every cell at its longest.

The refusal's page used to get what was typed from the session cookie: a 6×6 grid of
40-character names in Japanese made it 8,347 bytes, Chromium dropped it, and the page
came back with no message and an empty grid.  Now the cookie holds a token: the page
says why and shows the 36 names as typed.
"""

from __future__ import annotations

import pytest

from browser.phone import Phone, start_night
from browser.test_accessibility import Axe, forgive_error_status

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan"]


def long_name(cell: int) -> str:
    """A game's name at its longest, 40 characters, in a script the old cookie spelled \\uXXXX:
    different ideographs in each cell (the old cookie was compressed: repeats would shrink it)."""
    return "".join(chr(0x4E00 + (cell * 40 + i) * 37 % 20_000) for i in range(40))


def test_a_refused_grid_of_long_names_comes_back_with_its_reason_and_every_name(live_server, new_phone, shots, problems):
    phone = new_phone()
    page = phone.new_page()
    start_night(page, live_server.url, NAMES, tokens_to_win=5)
    table_url = page.url
    page.goto(table_url + "/bonus")
    taps = Phone(page, shots)
    taps.tap(page.get_by_role("link", name="Fill a 6×6 grid (two dice)"), "bonus grid")
    names = {f"{r}-{c}": long_name(r * 6 + c) for r in range(1, 7) for c in range(1, 7)}
    for label, name in names.items():
        page.locator(f'input[name="cell_{label}"]').fill(name)
    page.get_by_label("Anti-bonus cells: the dealer pays everyone").fill("9-9")  # no such cell
    page.locator('input[name="anti_chips"]').fill("2")
    with page.expect_navigation(wait_until="load") as navigation:
        page.get_by_role("button", name="Save the grid").tap()
    assert navigation.value is not None and navigation.value.status == 422
    forgive_error_status(problems, 422)  # the refusal is the point here
    Axe(shots).check(page, "bonus grid refused")
    assert "Not saved" in page.locator(".flash.warn").first.inner_text()
    assert "9-9" in page.locator(".flash.warn").first.inner_text()
    for label, name in names.items():
        assert page.locator(f'input[name="cell_{label}"]').input_value() == name, label
    session = next(c for c in phone.cookies() if c["name"] == "session")
    assert len(session["name"]) + len(session["value"]) < 4096
    assert table_url.rsplit("/", 1)[-1] not in session["value"]
