"""Issue 39, part 1: the table display follows a keeper phone by push, and fits its screen without scrolling.

Seats Ann, Ben, Cat; Ann deals; ante 1 on every hand; a chip is 0.25 €.  Worked out by hand from RULES.md:
Ben and Cat say Yes, so each of the three antes 1 (pot 3, everyone -1); Cat wins the showdown and Ben, the one
loser, pays Cat the pot: Ann -1, Ben -4, Cat +2, the pot of 3 still in the middle.  Were the night to end now
the unfinished pot goes back to who paid it in (the form's default, antes returned): Ann 0, Ben -3, Cat +3,
settled by one payment, Ben to Cat 3 chips (0.75 €).
"""

from __future__ import annotations

import pytest

from browser.phone import start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]
FITS = "[document.documentElement.scrollHeight, innerHeight, document.documentElement.scrollWidth, innerWidth]"
#: no panel of the board cuts what it shows (the standings, the pot, the settle-up): they fit, not just the page
PANELS_FIT = ("Array.from(document.querySelectorAll('.board > .head, .board > .status, .board > .players, .board > .settle'))"
              ".filter(e => e.scrollHeight > e.clientHeight + 1).map(e => e.className)")


def test_the_display_follows_a_keeper_phone_by_push_and_fits_landscape_and_portrait(
    live_server, new_phone, table_screen, shots
):
    from playwright.sync_api import expect

    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, NAMES, tokens_to_win=5)
    table_url = keeper.url
    t = table_screen(keeper, NAMES)
    # the scorekeeper keeps the table's screen awake: a choice this phone remembers
    box = keeper.get_by_label("Keep this screen awake")
    box.check()
    keeper.reload()
    expect(keeper.get_by_label("Keep this screen awake")).to_be_checked()

    # the share page makes the display's link, with its QR code
    keeper.get_by_role("link", name="Players' link · phones").click()
    with keeper.expect_navigation(wait_until="load"):
        keeper.get_by_role("button", name="Make a display link").click()
    expect(keeper.get_by_alt_text("QR code of the table display's link")).to_be_visible()
    display_url = keeper.locator(".display-link .link a").get_attribute("href")
    assert display_url and "/d/" in display_url
    keeper.goto(table_url)

    tv = new_phone(viewport={"width": 1280, "height": 720}, is_mobile=False, has_touch=False).new_page()
    tv.goto(display_url)
    assert tv.locator("#live").get_attribute("data-stream", timeout=2000).endswith("/stream")
    pot = tv.locator(".board .status .pot")
    expect(pot).to_have_text("0")
    tv.evaluate("window.sameDocument = true")  # gone if the page reloads

    t.declare("Ben", "Cat")  # on the keeper phone: antes 1 each, pot 3
    expect(pot).to_have_text("3")
    expect(tv.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-1")
    t.winner("Cat")
    expect(tv.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-4")
    expect(tv.locator('table.standings tr[data-player="Cat"] td.net')).to_have_text("+2")
    expect(tv.locator('table.standings tr[data-player="Ann"] td.net')).to_have_text("-1")
    expect(tv.locator(".board .settle li")).to_have_text("Ben pays Cat 0.75 € (3 chips)")
    assert tv.evaluate("window.sameDocument === true"), "the display reloaded instead of being pushed to"

    # the screen is kept awake, or the display says it cannot be
    held = tv.evaluate("""() => navigator.wakeLock ? navigator.wakeLock.request('screen').then(l => { l.release();
        return true; }, () => false) : false""")
    if not held:
        expect(tv.locator(".wake-note")).to_have_text("The screen may go dark: this browser cannot keep it awake")

    for width, height in ((1280, 720), (800, 1280)):  # a TV, then a tablet in portrait
        tv.set_viewport_size({"width": width, "height": height})
        tv.wait_for_function(f"innerWidth === {width}")
        scroll_height, inner_height, scroll_width, inner_width = tv.evaluate(FITS)
        assert scroll_height <= inner_height and scroll_width <= inner_width, (width, height)
        assert tv.evaluate(PANELS_FIT) == [], (width, height)
        shots(tv, f"display {width}x{height}")
