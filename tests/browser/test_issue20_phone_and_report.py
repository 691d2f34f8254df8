"""Issue 20: the player's phone and the report on a phone, at 360×740.

Seats and numbers are worked out by hand from RULES.md; lists are in seat order.
"""

from __future__ import annotations

import re

import pytest

from browser.phone import box_of, replace_players_link, start_night
from browser.test_accessibility import Axe

pytestmark = pytest.mark.browser


# --- item 7: a players' page that is no longer live says so at its top ---------------------------


def _says_so_at_the_top(player, note) -> None:  # type: ignore[no-untyped-def]
    """Scrolled to the foot of the page, the note is on the screen; at the top, it comes before
    the standings, on the first screen; the standings are marked as no longer live."""
    height = player.viewport_size["height"]
    player.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    player.wait_for_timeout(100)
    box = box_of(note)
    assert 0 <= box["y"] and box["y"] + box["height"] <= height, f"scrolled down, the note is off the screen: {box}"
    player.evaluate("window.scrollTo(0, 0)")
    player.wait_for_timeout(100)
    box, standings = box_of(note), box_of(player.locator("table.standings"))
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
    # the poll's path (a browser without EventSource): the pushed page's note is tests/browser/test_live_push.py's
    live_server.app.config["LIVE_PUSH"] = False
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
    replace_players_link(keeper)
    wait_until(note.is_visible, 15, "the note that the link was replaced")
    assert note.inner_text() == "This link was replaced: ask the scorekeeper for the new QR code."
    _says_so_at_the_top(player, note)
    axe.check(player, "players page link replaced")
    assert not axe.failures, "\n".join(axe.failures)
    problems.seen[:] = [p for p in problems.seen if not re.search(r"status of (404|503)|/live", p)]


# --- item 16: the report's first screen answers who pays whom; the audit is one tap away ----------


REPORT_NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def _play_two_games(live_server, keeper, t) -> None:  # type: ignore[no-untyped-def]
    """Two games of Napalm, ante 1, each left unfinished (its antes returned).

    Game 1, Ann deals (speaking order Ben, Cat, Dan, Eve, Ann).  Stage 1: Ben, Cat, Dan and
    Eve say Yes (the ante: pot 5, everyone -1); Ben wins: Cat, Dan and Eve each pay him the
    pot, 5: Ann -1, Ben -1 + 15 = 14, Cat -6, Dan -6, Eve -6.  Stage 2: Ann and Ben; Ann wins:
    Ben pays her 5: Ann 4, Ben 9.  The next game starts: game 1's pot of 5 goes back as
    antes, 1 each: Ann 5, Ben 10, Cat -5, Dan -5, Eve -5.
    Game 2, Ben deals.  Stage 1: Cat, Dan and Eve say Yes (ante: pot 5, everyone -1); Dan
    wins: Cat and Eve each pay him 5: Ann 4, Ben 9, Cat -11, Dan 4, Eve -11.  Left
    unfinished, its antes come back: Ann 5, Ben 10, Cat -10, Dan 5, Eve -10 (sum 0).
    """
    t.declare("Ben", "Cat", "Dan", "Eve")
    t.winner("Ben")
    t.declare("Ann", "Ben")
    t.winner("Ann")
    t.check(pot=5, dealer="Ann", net=[4, 9, -6, -6, -6], tokens=[0, 0, 0, 0, 0])
    with keeper.expect_navigation(wait_until="load"):
        keeper.get_by_role("link", name="Start the next game").click()
    with keeper.expect_navigation(wait_until="load"):
        keeper.get_by_role("button", name="Start this game").click()
    t.check(pot=0, dealer="Ben", net=[5, 10, -5, -5, -5], tokens=[0, 0, 0, 0, 0])
    t.declare("Cat", "Dan", "Eve")
    t.winner("Dan")
    t.check(pot=5, dealer="Ben", net=[4, 9, -11, 4, -11], tokens=[0, 0, 0, 0, 0])


#: each player's net for the night, worked out above, and at 0.25 € a chip
NETS = {"Ann": 5, "Ben": 10, "Cat": -10, "Dan": 5, "Eve": -10}
MONEY = {"Ann": "1.25 €", "Ben": "2.50 €", "Cat": "-2.50 €", "Dan": "1.25 €", "Eve": "-2.50 €"}


