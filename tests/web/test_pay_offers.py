"""The Pay offers beside a payment: a link per service with the amount filled in, the SEPA transfer's
QR code read back as a banking app's camera would, and every offer that would ask for a different
sum than the tab shows left out, with its reason."""

from __future__ import annotations

import re
from decimal import Decimal as D

import pytest

from companion.group.pay_links import Iban, PayPalMe, Revolut, Venmo, read_iban
from companion.web.plumbing import qr
from companion.web.pages.pay_offers import PayLink, Refused, pay_offers
from qr_codes import scan

REFERENCE = "Poker group: night 12"
ANN = {
    "paypal": PayPalMe("AnnLee"),
    "revolut": Revolut("ann.lee"),
    "venmo": Venmo("Ann-Lee"),
    "iban": read_iban("BE68 5390 0754 7034", "Ann Lee", "GEBABEBB"),
}


# --- the QR code, drawn as SVG and read back ------------------------------------------------------


def scanned(svg: str) -> str:
    code = scan(svg)
    assert code.ec_level == "M"  # error correction M, as EPC069-12 asks
    return code.text


# --- a link for each service ----------------------------------------------------------------------


def test_a_paypal_me_link_with_the_amount_and_the_currency_after_the_name() -> None:
    offers = pay_offers({"paypal": PayPalMe("AnnLee")}, D("12.5"), "EUR", REFERENCE)
    # 12.5 written with its two decimals, then the code; PayPal.Me has no room for the reference;
    # nothing to type: the link carries the amount
    assert offers.links == (PayLink("paypal", "Pay with PayPal", "https://paypal.me/AnnLee/12.50EUR", ""),)
    assert offers.transfer is None and offers.refused == ()


def test_a_revolut_link_is_the_bare_link_with_the_amount_to_type_beside_it() -> None:
    # Revolut documents no amount parameter for revolut.me links: the link opens Ann's page and the
    # amount to type is the payment's, written as the tab writes it (the night's currency as given)
    offers = pay_offers({"revolut": Revolut("ann.lee")}, D("0.25"), "€", REFERENCE)
    assert offers.links == (PayLink("revolut", "Pay with Revolut", "https://revolut.me/ann.lee", "0.25 €"),)
    offers = pay_offers({"revolut": Revolut("ann.lee")}, D("16.7"), "gbp", REFERENCE)
    assert offers.links == (PayLink("revolut", "Pay with Revolut", "https://revolut.me/ann.lee", "16.70 gbp"),)


def test_a_venmo_link_in_dollars() -> None:
    offers = pay_offers({"venmo": Venmo("Ann-Lee")}, D("7.25"), "USD", "Poker")
    assert offers.links == (PayLink("venmo", "Pay with Venmo", "https://venmo.com/Ann-Lee?txn=pay&amount=7.25&note=Poker"),)
    assert pay_offers({"venmo": Venmo("Ann-Lee")}, D("7.25"), "usd", "Poker").links == offers.links


@pytest.mark.parametrize("currency", ["EUR", "€", "GBP", "CAD", "$"])
def test_venmo_is_offered_only_for_a_payment_in_us_dollars(currency: str) -> None:
    # Venmo sends US dollars only; "$" could be any of a dozen dollars, so it is not USD either
    offers = pay_offers({"venmo": Venmo("Ann-Lee")}, D("7.25"), currency, "Poker")
    assert offers.links == () and not offers
    assert [r.kind for r in offers.refused] == ["venmo"]


def test_the_offers_come_in_one_order_whatever_the_order_of_the_handles() -> None:
    backwards = dict(reversed(list(ANN.items())))
    offers = pay_offers(backwards, D("12.50"), "EUR", REFERENCE)
    # PayPal, then Revolut; Venmo cannot send euros; the transfer apart
    assert [link.kind for link in offers.links] == ["paypal", "revolut"]
    assert offers.links[1] == PayLink("revolut", "Pay with Revolut", "https://revolut.me/ann.lee", "12.50 EUR")
    assert offers.refused == (Refused("venmo", "Venmo", "no link: Venmo sends US dollars only"),)
    assert offers.transfer is not None
    assert offers == pay_offers(ANN, D("12.50"), "EUR", REFERENCE)


def test_a_member_with_no_handle_gets_no_offer() -> None:
    offers = pay_offers({}, D("5"), "EUR", REFERENCE)
    assert not offers
    assert offers.links == () and offers.transfer is None and offers.refused == ()


