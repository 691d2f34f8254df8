"""The home page's "First game" picker, tapped on a 360×740 phone: a night that begins with High Card.

Worked by hand from RULES-POKER.md and docs/games/poker.md: seats Ann, Ben, Cat (High Card takes 3
to 8), Ann deals, ante 1, a chip is worth 0.25 €.  Deal 1: each antes 1 (the pot is 3) and Cat
wins it: Ann −1, Ben −1, Cat −1 + 3 = +2 (−1 − 1 + 2 = 0, nothing left in the pot); in money
Ann −0.25 €, Ben −0.25 €, Cat +0.50 €.  Deal 2 passes to Ben, on Ann's left.
"""

from __future__ import annotations

import pytest

from browser.test_accessibility import Axe

pytestmark = pytest.mark.browser


def test_a_night_whose_first_game_is_high_card_picked_on_the_home_page(live_server, new_phone, shots):
    axe = Axe(shots)
    page = new_phone().new_page()
    page.goto(live_server.url + "/")
    # the picker: "Fixed-stake pots", then "Show its rules" reloads the form with that game's rules
    page.get_by_label("First game").select_option(label="Fixed-stake pots")
    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Show its rules").tap()
    assert page.get_by_label("First game").locator("option:checked").inner_text() == "Fixed-stake pots"
    form = page.locator("form.night")
    form.get_by_label("Which pot game").select_option(label="High Card")
    form.get_by_label("Name of the night").fill("High Card first")
    for seat, player in enumerate(["Ann", "Ben", "Cat"], start=1):
        form.get_by_label(f"Seat {seat}", exact=True).fill(player)
    form.get_by_label("Ante (chips from each player every deal)").fill("1")
    form.get_by_label("Value of one chip").fill("0.25")
    axe.check(page, "home, high card first")
    with page.expect_navigation(wait_until="load") as navigation:
        form.get_by_role("button", name="Start the night").tap()
    assert navigation.value is not None and navigation.value.status == 200, page.locator("main").inner_text()[:800]
    assert page.locator("#ask").inner_text().strip() == "Deal 1: Ann deals. Who won the pot?"
    assert "the ante: 1 from each player (the pot will be 3)" in " ".join(page.locator("section.ask").inner_text().split())
    axe.check(page, "table, high card deal 1")

    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Cat won", exact=True).tap()
    shots(page, "high card, cat won")
    assert "The pot, 3: Cat takes it." in page.locator(".flash").first.inner_text()
    assert page.locator("#ask").inner_text().strip() == "Deal 2: Ben deals. Who won the pot?"
    rows = page.locator("table.standings tbody tr").all()
    shown = {
        r.get_attribute("data-player"): (
            int(r.locator("td.net").inner_text().strip().replace("−", "-")),
            r.locator("td").last.inner_text().strip().replace("−", "-"),
        )
        for r in rows
    }
    assert shown == {"Ann": (-1, "-0.25 €"), "Ben": (-1, "-0.25 €"), "Cat": (2, "0.50 €")}, shown
    assert int(page.locator(".status .pot").get_attribute("data-pot") or "-1") == 0
    axe.check(page, "table, high card after deal 1")
    assert not axe.failures, "\n".join(axe.failures)
