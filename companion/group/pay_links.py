"""How a member likes to be paid, and the link (or the SEPA QR payload) that pays them the amount due.

Players of settle-up apps ask for "Pay" beside each payment, with the amount filled in: fewer
typos, fewer "how much was it again?".  A member may give one handle of each kind:

* :class:`PayPalMe`: ``https://paypal.me/<user>/<amount><CUR>`` (PayPal's currencies only);
* :class:`Revolut`: ``https://revolut.me/<user>?amount=<minor units>&currency=<CUR>&note=<ref>``;
* :class:`Venmo` (US dollars only): ``https://venmo.com/<user>?txn=pay&amount=<amount>&note=<ref>``;
* :class:`Iban` with the account holder's name: no link, but the text of an EPC069-12 SEPA credit
  transfer QR code (:func:`epc_payload`), which the app's own QR module draws and any European
  banking app reads into a transfer form.  Amounts in euros only, as the standard says.

Each kind has one reader (:func:`read_paypal_me`, :func:`read_revolut`, :func:`read_venmo`,
:func:`read_iban`) that refuses what the service would refuse, with a sentence: a username with
a character the service does not allow, an IBAN whose length is not its country's or whose
ISO 13616 check digits (mod 97) are wrong.  Nothing here fetches anything; which formats were
used, and how sure we are of each, is in docs/group.md ("Pay links").

Amounts are exact Decimals; a link carries only what the service can be asked for: an amount
finer than the currency's smallest unit (a cent, or a yen) is refused rather than rounded, so
a link never asks for a different sum than the tab shows.

Pure: values in, text out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import quote, urlencode

from companion.values.reading import Unreadable, name as read_name, text

__all__ = [
    "EPC_MAX_AMOUNT",
    "EPC_MAX_BYTES",
    "IBAN_LENGTHS",
    "PAYPAL_CURRENCIES",
    "PAYPAL_WHOLE_UNIT_CURRENCIES",
    "WHOLE_UNIT_CURRENCIES",
    "Iban",
    "PayHandle",
    "PayPalMe",
    "Revolut",
    "Venmo",
    "epc_payload",
    "iban_checksum_ok",
    "pay_url",
    "read_iban",
    "read_paypal_me",
    "read_revolut",
    "read_venmo",
]

#: The longest EPC069-12 payload: QR version 13 at error correction level M.
EPC_MAX_BYTES = 331
EPC_MAX_AMOUNT = Decimal("999999999.99")
EPC_NAME_LENGTH = 70
EPC_TEXT_LENGTH = 140
EPC_REFERENCE_LENGTH = 35

#: An IBAN's length in each country of the SEPA scheme (ISO 13616 IBAN registry), with the
#: territories that have IBANs of their own prefix.  A country not listed is refused: a SEPA
#: transfer cannot reach it.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AL": 28, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22,
    "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GI": 23, "GL": 18,
    "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26, "IT": 27, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MT": 31, "NL": 18, "NO": 15, "PL": 28,
    "PT": 25, "RO": 24, "RS": 22, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "VA": 22,
}  # fmt: skip

#: Currencies whose smallest unit is the whole unit (ISO 4217 minor unit 0); every other
#: currency is counted in hundredths (the few of three places are not sent by these services).
WHOLE_UNIT_CURRENCIES = frozenset({"BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"})

#: The currencies PayPal takes (PayPal's list of currency codes; see docs/group.md): a PayPal.Me
#: link in any other currency would open a page that cannot send it.
PAYPAL_CURRENCIES = frozenset({
    "AUD", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "EUR", "GBP", "HKD", "HUF", "ILS", "INR",
    "JPY", "MXN", "MYR", "NOK", "NZD", "PHP", "PLN", "SEK", "SGD", "THB", "TWD", "USD",
})  # fmt: skip
#: The currencies PayPal counts in whole units only ("decimal amounts cause an error"), though
#: ISO 4217 gives the forint and the Taiwan dollar hundredths.
PAYPAL_WHOLE_UNIT_CURRENCIES = frozenset({"HUF", "JPY", "TWD"})

_PAYPAL = re.compile(r"[A-Za-z0-9]{1,20}")
_REVOLUT = re.compile(r"[A-Za-z0-9_.-]{3,32}")
_VENMO = re.compile(r"[A-Za-z0-9_-]{5,30}")
_CURRENCY = re.compile(r"[A-Z]{3}")
_BIC = re.compile(r"[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?")
_PURPOSE = re.compile(r"[A-Z]{4}")


@dataclass(frozen=True)
class PayPalMe:
    username: str


@dataclass(frozen=True)
class Revolut:
    username: str


@dataclass(frozen=True)
class Venmo:
    username: str


@dataclass(frozen=True)
class Iban:
    """An IBAN (as the machine reads it: no spaces, capitals), its holder's name, and a BIC if given."""

    iban: str
    holder: str
    bic: str = ""

    @property
    def grouped(self) -> str:
        """The IBAN as a person reads it: in groups of four."""
        return " ".join(self.iban[i : i + 4] for i in range(0, len(self.iban), 4))