# --- the SEPA transfer's QR code ------------------------------------------------------------------


def test_the_transfer_qr_code_read_back_field_by_field() -> None:
    transfer = pay_offers({"iban": ANN["iban"]}, D("12.5"), "EUR", REFERENCE).transfer
    assert transfer is not None
    fields = scanned(str(transfer.svg)).split("\n")
    assert fields == [
        "BCD",  # the service tag
        "002",  # version 2
        "1",  # UTF-8
        "SCT",  # SEPA credit transfer
        "GEBABEBB",  # the BIC given
        "Ann Lee",  # the beneficiary
        "BE68539007547034",  # the IBAN without its spaces
        "EUR12.50",  # 12.5 in euros, two places
        "",  # no purpose code
        "",  # no structured reference: the group's reference is the text
        "Poker group: night 12",
    ]
    assert transfer.payload == "\n".join(fields)
    # and as text to copy by hand: the IBAN in groups of four, as on a bank card
    assert (transfer.holder, transfer.iban, transfer.bic, transfer.amount) == (
        "Ann Lee", "BE68 5390 0754 7034", "GEBABEBB", "12.50 EUR",
    )  # fmt: skip
    assert transfer.reference == REFERENCE


def test_the_qr_code_says_what_it_is_to_a_screen_reader() -> None:
    transfer = pay_offers({"iban": ANN["iban"]}, D("3"), "EUR", REFERENCE).transfer
    assert 'role="img"' in transfer.svg
    assert 'aria-label="QR code of a bank transfer of 3.00 EUR to Ann Lee"' in transfer.svg
    assert "<title>QR code of a bank transfer of 3.00 EUR to Ann Lee</title>" in transfer.svg


def test_a_name_beyond_ascii_survives_the_code() -> None:
    handle = read_iban("DE89 3704 0044 0532 0130 00", "Zoë Müller")
    transfer = pay_offers({"iban": handle}, D("0.01"), "EUR", "Pokerrunde").transfer
    # no BIC: an empty fifth line (version 002 allows it inside the EEA)
    assert scanned(str(transfer.svg)).split("\n") == [
        "BCD", "002", "1", "SCT", "", "Zoë Müller", "DE89370400440532013000", "EUR0.01", "", "", "Pokerrunde",
    ]  # fmt: skip


# --- offers that cannot be made -------------------------------------------------------------------


def test_no_qr_code_for_a_transfer_in_pounds() -> None:
    offers = pay_offers({"iban": ANN["iban"]}, D("10"), "GBP", REFERENCE)
    assert offers.transfer is None
    assert not offers
    assert offers.refused == (Refused("iban", "bank transfer", "no QR code: a SEPA transfer is in euros only"),)


def test_no_link_for_an_amount_finer_than_a_cent() -> None:
    # a chip value of four places can make 0.125 EUR: no service can be asked for it, and it is
    # never rounded to 0.12 or 0.13
    offers = pay_offers(ANN, D("0.125"), "EUR", REFERENCE)
    assert offers.links == () and offers.transfer is None
    assert offers.refused == (
        Refused("paypal", "PayPal", "no link: amount finer than a cent"),
        Refused("revolut", "Revolut", "no link: amount finer than a cent"),
        Refused("venmo", "Venmo", "no link: Venmo sends US dollars only"),
        Refused("iban", "bank transfer", "no QR code: amount finer than a cent"),
    )


def test_an_amount_with_trailing_zeros_is_a_whole_number_of_cents() -> None:
    # 4.1000 EUR is 4.10: 410 cents exactly, a link and an amount to type of two places
    offers = pay_offers({"paypal": PayPalMe("AnnLee"), "revolut": Revolut("ann.lee")}, D("4.1000"), "EUR", "x")
    assert [(link.url, link.to_type) for link in offers.links] == [
        ("https://paypal.me/AnnLee/4.10EUR", ""),
        ("https://revolut.me/ann.lee", "4.10 EUR"),
    ]


def test_whole_unit_currencies() -> None:
    # the yen has no cents: 500 yen is .../500JPY for PayPal; Revolut's bare link, 500.00 JPY to type
    offers = pay_offers(ANN, D("500"), "JPY", "x")
    assert [(link.url, link.to_type) for link in offers.links] == [
        ("https://paypal.me/AnnLee/500JPY", ""),
        ("https://revolut.me/ann.lee", "500.00 JPY"),
    ]
    # half a yen is no amount anyone can send or type: no link at all
    assert [r.reason for r in pay_offers(ANN, D("500.5"), "JPY", "x").refused][:2] == [
        "no link: amount finer than one JPY",
        "no link: amount finer than one JPY",
    ]


