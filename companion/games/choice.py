"""Dealer's choice: the games to offer the dealer for the next deal, the last ones played first.

RULES-POKER.md: the game may change at any deal; the dealer chooses the next game.  The
issue asks for the dealer's next game in at most 3 taps from the table, so the screen shows
a short list and the order matters: the games played most recently come first (each once),
then every other game the group plays, in the group's own order.  Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

G = TypeVar("G", bound=Hashable)


def next_game_offers(played: Sequence[G], available: Sequence[G]) -> tuple[G, ...]:
    """``available`` reordered: the games of ``played`` (oldest first) from the latest back, each
    once, then the rest in their own order.  A game played but no longer available is left out."""
    offered = set(available)
    recent: list[G] = []
    for game in reversed(played):
        if game in offered and game not in recent:
            recent.append(game)
    return tuple(recent) + tuple(g for g in dict.fromkeys(available) if g not in recent)
