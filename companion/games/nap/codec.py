"""Nap's deal records (a Nap game's ``deals`` in ``companion-night/2``) and its stored events.

One deal record is one JSON object, exactly as issue 12 specifies::

    {"bidder": "Cat", "bid": 2, "made": true}
    {"bidder": "Dan", "bid": "nap", "made": false, "widow": true}
    {"bidder": "Ann", "bid": "misere", "made": true, "peeks": ["Ben"], "exchanged": {"Cat": 2}}
    {"bidder": "Ben", "bid": 3, "penalties": [{"kind": "revoke", "player": "Cat"}]}
    {"bidder": "Ann", "bid": 3, "made": false, "wrong_cards": "other"}
    {"bidder": null}

Reading is strict in two steps: :func:`deal_from_record` checks the shape (keys
and types) and the table's :func:`~.table.canonical_deal` checks the rules (who
may bid, which bids the game allows, the variant's extras).  Either refusal names
the field; :func:`play_deals` adds the deal's number, so a person can fix the file.
The same record is an event's payload, so the ledger and the night file share one
format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...values.reading import unknown_key
from ..protocol import IllegalAction, RecordError
from .table import BIDS, PENALTY_KINDS, WRONG_CARDS, Action, Deal, DealError, Penalty, Table, Void

EVENT_KINDS = ("deal", "void")
RECORD_KEYS = ("bidder", "bid", "made", "widow", "peeks", "exchanged", "penalties", "wrong_cards")
PENALTY_KEYS = ("kind", "player")


def _shown(value: Any) -> str:
    """A short, safe rendering of a bad value for a message."""
    if isinstance(value, (dict, list)):
        return "a list" if isinstance(value, list) else "an object"
    return repr(value)[:30]


def deal_from_record(raw: Any) -> Deal:
    """A :class:`Deal` from one deal record; DealError names the field whose shape is wrong."""
    if not isinstance(raw, Mapping):
        raise DealError("deal", "each deal must be an object")
    if (unknown := unknown_key(raw, RECORD_KEYS)) is not None:
        raise DealError(unknown, f"unknown field '{unknown[:30]}'")
    if "bidder" not in raw:
        raise DealError("bidder", "'bidder' is missing (null for a deal thrown in)")
    bidder = raw["bidder"]
    if bidder is not None and not isinstance(bidder, str):
        raise DealError("bidder", f"'bidder' must be a player's name or null, not {_shown(bidder)}")
    bid = raw.get("bid")
    if "bid" in raw and (isinstance(bid, bool) or not isinstance(bid, (int, str)) or bid not in BIDS):
        raise DealError("bid", f"'bid' must be 1, 2, 3, 4, \"misere\", \"nap\", \"wellington\" or \"blucher\", not {_shown(bid)}")
    made = raw.get("made")
    if "made" in raw and not isinstance(made, bool):
        raise DealError("made", f"'made' must be true or false, not {_shown(made)}")
    widow = raw.get("widow", False)
    if not isinstance(widow, bool):
        raise DealError("widow", f"'widow' must be true or false, not {_shown(widow)}")
    peeks = raw.get("peeks", [])
    if not isinstance(peeks, list) or not all(isinstance(name, str) for name in peeks):
        raise DealError("peeks", "'peeks' must be a list of the players who peeked, e.g. [\"Ben\"]")
    exchanged = raw.get("exchanged", {})
    if not isinstance(exchanged, Mapping):
        raise DealError("exchanged", "'exchanged' must map each player to the cards they exchanged, e.g. {\"Cat\": 2}")
    for name, cards in exchanged.items():
        if isinstance(cards, bool) or not isinstance(cards, int) or not 1 <= cards <= 5:
            raise DealError("exchanged", f"'exchanged': {str(name)[:24]} exchanges 1 to 5 cards, not {_shown(cards)}")
    penalties_raw = raw.get("penalties", [])
    if not isinstance(penalties_raw, list):
        raise DealError("penalties", "'penalties' must be a list, e.g. [{\"kind\": \"revoke\", \"player\": \"Cat\"}]")
    penalties = []
    for entry in penalties_raw:
        if not isinstance(entry, Mapping):
            raise DealError("penalties", "each penalty must be an object with 'kind' and 'player'")
        if (extra := unknown_key(entry, PENALTY_KEYS)) is not None:
            raise DealError("penalties", f"unknown field '{extra[:30]}' in a penalty")
        kind, player = entry.get("kind"), entry.get("player")
        if kind not in PENALTY_KINDS:
            raise DealError("penalties", f"a penalty's 'kind' must be \"lead_out_of_turn\" or \"revoke\", not {_shown(kind)}")
        if not isinstance(player, str):
            raise DealError("penalties", f"a penalty's 'player' must be a player's name, not {_shown(player)}")
        penalties.append(Penalty(kind, player))
    wrong_cards = raw.get("wrong_cards")
    if "wrong_cards" in raw and wrong_cards not in WRONG_CARDS:
        raise DealError("wrong_cards", f"'wrong_cards' must be \"other\" or \"bidder_over\", not {_shown(wrong_cards)}")
    return Deal(
        bidder=bidder,
        bid=bid,
        made=made,
        widow=widow,
        peeks=tuple(peeks),
        exchanged=tuple(exchanged.items()),
        penalties=tuple(penalties),
        wrong_cards=wrong_cards,
    )


def deal_to_record(deal: Deal) -> dict[str, Any]:
    """One deal record: only the fields that say something (no ``made`` on a revoke, no empty extras)."""
    record: dict[str, Any] = {"bidder": deal.bidder}
    if deal.bidder is not None:
        record["bid"] = deal.bid
        if deal.made is not None:
            record["made"] = deal.made
        if deal.widow:
            record["widow"] = True
    if deal.peeks:
        record["peeks"] = list(deal.peeks)
    if deal.exchanged:
        record["exchanged"] = dict(deal.exchanged)
    if deal.penalties:
        record["penalties"] = [{"kind": pen.kind, "player": pen.player} for pen in deal.penalties]
    if deal.wrong_cards is not None:
        record["wrong_cards"] = deal.wrong_cards
    return record


def play_deals(table: Table, records: Any) -> None:
    """Replay a night file's ``deals`` into ``table``; RecordError names the deal, its index and the field."""
    if not isinstance(records, list):
        raise RecordError("'deals' must be a list")
    for index, raw in enumerate(records):
        try:
            table.push(deal_from_record(raw))
        except DealError as error:
            raise RecordError(f"deals[{index}] (deal {index + 1}): '{error.field}': {error}", index) from None
        except IllegalAction as error:  # pragma: no cover - every refusal of a deal is a DealError
            raise RecordError(f"deals[{index}] (deal {index + 1}): {error}", index) from None


def deals_of(table: Table) -> list[dict[str, Any]]:
    """The live deals of ``table`` as a night file's ``deals`` (undone ones left out)."""
    return [deal for _, deal in deals_from(table, 0)]


def deals_from(table: Table, start: int) -> list[tuple[int, dict[str, Any]]]:
    """The ``deals`` from live record ``start`` on, each with its record's index."""
    return [
        (index, deal_to_record(record.action))
        for index, record in enumerate(table.live_records_from(start), start=start)
        if isinstance(record.action, Deal)
    ]


def to_event(action: Action) -> tuple[str, dict[str, Any]]:
    """A deal is stored as its deal record; an undo as an empty ``void``."""
    if isinstance(action, Deal):
        return "deal", deal_to_record(action)
    if isinstance(action, Void):
        return "void", {}
    raise IllegalAction(f"unknown action {action!r}")


def from_event(kind: str, payload: Mapping[str, Any]) -> Action:
    if kind == "deal":
        try:
            return deal_from_record(payload)
        except DealError as error:
            raise IllegalAction(f"a stored deal: '{error.field}': {error}") from None
    if kind == "void":
        return Void()
    raise IllegalAction(f"unknown event kind {str(kind)[:30]!r}")
