"""The running tab: what the group's nights still owe, and one plan to settle it all.

A night's settle-up payments that nobody marked paid do not go away when the next night starts:
the group carries them.  This module adds up, per currency, what each member is still owed (or
owes) across every night, offers ONE fewest-payments plan over all of it
(:func:`~companion.money.settle.settle_up`: "settle the month"), and, when payments are made,
says which records to append against which nights so that every night's report shows what is
settled.

Exact, never float: a night's amounts are money with at most four decimal places (a chip value's,
:mod:`companion.money.amounts`) or whole chips, so the tab counts money in integer units of
0.0001 of its currency (chips in chips), hands :func:`settle_up` integers, and turns its plan back
into Decimals.  Two currencies are never added: each has its own balances and its own plan.

Which night a payment clears (docs/group.md, "The tab")
--------------------------------------------------------
A member's balance on a night is what the night's plan gives or asks of them, less what was
marked paid at the night, plus what the tab has cleared there since (:class:`Cleared`).  A payment
through the tab, ``payer`` pays ``payee`` an amount, clears the payer's debts oldest night first,
and the payee's credits oldest night first, one :class:`Cleared` record per night touched.  The
fewest-payments plan may make Ann pay Cat although Ann owed Bob and Bob owed Cat: Bob's credit on
one night and his debt on another are then *offset* (a record on each, no money moves), oldest
first, for every member whose balances in the currency are of both signs once the payments are
counted.  A partial payment leaves the rest owed; a payment larger than what the payer owes or
the payee is owed in that currency is refused (:class:`Overpayment`).

Pure: values in, values out.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from types import MappingProxyType

from companion.money.amounts import MAX_DECIMAL_PLACES, format_money, parse_chip_value
from companion.money.settle import settle_up
from companion.values.limits import MAX_CHIP_VALUE
from companion.values.reading import Unreadable, shown, text, trimmed, whole_number

from .members import Members, UnknownMember, member_name
from .nights import Cleared, NightResult, Unit, check_amount
from .season import in_order, seated_members

__all__ = [
    "MAX_PAYMENT", "Owed", "Overpayment", "Tab", "TabPayment", "Unreconciled", "check_marked", "check_payment", "open_on", "pay",
    "read_payment", "tab", "unreconciled", "with_cleared",
]

#: money is counted in units of 0.0001 (the finest a chip value, and so any amount, can be)
SCALE = 10**MAX_DECIMAL_PLACES


class Overpayment(ValueError):
    """A payment larger than what its payer owes, or its payee is owed, in its currency."""


class Unreconciled(Overpayment):
    """A payment in a unit whose tab records do not add up (:func:`unreconciled`): nothing is owed there that
    the tab can say for sure.  An :class:`Overpayment`, so every way in refuses it as it refuses one."""


@dataclass(frozen=True)
class TabPayment:
    """``payer`` pays ``payee`` ``amount`` in ``unit`` (a currency; None: chips of chips-only nights)."""

    payer: str
    payee: str
    unit: Unit
    amount: Decimal

    def __post_init__(self) -> None:
        if self.payer == self.payee:
            raise ValueError(f"{self.payer} cannot pay themselves")
        check_amount(self.amount, self.unit, "a payment")


#: the largest payment the tab takes, in chips or in money (far beyond what a home game's tab owes): a larger
#: amount is refused as it is read, before anything adds it up
MAX_PAYMENT = MAX_CHIP_VALUE
#: a currency is written as a night's is: a short text ("EUR", "$")
MAX_CURRENCY = 8


def read_payment(payer: object, payee: object, unit: object, amount: object) -> TabPayment:
    """A payment through the tab as a form (or any way in) gives it, read by the app's one reader of each kind.

    Names as a table reads them (:func:`~companion.group.members.member_name`); ``unit`` a currency as a
    night writes it, or None for chips; ``amount`` the text typed: whole chips (:func:`whole_number`) or
    money read as a chip value is (:func:`~companion.money.amounts.parse_chip_value`: digits and one dot,
    at most four places), above zero and at most :data:`MAX_PAYMENT`.  :class:`Unreadable` otherwise.
    """
    who, to = member_name(payer, "who paid"), member_name(payee, "who was paid")
    if unit is not None:
        unit = text(unit, "the currency", max_length=MAX_CURRENCY)
    if unit is None:
        chips = whole_number(amount, "the amount", low=1, high=int(MAX_PAYMENT), unit="chips")
        return _checked(who, to, None, Decimal(chips))
    if not isinstance(amount, str):
        raise Unreadable(f"the amount must be written in digits, such as 2.50 {unit}")
    try:
        money = parse_chip_value(amount)
    except ValueError:
        raise Unreadable(
            f"the amount must be a number of {unit} such as 2.50 (a dot before at most "
            f"{MAX_DECIMAL_PLACES} decimal places), not \u201c{shown(trimmed(amount))}\u201d"
        ) from None
    if not money:
        raise Unreadable("the amount must be more than zero")
    return _checked(who, to, unit, money)


def check_payment(payment: object) -> TabPayment:
    """``payment`` if it is a :class:`TabPayment` whose names and amount :func:`read_payment` would have read
    as they are; :class:`Unreadable` otherwise (what a caller that made its own TabPayment must pass too)."""
    if not isinstance(payment, TabPayment):
        raise Unreadable("a payment through the tab names who paid whom, how much and in what")
    who, to = member_name(payment.payer, "who paid"), member_name(payment.payee, "who was paid")
    if payment.unit is not None:
        text(payment.unit, "the currency", max_length=MAX_CURRENCY)
        if not payment.unit or payment.unit != payment.unit.strip():
            raise Unreadable("the currency is written as its nights write it, such as EUR")
    return _checked(who, to, payment.unit, payment.amount)


def _checked(payer: str, payee: str, unit: Unit, amount: Decimal) -> TabPayment:
    if isinstance(amount, Decimal) and amount.is_finite() and amount > MAX_PAYMENT:
        raise Unreadable(f"the amount is at most {MAX_PAYMENT:,} {unit or 'chips'}")
    try:
        return TabPayment(payer, payee, unit, amount)
    except (TypeError, ValueError) as error:
        raise Unreadable(str(error)) from None


@dataclass(frozen=True)
class Owed:
    """``member``'s balance still open on one night: above zero they are owed it, below zero they owe it."""

    night_id: str
    date: datetime.date
    member: str
    amount: Decimal


