"""The games a night can hold, registered by short name (as OpenSpiel registers its games).

Adding a game is one package under ``companion/games/`` implementing
:class:`~companion.games.base.GameKind` (and its screens), plus one line here:
see ``docs/adding-a-game.md``.  Pure: the registry imports only the games' pure parts.
"""

from __future__ import annotations

from .base import GameClosing, GameKind, GameState, IllegalAction, RecordError
from .nap.game import NAP
from .napalm.game import NAPALM
from .pots.game import POTS

#: every kind of game, by the short name a night file and the database use
GAMES: dict[str, GameKind] = {
    NAPALM.kind: NAPALM,
    NAP.kind: NAP,
    POTS.kind: POTS,
}


def game_kind(kind: object) -> GameKind:
    """The game called ``kind``; IllegalAction naming the known ones otherwise."""
    if isinstance(kind, str) and kind in GAMES:
        return GAMES[kind]
    known = ", ".join(sorted(GAMES))
    raise IllegalAction(f"unknown game {str(kind)[:40]!r} (known: {known})")


__all__ = ["GAMES", "GameClosing", "GameKind", "GameState", "IllegalAction", "RecordError", "game_kind"]
