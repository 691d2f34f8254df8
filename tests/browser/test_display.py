"""Issue 39, part 1: the table display follows a keeper phone by push, and fits its screen without scrolling.

Seats Ann, Ben, Cat; Ann deals; ante 1 on every hand; a chip is 0.25 €.  Worked out by hand from RULES.md:
Ben and Cat say Yes, so each of the three antes 1 (pot 3, everyone -1); Cat wins the showdown and Ben, the one
loser, pays Cat the pot: Ann -1, Ben -4, Cat +2, the pot of 3 still in the middle.  Were the night to end now
the unfinished pot goes back to who paid it in (the form's default, antes returned): Ann 0, Ben -3, Cat +3,
settled by one payment, Ben to Cat 3 chips (0.75 €).

Then a mixed night: the scorekeeper starts Nap (the deal passes to Ben; stake 1, plain Nap), and Napalm closes
with its pot returned (Ann 0, Ben -3, Cat +3).  From RULES-NAP.md: Cat bids 2 and makes it, so each other player
pays Cat 2 × 1: Ann -2, Ben -5, Cat +7 for the night (sum 0), settled by Ann to Cat 2 chips (0.50 €) and Ben to
Cat 5 chips (1.25 €).  The display follows each change by push, in the same document.
"""

from __future__ import annotations

import re

import pytest

from browser.phone import Phone, guarded_double_tap, start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]
FITS = "[document.documentElement.scrollHeight, innerHeight, document.documentElement.scrollWidth, innerWidth]"
#: no panel of the board cuts what it shows (the standings, the pot, the settle-up): they fit, not just the page
PANELS_FIT = ("Array.from(document.querySelectorAll('.board > .head, .board > .status, .board > .players, .board > .settle'))"
              ".filter(e => e.scrollHeight > e.clientHeight + 1).map(e => e.className)")