@pytest.mark.parametrize("currency", ["HUF", "TWD"])
def test_paypal_takes_forints_and_taiwan_dollars_in_whole_units_only(currency: str) -> None:
    paypal = {"paypal": PayPalMe("AnnLee")}
    # whole: in the link, without ".00"
    assert pay_offers(paypal, D("1500.00"), currency, "x").links == (
        PayLink("paypal", "Pay with PayPal", f"https://paypal.me/AnnLee/1500{currency}", ""),
    )
    # 1500.50 (ISO 4217 gives both hundredths; PayPal: "decimal amounts cause an error"): the bare
    # link, and the amount to type beside it
    assert pay_offers(paypal, D("1500.50"), currency, "x").links == (
        PayLink("paypal", "Pay with PayPal", "https://paypal.me/AnnLee", f"1500.50 {currency}"),
    )


def test_a_paypal_link_in_a_currency_paypal_does_not_list_is_the_bare_link() -> None:
    # PayPal's list has no Icelandic krona nor Indian rupee: PayPal.Me cannot be asked for them,
    # so the bare link, and the amount to type
    offers = pay_offers({"paypal": PayPalMe("AnnLee"), "revolut": Revolut("ann.lee")}, D("1000"), "ISK", "x")
    assert offers.refused == ()
    assert offers.links == (
        PayLink("paypal", "Pay with PayPal", "https://paypal.me/AnnLee", "1000.00 ISK"),
        PayLink("revolut", "Pay with Revolut", "https://revolut.me/ann.lee", "1000.00 ISK"),
    )
    assert pay_offers({"paypal": PayPalMe("AnnLee")}, D("250"), "INR", "x").links == (
        PayLink("paypal", "Pay with PayPal", "https://paypal.me/AnnLee", "250.00 INR"),
    )


def test_a_night_played_for_chips_or_with_an_ambiguous_sign_for_a_currency_gets_no_offer() -> None:
    chips = pay_offers(ANN, D("12"), "", REFERENCE)
    assert not chips
    assert {r.reason for r in chips.refused} == {
        "no link: the night is played for chips, not money",
        "no QR code: the night is played for chips, not money",
    }
    dollar_sign = pay_offers({"paypal": PayPalMe("AnnLee")}, D("12"), "$", REFERENCE)  # a dozen dollars: which?
    assert dollar_sign.refused == (Refused("paypal", "PayPal", "no link: \u201c$\u201d is not a currency code such as EUR"),)
    # "€" and "£" name one currency each: the night form's default "€" asks PayPal.Me for .../12.00EUR
    euro_sign = pay_offers({"paypal": PayPalMe("AnnLee")}, D("12"), "€", REFERENCE)
    assert [link.url for link in euro_sign.links] == ["https://paypal.me/AnnLee/12.00EUR"]


def test_a_reference_too_long_for_the_transfer_is_cut_to_the_codes_140_characters() -> None:
    long = "x" * 141  # the EPC text holds 140 characters
    offers = pay_offers({"iban": ANN["iban"], "revolut": Revolut("ann.lee")}, D("1"), "EUR", long)
    assert offers.refused == ()
    assert scanned(str(offers.transfer.svg)).split("\n")[10] == "x" * 140
    assert offers.transfer.reference == "x" * 140
    assert [link.kind for link in offers.links] == ["revolut"]


def test_the_transfers_text_is_in_the_sepa_basic_latin_set() -> None:
    # the night's reference "Zoë's · Friday & co" holds "ë", "·" and "&", outside the set: the code
    # carries "Zoe's - Friday + co", and the details to copy by hand say the same
    transfer = pay_offers({"iban": ANN["iban"]}, D("2"), "EUR", "Zo\u00eb's \u00b7 Friday & co").transfer
    assert scanned(str(transfer.svg)).split("\n")[10] == "Zoe's - Friday + co"
    assert transfer.reference == "Zoe's - Friday + co"
    # a reference on two lines is one line of the set
    assert pay_offers({"iban": ANN["iban"]}, D("2"), "EUR", "a\nb").transfer.reference == "a b"


