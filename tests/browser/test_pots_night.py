"""Issue 13 at the table: a night of Napalm, then Tips to the Fat One, then High Card, on a 360×740 phone.

Seats Ann, Ben, Cat, Dan; Ann deals; Napalm ante 1, antes returned; a chip is worth 0.25 €.
Every number is worked out by hand from RULES.md and RULES-POKER.md:

1st game, Napalm: Ben and Cat say Yes (antes: pot 4), Cat wins: Ben pays Cat 4.  The next game
   stops it with its pot of 4 unfinished: each ante comes back.  It closes at Ann 0, Ben −4,
   Cat +4, Dan 0.
2nd game, Tips to the Fat One, Ann and Ben (Cat and Dan sit out), A 2, B 3 → C 4, D 6, E 9:
   each stakes 24.  Ben deals (the deal passed on).  Pot A (4): Ann.  Pot B (6): Ben, with a
   double tap (recorded once).  Pot C (8): a split, 4 each.  Pot D (12): Ann.  Pot E (18): Ann.
   Ann −24 + 4 + 4 + 12 + 18 = +14; Ben −24 + 6 + 4 = −14.
3rd game, High Card, all four, ante 1, Ann deals: deal 1 nobody wins: the pot of 4 is carried;
   deal 2 (Ben deals) antes again: pot 8, Dan wins it.  Deal 3 (Cat deals) is carried too (pot
   4) and the night ends there: the carried pot goes back to who paid it in, 1 each.
   Ann −2, Ben −2, Cat −2, Dan +6.
The night: Ann +12 (3.00 €), Ben −20 (−5.00 €), Cat +2 (0.50 €), Dan +6 (1.50 €); Ben pays
Ann 12, Cat 2 and Dan 6.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from browser.phone import guarded_double_tap, open_audit, start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan"]


class PotsScreen:
    """The scorekeeper's table while a pots game is at it, tapped as a person would."""

    def __init__(self, page, shots) -> None:  # type: ignore[no-untyped-def]
        self.page, self.shots = page, shots

    def submit(self, button, what: str) -> None:  # type: ignore[no-untyped-def]
        with self.page.expect_navigation(wait_until="load") as navigation:
            button.click()
        response = navigation.value
        assert response is not None and response.status == 200, self.page.locator("main").inner_text()[:500]
        errors = self.page.locator(".errors, .flash.warn").all_inner_texts()
        assert not errors, f"{what}: the page says {errors}"
        self.shots(self.page, what)

    def won(self, name: str) -> None:
        self.submit(self.page.get_by_role("button", name=f"{name} won", exact=True), f"{name} won")

    def tick(self, field: str, *names: str) -> None:
        for name in names:
            box = self.page.locator(f'input[name="{field}"][value="{name}"]')
            self.page.locator("label.toggle", has=box).click()
            assert box.is_checked()

    def split(self, *names: str) -> None:
        self.page.locator("details.split summary").click()
        self.tick("tied", *names)
        self.submit(self.page.get_by_role("button", name="Record the split"), "split " + " ".join(names))

    def carry(self) -> None:
        self.submit(self.page.get_by_role("button", name=re.compile(r"^Nobody won: carry the pot")), "carried")

    @property
    def prompt(self) -> str:
        return self.page.locator("#ask").inner_text().strip()

    @property
    def flash(self) -> str:
        return " ".join(t.strip() for t in self.page.locator(".flash").all_inner_texts())

    def pot(self) -> int:
        return int(self.page.locator(".status .pot").get_attribute("data-pot") or "-1")

    def dealer(self) -> str:
        return self.page.locator(".status .dealer-name").inner_text().strip()

    def nets(self) -> dict[str, int]:
        rows = self.page.locator("table.standings tbody tr").all()
        return {
            r.get_attribute("data-player") or "": int(r.locator("td.net").inner_text().strip().replace("−", "-"))
            for r in rows
        }


def next_game(keeper, shots, *, preset: str, toggle: tuple[str, ...], what: str, **fields: str):  # type: ignore[no-untyped-def]
    """Start the next game from the table: the pot game by its name in the Game list (its defaults and
    players put in place), then tap the players' toggles in ``toggle`` and fill ``fields`` by their labels."""
    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Start the next game").click()
    keeper.locator("#pick-game").select_option(label=preset)
    expect(keeper.locator("form.next-game h2")).to_have_text(preset)  # the game by its name, its preset unasked
    for name in toggle:
        box = keeper.locator(f'input[name="players"][value="{name}"]')
        was = box.is_checked()
        keeper.locator("label.toggle", has=box).click()
        assert box.is_checked() != was
    for label, value in fields.items():
        keeper.get_by_label(label, exact=True).fill(value)
    shots(keeper, what)
    with keeper.expect_navigation(wait_until="load"):
        keeper.get_by_role("button", name="Start this game").click()
    assert not keeper.locator(".errors, .flash.warn").all_inner_texts(), keeper.locator("main").inner_text()[:800]


