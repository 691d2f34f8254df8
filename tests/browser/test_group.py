"""A group across nights on a 360×740 phone: two nights kept, the season, the tab and its payments.

Every tap is on the real controls; axe, the 360-px width and the 44-px tap targets are checked on
every screen.  Worked by hand (RULES-POKER.md, "Fixed-stake pots": each deal everyone antes 1 and
the winner takes the pot; docs/group.md, "The tab"); seats Ann, Ben, Cat, Dan; a chip is 0.25 €.

**Night 1**, High Card, Ann deals first.  Deal 1 (Ann): pot 4, Cat wins; deal 2 (Ben): pot 4, Cat
wins; deal 3 (Cat): pot 4, Dan wins.  Ann −3, Ben −3, Cat −3 + 8 = +5, Dan −3 + 4 = +1 (sum 0):
−0.75 €, −0.75 €, +1.25 €, +0.25 €.  Kept in a new group "Friday poker".

**Night 2**, started from the group's page: the same seats, the deal one seat on (Ben).  Deal 1
(Ben): pot 4, Ann wins; deal 2 (Cat): pot 4, Ann wins.  Ann +6, Ben −2, Cat −2, Dan −2: +1.50 €
and −0.50 € each.  Its fewest payments: Ben, Cat and Dan each pay Ann 2 chips (0.50 €); at the
night, Dan's is marked paid.

**The season**, all time (net = night 1 + night 2): Ann 2 nights, −0.75 + 1.50 = +0.75 €, −3 + 6 = +3
chips; Ben −0.75 − 0.50 = −1.25 €, −5 chips; Cat +1.25 − 0.50 = +0.75 €, +3 chips; Dan +0.25 − 0.50 =
−0.25 €, −1 chip.  (Sum 0 €, 0 chips.)

**The tab** (the season's money less what was marked paid: Dan paid Ann 0.50 €): Ann +0.75 − 0.50 =
+0.25, Ben −1.25, Cat +0.75, Dan −0.25 + 0.50 = +0.25 (sum 0).  No part of it but the whole squares
itself (Ben's 1.25 needs all three credits), so the fewest payments are three: Ben pays Cat 0.75 €,
Ann 0.25 € and Dan 0.25 €.

**Payments through the tab.**  Cat is paid by PayPal.Me "CatPays" and IBAN DE89 3704 0044 0532 0130 00:
the Pay link of Ben → Cat asks for 0.75 EUR, the EPC QR code's amount line reads "EUR0.75".  The
organiser marks Ben → Cat paid in part, 0.50 €: Ben −0.75, Ann, Cat and Dan +0.25 each; the plan:
Ben pays each of them 0.25 €.  Cat, on her own link, says "I got it" for her 0.25 €: Ben −0.50,
Ann +0.25, Dan +0.25; two payments, so "Settle everything" is offered; its Yes tapped twice in a hurry
records the two payments once, and everyone is square (every payment asks first, in words).  (The part
payment and "I got it" come before
the settling: settling clears the whole plan, and "I got it" needs a payment still owed.)  Printed, the
organiser's page keeps the season table and the tab and hides every form.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from browser.phone import Phone, guarded_double_tap, open_fold
from browser.test_accessibility import Axe
from qr_codes import decode_qr

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan"]
MINUS = "\u2212"
IBAN = "DE89370400440532013000"  # the standard's example: its check digits are right


def text_of(page: Any, selector: str = "main") -> str:
    return " ".join(page.locator(selector).inner_text().split())


def season_of(page: Any) -> dict[str, tuple[int, str, str]]:
    """Each member's row of the season table as read (its section opened first, where the page folds it):
    (nights, net, chips)."""
    open_fold(page, "season-h")
    return {
        row.get_attribute("data-member"): (
            int(row.locator("[data-nights]").inner_text()),
            row.locator("[data-net]").inner_text().strip(),
            row.locator("[data-chips]").inner_text().strip(),
        )
        for row in page.locator("table.season-table tbody tr").all()
    }


def tab_of(page: Any, unit: str = "€") -> tuple[dict[str, Decimal], list[tuple[str, str, Decimal, str]]]:
    """The tab in ``unit``: each member's balance, and the plan (payer, payee, amount, the amount as said)."""
    open_fold(page, "tab-h")
    block = page.locator(f'.tab-unit[data-unit="{unit}"]')
    balances = {li.get_attribute("data-member"): Decimal(li.get_attribute("data-balance"))
                for li in block.locator("ul.balances li").all()}
    plan = [(li.get_attribute("data-payer"), li.get_attribute("data-payee"), Decimal(li.get_attribute("data-amount")),
             li.locator(".amount").inner_text().strip())
            for li in block.locator("ol.payments li.payment").all()]
    return balances, plan


