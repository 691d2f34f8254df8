"""*Pay* beside a night's remaining payments, on a night kept in a group (companion/web/pages/night_pay.py).

The night is tests/service/group_support.py's N1, named "Friday": on chip counts at 0.25 EUR a chip,
everyone buys in 50 and cashes out Ann 58, Ben 50, Dan 42, so Ann +8 chips (+2.00 EUR), Ben 0, Dan −8
(−2.00 EUR): the plan, and the pair-by-pair list, is one payment, Dan pays Ann 8 chips = 8 × 0.25 =
2.00 EUR.  The group "Fridays" is opened from it (Ann, Ben, Dan its members: records 1-3, the night
kept: 4), so the group's version is 4 before any handle is set.

The reference is "<group name> · <night name>": "Fridays · Friday" (in the transfer's QR code, written in
the SEPA basic Latin set: "Fridays - Friday").
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal as D
from html import unescape

import pytest

from companion import service
from companion.db.models import Group, Night
from companion.extensions import db
from companion.group.tab import TabPayment
from companion.night.file import Money
from companion.web.pages.night_pay import MAX_REFERENCE, night_reference
from service.group_support import CHIPS, EUR25, played_night
from web.test_pay_offers import scanned

DAY = datetime.date(2025, 1, 10)
COUNTS = {"Ann": 58, "Ben": 50, "Dan": 42}
PAYPAL = "https://paypal.me/AnnLee/2.00EUR"  # PayPal.Me: the amount with two places, then the code
IBAN = {"iban": "DE89 3704 0044 0532 0130 00", "holder": "Ann Lee", "bic": ""}


def night_in_group(app, money=EUR25, counts=COUNTS, name="Friday") -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    """A night played as above, kept in the new group "Fridays"; (the group's id, the keeper's and the players' report)."""
    with app.app_context():
        night = played_night(name, counts, money, DAY)
        group = service.open_group("Fridays", from_night=night)
        assert group.version == 4
        night = db.session.get(Night, night.id)
        return group.id, f"/k/{night.keeper_key}/report", f"/p/{night.viewer_key}/report"


def set_handle(app, group_id: int, kind: str, value: dict[str, str], member: str = "Ann") -> None:  # type: ignore[no-untyped-def]
    with app.app_context():
        service.set_handle(group_id, member, kind, value, db.session.get(Group, group_id).version, None)


def page(client, url: str) -> str:  # type: ignore[no-untyped-def]
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    return unescape(response.get_data(as_text=True))


def pay_links(html: str) -> list[str]:
    return re.findall(r'<a class="button pay-link" data-pay="[a-z]+" href="([^"]+)"', html)


def transfer_codes(html: str) -> list[str]:
    """What each SEPA transfer QR code on the page says, read back as a banking app's camera would."""
    return [scanned(svg) for svg in re.findall(r'<div class="pay-qr">(<svg.*?</svg>)</div>', html, re.S)]


def group_keys(app, group_id: int) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    with app.app_context():
        group = db.session.get(Group, group_id)
        return group.organiser_key, group.member_key


def test_a_paypal_handle_shows_pay_beside_the_payment_on_the_keepers_and_the_players_report(client, app):
    group_id, keeper, players = night_in_group(app)
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})
    for url in (keeper, players, keeper + "?view=pairwise", players + "?view=pairwise"):
        html = page(client, url)
        payment = re.search(r'<li class="payment" data-payer="Dan" data-payee="Ann" data-chips="8">(.*?)</li>', html, re.S)
        assert payment, url
        # Dan pays Ann 8 chips × 0.25 = 2.00 EUR: the link asks for exactly that, beside that payment
        assert pay_links(payment[1]) == [PAYPAL], url
        assert 'target="_blank" rel="noopener noreferrer"' in payment[1]
        # the group's own links are never on a night's page
        assert not any(key in html for key in group_keys(app, group_id)), url


