"""The settle-up payments marked paid (*Mark paid*, ``"paid"`` events): the check every one passes, and the
night file's ``paid`` key.

A payment marked paid is money that changed hands: a night that forgot one offers it again as owed
("Ben pays Ann 4 — Mark paid" for a payment already made), the worst thing the report can say.  So the
night file keeps them (``docs/night-file.md``, "The payments marked paid: ``paid``") and reads them as
strictly as its other keys: every key known, both players seated and different, chips a positive whole
number (:func:`~companion.values.reading.whole_number`).  That is all *Mark paid* checks of a night outside
a group (:func:`refuse_payment` is the check :func:`companion.service.recording.mark_paid` makes), and all
a file is checked for: a file takes back every night the app can export.  A payment marked in the report's
pair-by-pair view can be more than its payer's whole balance, and one marked before play went on (an
undo, another deal) can be one the balances no longer owe; the report shows such a payment as "not in
this list", at the table and after an import alike.

Pure: no Flask, no database.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from companion.games import IllegalAction
from companion.money.settle import Payment
from companion.values.reading import Unreadable, shown, unknown_key, whole_number

#: the night file's top-level key
FILE_KEY = "paid"
_ENTRY_KEYS = ("payer", "payee", "chips")
#: more chips than any night moves (the group file's bound on a payment marked paid)
MAX_CHIPS = 10**9
_EXAMPLE = '{"payer": "Ben", "payee": "Ann", "chips": 4}'


def refuse_payment(players: Sequence[str], payer: Any, payee: Any, chips: Any) -> None:
    """IllegalAction unless ``payer`` paying ``payee`` ``chips`` can be a settle-up payment of a night seating
    ``players``: two different players seated there, a positive whole number of chips."""
    if payer not in players or payee not in players or payer == payee:
        raise IllegalAction("a payment is between two different players at this table")
    if isinstance(chips, bool) or not isinstance(chips, int) or chips <= 0:
        raise IllegalAction("a payment is a positive whole number of chips")


def read_file_entries(raw: Any, players: Sequence[str]) -> tuple[Payment, ...]:
    """The payments a night file's ``paid`` holds, in the order recorded; IllegalAction names the entry."""
    if not isinstance(raw, list):
        raise IllegalAction(f"'{FILE_KEY}' must be a list of the payments marked paid, in order, such as [{_EXAMPLE}]")
    out: list[Payment] = []
    for index, entry in enumerate(raw):
        try:
            out.append(_read_entry(entry, players))
        except IllegalAction as error:
            raise IllegalAction(f"'{FILE_KEY}'[{index}]: {error}") from None
    return tuple(out)


def _read_entry(entry: Any, players: Sequence[str]) -> Payment:
    if not isinstance(entry, dict):
        raise IllegalAction(f"each payment must be an object such as {_EXAMPLE}")
    if (unknown := unknown_key(entry, _ENTRY_KEYS)) is not None:
        raise IllegalAction(f"unknown key '{unknown}'")
    for key in _ENTRY_KEYS:
        if key not in entry:
            raise IllegalAction(f"'{key}' is missing")
    payer, payee, chips = (entry[k] for k in _ENTRY_KEYS)
    for key, name in (("payer", payer), ("payee", payee)):
        if not isinstance(name, str):
            raise IllegalAction(f"'{key}' must be a seated player's name")
        if name not in players:
            raise IllegalAction(f"'{key}': '{shown(name, 30)}' is not seated tonight")
    if isinstance(chips, bool) or not isinstance(chips, int):
        raise IllegalAction("'chips' must be a whole number written without a decimal point, such as 4")
    try:
        chips = whole_number(str(chips), "'chips'", low=1, high=MAX_CHIPS)
    except Unreadable as error:
        raise IllegalAction(str(error)) from None
    refuse_payment(players, payer, payee, chips)
    return Payment(payer, payee, chips)


def file_entries(paid: Iterable[Payment]) -> list[dict[str, Any]]:
    """What a night file's ``paid`` holds: each payment as its event's payload, in the order recorded."""
    return [{"payer": p.payer, "payee": p.payee, "chips": p.chips} for p in paid]


def marked(plan: Sequence[Payment], paid: Iterable[Payment]) -> list[bool]:
    """Which payments of ``plan`` the ``paid`` ones mark: each marks the first unmarked one with its payer,
    payee and chips (as the report marks its lines)."""
    left = Counter((p.payer, p.payee, p.chips) for p in paid)
    out = []
    for p in plan:
        key = (p.payer, p.payee, p.chips)
        out.append(left[key] > 0)
        if left[key] > 0:
            left[key] -= 1
    return out
