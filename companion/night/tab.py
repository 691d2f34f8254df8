"""A night's record of what the group's tab settled of it: the night event ``tab_cleared``, read strictly.

A night kept in a group may be settled later, through the group's running tab (``docs/group.md``,
"The tab"): a payment there clears part of the balances the night left open, oldest night first,
and the group's service appends one ``tab_cleared`` event to each night it clears (a night event,
no game's: :data:`companion.games.night_kinds.TAB_CLEARED`).  Its payload, exactly::

    {"player": "Ann", "amount": "5.00", "payer": "Ann", "payee": "Cat", "ref": "TAB-7"}

* ``player``: the name seated at this night whose balance it moves;
* ``amount``: in the night's unit, written as text and never zero: money in the night's currency
  (at most four places, as a chip value) on a night played for money, whole chips ("12") on a
  chips-only night.  Above zero, that player paid off part of what they owed on this night;
  below zero, they received part of what they were owed (as
  :attr:`companion.group.nights.Cleared.amount`);
* ``payer`` and ``payee``: the group's members of the tab payment it is part of; both that
  player's member for an offset (a credit on one night set against a debt on another: no money
  moved);
* ``ref``: the group's payment reference, at most :data:`MAX_REF` characters.

:func:`read` is the one reader of it, for every way in (the event as stored, the night file's
``tab_cleared`` key, the group's command): every key known, none missing, each value by its reader
in :mod:`companion.values.reading`.  The night checks nothing else of it: the group decided it
against every night of the tab (:func:`companion.group.tab.pay`).  Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from companion.games import IllegalAction
from companion.games.protocol import MAX_NAME_LENGTH
from companion.money.amounts import MAX_DECIMAL_PLACES, format_money
from companion.values.reading import Unreadable, decimal_amount, text, unknown_key

__all__ = ["KEYS", "MAX_REF", "TabCleared", "amount_text", "describe", "file_entries", "read", "read_file_entries"]

#: the payment reference's longest (the group's: ``group_record`` keeps it in 80 characters)
MAX_REF = 80
#: the payload's keys, every one required
KEYS = ("player", "amount", "payer", "payee", "ref")
#: a member's name is at most a player's (docs/group.md, "Members")
MAX_MEMBER_NAME = MAX_NAME_LENGTH


@dataclass(frozen=True)
class TabCleared:
    """One ``tab_cleared`` event, read: ``amount`` (the night's unit, never zero) added to ``player``'s balance."""

    player: str
    amount: Decimal
    payer: str
    payee: str
    ref: str

    @property
    def offset(self) -> bool:
        """Whether this sets a credit against a debt on another night (no money moved)."""
        return self.payer == self.payee

    def payload(self, money: bool) -> dict[str, str]:
        """The event's payload, as stored and as a night file writes it."""
        return {"player": self.player, "amount": amount_text(self.amount, money), "payer": self.payer,
                "payee": self.payee, "ref": self.ref}


def amount_text(amount: Decimal, money: bool) -> str:
    """An amount as the payload writes it: money as the app writes it ("5.00", "-0.125"), chips whole ("12")."""
    return format_money(amount, "") if money else f"{amount:f}"


def read(payload: Any, players: Sequence[str], money: bool) -> TabCleared:
    """The record ``payload`` holds, on a night seating ``players`` (``money``: played for money, else chips only).

    IllegalAction names the key that is wrong, and says what to write."""
    if not isinstance(payload, Mapping):
        raise IllegalAction("the tab's record must be an object with " + ", ".join(f"'{k}'" for k in KEYS))
    if (unknown := unknown_key(payload, KEYS)) is not None:
        raise IllegalAction(f"unknown key '{unknown[:40]}'")
    for key in KEYS:
        if key not in payload:
            raise IllegalAction(f"'{key}' is missing")
    player = payload["player"]
    if not isinstance(player, str) or player not in players:
        raise IllegalAction("'player' must be a player seated at this night, as the night names them")
    amount = _field("amount", lambda: decimal_amount(
        payload["amount"], "the amount", places=MAX_DECIMAL_PLACES if money else 0, zero=False
    ))
    payer = _field("payer", lambda: text(payload["payer"], "the payer", max_length=MAX_MEMBER_NAME, collapse=True))
    payee = _field("payee", lambda: text(payload["payee"], "the payee", max_length=MAX_MEMBER_NAME, collapse=True))
    ref = _field("ref", lambda: text(payload["ref"], "the payment's reference", max_length=MAX_REF))
    for key, name in (("payer", payer), ("payee", payee)):
        if not name:
            raise IllegalAction(f"'{key}' must name a member of the group")
    return TabCleared(player, amount, payer, payee, ref)


def _field(key: str, reader: Callable[[], Any]) -> Any:
    try:
        return reader()
    except Unreadable as error:
        raise IllegalAction(f"'{key}': {error}") from None


def describe(record: TabCleared, currency: str, money: bool) -> str:
    """One line for the night's history, said of this record alone."""
    shown = format_money(abs(record.amount), currency) if money else f"{abs(record.amount):f} chips"
    if record.offset:
        side = "owed" if record.amount > 0 else "was owed"
        return (f"Settled through the group's tab: {shown} of what {record.player} {side} here set against "
                f"another night (ref {record.ref}).")
    if record.amount > 0:
        return (f"Settled through the group's tab: {record.player} paid off {shown} of what they owed here, "
                f"in {record.payer}'s payment to {record.payee} (ref {record.ref}).")
    return (f"Settled through the group's tab: {record.player} received {shown} of what they were owed here, "
            f"in {record.payer}'s payment to {record.payee} (ref {record.ref}).")


# --- the night file: the top-level key "tab_cleared" ---------------------------------------------


def file_entries(records: Sequence[TabCleared], money: bool) -> list[dict[str, str]]:
    """The night file's ``tab_cleared``: each record's payload, in the order appended."""
    return [r.payload(money) for r in records]


def read_file_entries(raw: Any, players: Sequence[str], money: bool) -> list[tuple[str, dict[str, Any]]]:
    """The events a night file's ``tab_cleared`` holds, in order; IllegalAction names the entry and the key."""
    if not isinstance(raw, list):
        raise IllegalAction("'tab_cleared' must be a list of the group's tab records against the night, in order")
    events: list[tuple[str, dict[str, Any]]] = []
    for index, entry in enumerate(raw):
        try:
            record = read(entry, players, money)
        except IllegalAction as error:
            raise IllegalAction(f"'tab_cleared'[{index}]: {error}") from None
        events.append(("tab_cleared", record.payload(money)))
    return events
