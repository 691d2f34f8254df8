"""Issue 20: the player's phone and the report on a phone, at 360×740.

Seats and numbers are worked out by hand from RULES.md; lists are in seat order.
"""

from __future__ import annotations

import re

import pytest

from browser.phone import start_night
from browser.test_accessibility import Axe

pytestmark = pytest.mark.browser


def _box(locator) -> dict[str, float]:  # type: ignore[no-untyped-def]
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not on the page"
    return box


# --- item 7: a players' page that is no longer live says so at its top ---------------------------


def _says_so_at_the_top(player, note) -> None:  # type: ignore[no-untyped-def]
    """Scrolled to the foot of the page, the note is on the screen; at the top, it comes before
    the standings, on the first screen; the standings are marked as no longer live."""
    height = player.viewport_size["height"]
    player.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    player.wait_for_timeout(100)
    box = _box(note)
    assert 0 <= box["y"] and box["y"] + box["height"] <= height, f"scrolled down, the note is off the screen: {box}"
    player.evaluate("window.scrollTo(0, 0)")
    player.wait_for_timeout(100)
    box, standings = _box(note), _box(player.locator("table.standings"))
    assert box["y"] + box["height"] <= standings["y"], f"the note {box} is not above the standings {standings}"
    assert box["y"] + box["height"] <= height
    live = player.locator("#live")
    assert "not-live" in (live.get_attribute("class") or "")
    assert live.get_attribute("aria-describedby") == note.get_attribute("id")
    # greyed (gains and losses no longer in colour), with a dashed amber edge
    assert live.evaluate("(e) => getComputedStyle(e).filter") == "grayscale(1)"
    assert live.evaluate("(e) => getComputedStyle(e).borderLeftStyle") == "dashed"


def test_a_replaced_or_stalled_players_page_says_so_at_the_top_and_its_standings_look_stale(
    live_server, new_phone, table_screen, problems, wait_until, shots
):
    keeper = new_phone().new_page()
    names = ["Ann", "Ben", "Cat", "Dan", "Eve"]
    start_night(keeper, live_server.url, names, tokens_to_win=5)
    t = table_screen(keeper, names)
    for _ in range(6):  # two hands nobody says Yes to: a page longer than the screen
        t.nobody()
    _, viewer_key = live_server.night_keys()
    player = new_phone().new_page()
    player.goto(f"{live_server.url}/p/{viewer_key}")
    player.get_by_label("This is me").select_option("Ben")
    with player.expect_navigation(wait_until="load"):
        player.get_by_role("button", name="Save").click()
    assert player.evaluate("document.body.scrollHeight") > 1.5 * 740
    note = player.locator("p.stale")
    assert note.is_hidden()
    assert "not-live" not in (player.locator("#live").get_attribute("class") or "")

    # the server fails: "Not updating since …", at the top; back to live when it answers again
    player.route("**/live*", lambda route: route.fulfill(status=503, body="down"))
    wait_until(note.is_visible, 15, "the note that the page is not updating")
    assert re.match(r"Not updating since \d\d:\d\d", note.inner_text())
    _says_so_at_the_top(player, note)
    axe = Axe(shots)
    axe.check(player, "players page not updating")
    player.unroute("**/live*")
    wait_until(note.is_hidden, 15, "the note going away once the page updates again")
    assert "not-live" not in (player.locator("#live").get_attribute("class") or "")

    # the scorekeeper replaces the players' link
    keeper.goto(keeper.url + "/share")
    keeper.get_by_label("Replace a link").select_option("viewer")
    with keeper.expect_navigation(wait_until="load"):
        keeper.get_by_role("button", name="Make a new link").click()
    wait_until(note.is_visible, 15, "the note that the link was replaced")
    assert note.inner_text() == "This link was replaced: ask the scorekeeper for the new QR code."
    _says_so_at_the_top(player, note)
    axe.check(player, "players page link replaced")
    assert not axe.failures, "\n".join(axe.failures)
    problems.seen[:] = [p for p in problems.seen if not re.search(r"status of (404|503)|/live", p)]
