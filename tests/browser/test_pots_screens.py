"""The pot games' screens pass axe-core at 360×740 (no serious or critical violation, no text
below 4.5:1, no sideways scroll, every tap target at least 44×44 px), with every folded section
opened: the next-game screen with the presets, and the table of Tips to the Fat One, High Card
and NASDAQ, each reached with real taps.  The checks are issue 7's (``test_accessibility.Axe``).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser.phone import start_night
from browser.test_accessibility import Axe, forgive_error_status

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]


def open_all(page) -> None:  # type: ignore[no-untyped-def]
    closed = page.locator("section.ask details:not([open]) > summary")
    while closed.count():
        closed.first.click()


def start(keeper, preset: str, toggle: tuple[str, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    if keeper.get_by_role("link", name="Start the next game").count():  # at the table
        with keeper.expect_navigation():
            keeper.get_by_role("link", name="Start the next game").click()
    # the Game list offers each pot game by its name; picking one puts its rules in place (static/app.js)
    keeper.locator("#pick-game").select_option(label=preset)
    expect(keeper.locator("form.next-game h2")).to_have_text(preset)
    for name in toggle:
        keeper.locator("label.toggle", has=keeper.locator(f'input[name="players"][value="{name}"]')).click()
    with keeper.expect_navigation(wait_until="load"):
        keeper.get_by_role("button", name="Start this game").click()
    assert keeper.locator(".errors, .flash.warn").count() == 0, keeper.locator("main").inner_text()[:600]


def test_the_pot_games_screens_pass_axe_on_a_phone(live_server, new_phone, shots):
    axe = Axe(shots)
    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, NAMES, tokens_to_win=2)
    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Start the next game").click()
    keeper.locator("#pick-game").select_option(label="NASDAQ")
    expect(keeper.locator("form.next-game h2")).to_have_text("NASDAQ")
    axe.check(keeper, "next game pots")

    start(keeper, "Tips to the Fat One")  # Ann deals next: Ann and Ben play
    assert keeper.locator("#ask").inner_text().strip() == "Deal 1: Ann deals. Who won pot A?"
    open_all(keeper)
    axe.check(keeper, "tips table")
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Ben won", exact=True).click()
    axe.check(keeper, "tips after pot a")

    start(keeper, "High Card")
    open_all(keeper)
    axe.check(keeper, "high card table")
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Nobody won: carry the pot to the next deal (everyone antes again)").click()
    axe.check(keeper, "high card carried")

    start(keeper, "NASDAQ")
    open_all(keeper)
    axe.check(keeper, "nasdaq table")
    keeper.get_by_label("Chips", exact=True).fill("2")
    keeper.locator("#into-reason").select_option("bid")
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Cat puts them in").click()
    assert "Cat: bid for the first sale of 2 into the pot (5)." in keeper.locator(".flash").first.inner_text()
    open_all(keeper)
    axe.check(keeper, "nasdaq after the bid")

    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Report").click()
    axe.check(keeper, "report")
    assert not axe.failures, "\n".join(axe.failures)


def test_without_javascript_the_game_list_shows_the_picked_pot_games_own_fields(live_server, new_phone, shots, problems):
    """Issue 35 on a 360×740 phone with no script: the next-game screen's Game list names each pot game
    once; Mountain picked and *Show its rules* tapped: Mountain's page, its ante alone (no Tips pots, no
    NASDAQ limit); NASDAQ picked and *Start this game* tapped straight away: nothing starts, NASDAQ's
    page says so and shows its ante and sale limit; *Start this game* again: NASDAQ is at the table."""
    keeper = new_phone(javascript=False).new_page()
    start_night(keeper, live_server.url, NAMES, tokens_to_win=2)
    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Start the next game").tap()
    names = keeper.locator("#pick-game option").all_inner_texts()
    assert names.count("Mountain") == 1 and "Fixed-stake pots" not in names
    assert keeper.locator(".offers, #preset").count() == 0

    def shown() -> list[str | None]:
        return [i.get_attribute("name") for i in keeper.locator("form.next-game input:visible").all()
                if i.get_attribute("type") not in ("checkbox", "hidden", "submit")]

    keeper.locator("#pick-game").select_option(label="Mountain")
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Show its rules").tap()
    assert keeper.locator("form.next-game h2").inner_text() == "Mountain"
    assert shown() == ["ante"]
    shots(keeper, "no script, mountain's rules")

    keeper.locator("#pick-game").select_option(label="NASDAQ")
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Start this game").tap()
    assert "You picked NASDAQ: nothing has started yet." in keeper.locator(".flash").first.inner_text()
    forgive_error_status(problems, 422)  # nothing started: the refusal is the point here
    assert keeper.locator("form.next-game h2").inner_text() == "NASDAQ"
    assert shown() == ["ante", "sale_limit"]
    with keeper.expect_navigation():
        keeper.get_by_role("button", name="Start this game").tap()
    assert "Tonight's 2nd game: NASDAQ" in keeper.locator("main").inner_text()
    assert keeper.evaluate("document.documentElement.scrollWidth") <= 360