def test_a_transfer_over_the_codes_largest_amount() -> None:
    offers = pay_offers({"iban": ANN["iban"]}, D("1000000000"), "EUR", "x")
    assert offers.refused == (Refused("iban", "bank transfer", "no QR code: a transfer's code holds at most 999999999.99 EUR"),)


@pytest.mark.parametrize("amount", [D(0), D("-5"), 5, D("NaN"), True])
def test_a_payment_of_nothing_is_the_callers_mistake(amount) -> None:
    with pytest.raises(ValueError, match="above zero"):
        pay_offers(ANN, amount, "EUR", REFERENCE)


def test_a_handle_under_the_wrong_kind_is_the_callers_mistake() -> None:
    with pytest.raises(TypeError, match="the paypal handle is a PayPalMe"):
        pay_offers({"paypal": Venmo("Ann-Lee")}, D("1"), "USD", REFERENCE)
    with pytest.raises(ValueError, match="no such kind"):
        pay_offers({"cash": PayPalMe("AnnLee")}, D("1"), "USD", REFERENCE)


# --- the macro --------------------------------------------------------------------------------------


def render(app, offers, **options) -> str:
    with app.app_context():
        return app.jinja_env.get_template("groups/_pay.html").module.offers(offers, **options)


def test_the_macro_opens_each_link_in_a_new_tab_without_telling_it_where_from(app) -> None:
    html = render(app, pay_offers(ANN, D("12.50"), "EUR", REFERENCE))
    links = re.findall(r"<a [^>]*>[^<]*</a>", html)
    assert [re.search(r">([^<]*)<", a).group(1) for a in links] == ["Pay with PayPal", "Pay with Revolut"]
    for a in links:
        assert 'target="_blank"' in a and 'rel="noopener noreferrer"' in a and 'class="button pay-link"' in a
    assert 'href="https://paypal.me/AnnLee/12.50EUR"' in html and 'href="https://revolut.me/ann.lee"' in html
    # Revolut's link carries no amount: the amount to type beside it, and beside it only
    assert html.count("amount to type") == 1
    assert (
        '<span class="pay-to-type" data-pay="revolut">amount to type: <strong class="copy">12.50 EUR</strong></span>'
        in html
    )
    # the QR code inline, with the IBAN and the holder as text
    assert html.count("<svg ") == 1
    assert '<dd class="copy" data-copy="iban">BE68 5390 0754 7034</dd>' in html
    assert '<dd class="copy" data-copy="holder">Ann Lee</dd>' in html
    assert "Venmo" not in html  # left out silently


def test_the_macro_says_why_an_offer_is_missing_only_when_asked(app) -> None:
    offers = pay_offers(ANN, D("0.125"), "EUR", REFERENCE)
    assert render(app, offers).strip() == ""
    html = render(app, offers, reasons=True)
    assert "PayPal: no link: amount finer than a cent" in html
    assert "bank transfer: no QR code: amount finer than a cent" in html


def test_a_holder_named_like_a_script_is_shown_as_text(app) -> None:
    holder = '<script>alert(1)</script> "Ann" & co'
    handle = read_iban("BE68539007547034", holder)
    offers = pay_offers({"iban": handle}, D("2"), "EUR", "<b>night</b>")
    html = render(app, offers)
    assert "<script" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &#34;Ann&#34; &amp; co" in html  # in the details
    # in the drawing's label too, quotes included: the name cannot close the attribute
    label = re.search(r'aria-label="([^"]*)"', str(offers.transfer.svg)).group(1)
    assert label == "QR code of a bank transfer of 2.00 EUR to &lt;script&gt;alert(1)&lt;/script&gt; &quot;Ann&quot; &amp; co"
    # and the code itself carries the name as it is
    assert scanned(str(offers.transfer.svg)).split("\n")[5] == holder


def test_the_qr_modules_title_cannot_break_out_of_its_attribute() -> None:
    drawn = qr.svg("x", title='a" onload="alert(1)')
    assert 'onload="' not in drawn
    assert 'aria-label="a&quot; onload=&quot;alert(1)"' in drawn


def test_an_iban_handle_as_read_or_built_directly_gives_the_same_code() -> None:
    built = Iban("BE68539007547034", "Ann Lee", "GEBABEBB")
    assert pay_offers({"iban": built}, D("1"), "EUR", "x") == pay_offers({"iban": ANN["iban"]}, D("1"), "EUR", "x")
