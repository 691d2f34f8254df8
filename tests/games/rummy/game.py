"""Rummy scores as a game of the night: its table (a fold over deals) and its kind. Pure.

A deal says who went out (the winner) and the points left in every other player's hand;
each of them pays the winner those points times the stake, in chips.  Nothing is left in
the middle, so the players' net chips always sum to zero, and the base game's close (the
net, nothing carried) is right as it is.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games.protocol import IllegalAction, dealer_seat, validate_names
from companion.games.basegame import BaseGame
from companion.games.fold import BaseOutcome, BaseRecord, FoldTable, Transfer
from companion.games.vocabulary import Between, Column, ReportVocabulary

MIN_PLAYERS, MAX_PLAYERS = 2, 6
#: the most points a hand can hold (every card a court card, 13 of them: 130; a margin over it)
MAX_POINTS = 200


@dataclass(frozen=True)
class Rules:
    """``stake``: the chips a point is worth."""

    stake: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.stake <= 100:
            raise IllegalAction("the stake is a whole number from 1 to 100")


@dataclass(frozen=True)
class Deal:
    """Who went out, and the points left in each other player's hand."""

    winner: str
    left: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Position:
    dealer: int
    deals: int
    net: tuple[int, ...]


@dataclass(frozen=True)
class Record(BaseRecord):
    deal: int
    dealer: str


class RummyTable(FoldTable[Position, Record]):
    """The deals of a game of Rummy scores, folded."""

    def __init__(self, players: Sequence[str], first_dealer: str | None, rules: Rules) -> None:
        self.players = validate_names(players, MIN_PLAYERS, MAX_PLAYERS, "Rummy scores")
        self.rules = rules
        seat = dealer_seat(self.players, first_dealer)
        self.first_dealer = self.players[seat]
        self._begin(Position(seat, 0, (0,) * len(self.players)))

    @property
    def net_chips(self) -> dict[str, int]:
        return dict(zip(self.players, self._position.net))

    @property
    def deal_number(self) -> int:
        return self._position.deals + 1

    def _resolve(self, action: Any) -> BaseOutcome:
        if not isinstance(action, Deal):
            raise IllegalAction("the only action is a deal")
        if action.winner not in self.players:
            raise IllegalAction(f"{str(action.winner)[:30] or 'nobody'} is not playing: tap who went out")
        left = dict(action.left)
        losers = [name for name in self.players if name != action.winner]
        if sorted(left) != sorted(losers) or len(left) != len(action.left):
            raise IllegalAction(f"say the points left in each hand but {action.winner}'s")
        for name, points in left.items():
            if isinstance(points, bool) or not isinstance(points, int) or not 0 <= points <= MAX_POINTS:
                raise IllegalAction(f"{name}'s points are a whole number from 0 to {MAX_POINTS}")
        stake = self.rules.stake
        transfers = tuple(Transfer(name, action.winner, left[name] * stake, "points") for name in losers if left[name])
        p = self._position
        net = list(p.net)
        for t in transfers:
            net[self.players.index(t.payer)] -= t.chips  # type: ignore[arg-type]
            net[self.players.index(t.payee)] += t.chips  # type: ignore[arg-type]
        paid = ", ".join(f"{t.payer} {t.chips}" for t in transfers) or "nobody"
        summary = f"{action.winner} went out: paid by {paid}"
        return BaseOutcome(position=Position((p.dealer + 1) % len(self.players), p.deals + 1, tuple(net)),
                           transfers=transfers, summary=summary)

    def _undo(self, seq: int, before: Position, record: Record) -> BaseOutcome:
        return BaseOutcome(position=before, transfers=tuple(t.reversed() for t in record.transfers),
                           summary=f"Undone: deal {record.deal}")

    def _record(self, seq: int, action: Any, before: Position, outcome: BaseOutcome, voids: int | None) -> Record:
        at = outcome.position if voids is not None else before
        return Record(seq=seq, action=action, deal=at.deals + 1, dealer=self.players[at.dealer], summary=outcome.summary,
                      transfers=outcome.transfers, voids=voids)

    def _check(self, before: Position, outcome: BaseOutcome) -> None:
        assert sum(outcome.position.net) == 0, "chips are conserved"


class Rummy(BaseGame):
    """Rummy scores: one winner a deal, paid the points left in every other hand."""

    kind = "rummy"
    title = "Rummy scores"
    #: the report says points, paid between players; there is no pot
    report_vocabulary = ReportVocabulary(
        columns=(Column("between", "Points", "points won and lost, in chips"),),
        paid_in=None, between=Between("points", "points_won", "points_lost", "points", "point"),
        taken_out=None, returned=None, pot=None,
    )
    event_kinds = frozenset({"deal", "void"})
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_class = Rules
    table = RummyTable

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        if isinstance(action, Deal):
            return "deal", {"winner": action.winner, "left": dict(action.left)}
        return super().to_event(action)

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        if kind != "deal":
            return super().from_event(kind, payload)
        left = payload.get("left")
        if set(payload) != {"winner", "left"} or not isinstance(left, Mapping):
            raise IllegalAction('a deal is {"winner": name, "left": {name: points}}')
        return Deal(payload["winner"], tuple(left.items()))

    def random_action(self, state: RummyTable, rng: random.Random) -> Deal:
        winner = rng.choice(state.players)
        return Deal(winner, tuple((name, rng.randint(0, 40)) for name in state.players if name != winner))


GAME = Rummy()
