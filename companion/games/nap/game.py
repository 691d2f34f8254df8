"""Nap as a game of the night: the :class:`~companion.games.base.GameKind` plug-in.

Everything here delegates to the engine (:mod:`.table`) and its codec; this
module only says how the night sees them.  Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ..base import GameClosing, IllegalAction, chips_text
from ..vocabulary import Between, Column, ReportVocabulary, Term
from . import codec
from .table import MAX_PLAYERS, MIN_PLAYERS, VARIANTS, Rules, Table
from .view import VARIANT_TITLES

RULE_KEYS = ("variant", "misere", "wellington", "blucher", "stake")


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


class Nap:
    """Nap (Napoleon): one bid a deal, paid between the bidder and everyone else; four variants."""

    kind = "nap"
    title = "Nap"
    report_vocabulary = WORDS
    records_key = "deals"
    event_kinds = frozenset(codec.EVENT_KINDS)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def rules_from_dict(self, raw: Mapping[str, Any]) -> Rules:
        if not isinstance(raw, Mapping):
            raise IllegalAction("'rules' must be an object")
        unknown = sorted(str(key) for key in raw if key not in RULE_KEYS)
        if unknown:
            raise IllegalAction(f"unknown rule '{unknown[0][:30]}'")
        if "variant" in raw and not isinstance(raw["variant"], str):
            raise IllegalAction(f"'variant' must be one of {', '.join(VARIANTS)}")
        for key in ("misere", "wellington", "blucher"):
            if key in raw and not isinstance(raw[key], bool):
                raise IllegalAction(f"'{key}' must be true or false")
        if "stake" in raw and (isinstance(raw["stake"], bool) or not isinstance(raw["stake"], int)):
            raise IllegalAction("'stake' must be a whole number, 1 or more")
        return Rules(**{key: raw[key] for key in RULE_KEYS if key in raw})

    def title_of(self, rules: Rules) -> str:
        """What players call the game: "Nap", or its variant's name ("Pool Nap")."""
        return "Nap" if rules.variant == "plain" else VARIANT_TITLES[rules.variant]

    def rules_to_dict(self, rules: Rules) -> dict[str, Any]:
        return asdict(rules)

    def new_state(
        self,
        players: Sequence[str],
        first_dealer: str | None,
        rules: Rules,
        carried_in: Mapping[str, int] | None = None,
    ) -> Table:
        if carried_in:
            # (choice) RULES-NAP.md returns an unwon pool at the night's end; nothing is carried
            raise IllegalAction("Nap cannot start with a pot carried in from another night")
        return Table(players, first_dealer, rules)

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        return codec.to_event(action)

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        return codec.from_event(kind, payload)

    def read_records(self, state: Table, records: Any) -> None:
        codec.play_deals(state, records)

    def write_records(self, state: Table) -> list[Any]:
        return codec.deals_of(state)

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

    # The lead's game layer (issue 11, in progress) is adding these three to GameKind;
    # Nap has them already so the merge needs nothing more.

    def live_actions(self, state: Table) -> list[Any]:
        """The deals that count, in order (undone ones and the undos left out)."""
        return [record.action for record in state.live_records()]

    def carries_over(self, rules: Rules) -> bool:
        """Never: an unwon pool is returned to who paid it in (RULES-NAP.md)."""
        return False

    def next_dealer(self, state: Table) -> str:
        return state.dealer


#: the one instance the registry will hold
NAP = Nap()

__all__ = ["NAP", "Nap"]