def payment(page: Any, payer: str, payee: str) -> Any:
    return page.locator(f'li.payment[data-payer="{payer}"][data-payee="{payee}"]')


def flash(page: Any) -> str:
    return " ".join(t.strip() for t in page.locator(".flash").all_inner_texts())


def play_high_card(phone: Phone, winners: list[str], first_deal: int = 1) -> None:
    """Tap each deal's winner; the table asks for the next deal each time."""
    for number, winner in enumerate(winners, start=first_deal):
        phone.tap(phone.page.get_by_role("button", name=f"{winner} won", exact=True), f"deal {number}, {winner} won")
        assert "The pot, 4: " + winner + " takes it." in flash(phone.page)


def start_first_night(phone: Phone, url: str, axe: Axe) -> None:
    """Night 1 on the home page: High Card first, seats Ann to Dan, ante 1, a chip is 0.25 €."""
    page = phone.page
    page.goto(url + "/")
    page.get_by_label("First game").select_option(label="Fixed-stake pots")
    phone.tap(page.get_by_role("button", name="Show its rules"), "home, high card's rules")
    form = page.locator("form.night")
    form.get_by_label("Which pot game").select_option(label="High Card")
    form.get_by_label("Name of the night").fill("First Friday")
    for seat, player in enumerate(NAMES, start=1):
        form.get_by_label(f"Seat {seat}", exact=True).fill(player)
    form.get_by_label("Ante (chips from each player every deal)").fill("1")
    form.get_by_label("Value of one chip").fill("0.25")
    axe.check(page, "home, night 1 set up")
    phone.tap(form.get_by_role("button", name="Start the night"), "night 1 started")
    assert phone.prompt() == "Deal 1: Ann deals. Who won the pot?"


def record_count(app: Any, kind: str) -> int:
    from companion.db.models import GroupRecord
    from companion.extensions import db

    with app.app_context():
        return db.session.scalar(db.select(db.func.count()).select_from(GroupRecord).where(GroupRecord.kind == kind))


