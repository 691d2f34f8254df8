"""Issue 11: a night of two games of Napalm with different rules, started from the table, settled once.

Seats Ann, Ben, Cat, Dan; Ann deals first; ante 1 on every hand; 5 tokens win; a chip
is worth 0.25 €.  Every number below is worked out by hand from RULES.md:

Game 1: Ben and Cat say Yes (the ante: pot 4, everyone −1); Cat wins: Ben pays Cat the
pot, 4 (Ann −1, Ben −5, Cat +3, Dan −1); stage 2: Dan alone, a token.  The scorekeeper
starts the next game: Dan sits out, Ben deals (the hand in progress was Ann's), ante 2,
1 token wins.  Game 1 stops with its pot of 4 unfinished: each ante of 1 comes back, so
the night stands at Ann 0, Ben −4, Cat +4, Dan 0.  Game 2: Ann alone says Yes: antes 2
each (pot 6), her token wins it: Ann +4, Ben −2, Cat −2.  The night: Ann +4 (1.00 €),
Ben −6 (−1.50 €), Cat +2 (0.50 €), Dan 0; Ben pays Ann 4 and Cat 2.
"""

from __future__ import annotations

import pytest

from browser.phone import HURRIED_TAP_GUARD_MS, double_tap, open_audit, start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan"]
LIVE_WITHIN = 10.0  # seconds: a player's page polls every 2 s (a bound for a loaded machine, not a target)


def test_two_games_started_from_the_table_then_one_settle_up(live_server, new_phone, table_screen, shots, wait_until):
    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, NAMES, tokens_to_win=5)
    t = table_screen(keeper, NAMES)
    t.declare("Ben", "Cat")
    t.winner("Cat")
    t.declare("Dan")
    t.check(pot=4, dealer="Ann", net=[-1, -5, 3, -1], tokens=[0, 0, 0, 1])

    # Dan follows on his own phone
    _, viewer = live_server.night_keys()
    player = new_phone().new_page()
    player.goto(f"{live_server.url}/p/{viewer}")
    player.get_by_label("This is me").select_option("Dan")
    with player.expect_navigation():
        player.get_by_role("button", name="Save").click()
    player.evaluate("window.sameDocument = true")

    # the next game, from the table: untick Dan, change two rules, start it (a double tap)
    table_url = keeper.url
    # from here the screens guard against double taps as served (the tests' default is off)
    # (3 s, not the 1 s served: on a loaded machine the second tap can come a second late, see phone.py)
    live_server.app.config["TAP_GUARD_MS"] = HURRIED_TAP_GUARD_MS
    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Start the next game").click()
    assert keeper.locator("#first_dealer").input_value() == "Ben"  # the deal passed on
    assert keeper.locator('input[name="ante"]').input_value() == "1"  # the rules of the game before
    keeper.wait_for_timeout(HURRIED_TAP_GUARD_MS + 100)  # a person reads the new screen before tapping on it
    keeper.locator("label.toggle", has=keeper.locator('input[name="players"][value="Dan"]')).click()
    assert not keeper.locator('input[name="players"][value="Dan"]').is_checked()
    keeper.get_by_label("Ante (chips)").fill("2")
    keeper.get_by_label("Tokens to win").fill("1")
    shots(keeper, "next game")
    double_tap(keeper, keeper.get_by_role("button", name="Start this game"), 150)
    keeper.wait_for_url(table_url)  # the second tap was ignored, or resent the same start: the table
    live_server.app.config["TAP_GUARD_MS"] = 0  # the robot taps on faster than a person…
    keeper.wait_for_timeout(HURRIED_TAP_GUARD_MS + 100)  # …once this screen, served with the guard on, lets it
    shots(keeper, "second game at the table")
    assert "Tonight's 2nd game: Napalm" in keeper.locator(".status").inner_text()
    t.names = ["Ann", "Ben", "Cat"]
    t.check(pot=0, dealer="Ben", net=[0, -4, 4], tokens=[0, 0, 0])
    tonight = " ".join(keeper.locator("section.tonight").inner_text().split())
    assert "1st: Napalm · Ann 0, Ben -4, Cat +4, Dan 0" in tonight, tonight
    assert "Sitting this game out: Dan 0" in tonight, tonight
    with live_server.app.app_context():
        from companion.extensions import db
        from companion.db.models import Game

        assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 2  # one game, double tap or not

    # Dan's page follows the night into its second game without a reload
    wait_until(
        lambda: "Tonight's 2nd game" in player.locator("#live").inner_text(), LIVE_WITHIN, "the players' page follows"
    )
    mine = " ".join(player.locator("#live section.mine").inner_text().split())
    assert "Dan sits this game out: 0 chips tonight (0.00 €)." in mine, mine
    assert player.evaluate("window.sameDocument === true")
    shots(player, "players page in the second game")

    # game 2: Ann alone says Yes; her token wins the pot of 6
    t.declare("Ann")
    t.check(pot=0, dealer="Cat", net=[4, -6, 2], tokens=[0, 0, 0])

    # one settle-up for the night
    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Report").click()
    shots(keeper, "report of two games")
    payments = sorted(
        (li.get_attribute("data-payer"), li.get_attribute("data-payee"), li.get_attribute("data-chips"),
         li.locator(".amount").inner_text().strip())
        for li in keeper.locator("ol.payments li.payment").all()
    )
    assert payments == [("Ben", "Ann", "4", "1.00 €"), ("Ben", "Cat", "2", "0.50 €")], payments
    open_audit(keeper)  # how the payments were worked out: one tap
    text = " ".join(keeper.locator("main").inner_text().split())
    assert "1st game (Napalm), game 1" in text and "2nd game (Napalm), game 1" in text
