"""Pay links as each provider documents them (issue 35, section 8), tapped on a 360×740 phone.

Worked by hand (tests/service/group_support.py's night on chip counts): the night "Friday", 0.25 € a
chip, everyone buys in 50 and cashes out Ann 58, Ben 50, Dan 42: Ann +8 chips, Ben 0, Dan −8, so the
one payment, at the night and in the group's tab alike, is Dan pays Ann 8 × 0.25 = 2.00 €.  The
group "Zoë's · Fridays" is opened from it.

Ann's handles are set on the organiser's page as the organiser would: a Revolut username, a Venmo
username and an IBAN with the holder's name (Save double-tapped: one record).  Then, beside "Dan pays
Ann 2.00 €":

* Revolut documents no amount for revolut.me links: the link is https://revolut.me/ann.lee and
  "amount to type: 2.00 €" is beside it; tapping it opens exactly that address;
* Venmo is US dollars only: no Venmo link for euros (the organiser is told why);
* the SEPA transfer's QR code: holder "Ann Lee", IBAN DE89370400440532013000, EUR2.00, and the
  text in the SEPA basic Latin set: the tab's reference "Zoë's · Fridays: the tab" is
  "Zoe's - Fridays: the tab" ("ë" loses its mark, "·" is a hyphen); the night's reference
  "Zoë's · Fridays · Friday" is "Zoe's - Fridays - Friday".
"""

from __future__ import annotations

import datetime
from decimal import Decimal as D
from typing import Any

import pytest

from browser.phone import HURRIED_TAP_GUARD_MS, Phone, double_tap, open_fold
from browser.test_accessibility import Axe
from browser.test_group import payment, record_count
from qr_codes import decode_qr

pytestmark = pytest.mark.browser

HOLDER_LABEL = "Account holder's name, as the bank has it (IBAN only)"
HOLDER_HINT = (
    "The name on the account, as on a bank statement, not a nickname: "
    "the payer's bank checks it against the IBAN before the money goes."
)


def night_and_group(app: Any) -> tuple[str, str]:
    """The night and the group above, made through the service; (the organiser's page, the players' report)."""
    from companion import service
    from companion.night.file import Money
    from service.group_support import played_night

    with app.app_context():
        night = played_night("Friday", {"Ann": 58, "Ben": 50, "Dan": 42}, Money(D("0.25"), "€"), datetime.date(2026, 1, 9))
        group = service.open_group("Zo\u00eb's \u00b7 Fridays", from_night=night)
        return f"/g/{group.organiser_key}", f"/p/{night.viewer_key}/report"


def handle_form(page: Any) -> Any:
    """The form that sets how a member is paid, its folds on the organiser's page opened by their headings."""
    open_fold(page, "members-h", "handle-h")
    return page.locator("form", has=page.locator("#handle-kind"))


def inside_the_phone(locator: Any) -> None:
    box = locator.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360, box