def test_the_display_follows_a_keeper_phone_by_push_and_fits_landscape_and_portrait(
    live_server, new_phone, table_screen, shots, problems
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

    tv_screen = new_phone(viewport={"width": 1280, "height": 720}, is_mobile=False, has_touch=False)
    tv = tv_screen.new_page()
    tv.goto(display_url)
    assert tv.locator("#live").get_attribute("data-stream", timeout=2000).endswith("/stream")
    pot = tv.locator(".board .status .pot")
    expect(pot).to_have_text("0")
    tv.evaluate("window.sameDocument = true")  # gone if the page reloads

    t.declare("Ben", "Cat")  # on the keeper phone: antes 1 each, pot 3
    expect(pot).to_have_text("3")
    expect(tv.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-1")
    # the TV's Wi-Fi drops: it says it is not updating; the winner is recorded meanwhile; back online it catches up
    tv_screen.set_offline(True)
    expect(tv.locator(".stale")).to_contain_text("Not updating since")
    t.winner("Cat")
    tv_screen.set_offline(False)
    expect(tv.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-4")
    expect(tv.locator('table.standings tr[data-player="Cat"] td.net')).to_have_text("+2")
    expect(tv.locator('table.standings tr[data-player="Ann"] td.net')).to_have_text("-1")
    expect(tv.locator(".board .settle li")).to_have_text("Ben pays Cat 0.75 € (3 chips)")
    assert tv.evaluate("window.sameDocument === true"), "the display reloaded instead of being pushed to"

    expect(tv.locator(".stale")).to_be_hidden()

    # the server ends every open stream, as a restart does; the display comes back by itself
    from companion.web.plumbing import live_push

    live_push.hub_of(live_server.app).end_all()
    # the night goes on with Nap: the display follows the next game and its deal
    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Start the next game").click()
    keeper.locator("#pick-game").select_option("nap")
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Show its rules").click()
    assert keeper.locator("#first_dealer").input_value() == "Ben"  # the deal passed on
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Start this game").click()
    assert keeper.url == table_url
    expect(tv.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-3")  # Napalm's pot returned
    expect(tv.locator('table.standings tr[data-player="Ann"] td.net')).to_have_text("0")
    for name, value in (("bidder", "Cat"), ("bid", "2")):
        keeper.locator("label.toggle", has=keeper.locator(f'input[name="{name}"][value="{value}"]')).click()
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Made", exact=True).click()
    expect(tv.locator('table.standings tr[data-player="Ann"] td.net')).to_have_text("-2")
    expect(tv.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-5")
    expect(tv.locator('table.standings tr[data-player="Cat"] td.net')).to_have_text("+7")
    expect(tv.locator(".board .settle li")).to_have_text(
        ["Ann pays Cat 0.50 € (2 chips)", "Ben pays Cat 1.25 € (5 chips)"], ignore_case=False
    )
    assert tv.evaluate("window.sameDocument === true"), "the display reloaded instead of being pushed to"
    # the requests the dropped network failed are the drop's, not the app's
    problems.seen[:] = [p for p in problems.seen if "ERR_INTERNET_DISCONNECTED" not in p]

    # the screen is kept awake, or the display says it cannot be
    # (a browser that neither grants nor refuses within 3 s counts as one that cannot: evaluate has no timeout)
    held = tv.evaluate("""() => navigator.wakeLock ? Promise.race([navigator.wakeLock.request('screen').then(l => {
        l.release(); return true; }, () => false), new Promise(r => setTimeout(() => r(false), 3000))]) : false""")
    if not held:
        expect(tv.locator(".wake-note")).to_have_text("The screen may go dark: this browser cannot keep it awake")

    # a TV, a large TV, then a tablet in portrait; dark (the display's own), then a screen set to light
    for scheme in ("dark", "light"):
        tv.emulate_media(color_scheme=scheme)
        background = tv.evaluate("getComputedStyle(document.body).backgroundColor")
        red, green, blue = (int(n) for n in re.findall(r"\d+", background)[:3])
        assert (red + green + blue < 3 * 96) == (scheme == "dark"), (scheme, background)
        for width, height in ((1280, 720), (1920, 1080), (800, 1280)):
            tv.set_viewport_size({"width": width, "height": height})
            tv.wait_for_function(f"innerWidth === {width}")
            scroll_height, inner_height, scroll_width, inner_width = tv.evaluate(FITS)
            assert scroll_height <= inner_height and scroll_width <= inner_width, (scheme, width, height)
            assert tv.evaluate(PANELS_FIT) == [], (scheme, width, height)
            shots(tv, f"display {scheme} {width}x{height}")


def test_the_share_page_replaces_and_takes_back_the_display_link_and_the_open_display_says_so(
    live_server, new_phone, shots, problems
):
    """On the scorekeeper's phone (360×740): *Make a display link*, then *Make a new display link* while a TV shows
    the first (the TV says its link was replaced; the old link opens nothing), then *Take the display link back*,
    double-tapped: taken back once, and the share page offers a new one."""
    from playwright.sync_api import expect

    page = new_phone().new_page()
    start_night(page, live_server.url, NAMES, tokens_to_win=5)
    keeper = Phone(page, shots)
    keeper.link("Players' link · phones")
    keeper.button("Make a display link", "the display link made")
    first_url = page.locator(".display-link .link a").get_attribute("href")
    assert first_url and "/d/" in first_url

    tv = new_phone(viewport={"width": 1280, "height": 720}, is_mobile=False, has_touch=False).new_page()
    tv.goto(first_url)
    expect(tv.locator(".board .status .pot")).to_have_text("0")

    keeper.button("Make a new display link", "a new display link")
    assert "A new display link is ready; the old one no longer works." in keeper.main()
    second_url = page.locator(".display-link .link a").get_attribute("href")
    assert second_url and "/d/" in second_url and second_url != first_url
    assert page.request.get(first_url).status == 404
    assert page.request.get(second_url).status == 200
    # the TV's stream ended with its link; its next ask is a 404: it says so, in words
    expect(tv.locator(".stale")).to_have_text("This link was replaced: ask the scorekeeper for the new QR code.",
                                              timeout=15_000)

    take_back = page.get_by_role("button", name="Take the display link back")
    guarded_double_tap(page, live_server.app, take_back)
    shots(page, "the display link taken back, double-tapped")
    assert "The display link is taken back: the table display shows nothing now." in keeper.main(), keeper.main()
    assert page.get_by_role("button", name="Make a display link").is_visible()  # one tap makes a new one
    assert page.locator(".display-link .link a").count() == 0
    assert page.request.get(second_url).status == 404
    # the TV's asks of its replaced link (404) are the point of this test: Chromium logs each as a console error
    first_key = first_url.rsplit("/d/", 1)[1]
    problems.seen[:] = [p for p in problems.seen if not ("status of 404" in p and first_key in p)]
