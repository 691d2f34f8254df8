"""Napalm's actions as stored events: a kind and a JSON payload, and back.

The ledger stores events without knowing the game; this is the one place that
knows how a Napalm action is written down.
"""

from __future__ import annotations

from typing import Any

from .table import Action, Challenge, Declare, IllegalAction, Showdown, Void

GAME_KINDS = ("declare", "challenge", "showdown", "void")


def to_event(action: Action) -> tuple[str, dict[str, Any]]:
    if isinstance(action, Declare):
        return "declare", {"yes": list(action.yes)}
    if isinstance(action, Challenge):
        return "challenge", {"challengers": list(action.challengers)}
    if isinstance(action, Showdown):
        return "showdown", {
            "winners": None if action.winners is None else list(action.winners),
            "cards": None if action.cards is None else dict(action.cards),
        }
    if isinstance(action, Void):
        return "void", {}
    raise IllegalAction(f"unknown action {action!r}")


def from_event(kind: str, payload: dict[str, Any]) -> Action:
    if kind == "declare":
        return Declare(tuple(payload["yes"]))
    if kind == "challenge":
        return Challenge(tuple(payload["challengers"]))
    if kind == "showdown":
        winners = payload.get("winners")
        cards = payload.get("cards")
        return Showdown(
            winners=None if winners is None else tuple(winners),
            cards=None if cards is None else tuple(cards.items()),
        )
    if kind == "void":
        return Void()
    raise IllegalAction(f"unknown event kind {kind!r}")
