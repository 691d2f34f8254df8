"""Poker with real betting: the chips on the table settle each pot, the app keeps the bank.

The table records only the deals played (who dealt; the deal passes left) and moves
no chips: every player's net is always 0.  Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..base import IllegalAction, validate_names
from ..fold import FoldTable, RecordDefaults, Void

MIN_PLAYERS = 2
MAX_PLAYERS = 10
MAX_VARIANT = 40


@dataclass(frozen=True)
class Rules:
    variant: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.variant, str):
            raise IllegalAction("'variant' must be text")
        if len(self.variant) > MAX_VARIANT:
            raise IllegalAction(f"'variant' must be at most {MAX_VARIANT} characters")


@dataclass(frozen=True)
class Deal:
    """A deal played; ``dealer`` (optional) must be who deals now."""

    dealer: str | None = None


@dataclass(frozen=True)
class Position:
    dealer: int
    deals: int


@dataclass(frozen=True)
class Outcome:
    position: Position
    summary: str


@dataclass(frozen=True)
class Record(RecordDefaults):
    seq: int
    action: Any
    deal: int
    dealer: str
    summary: str
    voids: int | None = None
    transfers: tuple[Any, ...] = ()


class BettingTable(FoldTable[Position, Record]):
    def __init__(self, players: Sequence[str], first_dealer: str | None = None, rules: Rules | None = None) -> None:
        self.players = validate_names(tuple(players), MIN_PLAYERS, MAX_PLAYERS, "poker with real betting")
        self.rules = rules or Rules()
        if first_dealer is None:
            first_dealer = self.players[0]
        if first_dealer not in self.players:
            raise IllegalAction(f"{str(first_dealer)[:30]} is not playing this game")
        self.first_dealer = first_dealer
        self._begin(Position(self.players.index(first_dealer), 0))

    @property
    def net_chips(self) -> dict[str, int]:
        return {name: 0 for name in self.players}

    @property
    def deals(self) -> int:
        return self._position.deals

    @property
    def deal_number(self) -> int:
        return self._position.deals + 1

    def _resolve(self, action: Any) -> Outcome:
        if not isinstance(action, Deal):
            raise IllegalAction("the only action is a deal played")
        if action.dealer is not None and action.dealer != self.dealer:
            raise IllegalAction(f"{str(action.dealer)[:30]} is not the dealer: {self.dealer} deals now")
        p = self._position
        nxt = self.players[(p.dealer + 1) % len(self.players)]
        return Outcome(Position((p.dealer + 1) % len(self.players), p.deals + 1),
                       f"{self.dealer} dealt; the deal passes to {nxt}")

    def _undo(self, seq: int, before: Position, record: Record) -> Outcome:
        return Outcome(before, f"Undone: deal {record.deal} ({record.dealer} dealt)")

    def _record(self, seq: int, action: Any, before: Position, outcome: Outcome, voids: int | None) -> Record:
        if isinstance(action, Void):
            return Record(seq, action, outcome.position.deals + 1, self.players[outcome.position.dealer],
                          outcome.summary, voids)
        return Record(seq, action, before.deals + 1, self.players[before.dealer], outcome.summary)

    def _check(self, before: Position, outcome: Any) -> None:
        assert sum(self.net_chips.values()) == 0
