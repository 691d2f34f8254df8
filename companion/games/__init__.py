"""The games a night can hold: one list of installed games, each registered once.

A game is one package under ``companion/games/`` named by its short name, whose
``game.py`` holds its kind as ``GAME`` (a :class:`~companion.games.basegame.BaseGame`)
and whose ``web.py`` holds its screens as ``SCREENS`` (found by the web layer alone,
:mod:`companion.games.web`, so this registry never imports web code).  Installing it is
one name in :data:`INSTALLED`: see ``docs/adding-a-game.md``.  A game kept elsewhere (the
tests' own) is registered with :func:`register`, its screens given beside it.

Registration checks what would otherwise fail mid-night: a second game of the same name,
or a game whose event kinds include one of the night's own (:data:`NIGHT_KINDS`).  Pure.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from companion.games.night_kinds import BANK_KINDS, BONUS_KINDS, GAME_STARTED, GAME_TAKEN_BACK, NIGHT_KINDS, PAID
from .protocol import GameClosing, GameKind, GameState, IllegalAction, RecordError

#: the installed games, by package name, in the order the screens offer them
INSTALLED: tuple[str, ...] = ("napalm", "nap", "pots", "betting")

#: every kind of game, by the short name a night file and the database use
GAMES: dict[str, GameKind] = {}
#: the screens given with a game registered from outside ``companion/games/`` (web objects, held unread)
GIVEN_SCREENS: dict[str, Any] = {}


class RegistrationError(RuntimeError):
    """A game that cannot be registered beside the others: the message names both sides of the clash."""


def _night_kind_use(kind: str) -> str:
    """What the night records as events of ``kind``, in words for a registration error."""
    if kind == GAME_STARTED:
        return "the start of a game"
    if kind == GAME_TAKEN_BACK:
        return "a game taken back"
    if kind == PAID:
        return "a settle-up payment"
    if kind in BANK_KINDS:
        return "the chip bank"
    if kind in BONUS_KINDS:
        return "the Bonus Round"
    return "the night's setting"


#: every member of :class:`GameKind`: the rest of the app calls each, so a game must have them all
#: (:class:`~companion.games.basegame.BaseGame` declares a default for each)
MEMBERS = tuple(
    name for name in (*GameKind.__annotations__, *vars(GameKind)) if not name.startswith("_")
)


def register(game: GameKind, screens: Any = None) -> GameKind:
    """Add ``game`` to :data:`GAMES` (and its ``screens``, when it is not a package of its own here).

    Raises :class:`RegistrationError` when the game lacks a member of :class:`GameKind`, another
    game has its name, or one of its event kinds is the night's own (two games may share a kind:
    see ``docs/adding-a-game.md``).
    """
    kind = getattr(game, "kind", None)  # the one look before the checks: a name for the message
    if not isinstance(kind, str) or not kind.isidentifier():
        raise RegistrationError(f"a game's kind must be a short name, not {kind!r}")
    missing = [name for name in MEMBERS if not hasattr(game, name)]
    if missing:
        raise RegistrationError(f"the game {kind!r} has no {', '.join(missing)}: subclass BaseGame")
    if kind in GAMES and GAMES[kind] is not game:
        raise RegistrationError(f"two games are called {kind!r}: {GAMES[kind].title} and {game.title}")
    clashes = sorted(set(game.event_kinds) & NIGHT_KINDS)
    if clashes:
        raise RegistrationError(
            f"{game.title} ({kind}) records events of kind {clashes[0]!r}, a kind the night records "
            f"itself ({_night_kind_use(clashes[0])}): give the game's event another name"
        )
    GAMES[kind] = game
    if screens is not None:
        GIVEN_SCREENS[kind] = screens
    return game


def unregister(kind: str) -> None:
    """Take a game registered by :func:`register` out again (the tests' own game, after them)."""
    GAMES.pop(kind, None)
    GIVEN_SCREENS.pop(kind, None)


def _install(name: str) -> None:
    """Register the installed game ``name``: its package's ``game.py`` holds it as ``GAME``."""
    register(importlib.import_module(f"{__name__}.{name}.game").GAME)


for _name in INSTALLED:
    _install(_name)


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
    if isinstance(rules, Mapping):
        try:
            return str(game.title_of(game.rules_from_dict(rules)))
        except (IllegalAction, AttributeError, KeyError, TypeError, ValueError):
            return game.title
    return game.title


__all__ = [
    "GAMES", "INSTALLED", "GameClosing", "GameKind", "GameState", "IllegalAction", "NIGHT_KINDS", "RecordError",
    "RegistrationError", "game_kind", "register", "title_of", "unregister",
]
