"""Napalm as a game of the night: the :class:`~companion.games.base.GameKind` plug-in.

Everything here delegates to the engine (:mod:`.table`), its codec, its
hand-history reader and its closing; this module only says how the night sees
them.  Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ..base import GameClosing, IllegalAction, RecordError
from . import codec
from .closing import close_night
from . import history
from .history import play_stages, stages_of
from .table import MAX_PLAYERS, MIN_PLAYERS, Rules, Table

RULE_KEYS = ("ante", "ante_every", "tokens_to_win", "unfinished_pot")


class Napalm:
    """Napalm (Whipsaw): antes, three stages of Yes/No, side bets, tokens and the pot."""

    kind = "napalm"
    title = "Napalm"
    records_key = "stages"
    event_kinds = frozenset(codec.GAME_KINDS)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    #: the older file formats that hold one game of Napalm as a whole night: a night file
    #: reader given one of these hands the decoded document to :meth:`read_legacy`
    legacy_formats = frozenset({history.FORMAT})

    def rules_from_dict(self, raw: Mapping[str, Any]) -> Rules:
        if not isinstance(raw, Mapping):
            raise IllegalAction("'rules' must be an object")
        unknown = sorted(set(raw) - set(RULE_KEYS))
        if unknown:
            raise IllegalAction(f"unknown rule '{unknown[0]}'")
        for key in ("ante", "ante_every", "tokens_to_win"):
            value = raw.get(key)
            if key in raw and (isinstance(value, bool) or not isinstance(value, int)):
                raise IllegalAction(f"'{key}' must be a whole number")
        if "unfinished_pot" in raw and not isinstance(raw["unfinished_pot"], str):
            raise IllegalAction("'unfinished_pot' must be one of return_antes, split_leaders, carry")
        return Rules(**{key: raw[key] for key in RULE_KEYS if key in raw})

    def rules_to_dict(self, rules: Rules) -> dict[str, Any]:
        return asdict(rules)

    def new_state(
        self,
        players: Sequence[str],
        first_dealer: str | None,
        rules: Rules,
        carried_in: Mapping[str, int] | None = None,
    ) -> Table:
        return Table(players, first_dealer, rules, carried_in or None)

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        return codec.to_event(action)

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        return codec.from_event(kind, dict(payload))

    def read_records(self, state: Table, records: Any) -> None:
        play_stages(state, records)  # HistoryError is a RecordError naming the stage

    def write_records(self, state: Table) -> list[Any]:
        return stages_of(state)

    def read_legacy(self, data: Any) -> history.History:
        """A ``napalm-hand-history/1`` document (decoded JSON), replayed: one game of Napalm as a night.

        HistoryError (a RecordError) says where the file is wrong (``docs/hand-history.md``).
        """
        return history.from_dict(data)

    def close(self, state: Table, rules: Rules) -> GameClosing:
        closing = close_night(state, rules.unfinished_pot)
        note = closing.note if closing.pot else ""
        return GameClosing(net=dict(closing.net), carried=closing.carried_shares, note=note)

    def report_part(
        self,
        number: int,
        title: str,
        state: Table,
        rules: Rules,
        closing: GameClosing | None = None,
        carried_on: Mapping[str, int] | None = None,
    ) -> Any:
        """Its part of the report, game by game to the token target (:mod:`.report`)."""
        from .report import report_part  # late: the report layer imports the registry's base

        return report_part(number, title, state, rules, closing, carried_on)

    def carries_over(self, rules: Rules) -> bool:
        return rules.unfinished_pot == "carry"

    def live_actions(self, state: Table) -> list[Any]:
        return [record.action for record in state.live_records()]

    def next_dealer(self, state: Table) -> str:
        # in the middle of a hand its dealer has dealt: the deal passes on; between hands
        # the next dealer is already known
        position = state.position
        seat = (position.dealer + 1) % len(state.players) if position.ante_paid else position.dealer
        return state.players[seat]

    def replay_extras(self, state: Table) -> dict[str, Any]:
        return {
            "tokens": state.tokens,
            "pot": state.pot,
            "games": [{"winner": g.winner, "pot": g.pot} for g in state.games],
            "dealer": state.dealer,
            "next_stage": int(state.stage),
        }


#: the one instance the registry holds
NAPALM = Napalm()

__all__ = ["NAPALM", "Napalm", "RecordError"]
