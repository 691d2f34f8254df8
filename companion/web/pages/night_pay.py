"""The *Pay* offers beside a night's remaining payments, on a night kept in a group (issue 25).

The group's members give their pay handles on the group's pages; the night's settle-up (the
scorekeeper's report and the players' report) then shows, beside each payment still to make to a
member who gave one, the same offers the group's tab shows (:func:`~companion.web.pages.pay_offers.pay_offers`):
a link per service with the amount filled in, and for an IBAN the SEPA transfer's QR code.

Which payments: only those still to pay, in the night's currency.  None on a chips-only night, none
for a payment marked paid or settled through the group's tab (the report's lines read only), none on
a night in no group.  A night's players are the group's members (a night in a group seats only
members), so its two links are members' links; the offers carry the payee's handle and nothing of
the group's own links.

The reference is "<group name> · <night name>", at most 140 characters (the EPC069-12 text's limit);
the transfer's QR code carries it in the SEPA basic Latin set ("Fridays - Friday": pay_offers does it).

The report is kept per night version (web/plumbing/kept_pages.py), and a handle set on the group moves the
group's version, not the night's: :func:`pay_stamp` is what the kept page's key adds, the group, its
version and its nights' as :func:`companion.web.plumbing.links.keeper_link` reads them on every request.

While the group's tab cannot count the night's unit (a night of the group holds tab records there that do
not add up: :func:`companion.service.blocked_at`), the night offers no *Pay* and no *Mark paid* in it,
as the group's own pages offer none (issue 35).
"""

from __future__ import annotations

from collections.abc import Iterable

from companion import service
from companion.service import NightRow
from companion.money.amounts import to_money
from companion.report.model import Report
from companion.web.pages.pay_offers import PayOffers, pay_offers

__all__ = ["MAX_REFERENCE", "night_offers", "night_reference", "pay_stamp"]

#: the EPC069-12 unstructured text holds at most 140 characters; the links' notes take the same
MAX_REFERENCE = 140
_BETWEEN = " \u00b7 "
#: what the group's name keeps at least when both names are long (the night's name takes the rest)
_GROUP_ROOM = 68

#: a payment's offers are found by (payer, payee, chips), as *Mark paid* finds its line
Offers = dict[tuple[str, str, int], PayOffers]


def night_reference(group_name: str, night_name: str) -> str:
    """"<group name> · <night name>", shortened to :data:`MAX_REFERENCE` characters.

    Both names are at most 80 characters, so both long ones do not fit: the group's name keeps
    at least 68 characters, the night's name the rest, each cut at a word's end where it can.
    """
    whole = f"{group_name}{_BETWEEN}{night_name}"
    if len(whole) <= MAX_REFERENCE:
        return whole
    room = MAX_REFERENCE - len(_BETWEEN)
    group = group_name[: max(room - len(night_name), _GROUP_ROOM)].rstrip()
    night = night_name[: room - len(group)].rstrip()
    return f"{group}{_BETWEEN}{night}"


def pay_stamp(pay: service.NightPay | None) -> tuple[int, int, int, int] | None:
    """What the night's kept report depends on of its group, as :class:`~companion.web.plumbing.links.NightLink` reads
    it: (group id, group version, its nights' changes, the sum of their versions), None in no group."""
    return (pay.group_id, pay.version, pay.nights_changed, pay.nights_versions) if pay is not None else None


def night_offers(night: NightRow, report: Report, view: str, pay: service.NightPay | None) -> Offers:
    """The offers beside each payment still to make that the report shows in ``view``, by (payer, payee, chips).

    The payments are the ones *Mark paid* would offer (the night's own lines not marked paid; once
    the group's tab settled part of the night, only what remains), or, when recorded payments do not
    match the lines, what settles the rest.  A payee with no handle, or no offer to make (a currency
    a service does not send, an amount finer than a cent), is left out; and every payment while the group's
    tab cannot count the night's unit (``pay.blocked``: the group's own pages offer nothing there either).
    """
    if pay is None or pay.blocked or not pay.handles or report.chip_value <= 0 or not report.currency:
        return {}
    reference = night_reference(pay.group_name, night.name)
    out: Offers = {}
    for payer, payee, chips in _still_to_pay(report, view):
        handles = pay.handles.get(payee)
        if not handles or chips <= 0:
            continue
        offers = pay_offers(handles, to_money(chips, report.chip_value), report.currency, reference)
        if offers:
            out[(payer, payee, chips)] = offers
    return out


def _still_to_pay(report: Report, view: str) -> Iterable[tuple[str, str, int]]:
    if report.tab is not None:
        return [(line.payer, line.payee, line.chips) for line in report.tab.offers if not line.paid]
    if report.unmatched(view):  # the lines no longer say what is left: the payments that settle the rest do
        return [(p.payer, p.payee, p.chips) for p in report.remaining]
    return [(line.payer, line.payee, line.chips) for line in report.lines(view) if not line.paid]

