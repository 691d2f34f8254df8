"""Dealer's choice: the games to offer the dealer for the next deal, the last ones played first.

RULES-POKER.md: the game may change at any deal; the dealer chooses the next game.  The
issue asks for the dealer's next game in at most 3 taps from the table, so the screen shows
a short list and the order matters: the games played most recently come first (each once),
then every other game the group plays, in the group's own order.  Pure: values in, values out.

The screen offers each game by the name the group plays it under ("Tips to the Fat One", not
"Fixed-stake pots"): an offer is a ``(kind, name)`` pair, and a game played tonight is the pair
of its kind and what players call it (:func:`companion.games.title_of`).  A game offered once
by its title takes any name the group gives it (a poker variant typed, "Texas hold'em"; a Nap
variant, "Pool Nap"): once played under that name, it is offered under it too
(:func:`with_names_played`).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
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


def with_names_played(
    played: Sequence[tuple[str, str]], available: Sequence[tuple[str, str]], by_title: Collection[str]
) -> list[tuple[str, str]]:
    """``available`` and, after it, each name a game of a kind in ``by_title`` (offered once by its
    title) was played under tonight and no offer has, in the order first played, each once.

    Such a name is the group's own for the game (the variant it typed), so the dealer is offered
    it by that name, not by the kind's title; a kind offered under names of its own (a pot game's
    presets) keeps only those (:func:`as_offered` gives a game played otherwise its first)."""
    out = list(available)
    for game in played:
        if game[0] in by_title and game not in out:
            out.append(game)
    return out


def as_offered(played: Sequence[tuple[str, str]], available: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each game played, ``(kind, name)``, as the offer that starts it again.

    Its own offer when one has its name; else the first offer of its kind (a game played under
    a name none of its kind's offers has: e.g. "Pool Nap" in a list that offers only "Nap", whose
    next-game screen starts from the rules of the last game of that kind; :func:`with_names_played`
    first gives such a name its own offer where the kind takes any name); a game whose kind is not
    offered at all is left out.
    """
    offered = set(available)
    first_of_kind: dict[str, tuple[str, str]] = {}
    for kind, name in available:
        first_of_kind.setdefault(kind, (kind, name))
    out: list[tuple[str, str]] = []
    for game in played:
        if game in offered:
            out.append(game)
        elif game[0] in first_of_kind:
            out.append(first_of_kind[game[0]])
    return out
