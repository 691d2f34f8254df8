"""Issue 14: what got in the way of a new scorekeeper at a real game, each tapped at 360×740.

Seats and numbers are worked out by hand from RULES.md; lists are in seat order.
"""

from __future__ import annotations

import re

import pytest

from browser.phone import HURRIED_TAP_GUARD_MS, card_name, double_tap, replace_players_link, start_night, tap_spot

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


def test_after_a_card_error_the_address_is_the_tables_and_reload_sends_nothing(
    live_server, new_phone, table_screen, shots, problems
):
    page = new_phone().new_page()
    names = ["Ann", "Ben", "Cat"]
    start_night(page, live_server.url, names, tokens_to_win=5)
    t = table_screen(page, names)
    t.declare("Ben", "Cat")  # the ante: pot 3, everyone -1
    table_url = page.url.split("?")[0]
    t.open_cards()
    t.card_field("Ben").fill("As Kd")
    t.card_field("Cat").fill("Ks")
    with page.expect_navigation(wait_until="load") as navigation:
        page.get_by_role("button", name="Rank the cards").click()
    assert navigation.value is not None and navigation.value.status == 422
    shots(page, "card error")
    assert page.url.startswith(table_url + "?refused=") and "/cards" not in page.url
    assert "needs 2 cards for Cat, got 1" in page.locator("main").inner_text()
    assert t.card_field("Ben").input_value() == "As Kd" and t.card_field("Cat").input_value() == "Ks"
    posts: list[str] = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
    with page.expect_navigation(wait_until="load") as navigation:
        page.reload()
    assert navigation.value is not None and navigation.value.status == 422
    assert posts == []
    t.check(pot=3, dealer="Ann", net=[-1, -1, -1], tokens=[0, 0, 0])
    # opening the address afresh is the table, not a 405
    response = page.goto(page.url)
    assert response is not None and response.status != 405
    # the 422 page loads are the point of this test: Chromium logs each as a console error
    problems.seen[:] = [p for p in problems.seen if "status of 422" not in p]


def _events(live_server) -> int:  # type: ignore[no-untyped-def]
    from companion.extensions import db
    from companion.db.models import Event

    with live_server.app.app_context():
        return db.session.query(Event).count()


@pytest.mark.parametrize("gap_ms", [200, 300, 800])
def test_a_double_tap_on_nobody_said_yes_records_one_stage(live_server, new_phone, table_screen, gap_ms):
    page = new_phone().new_page()
    names = ["Ann", "Ben", "Cat"]
    start_night(page, live_server.url, names, tokens_to_win=5)  # filled faster than a person: guard off
    # The guard on from here on (the tests' default is off), at the hurried 3 s rather than the 1 s served: on a
    # loaded machine Chromium delivered an 800-ms second tap more than a second after the first (phone.py).  The
    # mechanism is the same; the served figure is the page's data-tap-guard (tests/web/test_tap_guard_served.py).
    live_server.app.config["TAP_GUARD_MS"] = HURRIED_TAP_GUARD_MS
    t = table_screen(page, names)
    page.reload()
    page.wait_for_timeout(HURRIED_TAP_GUARD_MS + 100)  # a person reads the first screen
    double_tap(page, page.get_by_role("button", name="Nobody said Yes"), gap_ms)
    t.shot(f"after a double tap {gap_ms} ms apart")
    assert "Stage 2" in t.prompt, t.prompt
    assert "/share" not in page.url and "/k/" in page.url
    assert _events(live_server) == 1
    # a deliberate tap once the screen has settled records as usual
    page.wait_for_function("() => !document.documentElement.hasAttribute('data-settling')")
    t.nobody()
    assert "Stage 3" in t.prompt
    assert _events(live_server) == 2


