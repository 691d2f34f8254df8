"""What a group's pages show, in words: the period asked for, amounts, charts, pay handles and offers.

Pure of requests and of the database: each function makes what a page shows from the values given,
so the pages (web/pages/groups.py), the commands' messages and their confirming pages (web/pages/group_commands.py)
say an amount, a period or a handle the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from markupsafe import Markup

from companion import service
from companion.service import GroupRow
from companion.group.chart import running_chart
from companion.group.pay_links import Iban, PayHandle
from companion.group.season import ALL_TIME, Period
from companion.group.tab import TabPayment
from companion.money.amounts import format_money
from companion.night.ledger import BANK_LINE, BANK_LINE_MEANS
from companion.values.reading import Unreadable, iso_date
from companion.web.forms import HANDLE_KINDS
from companion.web.pages.pay_offers import PayOffers, pay_offers


# --- the period ---------------------------------------------------------------------------------


def period_from(args: Mapping[str, str]) -> Period:
    """The period the page asks for: ``?period=`` all, a year (2025), a month (2025-04), or ``range``
    with ``from`` and ``to`` (YYYY-MM-DD, both included).  :class:`Unreadable` says what is wrong."""
    asked = args.get("period", "all") or "all"
    if asked == "all":
        return ALL_TIME
    # a year a calendar date can have (year 0 has none): anything else is the last line's refusal
    if re.fullmatch(r"[0-9]{4}", asked) and int(asked) >= 1:
        return Period.year(int(asked))
    month = re.fullmatch(r"([0-9]{4})-([0-9]{2})", asked)
    if month and int(month[1]) >= 1 and 1 <= int(month[2]) <= 12:
        return Period.month(int(month[1]), int(month[2]))
    if asked == "range":
        start, end = iso_date(args.get("from", ""), "the first day"), iso_date(args.get("to", ""), "the last day")
        if start > end:
            raise Unreadable(f"the period ends ({end}) before it starts ({start})")
        return Period.between(start, end)
    raise Unreadable("choose a period from the list, or a first and last day")


def period_args(period: Period) -> dict[str, str]:
    """The address's question for ``period``, as :func:`period_from` reads it."""
    if period == ALL_TIME:
        return {}
    if period.start and period.end and period == Period.year(period.start.year):
        return {"period": str(period.start.year)}
    if period.start and period.end and period == Period.month(period.start.year, period.start.month):
        return {"period": f"{period.start:%Y-%m}"}
    return {"period": "range", "from": str(period.start), "to": str(period.end)}


def period_choices(periods: Iterable[Period]) -> list[tuple[str, str]]:
    """(value, label) of the periods the filter offers: all time, then each year and each month with nights."""
    return [("all", "All time"), *((period_args(p)["period"], p.label) for p in periods)]


# --- amounts, charts, handles -------------------------------------------------------------------


def unit_text(unit: str | None) -> str:
    return unit if unit is not None else "chips"


def amount_text(amount: Decimal | int, unit: str | None) -> str:
    """An amount of the tab or the season as the pages say it: "12.50 EUR", "7 chips"."""
    if unit is None:
        return f"{amount} chip{'s' if abs(amount) != 1 else ''}"
    return format_money(Decimal(amount), unit)


def signed_text(amount: Decimal | int, unit: str | None) -> str:
    """The same with its sign: "+12.50 EUR", "−7 chips", "0 chips" (a true minus sign)."""
    shown = amount_text(abs(amount), unit)
    return ("+" if amount > 0 else "\u2212" if amount < 0 else "") + shown


def plain_amount(amount: Decimal) -> str:
    """An amount as a form's field holds it: "12.50", "0.125", "7"."""
    return f"{amount:f}"


def charts_of(view: Any) -> list[tuple[str, Markup]]:
    """(unit's words, SVG) of the season's running totals, one chart per unit: currencies, then chips."""
    units = {n.unit for n in view.season.nights}
    ordered = sorted(u for u in units if u is not None) + ([None] if None in units else [])
    out = []
    for unit in ordered:
        svg = running_chart(view.season, unit)
        if svg:
            out.append((unit_text(unit), Markup(svg)))
    return out


def handle_words(kind: str, handle: PayHandle) -> str:
    """A member's pay handle as the members' list says it: "PayPal.Me AnnLee", "IBAN DE89 … (Ann Lee)"."""
    if isinstance(handle, Iban):
        return f"IBAN {handle.grouped} ({handle.holder}{', BIC ' + handle.bic if handle.bic else ''})"
    return f"{dict(HANDLE_KINDS).get(kind, kind)} {handle.username}"


def offers_maker(group: GroupRow, view: Any) -> Callable[[TabPayment], PayOffers | None]:
    """The *Pay* offers beside a payment of the tab: the payee's handles, this group's pages only."""

    def offers(payment: TabPayment) -> PayOffers | None:
        handles = view.handles.get(payment.payee)
        if not handles:
            return None
        # a chips-only night's payment: no offer, and the organiser is told why
        return pay_offers(handles, payment.amount, payment.unit or "", reference(group))

    return offers


def reference(group: GroupRow) -> str:
    """What a payment through the tab says it is for, where the service has room: the group's name."""
    return f"{group.name}: the tab"[:80]


def bank_says(view: service.GroupView) -> tuple[str, str] | None:
    """(the bank's line's title, what it is in one sentence) when the season shows that line (a member's
    game by game), as the night's report says it under its own line; None when it shows none."""
    title = BANK_LINE[0]
    return (title, BANK_LINE_MEANS) if any(title in row.per_game for row in view.season.rows) else None
