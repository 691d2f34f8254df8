"""The game picked from the list is the game that starts, tapped on a 360×740 phone (issue 20, item 5).

Picking "Nap" in the Game list and tapping *Start this game* started Napalm, unless *Show
its rules* was tapped first: the rules under the list still read Napalm's.  Here the list is
picked and *Start* tapped straight away, never *Show its rules*, with JavaScript (the picked
game's rules come in under the list) and without (the first *Start* shows Nap's rules and
says nothing started; the second starts Nap).

Seats Ann, Ben, Cat, Dan; Ann deals first.  Napalm, ante 1: Ben and Cat say Yes (antes: pot 4,
everyone −1), Cat wins and Ben pays her 4; Dan alone says Yes at stage 2.  Ann −1, Ben −5,
Cat +3, Dan −1, pot 4.  Napalm stops with its antes returned: Ann 0, Ben −4, Cat +4, Dan 0
(RULES.md; the same figures as tests/browser/test_nap_night.py).  Pool Nap's first deal, Ben
dealing (the hand in progress was Ann's): a new pool, 2 from each of the 4 (pool 8), the
rule Pool Nap has and plain Nap has not (RULES-NAP.md).
"""

from __future__ import annotations

import pytest

from browser.phone import start_night
from browser.test_accessibility import Axe, forgive_error_status

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan"]
MINUS = "\u2212"


def text_of(page, selector: str = "main") -> str:  # type: ignore[no-untyped-def]
    return " ".join(page.locator(selector).inner_text().split())


def read_net(page) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {
        row.get_attribute("data-player") or "": int(row.locator("td.net").inner_text().strip().replace(MINUS, "-"))
        for row in page.locator("table.standings tbody tr").all()
    }


def tap(page, button, status: int = 200, scripts: bool = True):  # type: ignore[no-untyped-def]
    """Tap ``button`` and wait for the page it opens (a click where JavaScript is off: Playwright's
    tap never returns there)."""
    with page.expect_navigation(wait_until="load") as navigation:
        button.tap() if scripts else button.click()
    assert navigation.value is not None and navigation.value.status == status, text_of(page)[:600]


def napalm_then_next_game(page, table_screen, base_url: str, scripts: bool = True) -> None:  # type: ignore[no-untyped-def]
    start_night(page, base_url, NAMES, tokens_to_win=5)
    t = table_screen(page, NAMES)
    t.declare("Ben", "Cat")
    t.winner("Cat")
    t.declare("Dan")
    t.check(pot=4, dealer="Ann", net=[-1, -5, 3, -1], tokens=[0, 0, 0, 1])
    tap(page, page.get_by_role("link", name="Start the next game"), scripts=scripts)
    assert page.locator("form.next-game h2").inner_text().strip() == "Napalm"


def pool_nap_is_at_the_table(page) -> None:  # type: ignore[no-untyped-def]
    assert "Tonight's 2nd game: Pool Nap" in text_of(page, ".status")
    assert read_net(page) == {"Ann": 0, "Ben": -4, "Cat": 4, "Dan": 0}  # Napalm closed, antes back
    ask = text_of(page, "section.ask")
    assert "Deal 1: Ben deals. Who won the bid?" in ask
    assert "A new pool: 2 from everyone before this deal." in ask  # Pool Nap's rule: its rules were used


def test_nap_picked_on_the_next_game_screen_starts_nap_with_javascript(live_server, new_phone, table_screen, shots):
    axe = Axe(shots)
    page = new_phone().new_page()
    napalm_then_next_game(page, table_screen, live_server.url)
    page.locator("#pick-game").select_option(label="Nap")
    # the rules under the list become Nap's, in place: no Show its rules
    page.locator("form.next-game .rules-of[data-rules-of=nap]").wait_for()
    assert page.locator("form.next-game h2").inner_text().strip() == "Nap"
    assert page.get_by_label("Ante (chips)").count() == 0
    page.get_by_label("Variant").select_option(label="Pool Nap")
    axe.check(page, "next game, nap picked")
    tap(page, page.get_by_role("button", name="Start this game"))
    pool_nap_is_at_the_table(page)
    assert not axe.failures, "\n".join(axe.failures)