def test_the_reports_first_screen_is_who_pays_whom_and_the_audit_is_one_tap_away(
    live_server, new_phone, table_screen, shots, tmp_path
):
    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, REPORT_NAMES, tokens_to_win=5)
    t = table_screen(keeper, REPORT_NAMES)
    _play_two_games(live_server, keeper, t)
    with keeper.expect_navigation(wait_until="load"):
        keeper.locator("header nav").get_by_role("link", name="Report").click()
    height = keeper.viewport_size["height"]
    assert keeper.evaluate("window.scrollY") == 0

    # the payments square every net: what each receives less what each pays
    payments = keeper.locator("ol.payments li.payment").all()
    squared = {name: 0 for name in REPORT_NAMES}
    for li in payments:
        chips = int(li.get_attribute("data-chips") or "")
        squared[li.get_attribute("data-payer") or ""] -= chips
        squared[li.get_attribute("data-payee") or ""] += chips
    assert squared == NETS
    # …and they are on the first screen, each with its Mark paid, and so is every net
    for li in payments:
        mark = li.get_by_role("button", name="Mark paid")
        for what in (li, mark):
            box = box_of(what)
            assert box["y"] + box["height"] <= height, f"{li.inner_text()!r}: {box} below the first screen"
    for name, chips in NETS.items():
        row = keeper.locator(f'table.net-table tbody tr[data-player="{name}"]')
        assert row.locator("td").nth(0).inner_text().replace("−", "-") == (f"{chips:+d}" if chips else "0")
        assert row.locator("td").nth(1).inner_text().replace("−", "-") == MONEY[name]
        box = box_of(row)
        assert box["y"] + box["height"] <= height, f"{name}'s net {box} is below the first screen"
    shots(keeper, "report first screen")
    axe = Axe(shots)
    axe.check(keeper, "report, the audit closed")

    # the audit is there, closed: the page is not a long scroll
    audit = keeper.locator("details.audit")
    breakdown = keeper.locator("section.breakdown")
    assert audit.get_attribute("open") is None and breakdown.is_hidden()
    assert keeper.evaluate("document.documentElement.scrollHeight") < 2 * height
    # one tap opens it: each game, player by player with the charts, the unfinished pots
    audit.locator(":scope > summary").tap()
    assert audit.get_attribute("open") is not None
    for shown in (breakdown, keeper.locator("section.games-played"), keeper.locator("section.closing"),
                  keeper.locator("#chips-2 svg"), keeper.locator('article[data-player="Ben"] table.figures')):
        assert shown.is_visible()
    axe.check(keeper, "report, the audit open")
    assert not axe.failures, "\n".join(axe.failures)

    # a link to a player's chips (the players' page has one) opens the audit by itself
    keeper.goto(keeper.url.split("#")[0] + "#chips-3")
    assert keeper.locator("#chips-3").is_visible()

    # printed, the report keeps it all: the audit and each payment's why, shown without a tap;
    # no form, no summary to tap, no section left with its heading alone
    keeper.goto(keeper.url.split("#")[0])
    assert keeper.locator("details.audit").get_attribute("open") is None
    keeper.emulate_media(media="print")
    for shown in (breakdown, keeper.locator("section.games-played"), keeper.locator("section.closing"),
                  keeper.locator("#chips-2 svg"), keeper.locator("li.payment .why li").first):
        assert shown.is_visible()
    for hidden in (keeper.locator("details.audit > summary"), keeper.locator("li.payment .why > summary").first,
                   keeper.get_by_role("button", name="Mark paid").first, keeper.locator("section.count")):
        assert hidden.is_hidden()  # the chip count's section has only its form: not printed
    for heading in keeper.locator("main h2").all():
        if heading.is_visible():
            assert heading.evaluate("(h) => getComputedStyle(h).breakAfter") == "avoid"
    pdf = tmp_path / "report.pdf"
    keeper.pdf(path=str(pdf), format="A4")
    assert pdf.read_bytes().startswith(b"%PDF")
    shots(keeper, "report printed")


SEVEN = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]


def test_seven_players_six_payments_and_every_net_fit_the_reports_first_screen(
    live_server, new_phone, table_screen, shots
):
    """Seven players, Ann deals (speaking order Ben, Cat, Dan, Eve, Fay, Gus, Ann), ante 1.  Stage 1:
    everyone says Yes (the ante: pot 7, everyone −1); Ben wins: the six others each pay him the pot,
    7: Ben −1 + 6 × 7 = +41, everyone else −1 − 7 = −8.  The game is left unfinished, its antes come
    back (1 each): Ben +42, everyone else −7 (sum 0).  Settled: six payments, each of the six pays
    Ben 7 chips (7 × 0.25 = 1.75 €): the most payments seven players can need."""
    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, SEVEN, tokens_to_win=5)
    t = table_screen(keeper, SEVEN)
    t.declare(*SEVEN[1:], "Ann")
    t.winner("Ben")
    t.check(pot=7, dealer="Ann", net=[-8, 41, -8, -8, -8, -8, -8], tokens=[0, 0, 0, 0, 0, 0, 0])
    with keeper.expect_navigation(wait_until="load"):
        keeper.locator("header nav").get_by_role("link", name="Report").click()
    height = keeper.viewport_size["height"]
    payments = keeper.locator("ol.payments li.payment").all()
    assert sorted((li.get_attribute("data-payer"), li.get_attribute("data-payee"), li.get_attribute("data-chips"))
                  for li in payments) == [(name, "Ben", "7") for name in sorted(SEVEN[:1] + SEVEN[2:])]
    for li in payments:
        mark = li.get_by_role("button", name="Mark paid")
        assert "1.75 €" in li.inner_text()
        for what in (li, mark):
            box = box_of(what)
            assert box["y"] + box["height"] <= height, f"{li.inner_text()!r}: {box} below the first screen"
        assert box_of(mark)["height"] >= 44  # still a thumb's target
    for name in SEVEN:
        row = keeper.locator(f'table.net-table tbody tr[data-player="{name}"]')
        assert row.locator("td").nth(0).inner_text().replace("−", "-") == ("+42" if name == "Ben" else "-7")
        box = box_of(row)
        assert box["y"] + box["height"] <= height, f"{name}'s net {box} is below the first screen"
    shots(keeper, "report first screen, seven players")
    axe = Axe(shots)
    axe.check(keeper, "report of seven players, the audit closed")
    assert not axe.failures, "\n".join(axe.failures)
