"""What Napalm's screens show, as plain data: pure (no Flask), so it is tested on its own.

The night's standings (:mod:`companion.night.standings`) are the same for every game: each
player's chips over the night, the dealer, the prompt, the recent records.  Everything
only Napalm has (tokens, the pot, the stage and phase, who speaks in which order, the
Yes players, the games won to the token target, the antes, a pot carried in) is here,
in :class:`NapalmView`, and Napalm's templates read it as ``st.view``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .table import Table


@dataclass(frozen=True)
class NapalmView:
    """Napalm at the table now (``prompt`` and ``dealer`` are what every game's view has)."""

    prompt: str
    dealer: str
    game: int  # the game to the token target in progress, 1-based
    hand: int
    stage: int  # 1, 2 or 3
    stage_title: str  # "Two cards"
    phase: str  # "declare", "challenge" or "showdown"
    pot: int
    tokens_to_win: int
    tokens: Mapping[str, int]  # each player's tokens in the game in progress
    order: tuple[str, ...]  # who speaks this stage, in order: the dealer last
    yes: tuple[str, ...]  # this stage's Yes players so far, in speaking order
    games: tuple[tuple[int, str, int], ...]  # games won so far: (number, winner, pot)
    #: recording this stage takes the ante (a hand that antes, its ante not taken yet)
    antes_this_hand: bool
    ante_hand: bool  # this hand antes (by the rules), whether or not it is taken yet
    #: the pot carried in from a previous night, (contributor, chips) in seat order: in the
    #: first game's pot until someone wins it
    carried_in: tuple[tuple[str, int], ...] = ()

    def tokens_of(self, name: str) -> int:
        return self.tokens.get(name, 0)

    def says_next(self, name: str) -> int:
        """``name``'s 1-based place in this stage's speaking order (the dealer last)."""
        return self.order.index(name) + 1

    def in_yes(self, name: str) -> bool:
        return name in self.yes

    @property
    def carried_total(self) -> int:
        return sum(chips for _, chips in self.carried_in)

    @property
    def carried_text(self) -> str:
        """"6 carried in from the previous night: Ann 2, Ben 2, Cat 2" while the first game holds it; else ""."""
        if not self.carried_in or self.game != 1:
            return ""
        shares = ", ".join(f"{name} {chips}" for name, chips in self.carried_in)
        return f"{self.carried_total} carried in from the previous night: {shares}"


def view(table: Table) -> NapalmView:
    """Napalm's screen data for ``table`` (its position and rules; nothing else)."""
    position = table.position
    return NapalmView(
        prompt=table.prompt(),
        dealer=table.dealer,
        game=position.game,
        hand=position.hand,
        stage=int(position.stage),
        stage_title=position.stage.title,
        phase=position.phase.value,
        pot=position.pot,
        tokens_to_win=table.rules.tokens_to_win,
        tokens=table.tokens,
        order=table.declaration_order(),
        yes=position.yes,
        games=tuple((g.number, g.winner, g.pot) for g in position.games),
        antes_this_hand=table.antes_this_hand() and not position.ante_paid,
        ante_hand=table.antes_this_hand(),
        carried_in=tuple(table.carried_in.items()),
    )


__all__ = ["NapalmView", "view"]
