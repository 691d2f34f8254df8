"""Issue 4: the players' page follows the table on its own, on another phone.

Seats Ann, Ben, Cat; Ann deals; ante 1 on every hand; 5 tokens win; a chip is
worth 0.25 €.  Expected numbers are worked out by hand from RULES.md; lists are
in seat order [Ann, Ben, Cat].
"""

from __future__ import annotations

import re

import pytest

from browser.phone import REPO, check_screen, start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]
#: The page polls every 0.8 s (checked below; 2 s before issue 14), so a change shows within
#: 0.8 s plus one round trip. The browser waits longer than that before it fails: on a loaded 2-core CI machine a
#: round trip can take a second or more, and a speed target belongs in bench/, not in a timed test.
POLL_EVERY_MS = 800
LIVE_WITHIN = 10.0


def test_the_players_page_asks_for_news_every_800_ms():
    script = (REPO / "static" / "app.js").read_text(encoding="utf-8")
    delays = {int(ms) for ms in re.findall(r"poll\(el, onChange, after\); \}, (\d+)\)", script)}
    assert delays == {POLL_EVERY_MS}


def net_of(page, name: str) -> str:
    return page.locator(f'table.standings tr[data-player="{name}"] td.net').inner_text().strip()


def test_the_players_page_follows_the_table_live(live_server, new_phone, table_screen, shots, wait_until):
    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, NAMES, tokens_to_win=5)
    t = table_screen(keeper, NAMES)
    keeper_url = keeper.url

    # The scorekeeper opens the share page and reads the players' link off it.
    keeper.get_by_role("link", name="Players' link").click()
    keeper.wait_for_url("**/share")
    assert keeper.locator("img.qr").evaluate("img => img.complete && img.naturalWidth > 0"), "the QR code did not load"
    shots(keeper, "share page")
    link = keeper.locator("p.link a").inner_text().strip()
    _, viewer_key = live_server.night_keys()
    assert link == f"{live_server.url}/p/{viewer_key}"
    assert keeper.locator("p.link a").get_attribute("href") == link
    keeper.get_by_role("link", name="Back to the table").click()
    keeper.wait_for_url(keeper_url)

    # Ben opens the link on his own phone; a second scorekeeper phone has the table open.
    player = new_phone().new_page()
    player.goto(link)
    check_screen(player, NAMES, pot=0, dealer="Ann", net=[0, 0, 0], tokens=[0, 0, 0])
    assert player.locator(".me-form").is_visible() and player.locator("section.mine").count() == 0
    shots(player, "players page")
    other_keeper = new_phone().new_page()
    other_keeper.goto(keeper_url)
    assert other_keeper.locator(".watch").is_hidden()
    # a mark that survives only as long as the page is not reloaded
    player.evaluate("window.sameDocument = true")

    # Hand 1, Ann deals; speaking order Ben, Cat, Ann.  Ben and Cat say Yes: the
    # ante makes the pot 3 and everyone -1.
    t.declare("Ben", "Cat")
    took = wait_until(
        lambda: player.locator(".status .pot").inner_text().strip() == "3",
        LIVE_WITHIN,
        "the players' page shows the new pot",
    )
    check_screen(player, NAMES, pot=3, dealer="Ann", net=[-1, -1, -1], tokens=[0, 0, 0])
    assert "Showdown between Ben, Cat" in player.locator("#live .prompt").inner_text()
    assert player.evaluate("window.sameDocument === true"), "the players' page reloaded instead of updating"
    shots(player, "players page after the yes")
    print(f"players' page updated {took:.2f} s after the scorekeeper recorded")
    # the other scorekeeper phone says the table changed, and shows it on a tap
    wait_until(lambda: other_keeper.locator(".watch").is_visible(), LIVE_WITHIN, "the other scorekeeper phone notices")
    shots(other_keeper, "other scorekeeper phone notices")
    with other_keeper.expect_navigation():
        other_keeper.get_by_role("link", name="Show it").click()
    check_screen(other_keeper, NAMES, pot=3, dealer="Ann", net=[-1, -1, -1], tokens=[0, 0, 0])

    # Cat wins the showdown: Ben, the one loser, pays Cat the pot, 3.
    # Ann -1; Ben -1 - 3 = -4; Cat -1 + 3 = 2.  Sum -3 = minus the pot.
    t.winner("Cat")
    wait_until(lambda: net_of(player, "Ben") == "-4", LIVE_WITHIN, "the players' page shows Ben's loss")
    check_screen(player, NAMES, pot=3, dealer="Ann", net=[-1, -4, 2], tokens=[0, 0, 0])
    assert player.evaluate("window.sameDocument === true")

    # "This is me": Ben picks his name.  His own line comes first, above the table,
    # with what he would pay if the night ended now: the unfinished game's pot of 3
    # goes back as antes, 1 each, so Ann 0, Ben -3, Cat +3: Ben pays Cat 3 chips,
    # 3 × 0.25 € = 0.75 €.  His net -4 chips is -1.00 €.
    player.get_by_label("This is me").select_option("Ben")
    with player.expect_navigation():
        player.get_by_role("button", name="Save").click()
    mine = player.locator("#live section.mine")
    assert mine.is_visible()
    assert player.evaluate(
        "() => { const m = document.querySelector('#live section.mine'), t = document.querySelector('#live table.standings');"
        " return !!(m.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING); }"
    ), "the player's own line is not above the standings"
    text = " ".join(mine.inner_text().split())
    assert "Ben: 0 tokens, -4 chips (-1.00 €)." in text, text
    assert "you pay 0.75 € (3 chips) to Cat." in text, text
    assert player.locator("table.standings tr.me").get_attribute("data-player") == "Ben"
    shots(player, "this is me")

    # Stage 2: Cat alone says Yes: a token to Cat.  The page updates on its own and
    # keeps Ben's line first.
    player.evaluate("window.sameDocument = true")
    t.declare("Cat")
    wait_until(
        lambda: player.locator('table.standings tr[data-player="Cat"] .tokens i.on').count() == 1,
        LIVE_WITHIN,
        "the players' page shows Cat's token",
    )
    check_screen(player, NAMES, pot=3, dealer="Ann", net=[-1, -4, 2], tokens=[0, 0, 1])
    assert player.evaluate("window.sameDocument === true")
    assert "Ben: 0 tokens, -4 chips" in " ".join(player.locator("#live section.mine").inner_text().split())
    assert "Stage 3" in player.locator("#live .prompt").inner_text()
    shots(player, "players page after a token")
