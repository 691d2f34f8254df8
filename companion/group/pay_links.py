"""How a member likes to be paid, and the link (or the SEPA QR payload) that pays them the amount due.

Players of settle-up apps ask for "Pay" beside each payment, with the amount filled in: fewer
typos, fewer "how much was it again?".  A member may give one handle of each kind; each link is
written as its service documents it, and where the service documents no way to fill the amount
in, the link is the bare one and the page shows the amount to type beside it (:func:`pay_link`):

* :class:`PayPalMe`: ``https://paypal.me/<user>/<amount><CUR>`` in PayPal's currencies (the
  forint, the yen and the Taiwan dollar in whole units), as PayPal's help documents it;
  otherwise ``https://paypal.me/<user>`` and the amount to type;
* :class:`Revolut`: ``https://revolut.me/<user>`` and the amount to type: Revolut documents no
  amount parameter for its links (public code disagrees on one: whole units, minor units, a path);
* :class:`Venmo` (US dollars only): ``https://venmo.com/<user>?txn=pay&amount=<amount>&note=<ref>``;
* :class:`Iban` with the account holder's name: no link, but the text of an EPC069-12 SEPA credit
  transfer QR code (:func:`epc_payload`), which the app's own QR module draws and any European
  banking app reads into a transfer form.  Amounts in euros only, as the standard says; the
  remittance text in the SEPA basic Latin set (:func:`sepa_text` writes any text in it).

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
import unicodedata
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
    "PayLinkUrl",
    "PayPalMe",
    "Revolut",
    "Venmo",
    "SEPA_CHARACTERS",
    "epc_payload",
    "iban_checksum_ok",
    "pay_link",
    "pay_url",
    "read_iban",
    "read_paypal_me",
    "read_revolut",
    "read_venmo",
    "sepa_text",
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
#: link asks for an amount in these only.  The Indian rupee is not one: PayPal ended its payments
#: in rupees in 2021 (its own currency-code page says so).
PAYPAL_CURRENCIES = frozenset({
    "AUD", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "EUR", "GBP", "HKD", "HUF", "ILS",
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

#: The SEPA basic Latin character set (EPC217-08, the SEPA rulebooks' set every bank must take):
#: the letters a-z and A-Z, the digits, the space and ``/ - ? : ( ) . , ' +``.  An EPC QR code's
#: remittance text is written in it: some banking apps refuse a transfer whose text is not.
SEPA_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /-?:().,'+")
#: what :func:`sepa_text` writes for a character that is not a letter with marks on it
_SEPA_SPELLED = {
    "\u00df": "ss", "\u1e9e": "SS", "\u00c6": "AE", "\u00e6": "ae", "\u0152": "OE", "\u0153": "oe",
    "\u00d8": "O", "\u00f8": "o", "\u0110": "D", "\u0111": "d", "\u00d0": "D", "\u00f0": "d",
    "\u00de": "TH", "\u00fe": "th", "\u0141": "L", "\u0142": "l", "\u0131": "i",
    "&": "+", "\u00b7": "-", "\u2022": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-", "_": "-", "~": "-",
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u00b4": "'", "`": "'",
    '"': "'", "\u201c": "'", "\u201d": "'", "\u201e": "'", "\u00ab": "'", "\u00bb": "'",
    "!": ".", ";": ",", "[": "(", "]": ")", "{": "(", "}": ")", "<": "(", ">": ")", "\\": "/", "|": "/",
    "\u20ac": "EUR", "\u00a3": "GBP",
}  # fmt: skip


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


@dataclass(frozen=True)
class PayLinkUrl:
    """A pay link, and whether it carries the amount (False: the payer types it on the service's page)."""

    url: str
    amount_filled: bool


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


def pay_link(handle: PayPalMe | Revolut | Venmo, amount: Decimal, currency: str, reference: str) -> PayLinkUrl:
    """The link that opens ``handle``'s service to pay them ``amount`` in ``currency``, as the service documents it.

    PayPal.Me: ``/<amount><CUR>`` after the name, in PayPal's currencies only and in whole units
    of the forint, the yen and the Taiwan dollar; any other payment is the bare link, the amount
    to be typed.  It has no place for a note.  Revolut documents no amount (nor note) for its
    links: the bare link, always.  Venmo sends US dollars only; its link carries the amount and
    ``reference`` as the note.  Refused (ValueError): an amount finer than the currency's smallest
    unit (no one can type it either), a currency that is not a three-letter code, Venmo in any
    currency but USD.
    """
    code = _currency(currency)
    shown = _plain(amount, code)
    if isinstance(handle, PayPalMe):
        bare = f"https://paypal.me/{quote(handle.username)}"
        if code not in PAYPAL_CURRENCIES or (code in PAYPAL_WHOLE_UNIT_CURRENCIES and amount % 1):
            return PayLinkUrl(bare, amount_filled=False)
        whole = _plain(amount, code, whole=WHOLE_UNIT_CURRENCIES | PAYPAL_WHOLE_UNIT_CURRENCIES)
        return PayLinkUrl(f"{bare}/{whole}{code}", amount_filled=True)
    if isinstance(handle, Revolut):
        return PayLinkUrl(f"https://revolut.me/{quote(handle.username)}", amount_filled=False)
    if isinstance(handle, Venmo):
        if code != "USD":
            raise ValueError(f"Venmo sends US dollars only, not {code}")
        query = urlencode({"txn": "pay", "amount": shown, "note": reference}, quote_via=quote)
        return PayLinkUrl(f"https://venmo.com/{quote(handle.username)}?{query}", amount_filled=True)
    raise TypeError(f"no pay link for {handle!r} (an IBAN is paid by its QR code: epc_payload)")


def pay_url(handle: PayPalMe | Revolut | Venmo, amount: Decimal, currency: str, reference: str) -> str:
    """The address of :func:`pay_link`'s link (whether or not it carries the amount)."""
    return pay_link(handle, amount, currency, reference).url


def sepa_text(value: str, limit: int = EPC_TEXT_LENGTH) -> str:
    """``value`` written in the SEPA basic Latin set (:data:`SEPA_CHARACTERS`), at most ``limit`` characters.

    A letter with marks loses them ("Zoë" is "Zoe", "Müller" "Muller", as the EPC's conversion
    table does), a few letters and signs are spelled out ("ß" is "ss", "&" is "+", "·" and dashes
    are "-", curly quotes "'", "€" is "EUR"); any other character is a space, and runs of spaces
    are one.  Cut to ``limit`` at a word's end where one is in its last third.
    """
    out: list[str] = []
    for char in value:
        if char in SEPA_CHARACTERS:
            out.append(char)
        elif char in _SEPA_SPELLED:
            out.append(_SEPA_SPELLED[char])
        else:
            bare = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
            out.append(bare if bare and all(c in SEPA_CHARACTERS for c in bare) else " ")
    written = " ".join("".join(out).split())
    if len(written) <= limit:
        return written
    cut = written[: limit + 1]
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit * 2 // 3 else cut[:limit]).rstrip()


def epc_payload(
    handle: Iban, amount: Decimal, currency: str, text_: str = "", *, reference: str = "", purpose: str = ""
) -> str:
    """The text of an EPC069-12 (version 002, UTF-8) SEPA credit transfer QR code paying ``handle`` ``amount``.

    Lines, separated by a line feed: ``BCD``, ``002``, ``1`` (UTF-8), ``SCT``, the BIC (may be
    empty), the holder's name, the IBAN, ``EUR`` and the amount, the purpose code (4 capitals, may
    be empty), the structured creditor reference, the unstructured remittance text (one of the
    two, or neither).  Empty lines at the end are left out.  Refused: a currency other than EUR,
    an amount outside 0.01..999999999.99 or finer than a cent, a text over 140 characters or a
    reference over 35, either with a character outside the SEPA basic Latin set (:func:`sepa_text`
    writes a text in it), a payload over 331 bytes.  The holder's name is sent as given: it must be
    the name the bank has for the account, which the payer's bank checks before the transfer goes.
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
    for what, value in (("text", text_), ("reference", reference)):
        outside = sorted({c for c in value if c not in SEPA_CHARACTERS})
        if outside:
            raise ValueError(
                f"an EPC QR code's {what} is in the SEPA basic Latin set (a-z, A-Z, 0-9, space, / - ? : ( ) . , ' +),"
                f" not {''.join(outside)!r}"
            )
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
