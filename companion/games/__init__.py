"""The games a night can hold, registered by short name (as OpenSpiel registers its games).

Adding a game is one package under ``companion/games/`` implementing
:class:`~companion.games.base.GameKind` (and its screens), plus one line here:
see ``docs/adding-a-game.md``.  Pure: the registry imports only the games' pure parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import GameClosing, GameKind, GameState, IllegalAction, RecordError
from .betting.game import BETTING
from .nap.game import NAP
from .napalm.game import NAPALM
from .pots.game import POTS

#: every kind of game, by the short name a night file and the database use
GAMES: dict[str, GameKind] = {
    NAPALM.kind: NAPALM,
    NAP.kind: NAP,
    POTS.kind: POTS,
    BETTING.kind: BETTING,
}


def game_kind(kind: object) -> GameKind:
    """The game called ``kind``; IllegalAction naming the known ones otherwise."""
    if isinstance(kind, str) and kind in GAMES:
        return GAMES[kind]
    known = ", ".join(sorted(GAMES))
    raise IllegalAction(f"unknown game {str(kind)[:40]!r} (known: {known})")


def title_of(kind: str, rules: Mapping[str, Any] | None = None) -> str:
    """What players call a game of ``kind`` played with ``rules``.

    A game whose name depends on its rules (a pot game's preset: "Tips to the Fat One")
    says so with ``title_of(rules)``, given its rules read from the mapping stored;
    any other is its ``title``.
    """
    game = GAMES.get(kind)
    if game is None:
        return str(kind)
    named = getattr(game, "title_of", None)
    if named is not None and isinstance(rules, Mapping):
        try:
            return str(named(game.rules_from_dict(rules)))
        except (IllegalAction, AttributeError, KeyError, TypeError, ValueError):
            return game.title
    return game.title


__all__ = [
    "title_of", "GAMES", "GameClosing", "GameKind", "GameState", "IllegalAction", "RecordError", "game_kind",
]
