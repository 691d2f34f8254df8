"""A game's own seating for the tests that run over every registered game.

A test that speaks of "every game" takes the registry (``companion.games.GAMES``) and seats
each game as its own ``min_players`` and ``max_players`` allow, so a new game (Oh Hell seats
3 to 7, a two-handed game exactly 2) needs no edit of those tests.
"""

from __future__ import annotations

from typing import Any

#: enough names for any game's table
NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kit", "Lou")


def players_for(game: Any, wanted: int = 4) -> tuple[str, ...]:
    """``wanted`` players, or as near as ``game`` seats: its least when it needs more, its most when it takes fewer."""
    count = max(game.min_players, min(wanted, game.max_players))
    assert count <= len(NAMES), f"{game.kind} seats at least {count}: add names to tests/seating.py"
    return NAMES[:count]
