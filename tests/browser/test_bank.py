"""Issue 13 on a 360×740 phone: the chip bank, a Bonus Round roll, dealer's choice, the settle-up on counts.

Seats Ann, Ben, Cat, Dan; Ann deals first; ante 1; a chip is worth 0.25 €.  Worked by hand:
Ben and Cat say Yes (the antes: pot 4), Cat wins: Ben pays Cat 4.  The game closes with its
pot returned: Ann 0, Ben −4, Cat +4, Dan 0.  The night settles on chip counts; everyone
buys in 100 (one tap, the amount prefilled).  Dan leaves early with his 100.  The Bonus
Round's grid has no bonus cells and nobody has a lucky number, so the roll pays nothing.
Counts Ann 100, Ben 96, Cat 104: the bank balances (400 out, 400 back) and every count is
bought + the tally, so Ben pays Cat 4 chips, 1.00 €.  Every tap is on the real controls.
"""

from __future__ import annotations

import re

import pytest

from browser.phone import Phone, start_night
from browser.test_accessibility import Axe, forgive_error_status

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan"]


def player_form(page, name: str):  # type: ignore[no-untyped-def]
    return page.locator(f'form.bank-player[data-player="{name}"]')


def test_bank_bonus_round_and_settle_up_on_counts(live_server, new_phone, table_screen, shots, problems):
    axe = Axe(shots)
    page = new_phone().new_page()
    start_night(page, live_server.url, NAMES, tokens_to_win=5)
    table_url = page.url
    t = table_screen(page, NAMES)
    t.declare("Ben", "Cat")
    t.winner("Cat")
    t.check(pot=4, dealer="Ann", net=[-1, -5, 3, -1], tokens=[0, 0, 0, 0])

    # the bank page (the table's "Bank" link is the lead's to add: opened here by its address)
    page.goto(table_url + "/bank")
    taps = Phone(page, shots)
    axe.check(page, "bank, on the tally")
    taps.tap(page.get_by_role("button", name="Settle on chip counts (the bank) instead"), "settle on counts")
    assert "This night settles on chip counts (the bank)" in page.locator("main").inner_text()

    # the whole table's buy-in: one tap on the bank page, the amount prefilled
    assert page.get_by_label("Chips each").input_value() == "100"
    before = taps.taps
    taps.tap(page.get_by_role("button", name="Everyone buys in"), "bank, everyone bought in")
    assert taps.taps - before == 1
    assert "Everyone bought in 100 chips (25.00 €): Ann, Ben, Cat and Dan." in page.locator(".flash").first.inner_text()
    assert page.locator("[data-in-play]").inner_text() == "400"

    # Dan leaves early: his count, then "Cash out"
    player_form(page, "Dan").get_by_label("Chips for Dan").fill("100")
    taps.tap(player_form(page, "Dan").get_by_role("button", name="Cash out"), "bank, Dan leaves early")
    assert "Still to cash out: Ann, Ben and Cat." in page.locator(".bank-block").inner_text()
    axe.check(page, "bank, still to cash out")

    # a wrong entry: a clear message and nothing recorded
    player_form(page, "Ann").get_by_label("Chips for Ann").fill("-3")
    with page.expect_navigation(wait_until="load") as navigation:
        player_form(page, "Ann").get_by_role("button", name="Cash out").tap()
    assert navigation.value is not None and navigation.value.status == 422
    forgive_error_status(problems, 422)  # the refusal is the point here
    assert "Ann's count cannot be negative (you entered -3)" in page.locator(".flash.warn").first.inner_text()
    assert player_form(page, "Ann").get_by_label("Chips for Ann").input_value() == "-3"  # what was typed stays
    shots(page, "bank, a negative count refused")

    # the Bonus Round: fill the 6×6 grid, then the app rolls
    page.goto(table_url + "/bonus")
    axe.check(page, "bonus round, no grid yet")
    taps.tap(page.get_by_role("link", name="Fill a 6×6 grid (two dice)"), "bonus grid")
    games = ["High Card", "Mountain", "NASDAQ", "Napalm", "Tips to the Fat One", "Mystery Wheelbarrow"]
    for r in range(1, 7):
        for c in range(1, 7):
            page.locator(f'input[name="cell_{r}-{c}"]').fill(games[(r + c) % 6])
    axe.check(page, "bonus grid, filled")
    taps.tap(page.get_by_role("button", name="Save the grid"), "bonus round, grid saved")
    assert page.get_by_label("Who rolls (the dealer)").input_value() == "Ben"  # Ben deals next
    taps.tap(page.get_by_role("button", name="Roll 2 dice"), "bonus round, rolled")
    rolled = page.locator("section.rolled")
    faces = rolled.locator(".faces").get_attribute("data-faces")
    assert faces and re.fullmatch(r"[1-6]-[1-6]", faces)
    first, second = (int(f) for f in faces.split("-"))
    game = games[(first + second) % 6]
    assert rolled.locator(".game").inner_text() == game
    # big enough to read across the table: at least 40 px on a 360 px screen
    size = float(rolled.locator(".game").evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
    assert size >= 40, size
    assert f"Ben rolled {faces}: {game}." in page.locator(".bank-lines").inner_text()
    axe.check(page, "bonus round, a roll")

    # dealer's choice: the game played tonight first; one tap opens its next-game screen
    page.goto(table_url + "/choice")
    axe.check(page, "dealer's choice")
    offers = page.locator(".offers a")
    assert offers.first.get_attribute("data-game") == "napalm"
    taps.tap(offers.first, "dealer's choice, the next game")
    assert page.get_by_role("button", name="Start this game").is_visible()  # the third tap starts it

    # the other counts, then the settle-up on the counts
    page.goto(table_url + "/bank")
    for name, count in (("Ann", "100"), ("Ben", "96"), ("Cat", "104")):
        player_form(page, name).get_by_label(f"Chips for {name}").fill(count)
        taps.tap(player_form(page, name).get_by_role("button", name="Cash out"), f"bank, {name} cashed out")
    main = page.locator("main").inner_text()
    assert "The bank balances and every count matches bought + the app's tally." in main
    assert page.locator(".bank-plan li").all_inner_texts() == ["Ben pays Cat 4 chips (1.00 €)"]
    assert [page.locator(f'form.bank-player[data-player="{n}"] [data-result]').inner_text() for n in NAMES] == [
        "0", "-4", "+4", "0",
    ]
    axe.check(page, "bank, settled on the counts")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than the phone
    assert not axe.failures, "\n".join(axe.failures)


def test_a_poker_night_settles_on_the_counts_from_the_first_buy_in_without_the_switch(live_server, new_phone, shots, problems):
    """Issue 20 item 1 on a 360×740 phone, every page reached by the app's own links, the Bank page's
    setting never touched.  Worked by hand (RULES.md, RULES-POKER.md "The bank"):

    Napalm, Ann deals: Ben and Cat say Yes (antes 1 each, pot 4), Cat wins: Ben pays Cat 4.
    Everyone buys in 100 (one tap, 400 out); Ben rebuys 20 (420 out: Ben bought 120).
    Dealer's choice: Poker with real betting.  Starting it closes Napalm, its pot returned:
    Ann 0, Ben −4, Cat +4, Dan 0 (the tally).  One deal played: chips move the app never sees.
    Counts: Ann 90, Ben 106, Cat 124, Dan 90: 410 back of 420 bought, 10 short: no payment and
    no Mark paid on the report, which says why and what to do.  Dan's count is cancelled and
    recounted: 100.  Now 90 + 106 + 124 + 100 = 420 = bought: results (count − bought) Ann −10,
    Ben 106 − 120 = −14, Cat +24, Dan 0; fewest payments: Ann pays Cat 10 chips (10 × 0.25 =
    2.50 €), Ben pays Cat 14 (3.50 €).  The tally would have offered Ben pays Cat 4 (1.00 €)."""
    axe = Axe(shots)
    page = new_phone().new_page()
    phone = Phone(page, shots)
    start_night(page, live_server.url, NAMES, tokens_to_win=5)
    for name in ("Ben", "Cat"):
        box = page.locator(f'input[name="yes"][value="{name}"]')
        page.locator("label.toggle", has=box).tap()
    phone.button("Record Yes", "napalm, ben and cat say yes")
    phone.tap(page.get_by_role("button", name="Cat won"), "napalm, cat won")

    phone.link("Bank")
    phone.button("Everyone buys in", "everyone bought in")
    settles = page.locator(".bank-setting .settles")
    assert settles.get_attribute("data-settle-on") == "bank"
    assert "This night settles on chip counts (the bank): chips were bought from the bank" in settles.inner_text()
    form = player_form(page, "Ben")
    form.get_by_label("Chips for Ben").fill("20")
    phone.tap(form.get_by_role("button", name="Rebuy"), "ben rebought 20")
    assert page.locator("[data-in-play]").inner_text() == "420"
    axe.check(page, "bank, on the counts from the first buy-in")

    phone.link("Dealer's choice")
    phone.tap(page.locator("ul.offers a").filter(has_text=re.compile(r"^Poker with real betting$")), "choice, poker")
    phone.button("Start this game", "poker started")
    sentence = ("This night settles on chip counts (the bank): Poker with real betting is played tonight, "
                "and the chips on the table settle its pots.")
    assert sentence in phone.main()  # the table says it in the Bank page's words
    phone.button("Deal played: next deal", "poker, a deal played")
    axe.check(page, "table, poker on the counts")

    phone.link("Bank")
    assert sentence in phone.main()
    assert page.get_by_role("button", name=re.compile("^Settle on")).count() == 0  # no switch to find
    for name, count in (("Ann", "90"), ("Ben", "106"), ("Cat", "124"), ("Dan", "90")):
        form = player_form(page, name)
        form.get_by_label(f"Chips for {name}").fill(count)
        phone.tap(form.get_by_role("button", name="Cash out"), f"bank, {name} counted {count}")

    phone.link("Report")
    block = page.locator(".pay .bank-block").inner_text()
    assert "No payments yet, and nothing to mark paid: the bank is not balanced." in block
    assert "The bank does not balance: 10 chips fewer cashed out (410) than bought (420)." in block
    assert "Recount on the Bank page" in block
    assert sentence in block
    assert page.get_by_role("button", name="Mark paid").count() == 0
    assert page.locator("ol.payments").count() == 0
    axe.check(page, "report, the bank 10 short")

    # the recount: Dan's cash-out cancelled from the bank's log, then his right count
    phone.tap(page.get_by_role("link", name="Open the Bank page"), "report, open the bank")
    line = page.locator(".bank-lines li", has_text="Dan cashed out 90 chips")
    asked = phone.ask(line.get_by_role("button", name=re.compile(r"^Cancel #")), "bank, cancel dan's count? asked")
    assert re.fullmatch(r"Confirm: cancel #\d+, Dan cashed out 90 chips.*\?", asked), asked
    phone.tap(page.get_by_role("button", name=re.compile(r"^Yes, cancel #")), "bank, dan's count cancelled")
    form = player_form(page, "Dan")
    form.get_by_label("Chips for Dan").fill("100")
    phone.tap(form.get_by_role("button", name="Cash out"), "bank, dan recounted 100")
    assert [page.locator(f'form.bank-player[data-player="{n}"] [data-result]').inner_text() for n in NAMES] == [
        "-10", "-14", "+24", "0",
    ]

    phone.link("Report")
    offered = sorted(
        (li.get_attribute("data-payer"), li.get_attribute("data-payee"), li.get_attribute("data-chips"),
         li.locator(".amount").inner_text().strip(), li.get_by_role("button", name="Mark paid").count())
        for li in page.locator("ol.payments li.payment").all()
    )
    assert offered == [("Ann", "Cat", "10", "2.50 €", 1), ("Ben", "Cat", "14", "3.50 €", 1)], offered
    axe.check(page, "report, settled on the counts")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert not axe.failures, "\n".join(axe.failures)


def test_after_a_cash_out_the_table_refuses_to_move_those_chips_and_a_roll_leaves_them_out(
    live_server, new_phone, table_screen, shots, problems
):
    """Issue 20 item 2 on a 360×740 phone.  Napalm, Ann deals: Ben and Cat say Yes (antes 1, pot 4),
    Cat wins (Ben pays her 4).  Everyone buys in 100: the night is on the counts.  Cat cashes out.
    Next stage: Ben and Cat say Yes (no chip moves: recorded); "Ben won" would make Cat pay Ben the
    pot's size out of her counted stack: refused, with how to go on.  Cat's cash-out is cancelled from
    the bank's log; "Ben won" is recorded.  Then Dan cashes out and the Bonus Round (every cell:
    everyone pays the dealer 1) rolls: the roller gets 1 from each of the two others at the table,
    +2, and Dan, left out, pays nothing: the page says so before and after the roll."""
    page = new_phone().new_page()
    phone = Phone(page, shots)
    start_night(page, live_server.url, NAMES, tokens_to_win=5)
    t = table_screen(page, NAMES)
    t.declare("Ben", "Cat")
    t.winner("Cat")

    phone.link("Bank")
    phone.button("Everyone buys in", "everyone bought in")
    form = player_form(page, "Cat")
    form.get_by_label("Chips for Cat").fill("104")
    phone.tap(form.get_by_role("button", name="Cash out"), "cat cashed out")

    phone.link("Table")
    t.declare("Ben", "Cat")  # a Yes moves no chip: recorded
    with page.expect_navigation(wait_until="load") as navigation:
        page.get_by_role("button", name="Ben won").tap()
    assert navigation.value is not None and navigation.value.status == 422
    forgive_error_status(problems, 422)  # the refusal is the point here
    said = " ".join(page.locator("main").inner_text().split())
    assert ("Cat has cashed out, and this would move their chips after their count. To go on: cancel Cat's "
            "cash-out in the bank's log (Bank page), record this again, then count and cash out again.") in said
    shots(page, "table, ben won refused: cat has cashed out")

    phone.link("Bank")
    line = page.locator(".bank-lines li", has_text="Cat cashed out 104 chips")
    phone.ask(line.get_by_role("button", name=re.compile(r"^Cancel #")), "bank, cancel cat's cash-out? asked")
    phone.tap(page.get_by_role("button", name=re.compile(r"^Yes, cancel #")), "bank, cat's cash-out cancelled")
    phone.link("Table")
    phone.tap(page.get_by_role("button", name="Ben won"), "table, ben won")

    phone.link("Bank")
    form = player_form(page, "Dan")
    form.get_by_label("Chips for Dan").fill("100")
    phone.tap(form.get_by_role("button", name="Cash out"), "dan cashed out")
    phone.link("Bonus Round")
    phone.tap(page.get_by_role("link", name="Fill a 6×6 grid (two dice)"), "bonus grid")
    page.get_by_label(re.compile(r"^Quick fill")).fill("Napalm\nHigh Card")
    page.get_by_label("Bonus cells: everyone pays the dealer").fill(
        " ".join(f"{r}-{c}" for r in range(1, 7) for c in range(1, 7)))
    page.locator('input[name="bonus_chips"]').fill("1")
    phone.button("Save the grid", "bonus grid saved")
    assert "Dan has cashed out: a roll leaves them out of its payments" in phone.main()
    roller = page.get_by_label("Who rolls (the dealer)").input_value()
    assert roller != "Dan"
    phone.button("Roll 2 dice", "bonus round rolled, dan left out")
    assert "Left out of its payments, cashed out: Dan." in page.locator(".bank-lines").inner_text()
    bonus = {r.get_attribute("data-player"): r.locator("td.net").inner_text()
             for r in page.locator("table.standings tbody tr").all()}
    assert bonus == {n: ("+2" if n == roller else "0" if n == "Dan" else "-1") for n in NAMES}, bonus
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_dealers_choice_offers_the_poker_the_group_typed_by_its_name(live_server, new_phone, shots, problems):
    """Issue 35 on a 360×740 phone: poker with real betting played as "Texas hold'em" is offered by
    that name.  Napalm (seat 1 Ann deals), then Dealer's choice: Poker with real betting, "Texas
    hold'em" typed, started.  Dealer's choice now offers first "Texas hold'em (played tonight)",
    then Napalm (played tonight), and the bare "Poker with real betting" further down for another
    variant.  Tapping Texas hold'em opens its next game filled in with that name; Start: the table
    says "Tonight's 3rd game: Texas hold'em"."""
    axe = Axe(shots)
    page = new_phone().new_page()
    phone = Phone(page, shots)
    start_night(page, live_server.url, NAMES, tokens_to_win=5)

    phone.link("Dealer's choice")
    phone.tap(page.locator("ul.offers a").filter(has_text=re.compile(r"^Poker with real betting$")), "choice, poker")
    page.get_by_label(re.compile("^Which poker")).fill("Texas hold'em")
    phone.button("Start this game", "texas hold'em started")
    assert "Tonight's 2nd game: Texas hold'em" in phone.main()

    phone.link("Dealer's choice")
    offers = [" ".join(t.split()) for t in page.locator("ul.offers a").all_inner_texts()]
    assert offers[:2] == ["Texas hold'em (played tonight)", "Napalm (played tonight)"], offers
    assert "Poker with real betting" in offers[2:]
    axe.check(page, "dealer's choice, texas hold'em played")
    first = page.locator("ul.offers a").first
    box = first.bounding_box()
    assert box is not None and box["height"] >= 44, box
    phone.tap(first, "choice, texas hold'em again")
    assert page.locator("form.next-game h2").inner_text() == "Texas hold'em"
    assert page.get_by_label(re.compile("^Which poker")).input_value() == "Texas hold'em"
    phone.button("Start this game", "texas hold'em again")
    assert "Tonight's 3rd game: Texas hold'em" in phone.main()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert not axe.failures, "\n".join(axe.failures)
