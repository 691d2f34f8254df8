"""Issue 20's proof: the whole mixed night, played on a 360×740 phone as a new scorekeeper plays it.

From the home page on, every page is reached by the app's own links and buttons (the table's
*Start the next game*, *Dealer's choice*, *Bank*, *Bonus Round*, *Report*, *Players' link*; the
bank pages' *Table*), never by typing an address; every screen passes axe; Eve follows the night
on her own phone (a second browser context) from the players' link on the share page.

Seats Ann, Ben, Cat, Dan, Eve, clockwise; Ann deals first; a chip is worth 0.25 €; Napalm: ante 1
every hand, 5 tokens to win, an unfinished game's pot goes back to who paid it in (the form's
defaults).  Every figure below is worked by hand from ../shared/RULES.md (Napalm),
RULES-NAP.md (Nap) and RULES-POKER.md (the pot games, the bank, the Bonus Round); each list
of nets is in seat order (Ann, Ben, Cat, Dan, Eve) and adds up to 0 with what is in the pot.

1st game, Napalm.  Hand 1, Ann deals; the speaking order is Ben, Cat, Dan, Eve, Ann.
   Stage 1: the scorekeeper taps Dan, then Ben as Yes (not the speaking order): the ante, pot 5,
   everyone −1.  Their cards on the card picker, Dan's first by his own button: Dan A♠ A♥, Ben
   K♠ Q♦.  Dan's pair beats Ben's K-Q: Ben pays Dan the pot, 5:
       −1, −6, −1, +4, −1; pot 5.
   Undo ("Undid #2": the night's records are numbered across all its games): back to −1 each;
   the cards come back in their fields; ranked again: the same.
   Stage 2: Cat, Eve and Ann say Yes; Cat and Eve tie for the best low (a tie); the loser Ann
   pays each winner the pot, 5: Ann −1 − 10 = −11, Cat −1 + 5 = +4, Eve +4:
       −11, −6, +4, +4, +4; pot 5.
   Stage 3: everyone says No, then the dealer Ann says Yes (late); Ben challenges; Ben wins
   the showdown (a double tap on "Ben won", recorded once): Ann pays Ben 5:
       −16, −1, +4, +4, +4; pot 5.
   Napalm closes when the next game starts: its pot of 5 goes back, 1 to each:
       Napalm: −15, 0, +5, +5, +5.
2nd game, Pool Nap at 5 (five players: the dealer takes no cards, but pays and is paid),
   picked from the Game list, stake 1; Ben deals first (the hand in progress was Ann's).
   Deal 1, Ben deals: a new pool, 2 from each (pool 10); Cat bids 3 and makes it: 3 from each
   of the other four: Ann −5, Ben −5, Cat −2 + 12 = +10, Dan −5, Eve −5; pool 10.
   Deal 2, Cat deals and adds 2 (pool 12); Dan bids Nap and fails: he pays 5 to each of the
   other four and as much as the pool holds, 12, into it (pool 24): Ann 0, Ben 0,
   Cat +10 − 2 + 5 = +13, Dan −5 − 20 − 12 = −37, Eve 0; pool 24.
   Pool Nap closes with its pool unwon: back to who paid it in (Ann 2, Ben 2, Cat 4, Dan 14,
   Eve 2):  Pool Nap: +2, +2, +17, −23, +2.
   The night: −13, +2, +22, −18, +7.
3rd game, Tips to the Fat One, from Dealer's choice: Dan (the next dealer) and Eve on his left;
   A 2, B 3, so C 4, D 6, E 9: each stakes 24, the pots are A 4, B 6, C 8, D 12, E 18.
   Deal 1, Dan deals: A Eve (a double tap, recorded once), B Eve, C Dan, D Eve, E Dan:
   Dan −24 + 8 + 18 = +2, Eve −24 + 4 + 6 + 12 = −2.  Deal 2 is Eve's, not anted yet.
   The night: −13, +2, +22, −16, +5.
4th game, High Card, from Dealer's choice, all five, ante 1; Eve deals (the deal Tips passes on).
   Deal 1: antes, pot 5; nobody wins: the pot is carried.  Deal 2, Ann deals: antes again,
   pot 10; Ben wins it: High Card: −2, +8, −2, −2, −2.
   The night: −15, +10, +20, −18, +3.
5th game, NASDAQ, from Dealer's choice, all five, ante 1, sale limit 5; Ben deals.
   Deal 1: antes, pot 5; Cat bids 2 for the first sale (pot 7).  A sale of Dan's card with Dan
   as the buyer too (a slip) is refused: nothing recorded.  (A sale over the limit is not
   refused: RULES-POKER.md sends half the excess to the pot.)  Then Ann buys Dan's card for 12,
   over the limit of 5: the excess, 7, is halved, the odd chip to the pot: 4 to the pot (11),
   12 − 4 = 8 to Dan.  The pot, 11, is split high-low: high Ann, low Eve, the odd chip to
   high: 6 and 5.  Ann −1 − 12 + 6 = −7, Ben −1, Cat −1 − 2 = −3, Dan −1 + 8 = +7,
   Eve −1 + 5 = +4.
   The night: −22, +9, +17, −11, +7.
The bank, NASDAQ still at the table (its 2nd deal, Cat's, not recorded yet): the table's Bank,
   *Everyone buys in* with 100 prefilled (500 out); the night is on the counts from there, with
   no switch touched.  Ann rebuys 20 (520 out: Ann bought 120, the others 100).  Eve means to
   leave: counted 107 (100 + her +7) and cashed out.  NASDAQ's 2nd deal: "Dan won" would take
   Eve's ante out of her counted stack: refused, with how to go on.  As it says: Eve's cash-out
   cancelled on the Bank page, "Dan won" again: the pot of 5 antes, Dan −1 + 5 = +4, the
   others −1.
   The night (the tally): −23, +8, +16, −7, +6.
6th game, Poker with real betting, from Dealer's choice, all five; Dan deals (NASDAQ's 3rd
   deal was his).  Starting it closes NASDAQ with nothing in its pot.  Two deals played (Dan's,
   Eve's): the chips move on the table, the app records none of them.  Say the poker moved
   Ann +8, Ben −3, Cat −3, Dan 0, Eve −2 (0 in all).  Eve leaves now: counted
   100 + 6 − 2 = 104, cashed out.
The Bonus Round: a grid whose 36 cells each pay the roller 1 from everyone ("everyone pays the
   dealer 1"), so the payment is known whatever the dice; the roller is Ann (the next dealer);
   Eve, cashed out, is left out: Ann gets 1 from each of Ben, Cat and Dan: +3, −1, −1, −1, 0.
   The night (the tally): −20, +7, +15, −8, +6.
The counts: bought + the tally + what the poker moved: Ann 120 − 20 + 8 = 108,
   Ben 100 + 7 − 3 = 104, Cat 100 + 15 − 3 = 112, Dan 100 − 8 + 0 = 92, Eve 104;
   108 + 104 + 112 + 92 + 104 = 520 = bought: the bank balances (with a betting game in the
   night only the balance is checked, not each count against the tally).  Before Dan's count
   the report offers no payment and nothing to mark paid.
The results (counted − bought): Ann 108 − 120 = −12 (−3.00 €), Ben +4 (1.00 €), Cat +12
   (3.00 €), Dan −8 (−2.00 €), Eve +4 (1.00 €); 0 in all.  The fewest payments: three, as
   {Ann, Cat} and {Ben, Dan, Eve} each add up to 0, the only such split (Ann's −12 needs +12 from
   the others: Cat's 12; Ben + Eve = 8, Cat + Dan = 4, Ben + Cat + Dan = 8, …; only Cat, or
   everyone): Ann pays Cat 12 chips (3.00 €); Dan pays Ben 4 (1.00 €) and Eve 4 (1.00 €).
   Dan pays Eve, marked paid: Eve's phone shows it paid.
Then the scorekeeper replaces the players' link: Eve's phone says so at its top.
"""

