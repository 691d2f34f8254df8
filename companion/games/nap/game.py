"""Nap as a game of the night: the :class:`~companion.games.protocol.GameKind` plug-in.

Everything here delegates to the engine (:mod:`.table`) and its codec; this
module only says how the night sees them.  Pure: no Flask, no database.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from companion.money.amounts import chips_text

from ..protocol import GameClosing
from ..basegame import BaseGame
from ..vocabulary import Between, Column, ReportVocabulary, Term
from . import codec
from .table import MAX_PLAYERS, MIN_PLAYERS, VARIANTS, Deal, Rules, Table
from .view import VARIANT_TITLES



#: Nap's part of the report in its own words: the bids won and lost, and the pool
WORDS = ReportVocabulary(
    columns=(
        Column("between", "Bids", "bids won and lost (a penalty paid to another player included)"),
        Column("through_pot", "Pool", "the pool: paid in, won and given back"),
    ),
    paid_in=Term("paid_into_pool", "pool payments"),
    between=Between("bids", "bids_won", "bids_lost", "bids", "bid"),
    taken_out=Term("pool_won", "pool won"),
    returned=Term("pool_returned", "pool given back"),
    pot="pool",
)


class Nap(BaseGame):
    """Nap (Napoleon): one bid a deal, paid between the bidder and everyone else; four variants."""

    kind = "nap"
    title = "Nap"
    report_vocabulary = WORDS
    event_kinds = frozenset(codec.EVENT_KINDS)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_class = Rules
    table = Table
    rule_messages = {
        "variant": f"'variant' must be one of {', '.join(VARIANTS)}",
        "stake": "'stake' must be a whole number, 1 or more",
    }

    def title_of(self, rules: Rules) -> str:
        """What players call the game: "Nap", or its variant's name ("Pool Nap")."""
        return "Nap" if rules.variant == "plain" else VARIANT_TITLES[rules.variant]

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        return codec.to_event(action)

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        return codec.from_event(kind, payload)

    def read_records(self, state: Table, records: Any) -> None:
        codec.play_deals(state, records)

    def write_records_from(self, state: Table, start: int) -> list[tuple[int, Any]]:
        return codec.deals_from(state, start)

    def close(self, state: Table, rules: Rules) -> GameClosing:
        """An unwon pool goes back to those who paid it in, each exactly what they put in."""
        net = state.net_chips
        shares = state.in_pool
        if not state.pool:
            return GameClosing(net=net)
        for name, chips in shares.items():
            net[name] += chips
        given = ", ".join(f"{name} {chips}" for name, chips in shares.items() if chips)
        note = f"Unwon pool of {chips_text(state.pool)} returned to those who paid it in ({given})."
        return GameClosing(net=net, note=note)

    def replay_extras(self, state: Table) -> dict[str, Any]:
        return {"pool": state.pool, "dealer": state.dealer}

    def random_action(self, state: Table, rng: random.Random) -> Deal:
        """A valid deal at random: a bid made or failed, or thrown in when nobody bid."""
        holders = list(state.bidders())
        variant = state.rules.variant
        peeks = tuple(n for n in holders if rng.random() < 0.3) if variant == "peep" else ()
        exchanged = tuple((n, rng.randint(1, 5)) for n in holders if rng.random() < 0.3) if variant == "purchase" else ()
        if state.sitting_out and rng.random() < 0.15:
            return Deal(None, peeks=peeks, exchanged=exchanged)
        bid = rng.choice(list(state.allowed_bids()))
        widow = variant == "widow" and bid == "nap" and rng.random() < 0.5
        return Deal(rng.choice(holders), bid, rng.random() < 0.5, widow, peeks, exchanged)


#: the one instance the registry holds
NAP = GAME = Nap()

__all__ = ["GAME", "NAP", "Nap"]
