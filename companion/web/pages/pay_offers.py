"""The *Pay* offers shown beside one payment: a link per service the payee uses, or a SEPA QR code.

A player who owes Ann 12.50 EUR taps "Pay with PayPal" and finds the amount filled in, or scans
the bank transfer's QR code with their banking app: fewer typos, no "how much was it again?".
Where the service documents no way to fill the amount in (Revolut; PayPal.Me in a currency
PayPal does not send, or a fraction of a forint or a Taiwan dollar), the link opens the
payee's page and the offer carries the amount to type beside it ("amount to type: 0.25 €").
The group pages call :func:`pay_offers` with the payee's handles (kind → handle of
:mod:`companion.group.pay_links`), the amount, the currency and the group's payment reference,
and render the result with the ``offers`` macro of ``templates/groups/_pay.html``.

An offer that would ask for a different sum than the tab shows is never made: an amount finer
than the currency's smallest unit, a currency the service does not send (Venmo: dollars only;
a SEPA transfer: euros only), a night played for chips.  It is left out of the offers and
kept, with a short reason ("no link: amount finer than a cent"), in :attr:`PayOffers.refused`,
for a page that wants to say why a button is missing.

Pure but for the QR code's drawing (:mod:`companion.web.plumbing.qr`): values in, values out, no
database, no request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from markupsafe import Markup

from companion.group.pay_links import (
    EPC_MAX_AMOUNT,
    WHOLE_UNIT_CURRENCIES,
    Iban,
    PayHandle,
    PayPalMe,
    Revolut,
    Venmo,
    epc_payload,
    pay_link,
    sepa_text,
)
from companion.money.amounts import format_money
from companion.web.plumbing import qr

__all__ = ["KINDS", "PayLink", "PayOffers", "Refused", "TransferCode", "pay_offers"]

#: Each kind of handle, in the order its offer is shown (the same order on every page), with
#: the service's name as a page says it.
KINDS: dict[str, tuple[type, str]] = {
    "paypal": (PayPalMe, "PayPal"),
    "revolut": (Revolut, "Revolut"),
    "venmo": (Venmo, "Venmo"),
    "iban": (Iban, "bank transfer"),
}


@dataclass(frozen=True)
class PayLink:
    """A link that opens the payee's service with the amount (and, where it has room, the reference) filled in,
    or, where the service documents no way to fill it in, the payee's page and the amount to type."""

    kind: str
    label: str  # "Pay with PayPal"
    url: str
    to_type: str = ""  # "0.25 €": the amount the payer types, as the tab shows it; "" when the link carries it


@dataclass(frozen=True)
class TransferCode:
    """An EPC069-12 QR code of a SEPA transfer to the payee, and what it holds as text to copy by hand."""

    svg: Markup  # the inline SVG drawing, with its own aria-label and <title>
    payload: str  # the code's text, as a banking app reads it
    holder: str
    iban: str  # as a person reads it: in groups of four
    bic: str
    amount: str  # "12.50 EUR"
    reference: str  # the remittance text the code holds: in the SEPA basic Latin set
    kind: str = "iban"
    label: str = "Pay by bank transfer"


@dataclass(frozen=True)
class Refused:
    """An offer not made, and why, in words a page can show ("no link: amount finer than a cent")."""

    kind: str
    service: str
    reason: str


@dataclass(frozen=True)
class PayOffers:
    """The offers to show beside one payment, in the order of :data:`KINDS`, and the ones left out."""

    links: tuple[PayLink, ...]
    transfer: TransferCode | None
    refused: tuple[Refused, ...]

    def __bool__(self) -> bool:
        """True when there is something to show."""
        return bool(self.links) or self.transfer is not None


class _NoOffer(Exception):
    """An offer that cannot be made; the message is its reason."""


def _smallest(currency: str, whole: frozenset[str]) -> str:
    return f"one {currency}" if currency in whole else "a cent"


def _check_amount(amount: Decimal, currency: str, whole: frozenset[str], what: str) -> None:
    step = Decimal(1) if currency in whole else Decimal("0.01")
    if amount % step:
        raise _NoOffer(f"{what}: amount finer than {_smallest(currency, whole)}")