PayHandle = PayPalMe | Revolut | Venmo | Iban


# --- the readers --------------------------------------------------------------------------------


def _username(value: object, what: str, pattern: re.Pattern[str], allowed: str, *, link: str) -> str:
    """A username as typed (an "@" before it, or the whole link pasted, is dropped), checked against ``pattern``."""
    name = text(value, what, max_length=200)
    name = re.sub(rf"^(?:https?://)?(?:www\.)?{re.escape(link)}/", "", name, flags=re.IGNORECASE).strip("/")
    name = name.removeprefix("@")
    if not name:
        raise Unreadable(f"enter {what}")
    if not pattern.fullmatch(name):
        raise Unreadable(f"{what} has {allowed}, not \u201c{name[:40]}\u201d")
    return name


def read_paypal_me(value: object) -> PayPalMe:
    """A PayPal.Me name: 1 to 20 letters A-Z and digits (PayPal allows no other character)."""
    return PayPalMe(_username(value, "the PayPal.Me name", _PAYPAL, "1 to 20 letters A-Z and digits", link="paypal.me"))


def read_revolut(value: object) -> Revolut:
    """A Revolut username (Revtag): 3 to 32 letters, digits, "_", "." or "-" (see docs/group.md)."""
    return Revolut(_username(value, "the Revolut username", _REVOLUT, "3 to 32 letters, digits, _ . or -", link="revolut.me"))


def read_venmo(value: object) -> Venmo:
    """A Venmo username: 5 to 30 letters, digits, "-" or "_"."""
    return Venmo(_username(value, "the Venmo username", _VENMO, "5 to 30 letters, digits, - or _", link="venmo.com"))


def iban_checksum_ok(iban: str) -> bool:
    """ISO 13616's check: the first four characters moved to the end, letters as 10..35, mod 97 is 1."""
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def read_iban(value: object, holder: object, bic: object = "", *, stored: bool = False) -> Iban:
    """An IBAN as typed (spaces and case ignored) with its holder's name (1 to 70 characters), and an optional BIC.

    Refused: a country outside SEPA, a length not the country's, a character other than A-Z and
    0-9, wrong check digits; a BIC not 8 or 11 characters of the SWIFT form.
    """
    written = text(value, "the IBAN", max_length=60)
    iban = "".join(written.split()).upper()
    if not iban:
        raise Unreadable("enter the IBAN")
    if not re.fullmatch(r"[A-Z]{2}[0-9]{2}[A-Z0-9]+", iban):
        raise Unreadable("an IBAN is two letters, two check digits, then letters A-Z and digits only")
    country = iban[:2]
    if country not in IBAN_LENGTHS:
        raise Unreadable(f"{country} is not a country a SEPA transfer reaches")
    if len(iban) != IBAN_LENGTHS[country]:
        raise Unreadable(f"an IBAN of {country} has {IBAN_LENGTHS[country]} characters, this one {len(iban)}")
    if not iban_checksum_ok(iban):
        raise Unreadable("the IBAN's check digits do not match: a character is mistyped")
    name = read_name(holder, "the account holder's name", max_length=EPC_NAME_LENGTH, stored=stored)
    if not name:
        raise Unreadable("enter the account holder's name, as the bank knows it")
    code = "".join(text(bic, "the BIC", max_length=20).split()).upper()
    if code and not _BIC.fullmatch(code):
        raise Unreadable("a BIC is 8 or 11 letters and digits (for example DEUTDEFF), or leave it empty")
    return Iban(iban, name, code)


# --- the links -----------------------------------------------------------------------------------


def _currency(currency: str) -> str:
    code = currency.strip().upper() if isinstance(currency, str) else ""
    if not _CURRENCY.fullmatch(code):
        raise ValueError(f"a pay link needs a three-letter currency code such as EUR, not {currency!r}")
    return code


def _plain(amount: Decimal, currency: str, *, whole: frozenset[str] = WHOLE_UNIT_CURRENCIES) -> str:
    """``amount`` as a link writes it: "12.50" (or "1200" in a currency of whole units); finer is refused."""
    if isinstance(amount, bool) or not isinstance(amount, Decimal) or not amount.is_finite() or amount <= 0:
        raise ValueError(f"a pay link's amount is a Decimal above zero, not {amount!r}")
    step = Decimal(1) if currency in whole else Decimal("0.01")
    shown = amount.quantize(step)
    if shown != amount:
        raise ValueError(f"{amount} {currency} is finer than the smallest amount a payment can send ({step} {currency})")
    return f"{shown:f}"