def test_without_javascript_a_double_tap_records_one_stage_and_says_why(live_server, new_phone, table_screen, problems):
    page = new_phone(javascript=False).new_page()
    names = ["Ann", "Ben", "Cat"]
    start_night(page, live_server.url, names, tokens_to_win=5)
    # The server measures from when it recorded the first tap; on a loaded CI machine the
    # first answer and the new screen's load can take most of a second, so the guard is
    # longer here than served (1000 ms) to keep the test about the mechanism, not the timing.
    live_server.app.config["TAP_GUARD_MS"] = 5000
    t = table_screen(page, names)
    page.wait_for_timeout(1100)
    button = page.get_by_role("button", name="Nobody said Yes")
    box = button.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    # the first tap records stage 1 and loads stage 2; the second lands on the new screen's
    # same button at once, as a double tap's second tap does when the server is quick
    with page.expect_navigation(wait_until="load"):
        tap_spot(page, x, y)
    assert "Stage 2" in t.prompt
    # (the first answer's message above the table moves the button down: tap where it is now)
    box = page.get_by_role("button", name="Nobody said Yes").bounding_box()
    page.wait_for_timeout(300)  # 300 ms after the first tap's answer: within the 900 ms guard
    with page.expect_navigation(wait_until="load") as second:
        tap_spot(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert second.value is not None and second.value.status == 409
    t.shot("no javascript double tap")
    assert _events(live_server) == 1
    assert "Stage 2" in t.prompt
    assert "not recorded" in t.flash
    problems.seen[:] = [p for p in problems.seen if "status of 409" not in p]


def _in_view_and_on_top(page, button) -> bool:  # type: ignore[no-untyped-def]
    """The button lies inside the 740-px-high screen and nothing covers its middle."""
    return button.evaluate(
        """(b) => { const r = b.getBoundingClientRect();
            if (r.top < 0 || r.bottom > window.innerHeight) return false;
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return hit === b || b.contains(hit); }"""
    )


def test_the_confirm_button_is_in_view_without_scrolling_with_seven_players(live_server, new_phone, table_screen):
    page = new_phone().new_page()
    names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]
    start_night(page, live_server.url, names, tokens_to_win=5)
    t = table_screen(page, names)
    # nobody scrolls (the screen may open a little scrolled, so that no tile runs under the
    # bar: issue 20, item 10), and the question is on the screen with the button
    assert page.locator("#ask").evaluate("(h) => h.getBoundingClientRect().top >= 0")
    assert _in_view_and_on_top(page, page.get_by_role("button", name="Record Yes"))
    t.declare("Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Ann")
    # ticking the first of the tied players: "Record tie" is in view
    page.locator("label.toggle", has=page.locator('input[name="winners"][value="Ben"]')).click()
    assert _in_view_and_on_top(page, page.get_by_role("button", name="Record tie"))
    t.open_cards()
    t.card_field("Ben").click()
    assert _in_view_and_on_top(page, page.get_by_role("button", name="Rank the cards"))
    t.shot("seven players rank the cards in view")


def test_a_players_page_that_stops_updating_says_so(live_server, new_phone, table_screen, problems, wait_until, shots):
    keeper = new_phone().new_page()
    names = ["Ann", "Ben", "Cat"]
    start_night(keeper, live_server.url, names, tokens_to_win=5)
    _, viewer_key = live_server.night_keys()
    # the poll's path (a browser without EventSource): the pushed page's note is tests/browser/test_live_push.py's
    live_server.app.config["LIVE_PUSH"] = False
    player = new_phone().new_page()
    player.goto("about:blank")
    # the time before the page's first update: the note names the last update, never earlier
    # (taken after the page loaded, a slow load across a minute's turn made the test fail)
    since = player.evaluate("(() => { const d = new Date(); return [d.getHours(), d.getMinutes()]; })()")
    player.goto(f"{live_server.url}/p/{viewer_key}")
    note = player.locator("p.stale")
    assert note.is_hidden()

    # the server is busy, then failing, then out of reach: "not updating since HH:MM"
    for answer in (
        lambda route: route.fulfill(status=429, body="busy"),
        lambda route: route.fulfill(status=503, body="down"),
        lambda route: route.abort(),
    ):
        player.route("**/live*", answer)
        wait_until(note.is_visible, 15, "the note that the page is not updating")
        text = note.inner_text()
        found = re.search(r"Not updating since (\d\d):(\d\d)", text)
        assert found, text
        assert (int(found.group(1)), int(found.group(2))) >= tuple(since), text
        player.unroute("**/live*")
        wait_until(note.is_hidden, 15, "the note going away once the page updates again")
    # the scorekeeper replaces the players' link: the old one answers 404 for good
    replace_players_link(keeper)
    wait_until(note.is_visible, 15, "the note that the link was replaced")
    assert note.inner_text() == "This link was replaced: ask the scorekeeper for the new QR code."
    shots(player, "players page link replaced")
    problems.seen[:] = [p for p in problems.seen if not re.search(r"status of (404|429|503)|/live|ERR_FAILED", p)]