def _link(kind: str, service: str, handle: PayPalMe | Revolut | Venmo, amount: Decimal, currency: str, code: str, reference: str) -> PayLink:
    """The offer of a link to pay ``handle``, or :class:`_NoOffer` with the reason there is none."""
    if isinstance(handle, Venmo) and code != "USD":
        raise _NoOffer("no link: Venmo sends US dollars only")
    _check_amount(amount, code, WHOLE_UNIT_CURRENCIES, "no link")
    try:
        link = pay_link(handle, amount, code, reference)
    except ValueError as refused:  # anything the checks above did not foresee: still no link
        raise _NoOffer(f"no link: {refused}") from None
    to_type = "" if link.amount_filled else format_money(amount, currency.strip())
    return PayLink(kind, f"Pay with {service}", link.url, to_type)


def _transfer(handle: Iban, amount: Decimal, currency: str, reference: str) -> TransferCode:
    """The SEPA transfer's QR code, or :class:`_NoOffer` with the reason there is none."""
    if currency != "EUR":
        raise _NoOffer("no QR code: a SEPA transfer is in euros only")
    _check_amount(amount, currency, frozenset(), "no QR code")
    if amount > EPC_MAX_AMOUNT:
        raise _NoOffer(f"no QR code: a transfer's code holds at most {EPC_MAX_AMOUNT} EUR")
    text = sepa_text(reference)  # the group's and the night's names may hold any character; the code, SEPA's only
    try:
        payload = epc_payload(handle, amount, currency, text)
    except ValueError as refused:  # a reference on two lines, a payload over 331 bytes
        raise _NoOffer(f"no QR code: {refused}") from None
    shown = format_money(amount, currency)
    title = f"QR code of a bank transfer of {shown} to {handle.holder}"
    return TransferCode(
        svg=Markup(qr.svg(payload, title=title)),
        payload=payload,
        holder=handle.holder,
        iban=handle.grouped,
        bic=handle.bic,
        amount=shown,
        reference=text,
    )


#: a night's currency written as its sign, where the sign names one currency only: a pay link or a bank
#: transfer needs its code (the night form's own default is "€"); "$" could be any of a dozen dollars
CURRENCY_SIGNS = {"€": "EUR", "£": "GBP"}


def currency_code(currency: object) -> str:
    """The currency code a pay offer asks for: the night's as written (upper case), or the code of an
    unambiguous sign ("€" is EUR); "" for a night played for chips."""
    written = currency.strip() if isinstance(currency, str) else ""
    return CURRENCY_SIGNS.get(written, written.upper())


def pay_offers(handles: Mapping[str, PayHandle], amount: Decimal, currency: str, reference: str) -> PayOffers:
    """The *Pay* offers for paying ``amount`` ``currency`` to the member whose handles these are.

    ``handles`` maps a kind ("paypal", "revolut", "venmo", "iban") to its handle; ``currency`` is
    the night's or the group's currency as stored (a three-letter code; "" for a night played
    for chips: no offer at all); ``reference`` is the group's payment reference, sent as the
    note where the service has room for one and as the transfer's text.  ``amount`` is what the
    payment asks, above zero (anything else is the caller's mistake, not the payee's).
    """
    if isinstance(amount, bool) or not isinstance(amount, Decimal) or not amount.is_finite() or amount <= 0:
        raise ValueError(f"a payment's amount is a Decimal above zero, not {amount!r}")
    for kind, handle in handles.items():
        if kind not in KINDS:
            raise ValueError(f"no such kind of pay handle: {kind!r}")
        if not isinstance(handle, KINDS[kind][0]):
            raise TypeError(f"the {kind} handle is a {KINDS[kind][0].__name__}, not {handle!r}")
    code = currency_code(currency)
    if not code:
        unusable = "no link: the night is played for chips, not money"
    elif len(code) != 3 or not code.isascii() or not code.isalpha():
        unusable = f"no link: \u201c{currency.strip()}\u201d is not a currency code such as EUR"
    else:
        unusable = ""
    links: list[PayLink] = []
    transfer: TransferCode | None = None
    refused: list[Refused] = []
    for kind, (_, service) in KINDS.items():
        handle = handles.get(kind)
        if handle is None:
            continue
        try:
            if unusable:
                raise _NoOffer(unusable.replace("no link", "no QR code") if kind == "iban" else unusable)
            if isinstance(handle, Iban):
                transfer = _transfer(handle, amount, code, reference)
            else:
                links.append(_link(kind, service, handle, amount, currency, code, reference))
        except _NoOffer as no:
            refused.append(Refused(kind, service, str(no)))
    return PayOffers(tuple(links), transfer, tuple(refused))
