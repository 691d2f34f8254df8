"""Issue 23: the report of a Nap night and of a pot-game night, tapped on a 360×740 phone, in their games' words.

Each night is started on the home page with its game as the first game and played by tapping
the table's controls; then the scorekeeper's report, the players' report and the downloads are
read.  Every figure is worked out by hand:

* **Pool Nap**, stake 1, seats Ann, Ben, Cat, Dan, Ann deals first (RULES-NAP.md).  Deal 1: a
  new pool, 2 from each of the four (8); Cat bids 2 and makes it: 2 from each other player.
  Deal 2, Ben deals and adds 2 (pool 10); Dan bids Nap and makes it: 10 from each other player,
  and the pool of 10.  Ann −2 − 2 − 10 = −14, Ben −4 − 2 − 10 = −16, Cat −2 + 6 − 10 = −6,
  Dan −2 − 2 + 30 + 10 = +36.  Pair by pair, Ben pays Dan 14: 10 in bids, and the 4 he paid
  into the pool Dan took.
* **High Card**, ante 1, seats Ann, Ben, Cat, Ann deals (RULES-POKER.md).  Deal 1: pot 3, Ben
  wins it.  Deal 2 (Ben deals): pot 3, nobody wins: carried, and the night ends there, each
  ante of 1 going back.  Ann −2 + 1 = −1, Ben −2 + 3 + 1 = +2, Cat −1.
"""

from __future__ import annotations

import pytest

from browser.phone import open_audit
from browser.test_accessibility import Axe, open_every_details

pytestmark = pytest.mark.browser

MINUS = "\u2212"
#: what no page of a night without Napalm may say (issue 23)
NAPALM_WORDS = ("token", "side bet", "side_bet", "hand history")


def text_of(page, selector: str = "main") -> str:  # type: ignore[no-untyped-def]
    return " ".join(page.locator(selector).inner_text().split())


def read_net(page) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {
        row.get_attribute("data-player") or "": int(row.locator("td.net").inner_text().strip().replace(MINUS, "-"))
        for row in page.locator("table.standings tbody tr").all()
    }


def tap(page, button) -> None:  # type: ignore[no-untyped-def]
    with page.expect_navigation(wait_until="load") as navigation:
        button.tap()
    assert navigation.value is not None and navigation.value.status == 200, text_of(page)[:800]
    assert not page.locator(".errors, .flash.warn").all_inner_texts(), text_of(page)[:800]


def tap_toggle(page, name: str, value: str) -> None:  # type: ignore[no-untyped-def]
    box = page.locator(f'input[name="{name}"][value="{value}"]')
    page.locator("label.toggle", has=box).tap()
    assert box.is_checked(), f"{name}={value} is not ticked after a tap"