def test_napalm_then_tips_to_the_fat_one_then_high_card_settled_once(live_server, new_phone, table_screen, shots):
    keeper = new_phone().new_page()
    start_night(keeper, live_server.url, NAMES, tokens_to_win=5)
    napalm = table_screen(keeper, NAMES)
    napalm.declare("Ben", "Cat")
    napalm.winner("Cat")
    t = PotsScreen(keeper, shots)

    # 2nd game: Tips to the Fat One, Ann and Ben
    # its own link picks Ben (the deal passes to him) and Cat on his left: Cat sits out, Ann plays
    next_game(keeper, shots, preset="Tips to the Fat One", toggle=("Cat", "Ann"),
              what="next game tips", **{"Tips to the Fat One: pot A": "2", "pot B": "3"})
    shots(keeper, "tips at the table")
    assert "Tonight's 2nd game" in keeper.locator(".status").inner_text()
    assert t.prompt == "Deal 1: Ben deals. Who won pot A?"
    assert "A 2, B 3, C 4, D 6, E 9 from each player" in keeper.locator("section.ask").inner_text()
    assert t.nets() == {"Ann": 0, "Ben": -4}
    assert keeper.get_by_role("button", name="Cat won").count() == 0  # Cat sits this game out
    t.won("Ann")
    assert t.pot() == 44 and t.prompt.endswith("Who won pot B?")

    # a double tap on "Ben won" records pot B once
    guarded_double_tap(keeper, live_server.app, keeper.get_by_role("button", name="Ben won", exact=True))
    shots(keeper, "pot b after a double tap")
    assert t.prompt.endswith("Who won pot C?"), t.prompt
    assert t.pot() == 38  # 8 + 12 + 18: pot B taken once

    t.split("Ann", "Ben")
    assert "Pot C, 8: Ann and Ben split, 4 each." in t.flash
    t.won("Ann")
    t.won("Ann")
    assert t.prompt == "Deal 2: Ann deals. Who won pot A?"
    assert t.nets() == {"Ann": 14, "Ben": -18}

    # 3rd game: High Card, everyone
    next_game(keeper, shots, preset="High Card", toggle=(), what="next game high card",
              **{"Ante (chips from each player every deal)": "1"})
    assert "Tonight's 3rd game" in keeper.locator(".status").inner_text()
    assert t.prompt == "Deal 1: Ann deals. Who won the pot?"
    t.carry()
    assert t.pot() == 4 and t.dealer() == "Ben"
    assert "(the pot will be 8)" in keeper.locator("section.ask").inner_text()
    assert "paid in since last won: Ann 1, Ben 1, Cat 1, Dan 1" in " ".join(keeper.locator("section.pots").inner_text().split())
    t.won("Dan")
    assert "The pot, 8: Dan takes it." in t.flash
    t.carry()  # deal 3: carried, and the night ends here
    assert t.pot() == 4
    assert t.nets() == {"Ann": 11, "Ben": -21, "Cat": 1, "Dan": 5}  # the pot of 4 still out

    # the report: one settle-up, the carried pot returned
    with keeper.expect_navigation():
        keeper.get_by_role("link", name="Report").click()
    shots(keeper, "report")
    payments = sorted(
        (li.get_attribute("data-payer"), li.get_attribute("data-payee"), li.get_attribute("data-chips"),
         li.locator(".amount").inner_text().strip())
        for li in keeper.locator("ol.payments li.payment").all()
    )
    assert payments == [("Ben", "Ann", "12", "3.00 €"), ("Ben", "Cat", "2", "0.50 €"), ("Ben", "Dan", "6", "1.50 €")], payments
    open_audit(keeper)  # how the payments were worked out: one tap
    for summary in keeper.locator("details.records summary").all():  # each game's records, tapped open
        summary.click()
    shots(keeper, "report with each record")
    text = " ".join(keeper.locator("main").inner_text().split())
    assert "2nd game (Tips to the Fat One)" in text and "3rd game (High Card)" in text
    assert "Pot A, 4: Ann takes it." in text and "Pot C, 8: Ann and Ben split, 4 each." in text
    assert "The pot, 4: returned to who paid it in (Ann 1, Ben 1, Cat 1, Dan 1)." in text