from __future__ import annotations

import re
import time

import pytest

from browser.phone import (
    Phone, TableScreen, box_of, card_name, guarded_double_tap, save_a_bonus_grid_that_always_pays_the_dealer, start_night,
)
from browser.test_accessibility import Axe, forgive_error_status
from browser.test_bank import player_form
from browser.test_nap_night import pool_shown, tap_toggle, text_of
from browser.test_pots_night import PotsScreen

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]
GRID_GAMES = ["Napalm", "High Card", "NASDAQ"]
#: the chips each hands back, worked out in the module's docstring
COUNTS = {"Ann": 108, "Ben": 104, "Cat": 112, "Dan": 92, "Eve": 104}
EVE_COUNT = COUNTS["Eve"]
BOUGHT = {"Ann": 120, "Ben": 100, "Cat": 100, "Dan": 100, "Eve": 100}
RESULTS = {"Ann": -12, "Ben": 4, "Cat": 12, "Dan": -8, "Eve": 4}
MONEY = {"Ann": "-3.00 €", "Ben": "1.00 €", "Cat": "3.00 €", "Dan": "-2.00 €", "Eve": "1.00 €"}
PLAN = ["Ann pays Cat 12 chips (3.00 €)", "Dan pays Ben 4 chips (1.00 €)", "Dan pays Eve 4 chips (1.00 €)"]
LIVE_WITHIN = 10.0  # seconds: the players' page polls every 0.8 s; a bound for a loaded machine