def fill_seats(page, name: str, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    form = page.locator("form.night")
    form.get_by_label("Name of the night").fill(name)
    for seat, player in enumerate(names, start=1):
        form.get_by_label(f"Seat {seat}", exact=True).fill(player)
    form.get_by_label("Value of one chip").fill("0.25")


def column_heads(page) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """The heads of each player card's figures table, as read on the screen."""
    return [
        [th.inner_text().strip() for th in table.locator("thead th").all()]
        for table in page.locator("table.figures").all()
    ]


def card(page, name: str) -> str:  # type: ignore[no-untyped-def]
    return text_of(page, f'article.player-card[data-player="{name}"]')


def says_no_napalm_word(page, what: str) -> None:  # type: ignore[no-untyped-def]
    """Every part of the page opened, as a person could: none of Napalm's words anywhere on it."""
    open_every_details(page)
    said = page.locator("body").inner_text().lower()
    for word in NAPALM_WORDS:
        assert word not in said, f"{what} says {word!r}"


def downloads_say_no_napalm_word(page, base: str) -> None:  # type: ignore[no-untyped-def]
    """The CSV (both views) and the JSON as a phone downloads them: their format first, no Napalm word."""
    for address in ("/report.csv", "/report.csv?view=pairwise", "/report.json"):
        response = page.request.get(base + address)
        assert response.ok, address
        body = response.text()
        if address.startswith("/report.csv"):
            assert body.splitlines()[0] == "format,companion-report/2"
        else:
            assert response.json()["format"] == "companion-report/2"
        for word in NAPALM_WORDS:
            assert word not in body.lower(), f"{address} says {word!r}"


def test_a_pool_nap_nights_report_speaks_of_bids_and_the_pool(live_server, new_phone, shots):
    axe = Axe(shots)
    keeper = new_phone().new_page()
    keeper.goto(live_server.url + "/")
    fill_seats(keeper, "Nap night", ["Ann", "Ben", "Cat", "Dan"])
    keeper.get_by_label("First game").select_option(label="Nap")
    keeper.locator("form.night .rules-of[data-rules-of=nap]").wait_for()
    keeper.get_by_label("Variant").select_option(label="Pool Nap")
    tap(keeper, keeper.get_by_role("button", name="Start the night"))
    assert "Deal 1: Ann deals. Who won the bid?" in text_of(keeper, "section.ask")

    tap_toggle(keeper, "bidder", "Cat")
    tap_toggle(keeper, "bid", "2")
    tap(keeper, keeper.get_by_role("button", name="Made", exact=True))
    assert read_net(keeper) == {"Ann": -4, "Ben": -4, "Cat": 4, "Dan": -4}
    tap_toggle(keeper, "bidder", "Dan")
    tap_toggle(keeper, "bid", "nap")
    tap(keeper, keeper.get_by_role("button", name="Made", exact=True))
    night = {"Ann": -14, "Ben": -16, "Cat": -6, "Dan": 36}
    assert read_net(keeper) == night
    base = keeper.url

    tap(keeper, keeper.get_by_role("link", name="Report"))
    open_audit(keeper)
    shots(keeper, "nap report")
    axe.check(keeper, "nap report")
    assert column_heads(keeper) == [["Game", "Bids", "Pool", "Net"]] * 4
    dan = card(keeper, "Dan")
    # Dan's game: +30 won in bids, 2 lost; the pool: 2 paid in, 10 taken; +36
    assert f"1 +30 {MINUS}2 +8 +36" in dan, dan
    assert "Bids: won 10 from Ann, 10 from Ben, 10 from Cat; lost 2 to Cat." in dan
    assert "Per game: bids won and lost" in text_of(keeper)
    keeper.locator("li.payment").first.locator("details.why summary").tap()
    assert "Dan ends the night 36 chips up (pool payments" in text_of(keeper, "ol.payments")
    says_no_napalm_word(keeper, "the scorekeeper's report")

    tap(keeper, keeper.get_by_role("link", name="Pair by pair"))
    pairs = {
        li.get_attribute("data-payer"): " ".join(li.locator(".parts").inner_text().split())
        for li in keeper.locator("li.payment[data-payee=Dan]").all()
    }
    assert pairs["Ben"] == "bids +10 · through the pool +4", pairs
    assert "Every bid is paid to the player who won it, netted per pair." in text_of(keeper)
    says_no_napalm_word(keeper, "the scorekeeper's report, pair by pair")
    downloads_say_no_napalm_word(keeper, base)

    _, viewer = live_server.night_keys()
    player = new_phone().new_page()
    player.goto(f"{live_server.url}/p/{viewer}/report")
    open_audit(player)
    assert column_heads(player) == [["Game", "Bids", "Pool", "Net"]] * 4
    assert f"1 +30 {MINUS}2 +8 +36" in card(player, "Dan")
    axe.check(player, "players' nap report")
    says_no_napalm_word(player, "the players' report")
    downloads_say_no_napalm_word(player, f"{live_server.url}/p/{viewer}")
    assert not axe.failures, "\n".join(axe.failures)


def test_a_high_card_nights_report_speaks_of_antes_pots_and_sales(live_server, new_phone, shots):
    axe = Axe(shots)
    keeper = new_phone().new_page()
    keeper.goto(live_server.url + "/")
    keeper.get_by_label("First game").select_option(label="Fixed-stake pots")
    keeper.locator("form.night .rules-of[data-rules-of=pots]").wait_for()
    form = keeper.locator("form.night")
    form.get_by_label("Which pot game").select_option(label="High Card")
    fill_seats(keeper, "High Card night", ["Ann", "Ben", "Cat"])
    form.get_by_label("Ante (chips from each player every deal)").fill("1")
    tap(keeper, form.get_by_role("button", name="Start the night"))
    assert keeper.locator("#ask").inner_text().strip() == "Deal 1: Ann deals. Who won the pot?"
    tap(keeper, keeper.get_by_role("button", name="Ben won", exact=True))
    tap(keeper, keeper.get_by_role("button", name="Nobody won: carry the pot", exact=False))
    assert int(keeper.locator(".status .pot").get_attribute("data-pot") or "-1") == 3
    base = keeper.url

    tap(keeper, keeper.get_by_role("link", name="Report"))
    open_audit(keeper)
    shots(keeper, "high card report")
    axe.check(keeper, "high card report")
    assert column_heads(keeper) == [["Game", "Antes", "Pots", "Sales", "Net"]] * 3
    ben = card(keeper, "Ben")
    # Ben: antes 2; the pot of 3 and 1 of the carried pot back: +4; no sale; +2
    assert f"1 {MINUS}2 +4 0 +2" in ben, ben
    assert "Sales: none." in ben
    assert "Unfinished game" in text_of(keeper, "section.closing")
    open_every_details(keeper)
    assert f"Ben ends the night 2 chips up (antes {MINUS}2, pots won +3, unfinished pot +1)." in text_of(keeper, "ol.payments")
    says_no_napalm_word(keeper, "the scorekeeper's report")
    tap(keeper, keeper.get_by_role("link", name="Pair by pair"))
    assert "sales 0 · through the pot +1" in text_of(keeper, "ol.payments")
    says_no_napalm_word(keeper, "the scorekeeper's report, pair by pair")
    downloads_say_no_napalm_word(keeper, base)

    _, viewer = live_server.night_keys()
    player = new_phone().new_page()
    player.goto(f"{live_server.url}/p/{viewer}/report")
    open_audit(player)
    assert column_heads(player) == [["Game", "Antes", "Pots", "Sales", "Net"]] * 3
    axe.check(player, "players' high card report")
    says_no_napalm_word(player, "the players' report")
    downloads_say_no_napalm_word(player, f"{live_server.url}/p/{viewer}")
    assert not axe.failures, "\n".join(axe.failures)