@dataclass(frozen=True)
class Tab:
    """What is still open, per unit (a currency; None: chips): by member, by night, and one plan to close it."""

    balances: Mapping[Unit, Mapping[str, Decimal]]  # non-zero only, members in the group's order
    open: Mapping[Unit, tuple[Owed, ...]]  # every night's non-zero balance, oldest night first
    plan: Mapping[Unit, tuple[TabPayment, ...]]  # the fewest payments, sorted by payer then payee
    #: each unit the tab cannot settle, with the nights that hold what does not add up (no plan is made in it)
    blocked: Mapping[Unit, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def settled(self) -> bool:
        return not any(self.balances.values()) and not self.blocked

    def owes(self, member: str) -> dict[Unit, Decimal]:
        """What ``member`` owes (negative) or is owed (positive), per unit; only the non-zero ones."""
        return {unit: b[member] for unit, b in self.balances.items() if member in b}


def _units(amount: Decimal, unit: Unit) -> int:
    """An amount in whole counting units: chips, or 0.0001s of money (exact: amounts have at most 4 places)."""
    scaled = amount if unit is None else amount.scaleb(MAX_DECIMAL_PLACES)
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{amount} is finer than the tab counts")
    return int(scaled)


def _amount(units: int, unit: Unit) -> Decimal:
    """Counting units back to an amount: chips as a whole Decimal, money with two places when they say it all."""
    if unit is None:
        return Decimal(units)
    money = Decimal(units).scaleb(-MAX_DECIMAL_PLACES)
    cents = money.quantize(Decimal("0.01"))
    return cents if cents == money else money.normalize()


def _said(amount: Decimal, unit: Unit) -> str:
    """An amount as a sentence says it: money as the app writes it ("0.25 EUR"), chips whole ("5 chips")."""
    return f"{amount:f} chip{'' if amount == 1 else 's'}" if unit is None else format_money(amount, unit)


def _open_units(
    nights: Sequence[NightResult], members: Members, also: Mapping[Unit, Sequence[str]] | None = None
) -> tuple[dict[Unit, list[tuple[NightResult, str, int]]], dict[Unit, list[str]]]:
    """Per unit, every (night, member, balance in counting units) not yet zero, nights oldest first; and per
    unit the nights whose tab records cannot be counted (:func:`unreconciled`), whose balances are left out,
    with ``also`` (the caller's nights that cannot be counted at all, by the unit they are played in)."""
    blocked = unreconciled(nights, members)
    for unit, ids in (also or {}).items():
        blocked[unit] = list(dict.fromkeys([*blocked.get(unit, []), *ids]))
    out: dict[Unit, list[tuple[NightResult, str, int]]] = {}
    for night in nights:
        if night.night_id in blocked.get(night.unit, ()):
            out.setdefault(night.unit, [])
            continue
        seated = seated_members(night, members)
        balance = dict.fromkeys(seated.values(), 0)
        for transfer in night.planned:
            units = _units(transfer.amount, night.unit)
            balance[seated[transfer.payer]] -= units
            balance[seated[transfer.payee]] += units
        for transfer in night.paid:
            units = _units(transfer.amount, night.unit)
            balance[seated[transfer.payer]] += units
            balance[seated[transfer.payee]] -= units
        for record in night.cleared:
            balance[members.member(record.member)] += _units(record.amount, night.unit)
        rows = out.setdefault(night.unit, [])
        rows.extend((night, member, units) for member, units in balance.items() if units)
    return out, blocked


def unreconciled(nights: Iterable[NightResult], members: Members) -> dict[Unit, list[str]]:
    """Per unit, the nights holding tab records the tab itself could not have made, in the order given.

    The tab appends its records in sets that add up to zero (:func:`pay`): a payment's records clear
    its payer's debts (+) and its payee's credits (−) by the same amount, an offset a member's debt
    and credit by the same amount.  So in each unit the records of each (payer, payee) add up to
    zero, and a record naming someone who did not play its night is none of the tab's.  Where that
    fails (a record imported on its own, a night holding another group's records), every night
    holding a record of that (payer, payee) is named, and the unit cannot be settled: which of them
    is wrong the records cannot say, and a payment offered there could be a wrong one.
    """
    totals: dict[tuple[Unit, str, str], int] = {}
    holders: dict[tuple[Unit, str, str], list[str]] = {}
    bad: dict[Unit, list[str]] = {}
    for night in nights:
        seated = set(seated_members(night, members).values()) if night.cleared else set()
        for record in night.cleared:
            try:
                member = members.member(record.member)
                pair = (night.unit, members.member(record.payer), members.member(record.payee))
                units = _units(record.amount, night.unit)
            except (UnknownMember, ValueError):
                bad.setdefault(night.unit, []).append(night.night_id)
                continue
            if member not in seated:
                bad.setdefault(night.unit, []).append(night.night_id)
                continue
            totals[pair] = totals.get(pair, 0) + units
            holders.setdefault(pair, []).append(night.night_id)
    for pair, total in totals.items():
        if total:
            bad.setdefault(pair[0], []).extend(holders[pair])
    return {unit: list(dict.fromkeys(ids)) for unit, ids in bad.items()}


def _open_on_units(night: NightResult) -> dict[str, int]:
    balance = dict.fromkeys(night.net, 0)
    for transfer in night.planned:
        units = _units(transfer.amount, night.unit)
        balance[transfer.payer] -= units
        balance[transfer.payee] += units
    for transfer in night.paid:
        units = _units(transfer.amount, night.unit)
        balance[transfer.payer] += units
        balance[transfer.payee] -= units
    for record in night.cleared:
        if record.member not in balance:
            raise ValueError(f"night {night.night_id!r} holds a tab record of {record.member}, who did not play it")
        balance[record.member] += _units(record.amount, night.unit)
    return balance


def open_on(night: NightResult) -> dict[str, Decimal]:
    """Each seat's balance still open on ``night``, in its unit: what its plan gives them (+) or asks of them
    (−), less what was marked paid there, plus what the group's tab has cleared there since."""
    return {seat: _amount(units, night.unit) for seat, units in _open_on_units(night).items()}


def check_marked(night: NightResult, payer: str, payee: str, amount: Decimal) -> None:
    """:class:`Overpayment` unless ``payer`` still owes at least ``amount`` on ``night`` and ``payee`` is still owed
    at least as much: a payment marked paid at a night of a group settles only what is open there, so that
    it never settles again what the tab already cleared (docs/group.md, "A payment marked at a night")."""
    balance = _open_on_units(night)
    units, unit = _units(amount, night.unit), night.unit or "chips"
    owes, owed = -balance.get(payer, 0), balance.get(payee, 0)
    shown = f"not {_amount(units, night.unit)} {unit}"
    if units > owes:
        raise Overpayment(f"{payer} owes {_amount(max(owes, 0), night.unit)} {unit} at this night, {shown}")
    if units > owed:
        raise Overpayment(f"{payee} is owed {_amount(max(owed, 0), night.unit)} {unit} at this night, {shown}")


def tab(
    nights: Iterable[NightResult], members: Members, *, exact_limit: int = 15,
    blocked: Mapping[Unit, Sequence[str]] | None = None,
) -> Tab:
    """The running tab over ``nights``: each member's balance per unit, what is open night by night, one plan.

    The plan is :func:`~companion.money.settle.settle_up` over each unit's balances: the fewest
    payments for up to ``exact_limit`` members with a balance, the greedy plan beyond.  A unit whose
    records do not add up (:func:`unreconciled`), or named in ``blocked`` (nights of the group that
    cannot be counted at all, by their unit), has no plan: :attr:`Tab.blocked` names the nights.
    """
    ordered = in_order(nights)
    balances: dict[Unit, Mapping[str, Decimal]] = {}
    open_: dict[Unit, tuple[Owed, ...]] = {}
    plan: dict[Unit, tuple[TabPayment, ...]] = {}
    open_units, blocked = _open_units(ordered, members, blocked)
    for unit in blocked:
        open_units.setdefault(unit, [])
    for unit, rows in open_units.items():
        units = dict.fromkeys(members.names, 0)
        for _, member, amount in rows:
            units[member] += amount
        held = {m: u for m, u in units.items() if u}
        if not held and not rows and unit not in blocked:
            continue
        balances[unit] = MappingProxyType({m: _amount(u, unit) for m, u in held.items()})
        open_[unit] = tuple(Owed(n.night_id, n.date, m, _amount(u, unit)) for n, m, u in rows)
        if sum(held.values()) and unit not in blocked:  # never so with the tab's own records: said, never guessed
            blocked[unit] = list(dict.fromkeys(n.night_id for n, _, _ in rows))
        plan[unit] = () if unit in blocked else tuple(
            TabPayment(p.payer, p.payee, unit, _amount(p.chips, unit)) for p in settle_up(held, exact_limit=exact_limit)
        )
    return Tab(
        MappingProxyType(balances), MappingProxyType(open_), MappingProxyType(plan),
        MappingProxyType({unit: tuple(ids) for unit, ids in blocked.items()}),
    )


def pay(
    nights: Iterable[NightResult], members: Members, payments: Iterable[TabPayment],
    blocked: Mapping[Unit, Sequence[str]] | None = None,
) -> tuple[Cleared, ...]:
    """The records to append against the nights when ``payments`` are made, in order (see the module's doc).

    Each payment clears its payer's debts and its payee's credits, oldest night first; then every
    member whose open balances in a unit paid in are of both signs has them offset, oldest first.
    :class:`Overpayment` when a payment is larger than what its payer still owes or its payee is
    still owed (counting the payments before it); :class:`Unreconciled` in a unit the tab cannot settle
    (:func:`tab`'s ``blocked``); :class:`~companion.group.members.UnknownMember` for a name no member goes by.  Nothing is returned unless every payment can be made.
    """
    ordered = in_order(nights)
    open_units, blocked = _open_units(ordered, members, blocked)
    records: list[Cleared] = []
    touched: list[Unit] = []
    for payment in payments:
        payer, payee = members.member(payment.payer), members.member(payment.payee)
        if payer == payee:
            raise ValueError(f"{payment.payer!r} and {payment.payee!r} are one member")
        if payment.unit in blocked:
            raise Unreconciled(
                f"nothing can be paid through the tab in {payment.unit or 'chips'} while a night's records there do not "
                "add up (the group's page names it): take that night out of the group first"
            )
        rows = open_units.get(payment.unit, [])
        units = _units(payment.amount, payment.unit)
        owes = -sum(u for _, m, u in rows if m == payer)
        owed = sum(u for _, m, u in rows if m == payee)
        shown = _said(payment.amount, payment.unit)
        if units > owes:
            raise Overpayment(f"{payer} owes only {_said(_amount(max(owes, 0), payment.unit), payment.unit)}: less than the {shown} paid")
        if units > owed:
            raise Overpayment(f"{payee} is owed only {_said(_amount(max(owed, 0), payment.unit), payment.unit)}: less than the {shown} paid")
        records += _clear(rows, payer, units, +1, payment, payer, payee)
        records += _clear(rows, payee, units, -1, payment, payer, payee)
        if payment.unit not in touched:
            touched.append(payment.unit)
    for unit in touched:
        rows = open_units[unit]
        for member in members.names:
            debt = sum(-u for _, m, u in rows if m == member and u < 0)
            credit = sum(u for _, m, u in rows if m == member and u > 0)
            offset = min(debt, credit)
            if offset:
                records += _clear(rows, member, offset, +1, None, member, member)
                records += _clear(rows, member, offset, -1, None, member, member)
    return tuple(records)


def _clear(
    rows: list[tuple[NightResult, str, int]],
    member: str,
    units: int,
    sign: int,
    payment: TabPayment | None,
    payer: str,
    payee: str,
) -> list[Cleared]:
    """Clear ``units`` of ``member``'s debts (sign +1) or credits (sign -1) in ``rows``, oldest first (in place)."""
    records: list[Cleared] = []
    for i, (night, who, balance) in enumerate(rows):
        if not units:
            break
        if who != member or balance * sign >= 0:
            continue
        take = min(units, abs(balance))
        rows[i] = (night, who, balance + sign * take)
        units -= take
        records.append(Cleared(night.night_id, member, _amount(sign * take, night.unit), payer, payee))
    assert not units, "checked against the member's balance before clearing"
    return records


def with_cleared(nights: Iterable[NightResult], records: Iterable[Cleared]) -> tuple[NightResult, ...]:
    """``nights`` with ``records`` appended to the nights they name, as a service stores them."""
    by_night: dict[str, list[Cleared]] = {}
    for record in records:
        by_night.setdefault(record.night_id, []).append(record)
    out = tuple(
        replace(n, cleared=(*n.cleared, *by_night.pop(n.night_id))) if n.night_id in by_night else n for n in nights
    )
    if by_night:
        raise ValueError(f"records for nights not given: {', '.join(sorted(by_night))}")
    return out
