"""Pay links and the EPC069-12 SEPA QR payload: each service's format, and the refusals, worked by hand."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
import zxingcpp

from companion.group.pay_links import (
    EPC_MAX_BYTES,
    PAYPAL_CURRENCIES,
    Iban,
    PayLinkUrl,
    PayPalMe,
    Revolut,
    Venmo,
    epc_payload,
    iban_checksum_ok,
    pay_link,
    pay_url,
    read_iban,
    read_paypal_me,
    read_revolut,
    read_venmo,
    sepa_text,
)
from companion.values.reading import Unreadable
from companion.web.plumbing import qr

# --- IBANs ----------------------------------------------------------------------------------------


def test_the_iban_check_digits_worked_by_hand() -> None:
    # BE68 5390 0754 7034: move "BE68" to the end: 539007547034BE68; B = 11, E = 14:
    # 539007547034111468.  Mod 97 in pieces (ISO 7064): 539007547 mod 97 = 81
    # (97 x 5556778 = 539007466, 539007547 - 539007466 = 81); then "81" + the 9 digits left,
    # 81034111468 mod 97 = 1 (97 x 835403211 = 81034111467).  1: the check digits are right.
    assert iban_checksum_ok("BE68539007547034")
    # the last digit one off: 539007547034111469 mod 97 = 2
    assert not iban_checksum_ok("BE68539007547035")


@pytest.mark.parametrize(
    "written",
    [
        "DE89 3704 0044 0532 0130 00",  # Germany, 22
        "gb82 west 1234 5698 7654 32",  # the United Kingdom, 22, typed in lower case
        "NL91ABNA0417164300",  # the Netherlands, 18
        "FR14 2004 1010 0505 0001 3M02 606",  # France, 27, a letter in the account number
        "NO93 8601 1117 947",  # Norway, 15: the shortest
        "CH93 0076 2011 6238 5295 7",  # Switzerland, 21
        "AT61 1904 3002 3457 3201",  # Austria, 20
    ],
)
def test_an_iban_is_read_as_typed_spaces_and_case_ignored(written: str) -> None:
    handle = read_iban(written, "  Ann   Lee ")
    assert handle.iban == "".join(written.split()).upper()
    assert handle.holder == "Ann Lee"
    assert handle.bic == ""


def test_an_iban_is_shown_in_groups_of_four() -> None:
    assert read_iban("DE89370400440532013000", "Ann").grouped == "DE89 3704 0044 0532 0130 00"


@pytest.mark.parametrize(
    ("iban", "holder", "bic", "message"),
    [
        ("DE89370400440532013001", "Ann", "", "check digits do not match"),  # last digit changed
        ("DE8937040044053201300", "Ann", "", "an IBAN of DE has 22 characters, this one 21"),
        ("US12345678901234", "Ann", "", "US is not a country a SEPA transfer reaches"),
        ("DE89-3704-0044", "Ann", "", "letters A-Z and digits only"),
        ("", "Ann", "", "enter the IBAN"),
        ("DE89370400440532013000", "  ", "", "account holder's name"),
        ("DE89370400440532013000", "A" * 71, "", "at most 70 characters"),
        ("DE89370400440532013000", "Ann", "DEUT", "a BIC is 8 or 11"),
    ],
)
def test_a_wrong_iban_is_refused_with_a_reason(iban: str, holder: str, bic: str, message: str) -> None:
    with pytest.raises(Unreadable, match=message):
        read_iban(iban, holder, bic)


def test_a_bic_is_kept_in_capitals() -> None:
    assert read_iban("DE89370400440532013000", "Ann", "cobadeffxxx").bic == "COBADEFFXXX"


# --- usernames ------------------------------------------------------------------------------------


def test_usernames_are_read_without_an_at_sign_or_the_pasted_link() -> None:
    assert read_paypal_me("https://www.paypal.me/AnnLee/") == PayPalMe("AnnLee")
    assert read_revolut("@ann.lee_1") == Revolut("ann.lee_1")
    assert read_venmo("venmo.com/Ann-Lee") == Venmo("Ann-Lee")


@pytest.mark.parametrize(
    ("reader", "value", "message"),
    [
        (read_paypal_me, "ann_lee", "1 to 20 letters A-Z and digits"),  # PayPal.Me allows no "_"
        (read_paypal_me, "A" * 21, "1 to 20"),
        (read_revolut, "an", "3 to 32"),
        (read_revolut, "ann lee", "3 to 32"),
        (read_venmo, "ann", "5 to 30"),  # too short
        (read_venmo, "ann.lee", "5 to 30 letters, digits, - or _"),  # Venmo allows no "."
        (read_venmo, "@", "enter the Venmo username"),
    ],
)
def test_a_username_the_service_would_not_allow_is_refused(reader, value: str, message: str) -> None:
    with pytest.raises(Unreadable, match=message):
        reader(value)


# --- links ----------------------------------------------------------------------------------------

REFERENCE = "Poker group: night n5"


def test_the_paypal_me_link() -> None:
    # the amount with two decimals, then the currency code, after the name; no room for a note
    assert pay_url(PayPalMe("AnnLee"), D("1.5"), "eur", REFERENCE) == "https://paypal.me/AnnLee/1.50EUR"
    assert pay_link(PayPalMe("AnnLee"), D("1.5"), "EUR", REFERENCE) == PayLinkUrl("https://paypal.me/AnnLee/1.50EUR", True)


def test_paypals_list_of_currencies_is_the_one_it_documents() -> None:
    # PayPal's currency codes (its developer pages, as reproduced by OroCommerce's documentation):
    # 24 codes; the rupee is not one since PayPal's payments in India ended in 2021
    assert PAYPAL_CURRENCIES == set(
        "AUD BRL CAD CNY CZK DKK EUR HKD HUF ILS JPY MYR MXN TWD NZD NOK PHP PLN GBP SGD SEK CHF THB USD".split()
    )


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        # PayPal's currencies: the amount in the path
        (D("1500.00"), "HUF", PayLinkUrl("https://paypal.me/AnnLee/1500HUF", True)),  # whole forints: no ".00"
        (D("500"), "JPY", PayLinkUrl("https://paypal.me/AnnLee/500JPY", True)),
        (D("99"), "TWD", PayLinkUrl("https://paypal.me/AnnLee/99TWD", True)),
        (D("7.25"), "USD", PayLinkUrl("https://paypal.me/AnnLee/7.25USD", True)),
        # a fraction of a forint or a Taiwan dollar: PayPal takes whole units only ("decimal amounts cause
        # an error"), so the bare link, and the amount is typed
        (D("1500.50"), "HUF", PayLinkUrl("https://paypal.me/AnnLee", False)),
        (D("99.50"), "TWD", PayLinkUrl("https://paypal.me/AnnLee", False)),
        # a currency PayPal's list does not have: the bare link
        (D("1000"), "ISK", PayLinkUrl("https://paypal.me/AnnLee", False)),
        (D("250.00"), "INR", PayLinkUrl("https://paypal.me/AnnLee", False)),
        (D("12.50"), "RON", PayLinkUrl("https://paypal.me/AnnLee", False)),
    ],
)
def test_the_paypal_me_link_carries_the_amount_only_in_paypals_currencies(amount, currency, expected) -> None:
    assert pay_link(PayPalMe("AnnLee"), amount, currency, REFERENCE) == expected


def test_no_paypal_link_for_an_amount_no_one_can_type() -> None:
    # half a yen is no amount at all (ISO 4217: the yen has no minor unit)
    with pytest.raises(ValueError, match=r"finer than the smallest amount a payment can send \(1 JPY\)"):
        pay_link(PayPalMe("AnnLee"), D("500.5"), "JPY", REFERENCE)


def test_the_revolut_link_is_the_bare_link_revolut_documents() -> None:
    # Revolut documents no amount parameter: the link opens Ann's page, the amount is typed there
    assert pay_link(Revolut("ann.lee"), D("16.70"), "GBP", REFERENCE) == PayLinkUrl("https://revolut.me/ann.lee", False)
    assert pay_url(Revolut("ann.lee"), D("500"), "JPY", "x") == "https://revolut.me/ann.lee"
    # and still nothing for an amount no one can type
    with pytest.raises(ValueError, match="finer than the smallest amount"):
        pay_link(Revolut("ann.lee"), D("0.125"), "EUR", REFERENCE)


def test_the_venmo_link_in_dollars_only() -> None:
    assert (
        pay_url(Venmo("Ann-Lee"), D("12"), "USD", REFERENCE)
        == "https://venmo.com/Ann-Lee?txn=pay&amount=12.00&note=Poker%20group%3A%20night%20n5"
    )
    assert pay_link(Venmo("Ann-Lee"), D("12"), "usd", REFERENCE).amount_filled
    for currency in ("EUR", "GBP", "CAD"):
        with pytest.raises(ValueError, match=f"US dollars only, not {currency}"):
            pay_url(Venmo("Ann-Lee"), D("12"), currency, REFERENCE)


def test_a_link_never_rounds_an_amount() -> None:
    # 0.125 EUR (a chip value of four places can make it) is no amount a payment can send
    with pytest.raises(ValueError, match="finer than the smallest amount"):
        pay_url(PayPalMe("AnnLee"), D("0.125"), "EUR", REFERENCE)
    with pytest.raises(ValueError, match="finer than the smallest amount"):
        pay_url(PayPalMe("AnnLee"), D("0.125"), "ISK", REFERENCE)
    with pytest.raises(ValueError, match="three-letter currency"):
        pay_url(PayPalMe("AnnLee"), D("1"), "€", REFERENCE)
    with pytest.raises(TypeError, match="epc_payload"):
        pay_url(Iban("BE68539007547034", "Ann"), D("1"), "EUR", REFERENCE)  # type: ignore[arg-type]


# --- the EPC069-12 QR payload ---------------------------------------------------------------------


def test_the_epc_payload_field_by_field() -> None:
    payload = epc_payload(read_iban("BE68 5390 0754 7034", "Ann Lee"), D("1.5"), "EUR", REFERENCE)
    assert payload.split("\n") == [
        "BCD",  # the service tag
        "002",  # version 2: the BIC may be left out
        "1",  # character set: UTF-8
        "SCT",  # SEPA credit transfer
        "",  # no BIC
        "Ann Lee",  # the beneficiary
        "BE68539007547034",  # their IBAN, no spaces
        "EUR1.50",  # the amount, in euros, two places
        "",  # no purpose code
        "",  # no structured reference: the text below instead
        "Poker group: night n5",  # the remittance text
    ]
    # 3 + 3 + 1 + 3 + 0 + 7 + 16 + 7 + 0 + 0 + 21 characters, and 10 line feeds: 71 bytes
    assert len(payload.encode()) == 71
    assert not payload.endswith("\n")


def test_the_epc_payload_with_a_bic_a_purpose_and_a_structured_reference() -> None:
    handle = read_iban("DE89370400440532013000", "Zoë Müller", "COBADEFFXXX")
    payload = epc_payload(handle, D("999999999.99"), "EUR", reference="RF18539007547034", purpose="GDDS")
    # the text is empty, so the payload ends after the reference (trailing empty lines left out)
    assert payload.split("\n") == [
        "BCD", "002", "1", "SCT", "COBADEFFXXX", "Zoë Müller", "DE89370400440532013000",
        "EUR999999999.99", "GDDS", "RF18539007547034",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("written", "sepa"),
    [
        # the night's reference: "·" (U+00B7) is outside the set; a hyphen instead
        ("Fridays \u00b7 Friday", "Fridays - Friday"),
        # marks dropped (EPC's conversion table: "ü" is "u"), "ß" spelled "ss", "&" a "+"
        ("Zoë & Jürgen's Straße", "Zoe + Jurgen's Strasse"),
        # curly quotes are "'", the euro sign its code, "#" and an emoji nothing (a space, then one space)
        ("\u201cPoker\u201d night #3 \U0001f0a1 5\u20ac", "'Poker' night 3 5EUR"),
        # every character of the set stays as it is
        ("az AZ 09 /-?:().,'+", "az AZ 09 /-?:().,'+"),
        # a script with no Latin letters leaves nothing
        ("\u041f\u043e\u043a\u0435\u0440", ""),
    ],
)
def test_a_text_written_in_the_sepa_basic_latin_set(written: str, sepa: str) -> None:
    assert sepa_text(written) == sepa


def test_a_sepa_text_is_cut_at_a_words_end() -> None:
    # 3 words of 50 "a" and two spaces: 152 characters; cut to 140, the last word whole ends at 101
    # (50 + 1 + 50), which is in the last third (at or past 140 * 2 // 3 = 93): cut there
    assert sepa_text(" ".join(["a" * 50] * 3)) == "a" * 50 + " " + "a" * 50
    # one word of 150: no space to cut at, so 140 characters
    assert sepa_text("b" * 150) == "b" * 140
    # "ß" spelled "ss" makes 140 characters 141: cut back to 140
    assert sepa_text("\u00df" + "c" * 139) == "ss" + "c" * 138


def test_the_epc_payload_refuses_a_text_outside_the_sepa_set() -> None:
    with pytest.raises(ValueError, match="SEPA basic Latin set.*not '\u00b7'"):
        epc_payload(Iban("BE68539007547034", "Ann"), D(1), "EUR", "Fridays \u00b7 Friday")
    with pytest.raises(ValueError, match="reference is in the SEPA basic Latin set"):
        epc_payload(Iban("BE68539007547034", "Ann"), D(1), "EUR", reference="RF18 \u00e9")
    # the same text written in the set is taken
    assert epc_payload(Iban("BE68539007547034", "Ann"), D(1), "EUR", sepa_text("Fridays \u00b7 Friday")).endswith(
        "\nEUR1.00\n\n\nFridays - Friday"
    )


def decoded(payload: str) -> str:
    """The payload drawn by the app's QR module and read back by zxing, as a banking app's camera would."""
    modules = qr.matrix(payload)
    scale = 4
    side = len(modules) * scale
    pixels = bytes(0 if modules[y // scale][x // scale] else 255 for y in range(side) for x in range(side))
    found = zxingcpp.read_barcodes(memoryview(pixels).cast("B", (side, side)), formats=zxingcpp.BarcodeFormat.QRCode)
    assert len(found) == 1
    return found[0].text


def test_the_epc_payload_survives_the_qr_code() -> None:
    payload = epc_payload(read_iban("BE68539007547034", "Ann Lee", "GEBABEBB"), D("12.34"), "EUR", REFERENCE)
    fields = decoded(payload).split("\n")
    assert fields[:4] == ["BCD", "002", "1", "SCT"]
    assert fields[4:8] == ["GEBABEBB", "Ann Lee", "BE68539007547034", "EUR12.34"]
    assert fields[10] == REFERENCE
    # a name beyond ASCII comes back as written (the code's bytes are UTF-8, as line 3 says)
    assert decoded(epc_payload(read_iban("BE68539007547034", "Zoë"), D(1), "EUR")).split("\n")[5] == "Zoë"


@pytest.mark.parametrize(
    ("amount", "currency", "changes", "message"),
    [
        (D("1"), "GBP", {}, "euros only"),
        (D("0.001"), "EUR", {}, "finer than"),
        (D("1000000000"), "EUR", {}, "0.01 to 999999999.99"),
        (D("1"), "EUR", {"text_": "x", "reference": "RF18"}, "not both"),
        (D("1"), "EUR", {"text_": "x" * 141}, "at most 140"),
        (D("1"), "EUR", {"reference": "R" * 36}, "at most 35"),
        (D("1"), "EUR", {"purpose": "gdds"}, "four capital letters"),
        (D("1"), "EUR", {"text_": "line one\nline two"}, "one line"),
    ],
)
def test_an_epc_payload_the_standard_does_not_allow_is_refused(amount, currency, changes, message) -> None:
    with pytest.raises(ValueError, match=message):
        epc_payload(Iban("BE68539007547034", "Ann"), amount, currency, **changes)


def test_an_epc_payload_over_331_bytes_is_refused() -> None:
    # a 70-character name of "€" (3 bytes each: 210) and a 140-character text (140 bytes) make
    # 3 + 3 + 1 + 3 + 0 + 210 + 16 + 7 ("EUR1.00") + 0 + 0 + 140 = 383 bytes and 10 line feeds: 393, over 331
    with pytest.raises(ValueError, match=f"the EPC QR code's text is 393 bytes, more than the {EPC_MAX_BYTES}"):
        epc_payload(Iban("BE68539007547034", "\u20ac" * 70), D(1), "EUR", "x" * 140)