def test_an_iban_shows_a_sepa_transfer_code_of_the_payment_with_the_group_and_the_night(client, app):
    group_id, keeper, players = night_in_group(app)
    set_handle(app, group_id, "iban", IBAN)
    for url in (keeper, players):
        html = page(client, url)
        # EPC069-12: BCD, version 002, UTF-8 (1), SCT, no BIC, the holder, the IBAN without spaces,
        # EUR and 2.00 (8 chips × 0.25), no purpose, no structured reference, then the text: the
        # reference "Fridays · Friday" in the SEPA basic Latin set, where "·" is not: "Fridays - Friday"
        assert transfer_codes(html) == [
            "BCD\n002\n1\nSCT\n\nAnn Lee\nDE89370400440532013000\nEUR2.00\n\n\nFridays - Friday"
        ], url
        assert "DE89 3704 0044 0532 0130 00" in html and "2.00 EUR" in html
        # the reference to copy by hand is the code's
        assert '<dd class="copy" data-copy="reference">Fridays - Friday</dd>' in html
        assert pay_links(html) == []  # an IBAN has no link, only its code


def test_a_payment_marked_paid_has_no_pay_offer(client, app):
    group_id, keeper, players = night_in_group(app)
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})
    assert pay_links(page(client, keeper)) == [PAYPAL]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.name == "Friday"))
        service.mark_paid(night.id, "Dan", "Ann", 8, night.version, None)
    for url in (keeper, players):
        html = page(client, url)
        assert "Paid ✓" in html
        assert pay_links(html) == [] and "pay-offers" not in html, url


def test_once_the_tab_settled_part_of_the_night_pay_offers_only_what_remains(client, app):
    group_id, keeper, players = night_in_group(app)
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})  # version 5
    with app.app_context():
        # Dan pays Ann 1.00 EUR through the group's tab: 2.00 - 1.00 = 1.00 EUR (4 chips) left at the night
        service.pay_tab(group_id, [TabPayment("Dan", "Ann", "EUR", D("1.00"))], 5, None)
    for url in (keeper, players):
        html = page(client, url)
        assert "Settled through the group's tab" in html
        # one offer, for what remains: 1.00 EUR, never the night's own 2.00 (read only, below)
        assert pay_links(html) == ["https://paypal.me/AnnLee/1.00EUR"], url
        still = re.search(r'<li class="payment offer" data-payer="Dan" data-payee="Ann" data-chips="4">(.*?)</li>', html, re.S)
        assert still and pay_links(still[1]) == ["https://paypal.me/AnnLee/1.00EUR"]


def test_a_chips_only_night_shows_no_pay_offer(client, app):
    group_id, keeper, players = night_in_group(app, money=CHIPS)
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})
    set_handle(app, group_id, "iban", IBAN)
    for url in (keeper, players):
        html = page(client, url)
        assert 'data-payer="Dan" data-payee="Ann" data-chips="8"' in html  # the payment is there, in chips
        assert "pay-offers" not in html and "paypal.me" not in html and transfer_codes(html) == [], url


def test_a_night_in_no_group_shows_no_pay_offer(client, app):
    group_id, _, _ = night_in_group(app)
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})
    set_handle(app, group_id, "iban", IBAN)
    with app.app_context():  # the same players, another night, kept in no group
        night = played_night("Saturday", COUNTS, EUR25, DAY)
        urls = (f"/k/{night.keeper_key}/report", f"/p/{night.viewer_key}/report")
    for url in urls:
        html = page(client, url)
        assert 'data-payer="Dan" data-payee="Ann" data-chips="8"' in html
        assert "pay-offers" not in html and "paypal.me" not in html and transfer_codes(html) == [], url


def test_a_handle_set_after_the_page_was_seen_shows_on_the_next_request(client, app):
    group_id, keeper, players = night_in_group(app)
    for url in (keeper, players):
        assert pay_links(page(client, url)) == []
        assert pay_links(page(client, url)) == []  # kept at the night's version, served again
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})  # the group's version moves on, not the night's
    for url in (keeper, players):
        assert pay_links(page(client, url)) == [PAYPAL], url
        assert pay_links(page(client, url)) == [PAYPAL], url  # and kept so
    with app.app_context():
        service.remove_handle(group_id, "Ann", "paypal", db.session.get(Group, group_id).version, None)
    for url in (keeper, players):
        assert pay_links(page(client, url)) == [], url