def test_a_group_across_two_nights_its_season_tab_and_payments(live_server, new_phone, shots, problems):
    axe = Axe(shots)
    page = new_phone().new_page()
    phone = Phone(page, shots)

    # --- night 1, played to its end, kept in a new group from its report --------------------
    start_first_night(phone, live_server.url, axe)
    play_high_card(phone, ["Cat", "Cat", "Dan"])
    assert phone.nets() == {"Ann": -3, "Ben": -3, "Cat": 5, "Dan": 1}
    axe.check(page, "table, night 1 after three deals")
    phone.link("Report")
    axe.check(page, "report of night 1")
    phone.tap(page.get_by_role("link", name="Keep this night in a group"), "keep night 1 in a group")
    axe.check(page, "keep in a group")
    page.get_by_label("Name of a new group").fill("Friday poker")
    phone.button("Make the group with this night", "group made")
    organiser_url = page.url
    assert re.search(r"/g/[A-Za-z0-9_-]{16,}$", organiser_url), organiser_url
    assert "The group \u201cFriday poker\u201d is made with this night in it." in flash(page)
    # night 1 alone: −0.75, −0.75, +1.25, +0.25 € (see the module's doc)
    assert season_of(page) == {
        "Ann": (1, f"{MINUS}0.75 €", "-3"), "Ben": (1, f"{MINUS}0.75 €", "-3"),
        "Cat": (1, "+1.25 €", "+5"), "Dan": (1, "+0.25 €", "+1"),
    }, season_of(page)
    axe.check(page, "organiser's page, one night")

    # --- a new night: two taps from the group's page to its table ------------------------------
    before = phone.taps
    phone.tap(page.get_by_role("link", name="New night", exact=True), "new night set up")
    form = page.locator("form.night")
    assert [form.get_by_label(f"Seat {seat}", exact=True).input_value() for seat in range(1, 5)] == NAMES
    assert form.locator("select.dealer-pick option:checked").inner_text().strip() == "Ben"  # one seat on from Ann
    # the last night's first game preselected, any other one tap away; named after the group, not "Card night"
    assert form.locator("#first-game option:checked").inner_text().strip() == "Fixed-stake pots"
    assert form.get_by_label("Name of the night").input_value().endswith(" #2")
    axe.check(page, "new night, set up from the last")
    phone.button("Start the night", "night 2 started")
    assert phone.taps - before == 2
    assert re.search(r"/k/[A-Za-z0-9_-]{40,}$", page.url), page.url
    assert phone.prompt() == "Deal 1: Ben deals. Who won the pot?"
    assert list(phone.nets()) == NAMES  # seated as the last night
    axe.check(page, "table, night 2's first deal")

    # --- night 2, briefly; one payment marked paid at the night -----------------------------------
    play_high_card(phone, ["Ann", "Ann"])
    assert phone.nets() == {"Ann": 6, "Ben": -2, "Cat": -2, "Dan": -2}
    phone.link("Report")
    offered = sorted((li.get_attribute("data-payer"), li.get_attribute("data-payee"), li.locator(".amount").inner_text())
                     for li in page.locator("ol.payments li.payment").all())
    assert offered == [("Ben", "Ann", "0.50 €"), ("Cat", "Ann", "0.50 €"), ("Dan", "Ann", "0.50 €")], offered
    with page.expect_navigation(wait_until="load"):  # the report asks to confirm (a warning, not a refusal)
        payment(page, "Dan", "Ann").get_by_role("button", name="Mark paid").tap()
    assert "Confirm: Dan paid Ann 0.50 €?" in text_of(page)
    phone.button("Yes, Dan paid Ann", "night 2, dan paid ann")
    assert payment(page, "Dan", "Ann").locator(".paid-mark").is_visible()
    axe.check(page, "report of night 2, one payment marked")

    page.goto(organiser_url)  # the organiser's page, kept open in another tab
    assert season_of(page) == {
        "Ann": (2, "+0.75 €", "+3"), "Ben": (2, f"{MINUS}1.25 €", "-5"),
        "Cat": (2, "+0.75 €", "+3"), "Dan": (2, f"{MINUS}0.25 €", "-1"),
    }, season_of(page)
    balances, plan = tab_of(page)
    assert balances == {"Ann": Decimal("0.25"), "Ben": Decimal("-1.25"), "Cat": Decimal("0.75"), "Dan": Decimal("0.25")}
    assert plan == [("Ben", "Ann", Decimal("0.25"), "0.25 €"), ("Ben", "Cat", Decimal("0.75"), "0.75 €"),
                    ("Ben", "Dan", Decimal("0.25"), "0.25 €")], plan
    assert page.locator(".night-list li").count() == 2
    axe.check(page, "organiser's page, two nights and the tab")

    # --- the members' page on a second phone, by the QR code the organiser's page shows ----------
    open_fold(page, "links-h")
    qr = page.locator("section.group-links img.qr")
    qr.scroll_into_view_if_needed()
    assert qr.evaluate("img => img.complete && img.naturalWidth > 0"), "the QR code did not load"
    svg = page.request.get(live_server.url + qr.get_attribute("src"))
    assert svg.ok and svg.headers["content-type"].startswith("image/svg+xml")
    members_url = decode_qr(svg.text())
    assert members_url == page.locator("section.group-links p.link a").inner_text().strip()
    assert re.fullmatch(re.escape(live_server.url) + r"/m/[A-Za-z0-9_-]{16,}", members_url), members_url
    member = new_phone().new_page()
    member.goto(members_url)
    assert season_of(member) == season_of(page)
    assert tab_of(member) == tab_of(page)
    # read-only: anyone may hold the members' link, so "I got it" is said on each member's own link (issue 35,
    # item 7): no form here posts or asks anything, no handle can be set, no organiser link
    assert member.locator('form[method="post"]').count() == 0 and member.locator("form.mark").count() == 0
    assert member.get_by_role("button", name=re.compile("^I got it")).count() == 0
    assert member.get_by_label("How they are paid").count() == 0
    assert member.get_by_role("link", name="New night").count() == 0
    assert organiser_url.removeprefix(live_server.url) not in member.content()
    refused = member.request.post(members_url + "/handles", form={"member": "Cat", "kind": "paypal", "handle": "Cat"})
    assert refused.status in (404, 405), refused.status  # nothing on the members' link sets a handle
    axe.check(member, "members' page")

    # --- Cat's pay handles: the Pay link and the bank transfer's QR code ----------------------------
    open_fold(page, "members-h", "handle-h")
    handle = page.locator("form", has=page.locator("#handle-kind"))
    handle.get_by_label("Member").select_option("Cat")
    handle.get_by_label("How they are paid").select_option(label="PayPal.Me")
    handle.get_by_label("Username, link or IBAN").fill("CatPays")
    phone.tap(handle.get_by_role("button", name="Save"), "cat's paypal.me saved")
    handle = page.locator("form", has=page.locator("#handle-kind"))
    handle.get_by_label("Member").select_option("Cat")
    handle.get_by_label("How they are paid").select_option(label="Bank transfer (IBAN)")
    handle.get_by_label("Username, link or IBAN").fill("DE89 3704 0044 0532 0130 00")
    handle.get_by_label("Account holder's name, as the bank has it (IBAN only)").fill("Cat Lee")
    phone.tap(handle.get_by_role("button", name="Save"), "cat's iban saved")
    assert page.url.endswith("#handle-h") and handle.is_visible()  # back at the form, opened for the next
    open_fold(page, "tab-h")
    to_cat = payment(page, "Ben", "Cat")
    link = to_cat.locator('a.pay-link[data-pay="paypal"]')
    assert link.get_attribute("href") == "https://paypal.me/CatPays/0.75EUR"  # 0.75 € filled in
    assert payment(page, "Ben", "Ann").locator(".pay-offers").count() == 0  # Ann gave no handle
    epc = decode_qr(to_cat.locator(".pay-qr svg").evaluate("svg => svg.outerHTML")).split("\n")
    assert epc[:4] == ["BCD", "002", "1", "SCT"]
    assert epc[5:8] == ["Cat Lee", IBAN, "EUR0.75"], epc  # the amount line: 0.75 euros
    assert to_cat.locator('[data-copy="amount"]').inner_text() == "0.75 EUR"
    axe.check(page, "organiser's page, cat's pay offers")
    member.reload()
    assert payment(member, "Ben", "Cat").locator('a.pay-link[data-pay="paypal"]').get_attribute("href") == (
        "https://paypal.me/CatPays/0.75EUR")
    axe.check(member, "members' page, cat's pay offers")
    # each payment's words read across the phone, not squeezed into a column beside its form: at 360 px the
    # line "Ben pays Cat 0.75 €" is one line of about 20 px, never a letter per line
    for phone_page in (page, member):
        heights = phone_page.locator("li.payment .what").evaluate_all("ps => ps.map(p => p.getBoundingClientRect().height)")
        assert heights and max(heights) < 60, heights

    # --- the print view keeps the tables and hides the forms --------------------------------------
    page.emulate_media(media="print")
    assert page.locator("table.season-table").is_visible()
    assert page.locator(".tab-unit ul.balances").is_visible()
    assert page.locator(".tab-unit ol.payments").is_visible()
    for selector in ("form.ask", "form.mark", "form.period", 'form[action$="/rotate"]', "p.new-night a"):
        shown = [f for f in page.locator(selector).all() if f.is_visible()]
        assert not shown, f"{selector} is printed"
    shots(page, "organiser's page, printed")
    page.emulate_media(media="screen")

    # --- a part paid, then "I got it" on the members' page for what is still owed --------------------
    to_cat.get_by_label("Amount (€)").fill("0.50")
    asked = phone.ask(to_cat.get_by_role("button", name="Mark paid"), "ben paid cat 0.50 of 0.75? asked")
    assert asked == "Confirm: Ben paid Cat 0.50 €?", asked
    assert record_count(live_server.app, "tab_paid") == 0  # the first tap records nothing
    axe.check(page, "mark paid, asked first")
    phone.button("Yes, Ben paid Cat 0.50 €", "ben paid cat 0.50 of 0.75")
    assert "Ben paid Cat 0.50 €." in flash(page)
    balances, plan = tab_of(page)
    assert balances == {"Ann": Decimal("0.25"), "Ben": Decimal("-0.75"), "Cat": Decimal("0.25"), "Dan": Decimal("0.25")}
    assert [(p[0], p[1], p[2]) for p in plan] == [("Ben", n, Decimal("0.25")) for n in ("Ann", "Cat", "Dan")], plan
    assert payment(page, "Ben", "Cat").locator('a.pay-link[data-pay="paypal"]').get_attribute("href") == (
        "https://paypal.me/CatPays/0.25EUR")
    # Cat's own link, made on the organiser's page and opened on her phone: "I got it" beside the payment to her
    open_fold(page, "members-h")
    made = page.locator('li[data-member="Cat"]')
    phone.tap(made.get_by_role("button", name="Make Cat’s own link"), "cat's own link made")
    made = page.locator('li[data-member="Cat"]')
    made.locator("details.own-link summary").tap()
    cats_link = made.locator("details.own-link p.link a").inner_text().strip()
    assert re.fullmatch(re.escape(live_server.url) + r"/y/[A-Za-z0-9_-]{16,}", cats_link), cats_link
    axe.check(page, "organiser's page, cat's own link")
    member.goto(cats_link)
    assert tab_of(member) == tab_of(page)
    assert [b.inner_text() for b in member.get_by_role("button", name=re.compile("^I got it")).all()] == [
        "I got it (Cat)"]  # Ben's payments to Ann and Dan are theirs to say
    got = Phone(member, shots)
    asked = got.ask(payment(member, "Ben", "Cat").get_by_role("button", name="I got it (Cat)"), "cat got it? asked")
    assert asked == "Confirm: Cat got 0.25 € from Ben?", asked
    got.button("Yes, Cat got 0.25 €", "cat got 0.25 from ben")
    assert "Cat got 0.25 € from Ben." in flash(member)
    balances, plan = tab_of(member)
    assert balances == {"Ann": Decimal("0.25"), "Ben": Decimal("-0.50"), "Dan": Decimal("0.25")}
    assert [(p[0], p[1], p[2]) for p in plan] == [("Ben", "Ann", Decimal("0.25")), ("Ben", "Dan", Decimal("0.25"))]
    axe.check(member, "members' page, cat got it")

    # --- "Settle everything", its Yes tapped twice in a hurry: recorded once --------------------------
    page.reload()
    assert tab_of(page) == tab_of(member)
    paid_before = record_count(live_server.app, "tab_paid")
    settle = page.get_by_role("button", name="Settle everything in €: mark all 2 payments paid")
    axe.check(page, "organiser's page, settle everything offered")
    asked = phone.ask(settle, "settle everything? asked")
    assert asked == "Confirm: all 2 payments in € were made?", asked
    assert page.locator(".confirm-details li").all_inner_texts() == ["Ben paid Ann 0.25 €", "Ben paid Dan 0.25 €"]
    assert record_count(live_server.app, "tab_paid") == paid_before
    guarded_double_tap(page, live_server.app, page.get_by_role("button", name="Yes, mark all 2 paid"))
    assert record_count(live_server.app, "tab_paid") == paid_before + 2  # the two payments, once
    # the page returns to its tab, which the page's script opens (a busy machine may show it a moment later)
    expect(page.locator("[data-tab-settled]")).to_have_text("Everyone is square: nothing is owed.")
    assert page.locator(".tab-unit").count() == 0
    said = flash(page)
    assert "every payment in € is marked paid (2)" in said or "Already recorded" in said, said
    # the season is what was played: payments do not change it
    assert season_of(page)["Ben"] == (2, f"{MINUS}1.25 €", "-5")
    axe.check(page, "organiser's page, the month settled")
    member.reload()
    assert member.locator("[data-tab-settled]").is_visible()
    # --- a new link for Cat: the one her phone holds opens nothing from then on --------------------------
    open_fold(page, "members-h")
    made = page.locator('li[data-member="Cat"]')
    phone.tap(made.get_by_role("button", name="New link for Cat"), "a new link for cat")
    made = page.locator('li[data-member="Cat"]')
    made.locator("details.own-link summary").tap()
    new_link = made.locator("details.own-link p.link a").inner_text().strip()
    assert new_link != cats_link
    assert page.request.get(cats_link).status == 404 and page.request.get(new_link).status == 200
    assert not axe.failures, "\n".join(axe.failures)

