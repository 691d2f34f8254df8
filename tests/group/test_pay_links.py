"""Pay links and the EPC069-12 SEPA QR payload: each service's format, and the refusals, worked by hand."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
import zxingcpp

from companion.group.pay_links import (
    EPC_MAX_BYTES,
    Iban,
    PayPalMe,
    Revolut,
    Venmo,
    epc_payload,
    iban_checksum_ok,
    pay_url,
    read_iban,
    read_paypal_me,
    read_revolut,
    read_venmo,
)
from companion.values.reading import Unreadable
from companion.web import qr

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


def test_the_paypal_me_link_only_in_a_currency_paypal_sends() -> None:
    # PayPal's currency list has no Icelandic krona
    with pytest.raises(ValueError, match="PayPal does not send ISK"):
        pay_url(PayPalMe("AnnLee"), D("1000"), "ISK", REFERENCE)
    # the forint, the yen and the Taiwan dollar in whole units only (PayPal: "decimal amounts cause
    # an error"), though ISO 4217 gives the forint and the Taiwan dollar hundredths
    assert pay_url(PayPalMe("AnnLee"), D("1500.00"), "HUF", REFERENCE) == "https://paypal.me/AnnLee/1500HUF"
    with pytest.raises(ValueError, match=r"finer than the smallest amount a payment can send \(1 TWD\)"):
        pay_url(PayPalMe("AnnLee"), D("99.50"), "TWD", REFERENCE)


def test_the_revolut_link_carries_the_amount_in_minor_units() -> None:
    # 16.70 GBP is 1670 pence; the note is percent-encoded (" " → %20, ":" → %3A)
    assert (
        pay_url(Revolut("ann.lee"), D("16.70"), "GBP", REFERENCE)
        == "https://revolut.me/ann.lee?amount=1670&currency=GBP&note=Poker%20group%3A%20night%20n5"
    )
    # in yen, a whole-unit currency, 500 yen is 500
    assert "amount=500&currency=JPY" in pay_url(Revolut("ann.lee"), D("500"), "JPY", "x")


def test_the_venmo_link_in_dollars_only() -> None:
    assert (
        pay_url(Venmo("Ann-Lee"), D("12"), "USD", REFERENCE)
        == "https://venmo.com/Ann-Lee?txn=pay&amount=12.00&note=Poker%20group%3A%20night%20n5"
    )
    with pytest.raises(ValueError, match="US dollars only"):
        pay_url(Venmo("Ann-Lee"), D("12"), "EUR", REFERENCE)


def test_a_link_never_rounds_an_amount() -> None:
    # 0.125 EUR (a chip value of four places can make it) is no amount a payment can send
    with pytest.raises(ValueError, match="finer than the smallest amount"):
        pay_url(PayPalMe("AnnLee"), D("0.125"), "EUR", REFERENCE)
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
    # a 70-character name of "Ä" (2 bytes each: 140) and a 140-character text of "€" (3 bytes each:
    # 420) make well over 331 bytes
    with pytest.raises(ValueError, match=f"more than the {EPC_MAX_BYTES}"):
        epc_payload(Iban("BE68539007547034", "Ä" * 70), D(1), "EUR", "€" * 140)