def pay_url(handle: PayPalMe | Revolut | Venmo, amount: Decimal, currency: str, reference: str) -> str:
    """The link that opens ``handle``'s service to pay them ``amount`` in ``currency``, with ``reference`` as the note.

    PayPal.Me carries no note (its link has no place for one) and takes only PayPal's currencies
    (the forint, the yen and the Taiwan dollar in whole units).  Revolut reads the amount in minor
    units (1670 for 16.70).  Venmo sends US dollars only.
    """
    code = _currency(currency)
    if isinstance(handle, PayPalMe):
        if code not in PAYPAL_CURRENCIES:
            raise ValueError(f"PayPal does not send {code}")
        shown = _plain(amount, code, whole=WHOLE_UNIT_CURRENCIES | PAYPAL_WHOLE_UNIT_CURRENCIES)
        return f"https://paypal.me/{quote(handle.username)}/{shown}{code}"
    shown = _plain(amount, code)
    if isinstance(handle, Revolut):
        minor = int(amount.scaleb(0 if code in WHOLE_UNIT_CURRENCIES else 2))
        query = urlencode({"amount": minor, "currency": code, "note": reference}, quote_via=quote)
        return f"https://revolut.me/{quote(handle.username)}?{query}"
    if isinstance(handle, Venmo):
        if code != "USD":
            raise ValueError(f"Venmo sends US dollars only, not {code}")
        query = urlencode({"txn": "pay", "amount": shown, "note": reference}, quote_via=quote)
        return f"https://venmo.com/{quote(handle.username)}?{query}"
    raise TypeError(f"no pay link for {handle!r} (an IBAN is paid by its QR code: epc_payload)")


def epc_payload(
    handle: Iban, amount: Decimal, currency: str, text_: str = "", *, reference: str = "", purpose: str = ""
) -> str:
    """The text of an EPC069-12 (version 002, UTF-8) SEPA credit transfer QR code paying ``handle`` ``amount``.

    Lines, separated by a line feed: ``BCD``, ``002``, ``1`` (UTF-8), ``SCT``, the BIC (may be
    empty), the holder's name, the IBAN, ``EUR`` and the amount, the purpose code (4 capitals, may
    be empty), the structured creditor reference, the unstructured remittance text (one of the
    two, or neither).  Empty lines at the end are left out.  Refused: a currency other than EUR,
    an amount outside 0.01..999999999.99 or finer than a cent, a text over 140 characters, a
    reference over 35, a payload over 331 bytes.
    """
    if not isinstance(handle, Iban):
        raise TypeError(f"an EPC QR code pays an IBAN, not {handle!r}")
    if _currency(currency) != "EUR":
        raise ValueError(f"a SEPA transfer's QR code is in euros only, not {currency}")
    shown = _plain(amount, "EUR")
    if not Decimal("0.01") <= amount <= EPC_MAX_AMOUNT:
        raise ValueError(f"an EPC QR code's amount is 0.01 to 999999999.99 EUR, not {amount}")
    if text_ and reference:
        raise ValueError("an EPC QR code holds a structured reference or a text, not both")
    if len(text_) > EPC_TEXT_LENGTH or "\n" in text_ or "\r" in text_:
        raise ValueError(f"an EPC QR code's text is one line of at most {EPC_TEXT_LENGTH} characters")
    if len(reference) > EPC_REFERENCE_LENGTH or "\n" in reference:
        raise ValueError(f"an EPC QR code's reference is one line of at most {EPC_REFERENCE_LENGTH} characters")
    if purpose and not _PURPOSE.fullmatch(purpose):
        raise ValueError(f"an EPC purpose code is four capital letters, not {purpose!r}")
    if len(handle.holder) > EPC_NAME_LENGTH:
        raise ValueError(f"an EPC QR code's name is at most {EPC_NAME_LENGTH} characters")
    lines = ["BCD", "002", "1", "SCT", handle.bic, handle.holder, handle.iban, f"EUR{shown}", purpose, reference, text_]
    while not lines[-1]:
        lines.pop()
    payload = "\n".join(lines)
    size = len(payload.encode("utf-8"))
    if size > EPC_MAX_BYTES:
        raise ValueError(f"the EPC QR code's text is {size} bytes, more than the {EPC_MAX_BYTES} it may hold: shorten it")
    return payload