def test_a_tie_takes_as_many_taps_as_tied_players_and_an_all_tie_one(live_server, new_phone, table_screen):
    page = new_phone().new_page()
    names = ["Ann", "Ben", "Cat", "Dan"]
    start_night(page, live_server.url, names, tokens_to_win=5)
    t = table_screen(page, names)
    # Hand 1, Ann deals.  Stage 1: Ben, Cat and Dan say Yes; the ante: pot 4, everyone -1.
    t.declare("Ben", "Cat", "Dan")
    t.check(pot=4, dealer="Ann", net=[-1, -1, -1, -1], tokens=[0, 0, 0, 0])
    # Ben and Dan tie: two taps.  Tap Dan's toggle, then Ben's button, which now says so.
    page.locator("label.toggle", has=page.locator('input[name="winners"][value="Dan"]')).click()
    button = page.locator('.winners button[data-name="Ben"]')
    assert button.inner_text() == "Ben tied with Dan"
    with page.expect_navigation(wait_until="load"):
        button.click()
    # Cat, the one loser, pays each winner the pot, 4: Ben -1 + 4 = 3, Dan 3, Cat -1 - 8 = -9.
    assert "Ben and Dan tied" in t.flash or "Ben, Dan tied" in t.flash or "tied for best" in t.flash, t.flash
    t.check(pot=4, dealer="Ann", net=[-1, 3, -9, 3], tokens=[0, 0, 0, 0])
    # Stage 2: Ann and Cat say Yes and tie: one tap; nothing changes hands.  Of two, a tie among some is
    # both: "Both tied", and no block to tick some of them (issue 35)
    t.declare("Ann", "Cat")
    assert page.locator("fieldset.tie").count() == 0
    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Both tied: nothing changes hands").click()
    assert "nothing changes hands" in t.flash
    t.check(pot=4, dealer="Ann", net=[-1, 3, -9, 3], tokens=[0, 0, 0, 0])
    assert "Stage 3" in t.prompt


def test_cards_shown_earlier_in_the_hand_are_filled_in_and_the_picker_says_whose_field_it_fills(
    live_server, new_phone, table_screen, shots
):
    page = new_phone().new_page()
    names = ["Ann", "Ben", "Cat"]
    start_night(page, live_server.url, names, tokens_to_win=5)
    t = table_screen(page, names)
    # Hand 1, Ann deals.  Stage 1: Ben and Cat say Yes (ante: pot 3, everyone -1).
    # Cards tapped on the picker: Ben A♠ A♥ (a pair) beats Cat K♠ Q♦; Cat pays Ben 3.
    t.declare("Ben", "Cat")
    t.open_cards()
    note = page.locator(".picking")
    assert note.inner_text() == "The cards you tap go to Ben (0 of 2)"
    picker = page.locator(".picker")
    for code in ("As", "Ah"):
        picker.get_by_role("button", name=card_name(code), exact=True).click()
    # Ben's field is full: the picker moved to Cat's by itself, and says so
    assert note.inner_text() == "The cards you tap go to Cat (0 of 2)"
    assert page.locator("label.cardfield.filling").inner_text().strip() == "Cat"
    # Ben's ace of spades cannot go to Cat too
    assert picker.get_by_role("button", name="Ace of spades", exact=True).is_disabled()
    for code in ("Ks", "Qd"):
        picker.get_by_role("button", name=card_name(code), exact=True).click()
    t.shot("stage 1 cards picked")
    t.rank_cards()
    t.check(pot=3, dealer="Ann", net=[-1, 2, -4], tokens=[0, 0, 0])
    # Stage 2: Ben and Cat again: their stage-1 cards are already in their fields (2 of 5),
    # and typed "A♠"-style cards are read as the picker shows them.
    t.declare("Ben", "Cat")
    t.open_cards()
    assert t.card_field("Ben").input_value() == "As Ah"
    assert t.card_field("Cat").input_value() == "Ks Qd"
    assert note.inner_text() == "The cards you tap go to Ben (2 of 5)"
    t.shot("stage 2 cards filled in")
    # Ben: A A 7 5 3 is no low at all next to Cat's K Q 8 4 2? Deuce-to-seven low: a pair
    # is worse than any no-pair hand, so Cat's K-Q-8-4-2 wins.  Ben pays Cat the pot, 3:
    # Ben 2 - 3 = -1, Cat -4 + 3 = -1.
    t.card_field("Ben").fill("A\u2660 A\u2665 7\u2663 5\u2666 3\u2660")
    t.card_field("Cat").fill("K\u2660 Q\u2666 8\u2663 4\u2666 2\u2665")
    t.rank_cards()
    assert "Cat won" in t.flash
    t.check(pot=3, dealer="Ann", net=[-1, -1, -1], tokens=[0, 0, 0])