def nets(*chips: int) -> dict[str, int]:
    """Each player's net, given in seat order."""
    assert len(chips) == len(NAMES)
    return dict(zip(NAMES, chips))


def card(picker, code: str):  # type: ignore[no-untyped-def]
    """The picker's button for ``code`` ("As", "Qd"), found by the name it is announced by."""
    return picker.get_by_role("button", name=card_name(code), exact=True)


def shown_nets(page) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """The whole night's nets as a standings screen shows them: the game's players, then those
    sitting it out, in seat order."""
    phone = Phone(page, None)
    shown = {**phone.nets(), **phone.sitting_out()}
    return {name: shown[name] for name in NAMES}


def shows(page, expected: dict[str, int]) -> bool:  # type: ignore[no-untyped-def]
    """Whether a players' page shows ``expected`` now (it may be between two updates: not yet)."""
    try:
        return shown_nets(page) == expected
    except (KeyError, ValueError):
        return False


def flash_of(page) -> str:  # type: ignore[no-untyped-def]
    """What the page's flash messages say, each on one line."""
    return " ".join(" ".join(t.split()) for t in page.locator(".flash").all_inner_texts())


# --- the night, game by game ---------------------------------------------------------------------


def play_napalm(phone: Phone, t: TableScreen, live_server, axe: Axe) -> None:  # type: ignore[no-untyped-def]
    page = phone.page
    # hand 1, stage 1: Dan is tapped before Ben, who speaks first
    for name in ("Dan", "Ben"):
        box = page.locator(f'input[name="yes"][value="{name}"]')
        page.locator("label.toggle", has=box).tap()
        assert box.is_checked()
    phone.button("Record Yes", "napalm, dan and ben say yes")
    t.check(pot=5, dealer="Ann", net=[-1, -1, -1, -1, -1], tokens=[0, 0, 0, 0, 0])
    # the cards on the picker: the fields come in speaking order (Ben's first); Dan's button
    # sends the taps to Dan, and each gets his own cards
    t.open_cards()
    whose = page.locator(".whose .whose-name")
    assert whose.inner_text() == "Ben"
    page.get_by_role("button", name="Cards for Dan").tap()
    assert whose.inner_text() == "Dan"
    picker = page.locator(".picker")
    for code in ("As", "Ah"):
        card(picker, code).tap()
    assert whose.inner_text() == "Ben"  # Dan has his two: on to the field still open
    for code in ("Ks", "Qd"):
        card(picker, code).tap()
    assert t.card_field("Dan").input_value() == "As Ah" and t.card_field("Ben").input_value() == "Ks Qd"
    axe.check(page, "napalm, cards picked for dan then ben")
    t.rank_cards()
    assert "Dan won" in t.flash, t.flash
    t.check(pot=5, dealer="Ann", net=[-1, -6, -1, 4, -1], tokens=[0, 0, 0, 0, 0])
    # undo: the chips go back, the cards come back to their own fields
    t.undo()
    # the night's records so far: #1 the Yes, #2 the cards, #3 this undo
    assert flash_of(page).startswith("Undid #2: Dan won; Ben paid 5."), flash_of(page)
    t.check(pot=5, dealer="Ann", net=[-1, -1, -1, -1, -1], tokens=[0, 0, 0, 0, 0])
    assert t.card_field("Dan").input_value() == "As Ah" and t.card_field("Ben").input_value() == "Ks Qd"
    axe.check(page, "napalm, the cards given back after an undo")
    t.rank_cards()
    t.check(pot=5, dealer="Ann", net=[-1, -6, -1, 4, -1], tokens=[0, 0, 0, 0, 0])

    # stage 2: Cat, Eve and Ann say Yes; Cat and Eve tie, Ann pays each of them the pot
    t.declare("Cat", "Eve", "Ann")
    axe.check(page, "napalm, a showdown of three")
    t.tie("Cat", "Eve")
    t.check(pot=5, dealer="Ann", net=[-11, -6, 4, 4, 4], tokens=[0, 0, 0, 0, 0])

    # stage 3: the dealer's late Yes, Ben challenges, Ben wins (a double tap, recorded once)
    t.declare("Ann")
    assert "challenge" in t.prompt.lower(), t.prompt
    axe.check(page, "napalm, the dealer's late yes")
    t.challenge("Ben")
    guarded_double_tap(page, live_server.app, page.get_by_role("button", name="Ben won", exact=True))
    t.shot("napalm, ben won after a double tap")
    assert not page.locator(".errors, .flash.warn").all_inner_texts()
    t.check(pot=5, dealer="Ben", net=[-16, -1, 4, 4, 4], tokens=[0, 0, 0, 0, 0])
    assert t.prompt == "Stage 1 · best two-card high hand: who said Yes?", t.prompt  # hand 2's


