"""A fixed-stake pot game's actions as stored events, and its ``deals`` in a night file.

The ledger stores events without knowing the game: :func:`to_event` and
:func:`from_event` are the one place that knows how a pot action is written.
A ``companion-night/2`` file holds the game's live records as ``deals``, one
object per deal (documented in ``docs/games/poker.md``)::

    {"deal": 2, "into_pot": [{"player": "Ann", "chips": 2, "reason": "bid"}],
     "sales": [{"seller": "Cat", "buyer": "Dan", "price": 12}],
     "pots": [{"winners": ["Ann", "Ben"]}]}

Reading is strict: every key known, every value of the type the format says,
and a refusal names the deal's index and the field ("deals[3] (deal 4):
'sales'[0].'price' …"), so a person can fix the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...values.reading import unknown_key
from ..protocol import IllegalAction, RecordError
from .engine import (
    INTO_POT_REASONS,
    Action,
    Carry,
    HighLow,
    IntoPot,
    PotTable,
    Sale,
    Void,
    Win,
)

EVENT_KINDS = ("into_pot", "sale", "win", "high_low", "carry", "void")

_EVENT_KEYS = {
    "into_pot": {"player", "chips", "reason", "pot"},
    "sale": {"seller", "buyer", "price", "pot"},
    "win": {"winners", "pot"},
    "high_low": {"high", "low", "pot"},
    "carry": {"pot"},
    "void": set(),
}
_DEAL_KEYS = {"deal", "into_pot", "sales", "pots", "in_progress"}
_INTO_KEYS = {"player", "chips", "reason", "pot"}
_SALE_KEYS = {"seller", "buyer", "price", "pot"}
_END_KEYS = {"pot", "winners", "high", "low", "carried"}


# --- events ----------------------------------------------------------------------


def to_event(action: Action) -> tuple[str, dict[str, Any]]:
    """An action as a stored event: its kind and a JSON payload."""
    if isinstance(action, IntoPot):
        return "into_pot", {"player": action.player, "chips": action.chips, "reason": action.reason, "pot": action.pot}
    if isinstance(action, Sale):
        return "sale", {"seller": action.seller, "buyer": action.buyer, "price": action.price, "pot": action.pot}
    if isinstance(action, Win):
        return "win", {"winners": list(action.winners), "pot": action.pot}
    if isinstance(action, HighLow):
        return "high_low", {"high": list(action.high), "low": list(action.low), "pot": action.pot}
    if isinstance(action, Carry):
        return "carry", {"pot": action.pot}
    if isinstance(action, Void):
        return "void", {}
    raise IllegalAction(f"unknown action {action!r}")


def from_event(kind: str, payload: Mapping[str, Any]) -> Action:
    """A stored event back into an action; IllegalAction naming the field when it is not one."""
    if kind not in _EVENT_KEYS:
        raise IllegalAction(f"unknown event kind {str(kind)[:30]!r}")
    if not isinstance(payload, Mapping):
        raise IllegalAction(f"a {kind} event's payload must be an object")
    if (unknown := unknown_key(payload, _EVENT_KEYS[kind])) is not None:
        raise IllegalAction(f"unknown key '{unknown}' in a {kind} event")
    pot = _pot(payload)
    if kind == "into_pot":
        reason = payload.get("reason", "bet")
        if reason not in INTO_POT_REASONS:
            raise IllegalAction(f"'reason' must be one of {', '.join(INTO_POT_REASONS)}")
        return IntoPot(_name(payload, "player"), _int(payload, "chips"), reason, pot)
    if kind == "sale":
        return Sale(_name(payload, "seller"), _name(payload, "buyer"), _int(payload, "price"), pot)
    if kind == "win":
        return Win(_names(payload, "winners"), pot)
    if kind == "high_low":
        return HighLow(_names(payload, "high"), _names(payload, "low"), pot)
    if kind == "carry":
        return Carry(pot)
    return Void()


def _name(raw: Mapping[str, Any], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise IllegalAction(f"'{key}' must be a player's name")
    return value


def _names(raw: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise IllegalAction(f"'{key}' must be a list of one or more names")
    return tuple(value)


def _int(raw: Mapping[str, Any], key: str) -> int:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise IllegalAction(f"'{key}' must be a whole number of chips, 1 or more")
    return value


def _pot(raw: Mapping[str, Any]) -> str | None:
    value = raw.get("pot")
    if value is not None and not isinstance(value, str):
        raise IllegalAction("'pot' must be a pot's name, e.g. \"B\"")
    return value


# --- a night file's deals ------------------------------------------------------------


def deals_from(table: PotTable, start: int) -> list[tuple[int, dict[str, Any]]]:
    """The ``deals`` from live record ``start`` on (a deal's first record), each with its first record's index.

    A deal is its live records, in order, that carry its number; the last is marked
    ``in_progress`` while its dealer has anted and it is not yet over.
    """
    deals: dict[int, tuple[int, dict[str, Any]]] = {}
    for index, record in enumerate(table.live_records_from(start), start=start):
        entry = deals.setdefault(record.deal, (index, {"deal": record.deal}))[1]
        action = record.action
        pot = {} if action.pot is None else {"pot": action.pot}  # type: ignore[union-attr]
        if isinstance(action, IntoPot):
            item = {"player": action.player, "chips": action.chips, "reason": action.reason, **pot}
            entry.setdefault("into_pot", []).append(item)
        elif isinstance(action, Sale):
            sale = {"seller": action.seller, "buyer": action.buyer, "price": action.price, **pot}
            entry.setdefault("sales", []).append(sale)
        elif isinstance(action, Win):
            entry.setdefault("pots", []).append({**pot, "winners": list(action.winners)})
        elif isinstance(action, HighLow):
            entry.setdefault("pots", []).append({**pot, "high": list(action.high), "low": list(action.low)})
        elif isinstance(action, Carry):
            entry.setdefault("pots", []).append({**pot, "carried": True})
    result = [deals[n] for n in sorted(deals)]
    if result and table.position.anted:
        result[-1][1]["in_progress"] = True
    return result


def read_deals(table: PotTable, deals: Any) -> None:
    """Replay a file's ``deals`` into ``table``; RecordError names the deal's index and the field."""
    if not isinstance(deals, list):
        raise RecordError("'deals' must be a list", None)
    for index, entry in enumerate(deals):
        where = f"deals[{index}] (deal {table.deal_number})"
        try:
            _play(table, entry, last=index == len(deals) - 1)
        except IllegalAction as error:
            raise RecordError(f"{where}: {error}", index) from None


def _play(table: PotTable, entry: Any, *, last: bool) -> None:
    if not isinstance(entry, dict):
        raise IllegalAction("each deal must be an object")
    if (unknown := unknown_key(entry, _DEAL_KEYS)) is not None:
        raise IllegalAction(f"unknown key '{unknown}'")
    in_progress = entry.get("in_progress", False)
    if not isinstance(in_progress, bool):
        raise IllegalAction("'in_progress' must be true or false")
    if in_progress and not last:
        raise IllegalAction("'in_progress': only the last deal can be in progress")
    if "deal" in entry:
        number = entry["deal"]
        if isinstance(number, bool) or not isinstance(number, int):
            raise IllegalAction("'deal' must be the deal's number")
        if number != table.deal_number:
            raise IllegalAction(f"'deal': this is deal {table.deal_number}, not deal {number}")
    actions: list[tuple[str, Action]] = []
    for i, item in enumerate(_list(entry, "into_pot")):
        field = f"'into_pot'[{i}]"
        raw = _object(item, field, _INTO_KEYS)
        reason = raw.get("reason", "bet")
        if reason not in INTO_POT_REASONS:
            raise IllegalAction(f"{field}.'reason' must be one of {', '.join(INTO_POT_REASONS)}")
        actions.append(
            (field, IntoPot(_field(_name, raw, "player", field), _field(_int, raw, "chips", field), reason, _field_pot(raw, field)))
        )
    for i, item in enumerate(_list(entry, "sales")):
        field = f"'sales'[{i}]"
        raw = _object(item, field, _SALE_KEYS)
        actions.append(
            (
                field,
                Sale(
                    _field(_name, raw, "seller", field),
                    _field(_name, raw, "buyer", field),
                    _field(_int, raw, "price", field),
                    _field_pot(raw, field),
                ),
            )
        )
    for i, item in enumerate(_list(entry, "pots")):
        field = f"'pots'[{i}]"
        raw = _object(item, field, _END_KEYS)
        ways = [key for key in ("winners", "high", "carried") if key in raw]
        if "low" in raw and "high" not in raw:
            ways.append("low")
        if len(ways) != 1:
            raise IllegalAction(f"{field}: give exactly one of 'winners', 'high' and 'low', or 'carried'")
        pot = _field_pot(raw, field)
        if "winners" in raw:
            actions.append((field, Win(_field(_names, raw, "winners", field), pot)))
        elif "carried" in raw:
            if raw["carried"] is not True:
                raise IllegalAction(f"{field}.'carried' must be true")
            actions.append((field, Carry(pot)))
        else:
            if "low" not in raw:
                raise IllegalAction(f"{field}.'low' is missing: a high-low split names both")
            actions.append((field, HighLow(_field(_names, raw, "high", field), _field(_names, raw, "low", field), pot)))
    if not actions:
        raise IllegalAction("a deal needs its pots' results ('pots')")
    deal = table.deal_number
    for field, action in actions:
        if table.deal_number != deal:
            raise IllegalAction(f"{field}: every pot of this deal has already ended")
        try:
            table.push(action)
        except IllegalAction as error:
            raise IllegalAction(f"{field}: {error}") from None
    if table.deal_number == deal and not in_progress:
        raise IllegalAction(
            f"'pots': {', '.join(table.open_pots)} not ended (mark the last deal \"in_progress\": true)"
        )
    if table.deal_number != deal and in_progress:
        raise IllegalAction("'in_progress': every pot of this deal has ended")


def _list(entry: Mapping[str, Any], key: str) -> list[Any]:
    value = entry.get(key, [])
    if not isinstance(value, list):
        raise IllegalAction(f"'{key}' must be a list")
    return value


def _object(item: Any, field: str, keys: set[str]) -> Mapping[str, Any]:
    if not isinstance(item, dict):
        raise IllegalAction(f"{field} must be an object")
    if (unknown := unknown_key(item, keys)) is not None:
        raise IllegalAction(f"{field}: unknown key '{unknown}'")
    return item


def _field(reader: Any, raw: Mapping[str, Any], key: str, field: str) -> Any:
    try:
        return reader(raw, key)
    except IllegalAction as error:
        raise IllegalAction(f"{field}.{error}") from None


def _field_pot(raw: Mapping[str, Any], field: str) -> str | None:
    try:
        return _pot(raw)
    except IllegalAction as error:
        raise IllegalAction(f"{field}.{error}") from None