@pytest.mark.parametrize(
    ("group", "night", "expected"),
    [
        ("Fridays", "Friday", "Fridays \u00b7 Friday"),
        # 80 + 3 + 80 = 163 characters: the group keeps 68, the night 140 - 3 - 68 = 69
        ("G" * 80, "N" * 80, "G" * 68 + " \u00b7 " + "N" * 69),
        # 20 + 3 + 80 = 103: both whole
        ("G" * 20, "N" * 80, "G" * 20 + " \u00b7 " + "N" * 80),
        # 80 + 3 + 60 = 143: the group's name gives up 3 (to 77), the night's stays whole
        ("G" * 80, "N" * 60, "G" * 77 + " \u00b7 " + "N" * 60),
    ],
)
def test_the_reference_names_the_group_and_the_night_in_at_most_140_characters(group, night, expected):
    made = night_reference(group, night)
    assert made == expected and len(made) <= MAX_REFERENCE == 140


def test_a_night_kept_in_a_group_after_its_report_was_seen_shows_pay_on_the_next_request(client, app):
    group_id, _, _ = night_in_group(app)
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})  # version 5
    with app.app_context():  # the same players, another night, not kept yet
        night = played_night("Saturday", COUNTS, EUR25, DAY)
        night_id, urls = night.id, (f"/k/{night.keeper_key}/report", f"/p/{night.viewer_key}/report")
    for url in urls:
        assert pay_links(page(client, url)) == []
    with app.app_context():
        service.keep_night(group_id, night_id, 5, None)
    for url in urls:
        assert pay_links(page(client, url)) == [PAYPAL], url


def test_part_of_a_payment_marked_paid_leaves_pay_for_the_rest(client, app):
    group_id, keeper, players = night_in_group(app)
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})
    with app.app_context():  # Dan paid Ann 4 of his 8 chips at the night: 4 × 0.25 = 1.00 EUR left
        night = db.session.scalar(db.select(Night).where(Night.name == "Friday"))
        service.mark_paid(night.id, "Dan", "Ann", 4, night.version, None)
    for url in (keeper, players):
        html = page(client, url)
        # the recorded payment marks no line: what settles the rest is listed, with Pay for 1.00 EUR only
        remaining = re.search(r'<ul class="remaining">(.*?)</ul>', html, re.S)
        assert remaining, url
        assert pay_links(html) == pay_links(remaining[1]) == ["https://paypal.me/AnnLee/1.00EUR"], url


def test_a_night_whose_currency_is_written_as_the_euro_sign_offers_pay_in_eur(client, app):
    # the night form's own default currency is "€": the same night at 0.25 € a chip, Dan pays Ann 8 × 0.25 = 2.00 €,
    # and PayPal.Me wants the code: .../2.00EUR
    group_id, keeper, players = night_in_group(app, money=Money(D("0.25"), "€"))
    set_handle(app, group_id, "paypal", {"username": "AnnLee"})
    for url in (keeper, players):
        assert pay_links(page(client, url)) == [PAYPAL], url


def test_a_revolut_handle_offers_the_bare_link_with_the_amount_to_type(client, app):
    # Revolut documents no amount for its links: Dan pays Ann 8 × 0.25 € = 2.00 €, typed on Ann's page
    group_id, keeper, players = night_in_group(app, money=Money(D("0.25"), "€"))
    set_handle(app, group_id, "revolut", {"username": "ann.lee"})
    for url in (keeper, players):
        html = page(client, url)
        assert pay_links(html) == ["https://revolut.me/ann.lee"], url
        to_type = re.findall(r'<span class="pay-to-type" data-pay="revolut">(.*?)</span>', html)
        assert [re.sub(r"<[^>]+>", "", t) for t in to_type] == ["amount to type: 2.00 €"], url


def test_a_venmo_handle_offers_nothing_on_a_night_in_euros(client, app):
    group_id, keeper, players = night_in_group(app)
    set_handle(app, group_id, "venmo", {"username": "Ann-Lee"})
    for url in (keeper, players):
        html = page(client, url)
        assert pay_links(html) == [] and "venmo.com" not in html and "pay-offers" not in html, url
