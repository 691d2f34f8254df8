"""Poker with real betting: the chips on the table settle each pot, the app keeps the bank.

The table records only the deals played (who dealt; the deal passes left) and moves
no chips: every player's net is always 0.  Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..protocol import IllegalAction, dealer_seat, validate_names
from ..fold import BaseOutcome, BaseRecord, FoldTable, Void

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
class Record(BaseRecord):
    deal: int
    dealer: str


class BettingTable(FoldTable[Position, Record]):
    def __init__(self, players: Sequence[str], first_dealer: str | None = None, rules: Rules | None = None) -> None:
        self.players = validate_names(tuple(players), MIN_PLAYERS, MAX_PLAYERS, "poker with real betting")
        self.rules = rules or Rules()
        seat = dealer_seat(self.players, first_dealer)
        self.first_dealer = self.players[seat]
        self._begin(Position(seat, 0))

    @property
    def net_chips(self) -> dict[str, int]:
        return {name: 0 for name in self.players}

    @property
    def deals(self) -> int:
        return self._position.deals

    @property
    def deal_number(self) -> int:
        return self._position.deals + 1

    def _resolve(self, action: Any) -> BaseOutcome:
        if not isinstance(action, Deal):
            raise IllegalAction("the only action is a deal played")
        if action.dealer is not None and action.dealer != self.dealer:
            raise IllegalAction(f"{str(action.dealer)[:30]} is not the dealer: {self.dealer} deals now")
        p = self._position
        nxt = self.players[(p.dealer + 1) % len(self.players)]
        return BaseOutcome(position=Position((p.dealer + 1) % len(self.players), p.deals + 1),
                           summary=f"{self.dealer} dealt; the deal passes to {nxt}")

    def _undo(self, seq: int, before: Position, record: Record) -> BaseOutcome:
        return BaseOutcome(position=before, summary=f"Undone: deal {record.deal} ({record.dealer} dealt)")

    def _record(self, seq: int, action: Any, before: Position, outcome: BaseOutcome, voids: int | None) -> Record:
        at = outcome.position if isinstance(action, Void) else before  # an undo: the deal it undoes
        return Record(seq=seq, action=action, deal=at.deals + 1, dealer=self.players[at.dealer],
                      summary=outcome.summary, voids=voids)

    def _check(self, before: Position, outcome: Any) -> None:
        assert sum(self.net_chips.values()) == 0
