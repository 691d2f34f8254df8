"""What ``flask --app companion replay GROUPFILE`` prints: a group's season table (all time) and its tab, as JSON.

One job: to turn the season (:func:`~companion.group.season.season`) and the tab
(:func:`~companion.group.tab.tab`) of a read group file into plain JSON values, exact: money as
strings (two places when they say it all, up to four otherwise: never rounded, never a float),
chips as integers.  Units are never mixed: money is given per currency, and a chips-only night's
chips apart (``"currency": null``).  The layout is documented in ``docs/group-file.md`` ("Replay").

Pure: values in, JSON values out.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from companion.money.amounts import format_money

from .file import GroupFile
from .nights import Unit
from .season import ALL_TIME, MemberSeason, NightLine, Totals, season
from .tab import Tab, tab

__all__ = ["money_text", "replay_summary"]


def money_text(amount: Decimal) -> str:
    """An exact amount as the app writes money: "2.50", "-0.75", "0.125" (two places at least; a night's amounts
    have at most four, so none is rounded)."""
    return format_money(amount, "")


def replay_summary(group: GroupFile) -> dict[str, Any]:
    """The group's members, nights, season table over all time and tab, as JSON values."""
    results = group.results
    table = season(results, group.members, ALL_TIME)
    return {
        "group": group.name,
        "members": list(group.members.names),
        "nights": [
            {
                "night": n.night_id,
                "date": n.date.isoformat(),
                "title": n.title,
                "currency": n.currency,
                "chip_value": None if n.chip_value is None else f"{n.chip_value.normalize():f}",
            }
            for n in results
        ],
        "season": {"period": table.period.label, "members": [_row(row) for row in table.rows]},
        "tab": _tab(tab(results, group.members)),
    }


def _totals(totals: Totals) -> dict[str, Any]:
    return {
        "chips": totals.chips,
        "money": {currency: money_text(amount) for currency, amount in totals.money.items()},
        "chips_only": totals.chips_only,
    }


def _line(unit: Unit, line: NightLine) -> dict[str, Any]:
    return {
        "currency": unit,
        "night": line.night_id,
        "date": line.date.isoformat(),
        "chips": line.chips,
        "money": None if line.money is None else money_text(line.money),
    }


def _row(row: MemberSeason) -> dict[str, Any]:
    return {
        "member": row.member,
        "nights_played": row.nights_played,
        "net": _totals(row.total),
        "per_game": {label: _totals(totals) for label, totals in row.per_game.items()},
        "best": [_line(unit, line) for unit, line in row.best.items()],
        "worst": [_line(unit, line) for unit, line in row.worst.items()],
    }


def _amount(unit: Unit, amount: Decimal) -> dict[str, Any]:
    """An amount of the tab under its key: ``chips`` (an int) on chips-only nights, else ``amount`` (money)."""
    return {"chips": int(amount)} if unit is None else {"amount": money_text(amount)}


def _tab(running: Tab) -> dict[str, Any]:
    units = []
    for unit, balances in running.balances.items():
        units.append(
            {
                "currency": unit,
                "balances": _balances(unit, balances),
                "open": [
                    {"night": o.night_id, "date": o.date.isoformat(), "member": o.member, **_amount(unit, o.amount)}
                    for o in running.open[unit]
                ],
                "plan": [{"from": p.payer, "to": p.payee, **_amount(unit, p.amount)} for p in running.plan[unit]],
            }
        )
    return {"settled": running.settled, "units": units}


def _balances(unit: Unit, balances: Mapping[str, Decimal]) -> dict[str, Any]:
    return {member: int(amount) if unit is None else money_text(amount) for member, amount in balances.items()}
