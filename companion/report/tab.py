"""The night's settle-up once the group's tab has settled part of it: what remains, and what *Mark paid* offers.

A night kept in a group may be settled later through the group's tab (``docs/group.md``): each
``tab_cleared`` event (:mod:`companion.night.tab`) moves one player's balance on the night towards
zero.  The night's report must then never offer with *Mark paid* a payment the tab already settled
(a wrong payment marked paid is the worst mistake the app can make), so once there is one record:

* each player's **balance still open** is what the night's plan gives (+) or asks (−) of them, less
  what was marked paid at the night, plus what the tab cleared, in the night's unit, exactly
  (money counted in 0.0001s of its currency, chips in chips: never a float);
* the **offers** are the fewest payments over those balances
  (:func:`companion.money.settle.settle_up`), each between two players seated at the night and
  within what its payer still owes and its payee is still owed;
* what the table cannot mark paid is **the rest**, settled through the group's tab: on a money
  night a "paid" event counts whole chips (:func:`companion.service.recording.mark_paid`), so a
  payment of the plan that is not a whole number of chips is offered as its whole chips and the
  fraction of a chip left is the rest; and the tab may clear a debtor on one night and their
  creditor on another, so a night's open balances need not add up to zero: what nobody seated
  here is owed (or owes) goes to the tab as well.

With no record nothing changes: the report's own plan and pair-by-pair lines are what *Mark paid*
offers.  Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

from companion.money.amounts import MAX_DECIMAL_PLACES, chips_text, format_money, to_money, value_text
from companion.money.settle import settle_up
from companion.night.tab import TabCleared

from .model import NightTab, PlanLine, Report, TabLine, TabRest

__all__ = ["night_tab", "with_tab"]

#: the party that stands for the group's tab in the plan over what remains (no player's name holds a NUL)
_TAB = "\x00the group's tab"


def with_tab(report: Report, records: Sequence[TabCleared]) -> Report:
    """``report`` with what the group's tab settled of the night (:func:`night_tab`); itself when nothing."""
    return replace(report, tab=night_tab(report, records)) if records else report


def night_tab(report: Report, records: Sequence[TabCleared]) -> NightTab:
    """What the tab settled of the night (``records``), each player's balance still open, and the offers."""
    money = report.chip_value > 0
    per_chip = _units(report.chip_value, money) if money else 1  # counting units in one chip

    def amount(units: int) -> Decimal:
        return Decimal(units).scaleb(-MAX_DECIMAL_PLACES) if money else Decimal(units)

    def shown(units: int) -> str:
        return format_money(amount(units), report.currency) if money else chips_text(units)

    balance = {p.name: 0 for p in report.players}
    for line in report.plan:
        balance[line.payer] -= line.chips * per_chip
        balance[line.payee] += line.chips * per_chip
    for paid in report.recorded:
        balance[paid.payer] += paid.chips * per_chip
        balance[paid.payee] -= paid.chips * per_chip
    lines = []
    for record in records:
        if record.player not in balance:
            raise ValueError(f"the group's tab holds a record of {record.player}, who is not seated at this night")
        units = _units(record.amount, money)
        balance[record.player] += units
        lines.append(TabLine(record.player, record.amount, shown(abs(units)), record.payer, record.payee, record.ref))
    open_ = dict(balance)
    total = sum(open_.values())
    if total:  # the tab cleared a debtor here and their creditor on another night (or the other way)
        open_[_TAB] = -total
    offers: list[PlanLine] = []
    rest: list[TabRest] = []
    for payment in settle_up(open_):
        if _TAB in (payment.payer, payment.payee):
            payer = None if payment.payer == _TAB else payment.payer
            payee = None if payment.payee == _TAB else payment.payee
            rest.append(TabRest(payer, payee, amount(payment.chips), shown(payment.chips)))
            continue
        chips, fraction = divmod(payment.chips, per_chip)
        if chips:
            why = (
                f"What is left of the night once the group's tab settled part of it: {payment.payer} still owes "
                f"{shown(-balance[payment.payer])}, {payment.payee} is still owed {shown(balance[payment.payee])}.",
            )
            offers.append(PlanLine(
                payer=payment.payer, payee=payment.payee, chips=chips, money=to_money(chips, report.chip_value),
                money_text=value_text(chips, report.chip_value, report.currency), paid=False, why=why,
            ))
        if fraction:
            rest.append(TabRest(payment.payer, payment.payee, amount(fraction), shown(fraction)))
    return NightTab(
        records=tuple(lines),
        balances={name: amount(units) for name, units in balance.items()},
        offers=tuple(offers),
        rest=tuple(rest),
    )


def _units(value: Decimal, money: bool) -> int:
    """An amount in whole counting units: 0.0001s of money, or chips (exact: amounts have at most four places)."""
    scaled = value.scaleb(MAX_DECIMAL_PLACES) if money else value
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{value} is finer than the night counts")
    return int(scaled)
