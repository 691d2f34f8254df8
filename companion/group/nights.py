"""One night as the group sees it: the frozen values a service builds from a stored night's report.

The season, the rivalries and the tab read a night only through :class:`NightResult`, so they
never touch the database, never replay a game, and never name one: a later service fills it from
a night's :class:`~companion.report.model.Report` (its players' net chips, each player's figures
per game line, the pair-by-pair settle-up with its words, the fewest-payments plan and the
payments marked paid) and from the records the group's tab appended against it (:class:`Cleared`).

Amounts of a night's payments are in the night's own unit: money in its currency on a night
played for money, whole chips on a chips-only night.  A night's chips are always ``int``; its
money is always an exact :class:`~decimal.Decimal` with at most four decimal places, as a chip
value has (:mod:`companion.money.amounts`), so chips times the chip value is exact and any sum of
amounts is too.

Pure: values in, values out; each value checks itself when made, so a wrong night fails where it
is built, not on a page that adds it up.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType

from companion.money.amounts import MAX_DECIMAL_PLACES, to_money

__all__ = ["Cleared", "Flow", "NightResult", "Transfer", "check_amount"]

#: what an amount is counted in: a currency, or None for the chips of a chips-only night
Unit = str | None


def check_amount(amount: object, unit: Unit, what: str = "an amount") -> Decimal:
    """``amount`` if it is a payment's amount in ``unit``: a Decimal above zero, whole on a chips-only
    night, with at most four decimal places otherwise.  TypeError or ValueError say which."""
    if isinstance(amount, bool) or not isinstance(amount, Decimal):
        raise TypeError(f"{what} must be a Decimal, got {amount!r}")
    if not amount.is_finite() or amount <= 0:
        raise ValueError(f"{what} must be more than zero, not {amount}")
    places = -amount.normalize().as_tuple().exponent  # type: ignore[operator]
    if unit is None and places > 0:
        raise ValueError(f"{what} is in chips on a chips-only night: a whole number, not {amount}")
    if places > MAX_DECIMAL_PLACES:
        raise ValueError(f"{what} has more than {MAX_DECIMAL_PLACES} decimal places: {amount}")
    return amount


def _check_chips(chips: object, what: str) -> int:
    if isinstance(chips, bool) or not isinstance(chips, int):
        raise TypeError(f"{what} must be an int number of chips, got {chips!r}")
    return chips


@dataclass(frozen=True)
class Flow:
    """Chips that passed from ``payer`` to ``payee`` in a night's pair-by-pair settle-up, and what for.

    ``why`` are the report's own sentences for that payment (the side bets, the pots, the bids),
    so a rivalry says it in the night's words.
    """

    payer: str
    payee: str
    chips: int
    why: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.payer == self.payee:
            raise ValueError(f"{self.payer} cannot pay themselves")
        if _check_chips(self.chips, "a flow's chips") <= 0:
            raise ValueError(f"a flow moves at least one chip, not {self.chips}")
        object.__setattr__(self, "why", tuple(self.why))


@dataclass(frozen=True)
class Transfer:
    """A settle-up payment of one night, planned or marked paid: ``payer`` pays ``payee`` ``amount``.

    ``amount`` is in the night's unit (:data:`NightResult.unit`); :class:`NightResult` checks it.
    """

    payer: str
    payee: str
    amount: Decimal

    def __post_init__(self) -> None:
        if self.payer == self.payee:
            raise ValueError(f"{self.payer} cannot pay themselves")


@dataclass(frozen=True)
class Cleared:
    """A record the group's tab appends against one night: part of a member's balance there is settled.

    ``amount`` (in the night's unit) is added to ``member``'s balance on night ``night_id``: a
    member who owed there pays (``amount`` above zero), one who was owed receives (below zero).
    ``payer`` and ``payee`` name the tab's payment it is part of; both are ``member`` for an
    offset (the member's credit on one night set against their debt on another: no money moves).
    """

    night_id: str
    member: str
    amount: Decimal
    payer: str
    payee: str

    def __post_init__(self) -> None:
        if isinstance(self.amount, bool) or not isinstance(self.amount, Decimal) or not self.amount:
            raise ValueError(f"a cleared amount is a Decimal other than zero, not {self.amount!r}")

    @property
    def offset(self) -> bool:
        """Whether this is an offset rather than part of a payment."""
        return self.payer == self.payee


@dataclass(frozen=True)
class NightResult:
    """What the group needs of one night, as plain values.

    * ``night_id``, ``date``, ``title``: which night, when, called what;
    * ``currency`` and ``chip_value``: both None on a chips-only night, both given (a chip value
      above zero) on a night played for money; two currencies are never added together;
    * ``net``: each player's net chips (the closing balances);
    * ``parts``: each player's net chips per game line, by the report's label (its game titles,
      "The bank", "The Bonus Round"); a player's parts add up to their net;
    * ``flows``: the pair-by-pair settle-up, with the report's words;
    * ``planned``: the night's fewest-payments plan; ``paid``: the payments marked paid at the
      night; ``cleared``: what the group's tab has settled of it since (:mod:`companion.group.tab`).
    """

    night_id: str
    date: datetime.date
    title: str
    currency: str | None
    chip_value: Decimal | None
    net: Mapping[str, int]
    parts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    flows: tuple[Flow, ...] = ()
    planned: tuple[Transfer, ...] = ()
    paid: tuple[Transfer, ...] = ()
    cleared: tuple[Cleared, ...] = ()

    def __post_init__(self) -> None:
        where = f"night {self.night_id!r}"
        if not isinstance(self.date, datetime.date) or isinstance(self.date, datetime.datetime):
            raise TypeError(f"{where}: the date must be a datetime.date, got {self.date!r}")
        if (self.currency is None) != (self.chip_value is None):
            raise ValueError(f"{where}: a currency and a chip value go together (both None: chips only)")
        if self.chip_value is not None:
            to_money(0, self.chip_value)  # checks it is a finite Decimal of at least zero
            if self.chip_value <= 0:
                raise ValueError(f"{where}: a night for money has a chip value above zero (chips only: None)")
        net = {name: _check_chips(chips, f"{where}: {name}'s net") for name, chips in self.net.items()}
        parts: dict[str, Mapping[str, int]] = {}
        for name, labels in self.parts.items():
            if name not in net:
                raise ValueError(f"{where}: {name} has game parts but no net")
            chips = {label: _check_chips(c, f"{where}: {name}'s {label}") for label, c in labels.items()}
            if sum(chips.values()) != net[name]:
                raise ValueError(f"{where}: {name}'s game parts add up to {sum(chips.values())}, not their net {net[name]}")
            parts[name] = MappingProxyType(chips)
        for flow in self.flows:
            if flow.payer not in net or flow.payee not in net:
                raise ValueError(f"{where}: a flow names someone who did not play: {flow}")
        for kind in ("planned", "paid"):
            for transfer in getattr(self, kind):
                if transfer.payer not in net or transfer.payee not in net:
                    raise ValueError(f"{where}: a {kind} payment names someone who did not play: {transfer}")
                check_amount(transfer.amount, self.unit, f"{where}: a {kind} payment")
        for record in self.cleared:
            if record.night_id != self.night_id:
                raise ValueError(f"{where}: holds a record of night {record.night_id!r}")
            check_amount(abs(record.amount), self.unit, f"{where}: a cleared amount")
        object.__setattr__(self, "net", MappingProxyType(net))
        object.__setattr__(self, "parts", MappingProxyType(parts))
        for kind in ("flows", "planned", "paid", "cleared"):
            object.__setattr__(self, kind, tuple(getattr(self, kind)))

    @property
    def unit(self) -> Unit:
        """What the night's amounts are counted in: its currency, or None (chips only)."""
        return self.currency

    def worth(self, chips: int) -> Decimal | None:
        """What ``chips`` were worth on this night, exactly; None on a chips-only night."""
        return None if self.chip_value is None else to_money(chips, self.chip_value)

    def amount_of(self, chips: int) -> Decimal:
        """``chips`` in the night's unit: their money, or the chips themselves on a chips-only night."""
        worth = self.worth(chips)
        return Decimal(chips) if worth is None else worth