def test_pay_links_as_each_provider_documents_them(live_server, new_phone, shots, problems):
    app = live_server.app
    organiser, players_report = night_and_group(app)
    phone_context = new_phone()
    # the services' pages are not reached from the test machine: a tap on a link opens this stand-in
    phone_context.route("https://revolut.me/**", lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>Revolut</title><p>revolut.me"))
    page = phone_context.new_page()
    phone, axe = Phone(page, shots), Axe(shots)
    page.goto(live_server.url + organiser)

    # --- Ann's Revolut and Venmo, set on the form --------------------------------------------------
    for kind, name in (("Revolut", "@ann.lee"), ("Venmo", "Ann-Lee")):
        form = handle_form(page)
        form.get_by_label("Member").select_option("Ann")
        form.get_by_label("How they are paid").select_option(label=kind)
        form.get_by_label("Username, link or IBAN").fill(name)
        phone.tap(form.get_by_role("button", name="Save"), f"ann's {kind} saved")
    assert record_count(app, "handle_set") == 2

    # --- her IBAN: the holder's field says the name must be the account's, as the bank has it -------
    app.config["TAP_GUARD_MS"] = HURRIED_TAP_GUARD_MS  # the screen served with the double-tap guard on
    page.reload()
    form = handle_form(page)
    holder = form.get_by_label(HOLDER_LABEL)
    assert holder.get_attribute("aria-describedby") == "handle-holder-hint"
    hint = page.locator("#handle-holder-hint")
    assert hint.inner_text().strip() == HOLDER_HINT
    inside_the_phone(hint)
    form.get_by_label("Member").select_option("Ann")
    form.get_by_label("How they are paid").select_option(label="Bank transfer (IBAN)")
    form.get_by_label("Username, link or IBAN").fill("DE89 3704 0044 0532 0130 00")
    holder.fill("Ann Lee")
    axe.check(page, "the iban form, filled")
    page.wait_for_timeout(HURRIED_TAP_GUARD_MS + 100)  # a person reads the screen before tapping
    double_tap(page, form.get_by_role("button", name="Save"), 150)  # a hurried thumb: one record
    app.config["TAP_GUARD_MS"] = 0
    page.wait_for_timeout(HURRIED_TAP_GUARD_MS + 100)
    assert record_count(app, "handle_set") == 3
    assert not page.locator(".errors, .flash.warn").all_inner_texts()

    # --- beside "Dan pays Ann 2.00 €" in the tab -----------------------------------------------------
    page.goto(live_server.url + organiser)
    open_fold(page, "tab-h")
    to_ann = payment(page, "Dan", "Ann")
    assert to_ann.locator(".what").inner_text().strip() == "Dan pays Ann 2.00 €"
    revolut = to_ann.locator('a.pay-link[data-pay="revolut"]')
    assert revolut.get_attribute("href") == "https://revolut.me/ann.lee"  # no amount: Revolut documents none
    to_type = to_ann.locator('.pay-to-type[data-pay="revolut"]')
    assert " ".join(to_type.inner_text().split()) == "amount to type: 2.00 €"
    inside_the_phone(revolut)
    inside_the_phone(to_type)
    # Venmo sends dollars only: no link for euros, and the organiser is told why
    assert to_ann.locator('a.pay-link[data-pay="venmo"]').count() == 0
    assert to_ann.locator('.pay-refused [data-pay="venmo"]').inner_text().strip() == (
        "Venmo: no link: Venmo sends US dollars only")
    # the transfer's code, read back as a banking app's camera would
    epc = decode_qr(to_ann.locator(".pay-qr svg").evaluate("svg => svg.outerHTML")).split("\n")
    assert epc == ["BCD", "002", "1", "SCT", "", "Ann Lee", "DE89370400440532013000", "EUR2.00", "", "",
                   "Zoe's - Fridays: the tab"], epc
    assert to_ann.locator('[data-copy="reference"]').inner_text() == "Zoe's - Fridays: the tab"
    axe.check(page, "organiser's page, pay offers to ann")
    # a tap on Revolut's link opens Ann's page, in a new tab
    # (the group's page is kept as first served, with the hurried-tap guard above: read until it settles)
    page.wait_for_function("() => !document.documentElement.hasAttribute('data-settling')")
    with phone_context.expect_page() as opened:
        revolut.tap()
    revolut_page = opened.value
    revolut_page.wait_for_load_state("load")
    assert revolut_page.url == "https://revolut.me/ann.lee"
    revolut_page.close()
    # in print, paper cannot be tapped: the links and the amount to type go, the transfer's details stay
    page.emulate_media(media="print")
    assert not to_type.is_visible() and not revolut.is_visible()
    page.emulate_media(media="screen")

    # --- the night's settle-up: the same offers, the night's reference in the code ------------------
    page.goto(live_server.url + players_report)
    assert [a.get_attribute("href") for a in page.locator("a.pay-link").all()] == ["https://revolut.me/ann.lee"]
    assert " ".join(page.locator('.pay-to-type[data-pay="revolut"]').inner_text().split()) == "amount to type: 2.00 €"
    epc = decode_qr(page.locator(".pay-qr svg").evaluate("svg => svg.outerHTML")).split("\n")
    assert epc[5:8] == ["Ann Lee", "DE89370400440532013000", "EUR2.00"] and epc[10] == "Zoe's - Fridays - Friday", epc
    assert page.locator('[data-copy="reference"]').inner_text() == "Zoe's - Fridays - Friday"
    axe.check(page, "players' report, pay offers to ann")
    assert not axe.failures, "\n\n".join(axe.failures)
