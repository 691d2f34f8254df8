"""Poker with real betting as a game of the night: the :class:`~companion.games.protocol.GameKind` plug-in.

The chips on the table settle each pot; the app keeps only the bank (``records_chips = False``).
A night file holds ``{"game": "betting", "rules": {"variant": "Texas hold'em"}, "deals": [{"dealer": "Ann"}]}``.
Pure: no Flask, no database.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ..protocol import IllegalAction, RecordError
from ..basegame import BaseGame
from ..fold import Void
from ..vocabulary import NO_CHIPS
from ...values.reading import Unreadable, text
from .engine import MAX_PLAYERS, MAX_VARIANT, MIN_PLAYERS, BettingTable, Deal, Rules

EVENT_KINDS = ("deal", "void")


class Betting(BaseGame):
    """Poker with real betting: deals recorded, no chips moved."""

    kind = "betting"
    title = "Poker with real betting"
    event_kinds = frozenset(EVENT_KINDS)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_class = Rules
    table = BettingTable
    #: the chips on the table settle each pot: the bank checks only that it balances
    records_chips = False
    #: the report shows no figures of its own: the bank's counts are the night's results
    report_vocabulary = NO_CHIPS

    def title_of(self, rules: Rules) -> str:
        """What the group calls the game: the variant it typed ("Texas hold'em"), else the title.

        The variant is the name the group plays this game under, so dealer's choice, the table
        and the report offer and name it so, as a pot game is named by its preset."""
        return rules.variant or self.title

    def rules_from_dict(self, raw: Mapping[str, Any]) -> Rules:
        if isinstance(raw, Mapping) and raw.get("variant", "") is None:
            raw = {**raw, "variant": ""}
        variant = self.checked_rules(raw).get("variant", "")
        try:  # a NUL is refused here, by the form and the night file alike (companion.values.reading)
            return Rules(text(variant, "'variant'", max_length=MAX_VARIANT, collapse=True))
        except Unreadable as error:
            raise IllegalAction(str(error)) from None

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        if isinstance(action, Void):
            return super().to_event(action)
        if not isinstance(action, Deal):
            raise IllegalAction("the only action is a deal played")
        return "deal", ({"dealer": action.dealer} if action.dealer is not None else {})

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        if kind != "deal":
            return super().from_event(kind, payload)  # the undo
        if not isinstance(payload, Mapping) or set(payload) - {"dealer"}:
            raise IllegalAction("a deal holds only its dealer")
        dealer = payload.get("dealer")
        if dealer is not None and not isinstance(dealer, str):
            raise IllegalAction("'dealer' must be a name")
        return Deal(dealer)

    def read_records(self, state: BettingTable, records: Any) -> None:
        if not isinstance(records, list):
            raise RecordError("'deals' must be a list", None)
        for index, record in enumerate(records):
            # every refusal names the deal, as the pot games' do (docs/games/poker.md; issue 20, item 15)
            where = f"deals[{index}] (deal {index + 1})"
            if not isinstance(record, Mapping) or set(record) != {"dealer"}:
                raise RecordError(f"{where}: a deal must be {{\"dealer\": name}}", index)
            if not isinstance(record["dealer"], str):
                raise RecordError(f"{where}: 'dealer' must be a name", index)
            try:
                state.push(Deal(record["dealer"]))
            except IllegalAction as error:
                raise RecordError(f"{where}: 'dealer': {error}", index) from None

    def write_records_from(self, state: BettingTable, start: int) -> list[tuple[int, Any]]:
        return [(index, {"dealer": r.dealer}) for index, r in enumerate(state.live_records_from(start), start=start)]

    def live_actions(self, state: BettingTable) -> list[Any]:
        return [Deal(r.dealer) for r in state.live_records()]

    def random_action(self, state: BettingTable, rng: random.Random) -> Deal:
        """The one action: a deal played (by the dealer, said or not)."""
        return Deal(state.dealer if rng.random() < 0.5 else None)

    def replay_extras(self, state: BettingTable) -> dict[str, Any]:
        return {"variant": state.rules.variant, "deals": state.deals, "dealer": state.dealer}


BETTING = GAME = Betting()
