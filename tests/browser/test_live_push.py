"""Issue 37, item 1: the players' page follows the table by push (Server-Sent Events), and comes back
after the network drops.

Seats Ann, Ben, Cat; Ann deals; ante 1 on every hand.  Expected numbers worked out by hand from
RULES.md: Ben and Cat say Yes, so each of the three antes 1 (pot 3, everyone -1); Cat wins the
showdown, Ben, the one loser, pays Cat the pot: Ann -1, Ben -4, Cat +2.
"""

from __future__ import annotations

import re

import pytest

from browser.phone import start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]


def test_the_players_page_shows_each_tap_by_push_and_recovers_after_the_network_drops(
    live_server, new_phone, table_screen, problems, shots
):
    from playwright.sync_api import expect

    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, NAMES, tokens_to_win=5)
    t = table_screen(keeper, NAMES)
    _, viewer_key = live_server.night_keys()

    ben = new_phone()
    player = ben.new_page()
    player.goto(f"{live_server.url}/p/{viewer_key}")
    assert player.locator("#live").get_attribute("data-stream") == f"/p/{viewer_key}/stream"
    pot = player.locator(".status .pot")
    expect(pot).to_have_text("0")
    player.evaluate("window.sameDocument = true")  # gone if the page reloads

    t.declare("Ben", "Cat")  # the scorekeeper taps on the other phone: pot 3
    expect(pot).to_have_text("3")
    expect(player.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-1")
    assert player.evaluate("window.sameDocument === true"), "the page reloaded instead of being pushed to"
    shots(player, "pushed")

    # Ben's phone loses the network: the page says it is no longer live, and keeps what it showed
    ben.set_offline(True)
    stale = player.locator("#stale-note")
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("Not updating since")
    expect(player.locator("#live")).to_have_class(re.compile(r"\bnot-live\b"))
    shots(player, "offline")
    t.winner("Cat")  # recorded while Ben's phone is offline
    ben.set_offline(False)
    # back online: the stream opens again and brings what changed meanwhile, without a reload
    expect(player.locator('table.standings tr[data-player="Ben"] td.net')).to_have_text("-4")
    expect(player.locator('table.standings tr[data-player="Cat"] td.net')).to_have_text("+2")
    expect(stale).to_be_hidden()
    expect(player.locator("#live")).not_to_have_class(re.compile(r"\bnot-live\b"))
    assert player.evaluate("window.sameDocument === true")
    shots(player, "back online")
    # the requests the dropped network failed are the drop's, not the app's
    problems.seen[:] = [p for p in problems.seen if "ERR_INTERNET_DISCONNECTED" not in p]