def play_pool_nap(phone: Phone, axe: Axe) -> None:
    page = phone.page
    phone.tap(page.get_by_role("link", name="Start the next game"), "start the next game")
    # what stopping Napalm does with its pot, in numbers, before anything starts
    stopping = ("Napalm stops: Unfinished game: pot of 5 chips; each player's antes in the unfinished game "
                "are returned (1 each).")
    assert text_of(page, ".stopping") == stopping
    # Nap, picked from the Game list and started at once: *Show its rules* is never tapped
    page.locator("#pick-game").select_option(label="Nap")
    page.locator("form.next-game .rules-of[data-rules-of=nap]").wait_for()
    assert page.locator("form.next-game h2").inner_text().strip() == "Nap"
    page.get_by_label("Variant").select_option(label="Pool Nap")
    assert page.locator("#first_dealer").input_value() == "Ben"  # the hand in progress was Ann's
    axe.check(page, "next game, nap picked from the list")
    phone.button("Start this game", "pool nap started")
    assert "Tonight's 2nd game: Pool Nap" in text_of(page, ".status")
    assert stopping in flash_of(page)  # said again once it has started
    # Napalm closed, its pot of 5 back to who paid it in
    assert shown_nets(page) == nets(-15, 0, 5, 5, 5)
    assert pool_shown(page) == 0
    axe.check(page, "table, pool nap")
    # deal 1, Ben deals and sits out: Cat makes 3
    tap_toggle(page, "bidder", "Cat")
    tap_toggle(page, "bid", "3")
    phone.button("Made", "pool nap, cat made 3")
    assert shown_nets(page) == nets(-15 - 5, 0 - 5, 5 + 10, 5 - 5, 5 - 5)
    assert pool_shown(page) == 10
    # deal 2, Cat deals, sits out and adds 2: Dan fails Nap
    tap_toggle(page, "bidder", "Dan")
    tap_toggle(page, "bid", "nap")
    phone.button("Failed", "pool nap, dan failed nap")
    assert shown_nets(page) == nets(-15 + 0, 0 + 0, 5 + 13, 5 - 37, 5 + 0)
    assert pool_shown(page) == 24
    # one numbering across the night: Napalm's #1 to #9 (the Yes, the cards, the undo, the cards
    # again, the Yes, the tie, the late Yes, the challenge, Ben's win: the double tap recorded
    # once), #10 Pool Nap's start, then its two deals
    recent = [" ".join(li.split()) for li in page.locator("ol.recent li").all_inner_texts()]
    assert [line.split(" · ")[0] for line in recent[:2]] == ["#12 Deal 2", "#11 Deal 1"], recent
    axe.check(page, "table, pool nap after two deals")


def dealers_choice(phone: Phone, offer: str, axe: Axe | None = None) -> None:
    """The table's *Dealer's choice*, then the game by the name the group plays it under."""
    page = phone.page
    phone.link("Dealer's choice")
    if axe is not None:
        axe.check(page, "dealer's choice")
    phone.tap(page.locator("ul.offers a").filter(has_text=re.compile(rf"^{re.escape(offer)}$")), f"choice, {offer}")
    assert page.locator("form.next-game h2").inner_text() == offer