def test_nap_picked_on_the_next_game_screen_starts_nap_without_javascript(
    live_server, new_phone, table_screen, shots, problems
):
    page = new_phone(javascript=False).new_page()
    napalm_then_next_game(page, table_screen, live_server.url, scripts=False)
    page.locator("#pick-game").select_option(label="Nap")
    # the rules shown are still Napalm's: the first Start shows Nap's and starts nothing
    tap(page, page.get_by_role("button", name="Start this game"), status=422, scripts=False)
    forgive_error_status(problems, 422)  # nothing started: the refusal is the point here
    assert "You picked Nap: nothing has started yet." in text_of(page)
    assert page.locator("form.next-game h2").inner_text().strip() == "Nap"
    assert page.locator("#pick-game").locator("option:checked").inner_text() == "Nap"
    page.get_by_label("Variant").select_option(label="Pool Nap")
    shots(page, "next game, nap's rules shown without javascript")  # axe needs scripts
    tap(page, page.get_by_role("button", name="Start this game"), scripts=False)
    pool_nap_is_at_the_table(page)


def fill_the_night(page) -> None:  # type: ignore[no-untyped-def]
    form = page.locator("form.night")
    form.get_by_label("Name of the night").fill("Nap first")
    for seat, player in enumerate(NAMES, start=1):
        form.get_by_label(f"Seat {seat}", exact=True).fill(player)


def nap_is_the_first_game(page) -> None:  # type: ignore[no-untyped-def]
    # a first deal of Pool Nap, Ann dealing: a new pool of 2 from each of the 4 (8)
    ask = text_of(page, "section.ask")
    assert "Deal 1: Ann deals. Who won the bid?" in ask
    assert "A new pool: 2 from everyone before this deal." in ask
    assert read_net(page) == {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}


def test_nap_picked_as_the_first_game_starts_nap_with_javascript(live_server, new_phone, shots):
    axe = Axe(shots)
    page = new_phone().new_page()
    page.goto(live_server.url + "/")
    fill_the_night(page)
    page.get_by_label("First game").select_option(label="Nap")
    page.locator("form.night .rules-of[data-rules-of=nap]").wait_for()
    assert page.get_by_label("Tokens to win").count() == 0
    assert page.get_by_label("Seat 4", exact=True).input_value() == "Dan"  # what was typed stays
    page.get_by_label("Variant").select_option(label="Pool Nap")
    axe.check(page, "home, nap picked")
    tap(page, page.get_by_role("button", name="Start the night"))
    nap_is_the_first_game(page)
    assert not axe.failures, "\n".join(axe.failures)


def test_nap_picked_as_the_first_game_starts_nap_without_javascript(live_server, new_phone, shots, problems):
    page = new_phone(javascript=False).new_page()
    page.goto(live_server.url + "/")
    fill_the_night(page)
    page.get_by_label("First game").select_option(label="Nap")
    tap(page, page.get_by_role("button", name="Start the night"), status=422, scripts=False)
    forgive_error_status(problems, 422)  # nothing started: the refusal is the point here
    assert "You picked Nap: nothing has started yet." in text_of(page)
    assert page.get_by_label("Tokens to win").count() == 0
    assert page.get_by_label("Seat 4", exact=True).input_value() == "Dan"  # what was typed stays
    assert page.locator("form.night").get_by_label("Name of the night").input_value() == "Nap first"
    page.get_by_label("Variant").select_option(label="Pool Nap")
    shots(page, "home, nap's rules shown without javascript")  # axe needs scripts
    tap(page, page.get_by_role("button", name="Start the night"), scripts=False)
    nap_is_the_first_game(page)


def test_a_game_started_by_mistake_is_taken_back_by_its_control(live_server, new_phone, table_screen, shots):
    """Nap started by mistake (Napalm's pot of 4 still on the table), taken back before any deal:
    Napalm is at the table again as it was, Ann −1, Ben −5, Cat +3, Dan −1, pot 4, stage 3."""
    axe = Axe(shots)
    page = new_phone().new_page()
    napalm_then_next_game(page, table_screen, live_server.url)
    page.locator("#pick-game").select_option(label="Nap")
    page.locator("form.next-game .rules-of[data-rules-of=nap]").wait_for()
    tap(page, page.get_by_role("button", name="Start this game"))
    assert "Tonight's 2nd game: Nap" in text_of(page, ".status")
    take_back = page.get_by_role("button", name="Take back this game")
    box = take_back.bounding_box()
    assert box is not None and box["height"] >= 44  # a large tap target
    axe.check(page, "nap started by mistake, take back offered")
    tap(page, take_back)
    assert "Game 2 of the night (Nap) taken back" in text_of(page, ".flash")
    assert "Napalm is at the table again, as it was." in text_of(page, ".flash")
    t = table_screen(page, NAMES)
    t.check(pot=4, dealer="Ann", net=[-1, -5, 3, -1], tokens=[0, 0, 0, 1])
    assert "Stage 3" in t.prompt
    assert page.get_by_role("button", name="Take back this game").count() == 0
    axe.check(page, "napalm at the table again")
    assert not axe.failures, "\n".join(axe.failures)