def ticked(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [b.get_attribute("value") or "" for b in page.locator('input[name="players"]:checked').all()]


def play_tips(phone: Phone, live_server, axe: Axe) -> None:  # type: ignore[no-untyped-def]
    page = phone.page
    dealers_choice(phone, "Tips to the Fat One", axe)
    assert ticked(page) == ["Dan", "Eve"]  # the next dealer and his left
    page.get_by_label("Tips to the Fat One: pot A").fill("2")
    page.get_by_label("pot B", exact=True).fill("3")
    assert "C 4, D 6, E 9" in page.locator(".worked-out").inner_text()
    axe.check(page, "next game, tips to the fat one")
    phone.button("Start this game", "tips started")
    t = PotsScreen(page, phone.shots)
    assert t.prompt == "Deal 1: Dan deals. Who won pot A?"
    assert ("Pool Nap stops: Unwon pool of 24 chips returned to those who paid it in "
            "(Ann 2, Ben 2, Cat 4, Dan 14, Eve 2).") in t.flash, t.flash
    # Pool Nap closed, its pool of 24 back to who paid it in: the night so far
    assert shown_nets(page) == nets(-13, 2, 22, -18, 7)
    axe.check(page, "table, tips to the fat one")
    # pot A: a hurried double tap on "Eve won", recorded once (pot B's "Eve won" comes up under
    # the thumb: the tap guard swallows the second tap)
    guarded_double_tap(page, live_server.app, page.get_by_role("button", name="Eve won", exact=True))
    phone.shots(page, "tips, pot a after a double tap")
    assert t.prompt == "Deal 1: Dan deals. Who won pot B?", t.prompt
    assert t.pot() == 44  # 48 − pot A's 4: taken once
    for pot, winner in zip("BCDE", ("Eve", "Dan", "Eve", "Dan")):
        phone.tap(page.get_by_role("button", name=f"{winner} won", exact=True), f"tips, pot {pot}, {winner}")
    assert t.prompt == "Deal 2: Eve deals. Who won pot A?"
    assert shown_nets(page) == nets(-13, 2, 22, -18 + 2, 7 - 2)


def play_high_card(phone: Phone, axe: Axe) -> None:
    page = phone.page
    dealers_choice(phone, "High Card")
    assert ticked(page) == NAMES
    assert page.get_by_label("First dealer").input_value() == "Eve"  # the deal Tips passes on
    page.get_by_label("Ante (chips from each player every deal)", exact=True).fill("1")
    axe.check(page, "next game, high card")
    phone.button("Start this game", "high card started")
    t = PotsScreen(page, phone.shots)
    assert t.prompt == "Deal 1: Eve deals. Who won the pot?"
    phone.tap(page.get_by_role("button", name=re.compile(r"^Nobody won: carry the pot")), "high card, carried")
    assert t.pot() == 5 and t.dealer() == "Ann"
    assert "(the pot will be 10)" in page.locator("section.ask").inner_text()
    axe.check(page, "table, high card, a carried pot")
    phone.tap(page.get_by_role("button", name="Ben won", exact=True), "high card, ben won")
    assert "The pot, 10: Ben takes it." in t.flash
    assert shown_nets(page) == nets(-13 - 2, 2 + 8, 22 - 2, -16 - 2, 5 - 2)


def play_nasdaq(phone: Phone, axe: Axe, problems) -> None:  # type: ignore[no-untyped-def]
    page = phone.page
    dealers_choice(phone, "NASDAQ")
    assert ticked(page) == NAMES
    page.get_by_label("NASDAQ: sale limit (empty: none)").fill("5")
    axe.check(page, "next game, nasdaq")
    phone.button("Start this game", "nasdaq started")
    t = PotsScreen(page, phone.shots)
    assert t.prompt == "Deal 1: Ben deals. Who won the pot?"
    # Cat's bid for the first sale
    page.locator("details.into-pot summary").tap()
    page.get_by_label("Chips", exact=True).fill("2")
    page.locator("#into-reason").select_option("bid")
    phone.tap(page.get_by_role("button", name="Cat puts them in"), "nasdaq, cat's bid")
    assert "Cat: bid for the first sale of 2 into the pot (7)." in t.flash
    # a sale with Dan on both sides: refused, nothing recorded, what was typed kept
    page.locator("details.sale summary").tap()
    page.locator("#sale-seller").select_option("Dan")
    page.locator("#sale-buyer").select_option("Dan")
    page.locator("#sale-price").fill("12")
    with page.expect_navigation(wait_until="load") as navigation:
        page.get_by_role("button", name="Record the sale").tap()
    assert navigation.value is not None and navigation.value.status == 422
    forgive_error_status(problems, 422)  # the refusal is the point here
    said = text_of(page)
    assert "Dan cannot buy their own card" in said, said[:800]
    assert page.locator("#sale-price").input_value() == "12"
    axe.check(page, "nasdaq, a sale refused")
    assert t.pot() == 7
    # the sale as it was: Ann buys Dan's card for 12, over the limit of 5
    page.locator("#sale-buyer").select_option("Ann")
    phone.tap(page.get_by_role("button", name="Record the sale"), "nasdaq, ann bought dan's card")
    assert "Ann bought Dan's card for 12: 8 to Dan, 4 to the pot (half the excess over 5)." in t.flash, t.flash
    assert t.pot() == 11
    # the pot split high-low: Ann high, Eve low, the odd chip to high
    page.locator("details.high-low summary").tap()
    tap_toggle(page, "high", "Ann")
    tap_toggle(page, "low", "Eve")
    axe.check(page, "nasdaq, high-low")
    phone.button("Record high-low", "nasdaq, ann high, eve low")
    assert shown_nets(page) == nets(-15 - 7, 10 - 1, 20 - 3, -18 + 7, 3 + 4)


def cash_out(phone: Phone, name: str, chips: int) -> None:
    """On the Bank page: the player's counted chips, then *Cash out*."""
    form = player_form(phone.page, name)
    form.get_by_label(f"Chips for {name}").fill(str(chips))
    phone.tap(form.get_by_role("button", name="Cash out"), f"bank, {name} cashed out {chips}")


def bank_and_a_cash_out_refusal(phone: Phone, axe: Axe, problems) -> None:  # type: ignore[no-untyped-def]
    """The bank with NASDAQ still at the table: everyone buys in, Ann rebuys; Eve, who means to
    leave, is counted and cashed out too soon: NASDAQ's 2nd deal would take her ante."""
    page = phone.page
    phone.link("Bank")
    assert page.get_by_label("Chips each").input_value() == "100"
    phone.button("Everyone buys in", "bank, everyone bought in")
    # the first buy-in puts the night on the counts: no switch touched
    assert page.locator(".bank-setting [data-settle-on]").get_attribute("data-settle-on") == "bank"
    assert page.locator(".bank-setting .settles").inner_text().startswith(
        "This night settles on chip counts (the bank): chips were bought from the bank")
    assert page.locator("[data-in-play]").inner_text() == "500"  # 5 × 100
    form = player_form(page, "Ann")
    form.get_by_label("Chips for Ann").fill("20")
    phone.tap(form.get_by_role("button", name="Rebuy"), "bank, ann rebought 20")
    assert page.locator("[data-in-play]").inner_text() == "520"  # Ann bought 120
    # Eve's stack by the tally so far: 100 + 7
    cash_out(phone, "Eve", 107)
    axe.check(page, "bank, bought in, eve cashed out")

    # NASDAQ's 2nd deal, Cat deals: Dan wins the pot of antes, Eve's among them: refused
    phone.link("Table")
    with page.expect_navigation(wait_until="load") as navigation:
        page.get_by_role("button", name="Dan won", exact=True).tap()
    assert navigation.value is not None and navigation.value.status == 422
    forgive_error_status(problems, 422)  # the refusal is the point here
    said = text_of(page)
    assert ("Eve has cashed out, and this would move their chips after their count. To go on: cancel Eve's "
            "cash-out in the bank's log (Bank page), record this again, then count and cash out again.") in said, said[:900]
    axe.check(page, "table, a win refused: eve has cashed out")
    # as the table says: Eve's cash-out cancelled, the win recorded (Dan +5 − 1, the others −1)
    phone.link("Bank")
    line = page.locator(".bank-lines li", has_text="Eve cashed out 107 chips")
    phone.ask(line.get_by_role("button", name=re.compile(r"^Cancel #")), "bank, cancel eve's cash-out? asked")
    phone.tap(page.get_by_role("button", name=re.compile(r"^Yes, cancel #")), "bank, eve's cash-out cancelled")
    phone.link("Table")
    phone.tap(page.get_by_role("button", name="Dan won", exact=True), "nasdaq, deal 2, dan won")
    assert shown_nets(page) == nets(-22 - 1, 9 - 1, 17 - 1, -11 + 4, 7 - 1)


def play_poker(phone: Phone, axe: Axe) -> None:
    page = phone.page
    dealers_choice(phone, "Poker with real betting")
    assert ticked(page) == NAMES
    assert page.get_by_label("First dealer").input_value() == "Dan"  # NASDAQ's 3rd deal was his
    phone.button("Start this game", "poker started")
    assert ("This night settles on chip counts (the bank): Poker with real betting is played tonight, "
            "and the chips on the table settle its pots.") in phone.main()
    assert phone.prompt() == "Deal 1: Dan deals. Tap when the deal is played."
    axe.check(page, "table, poker")
    for dealer in ("Dan", "Eve"):
        phone.button("Deal played: next deal", f"poker, {dealer}'s deal played")
    assert phone.prompt() == "Deal 3: Ann deals. Tap when the deal is played."
    phone.link("Bank")  # with a betting game in the night, the counts are the only way to settle
    assert page.get_by_role("button", name=re.compile("^Settle on")).count() == 0
    phone.link("Table")
    # the standings are the app's tally until the counts are in: the games as they closed
    assert shown_nets(page) == nets(-23, 8, 16, -7, 6)


def bonus_round(phone: Phone, axe: Axe) -> None:
    """Eve leaves: counted and cashed out; the Bonus Round's roll leaves her out."""
    page = phone.page
    phone.link("Bank")
    cash_out(phone, "Eve", EVE_COUNT)
    phone.link("Bonus Round")
    save_a_bonus_grid_that_always_pays_the_dealer(phone, GRID_GAMES, axe)
    assert "Eve has cashed out: a roll leaves them out of its payments" in phone.main()
    assert page.get_by_label("Who rolls (the dealer)").input_value() == "Ann"  # poker's next dealer
    phone.button("Roll 2 dice", "bonus round rolled")
    faces = page.locator("section.rolled .faces").get_attribute("data-faces") or ""
    assert re.fullmatch(r"[1-6]-[1-6]", faces), faces
    first, second = (int(f) for f in faces.split("-"))
    game = GRID_GAMES[((first - 1) * 6 + (second - 1)) % len(GRID_GAMES)]
    assert page.locator("section.rolled .game").inner_text() == game
    lines = page.locator(".bank-lines").inner_text()
    assert f"Ann rolled {faces}: {game}. Bonus: everyone pays Ann 1." in lines, lines
    assert "Left out of its payments, cashed out: Eve." in lines, lines
    bonus = {r.get_attribute("data-player"): r.locator("td.net").inner_text()
             for r in page.locator("table.standings tbody tr").all()}
    assert bonus == {"Ann": "+3", "Ben": "-1", "Cat": "-1", "Dan": "-1", "Eve": "0"}, bonus
    assert page.get_by_label("Who rolls (the dealer)").input_value() == "Ben"  # the next roll: the next dealer
    axe.check(page, "bonus round, rolled, eve left out")


def counts(phone: Phone, axe: Axe) -> None:
    page = phone.page
    assert {name: COUNTS[name] - BOUGHT[name] for name in NAMES} == RESULTS  # the expectations agree
    assert sum(COUNTS.values()) == sum(BOUGHT.values()) == 520  # the bank balances
    phone.link("Bank")
    for name in ("Ann", "Ben", "Cat"):  # Eve was counted when she left
        cash_out(phone, name, COUNTS[name])
    # Dan not counted yet: the report offers no payment and nothing to mark paid
    phone.link("Report")
    block = " ".join(page.locator(".pay .bank-block").inner_text().split())
    assert "No payments yet, and nothing to mark paid: the bank is not balanced." in block, block
    assert re.search(r"Not settled yet: .*\bDan\b", block), block
    assert page.get_by_role("button", name="Mark paid").count() == 0 and page.locator("ol.payments").count() == 0
    axe.check(page, "report, dan still to count")
    phone.tap(page.get_by_role("link", name="Open the Bank page"), "report, open the bank page")
    cash_out(phone, "Dan", COUNTS["Dan"])
    main = phone.main()
    assert "The bank balances." in main, main[:1500]
    results = [page.locator(f'form.bank-player[data-player="{n}"] [data-result]').inner_text() for n in NAMES]
    assert results == [f"{RESULTS[n]:+d}" if RESULTS[n] else "0" for n in NAMES], results
    assert sorted(page.locator(".bank-plan li").all_inner_texts()) == PLAN
    axe.check(page, "bank, everyone counted")


def figures_of(game) -> str:  # type: ignore[no-untyped-def]
    """A line of "Tonight's games" without its title and its note: "Ann -15, Ben 0, …"."""
    text = game.inner_text()
    for note in game.locator(".muted").all_inner_texts():
        text = text.replace(note, "")
    return " ".join(text.split()).split(" · ", 1)[1]


def settle_up(phone: Phone, axe: Axe, eve, wait_until) -> None:  # type: ignore[no-untyped-def]
    """The report offers the bank's plan, each with *Mark paid*; Dan pays Eve; Eve's phone shows it."""
    page = phone.page
    phone.link("Report")
    offered = sorted(
        f"{li.get_attribute('data-payer')} pays {li.get_attribute('data-payee')} {li.get_attribute('data-chips')} chips "
        f"({li.locator('.amount').inner_text().strip()})"
        for li in page.locator("ol.payments li.payment").all()
    )
    assert offered == PLAN, offered
    assert page.get_by_role("button", name="Mark paid").count() == 3
    for name in NAMES:  # each player's net, chips and money (0.25 € a chip)
        row = page.locator(f'table.net-table tbody tr[data-player="{name}"]')
        assert row.locator("td").nth(0).inner_text().replace("−", "-") == f"{RESULTS[name]:+d}"
        assert row.locator("td").nth(1).inner_text().replace("−", "-") == MONEY[name]
    axe.check(page, "report")
    dan_eve = page.locator('li.payment[data-payer="Dan"][data-payee="Eve"]')
    with page.expect_navigation(wait_until="load"):  # Mark paid asks first (a warning, not a refusal)
        dan_eve.get_by_role("button", name="Mark paid").tap()
    assert page.locator("form.confirm .flash.warn").inner_text() == "Confirm: Dan paid Eve 1.00 €?"
    axe.check(page, "report, confirm a payment")
    phone.tap(page.get_by_role("button", name="Yes, Dan paid Eve"), "report, dan paid eve")
    assert page.locator('li.payment.paid[data-payer="Dan"][data-payee="Eve"]').count() == 1
    wait_until(lambda: eve.locator('.paid-mark[data-paid="Dan"]').count() == 1, LIVE_WITHIN, "eve's phone shows it paid")
    mine = text_of(eve, "#live section.mine")
    assert "you received 1.00 € (4 chips) from Dan Paid ✓" in mine, mine
    axe.check(page, "report, a payment marked paid")
    # Eve's page: each game as it closed, then the bank's line (each result less the games:
    # Ann −12 + 23 = +11, Ben 4 − 8 = −4, Cat 12 − 16 = −4, Dan −8 + 7 = −1, Eve 4 − 6 = −2:
    # the poker and the Bonus Round's payments, paid in chips at the table): they add up to the
    # standings above them
    games = [figures_of(li) for li in eve.locator("section.tonight li[data-night-game]").all()]
    assert games == [
        "Ann -15, Ben 0, Cat +5, Dan +5, Eve +5",  # Napalm, its pot given back
        "Ann +2, Ben +2, Cat +17, Dan -23, Eve +2",  # Pool Nap, its pool given back
        "Dan +2, Eve -2",  # Tips to the Fat One
        "Ann -2, Ben +8, Cat -2, Dan -2, Eve -2",  # High Card
        "Ann -8, Ben -2, Cat -4, Dan +11, Eve +3",  # NASDAQ's two deals
        "Ann 0, Ben 0, Cat 0, Dan 0, Eve 0",  # the poker: the app records no chips
    ], games
    bank_line = " ".join(eve.locator("section.tonight .night-ledger-line").inner_text().split())
    assert bank_line == "The bank · Ann +11, Ben -4, Cat -4, Dan -1, Eve -2", bank_line


def test_a_mixed_night_from_the_home_page_to_the_settle_up(live_server, new_phone, shots, problems, wait_until):
    started = time.monotonic()
    axe = Axe(shots)
    page = new_phone().new_page()
    phone = Phone(page, shots)
    page.goto(live_server.url + "/")
    axe.check(page, "home")
    start_night(page, live_server.url, NAMES, tokens_to_win=5, name="Mixed night")
    table_url = page.url
    t = TableScreen(page, shots, NAMES)
    axe.check(page, "table, napalm")

    # Eve follows on her own phone: the players' link, read off the share page
    phone.tap(page.get_by_role("link", name="Players' link"), "share page")
    link = page.locator("p.link a").inner_text().strip()
    axe.check(page, "share page")
    phone.tap(page.get_by_role("link", name="Back to the table"), "back to the table")
    eve = new_phone().new_page()
    eve.goto(link)
    eve.get_by_label("This is me").select_option("Eve")
    with eve.expect_navigation(wait_until="load"):
        eve.get_by_role("button", name="Save").click()
    axe.check(eve, "eve's phone")

    play_napalm(phone, t, live_server, axe)
    assert page.url.startswith(table_url)
    wait_until(lambda: shows(eve, nets(-16, -1, 4, 4, 4)), LIVE_WITHIN, "eve's phone follows napalm")
    play_pool_nap(phone, axe)
    play_tips(phone, live_server, axe)
    play_high_card(phone, axe)
    play_nasdaq(phone, axe, problems)
    bank_and_a_cash_out_refusal(phone, axe, problems)
    play_poker(phone, axe)
    bonus_round(phone, axe)
    counts(phone, axe)
    settle_up(phone, axe, eve, wait_until)
    axe.check(eve, "eve's phone, settled")

    # the players' link replaced: Eve's phone says so at its top, the standings no longer live
    phone.link("Table")
    phone.tap(page.get_by_role("link", name="Players' link"), "share page, at the end")
    page.get_by_label("Replace a link").select_option("viewer")
    phone.button("Make a new link", "share page, the players' link replaced")
    note = eve.locator("p.stale")
    wait_until(note.is_visible, LIVE_WITHIN, "eve's phone: the link was replaced")
    assert note.inner_text() == "This link was replaced: ask the scorekeeper for the new QR code."
    eve.evaluate("window.scrollTo(0, 0)")
    top = box_of(note)["y"] + box_of(note)["height"]
    assert top <= box_of(eve.locator("table.standings"))["y"] and top <= 740  # above the standings, on the first screen
    assert "not-live" in (eve.locator("#live").get_attribute("class") or "")
    axe.check(eve, "eve's phone, the link replaced")
    problems.seen[:] = [p for p in problems.seen if link not in p]  # Eve's phone asks the old link: gone for good
    assert not axe.failures, "\n".join(axe.failures)
    print(f"\nthe mixed night took {time.monotonic() - started:.1f} s of wall time")
