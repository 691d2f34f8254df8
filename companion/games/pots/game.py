"""Fixed-stake pot games as a game of the night: the :class:`~companion.games.base.GameKind` plug-in.

One kind ("pots") for every preset: the preset is in the rules, so a night file
says ``{"game": "pots", "rules": {"preset": "tips_to_the_fat_one", "stakes": [2, 3, 4, 6, 9], …}}``.
Everything delegates to the engine (:mod:`.engine`), the records (:mod:`.records`)
and the presets (:mod:`.presets`).  Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from typing import Any

from ..base import GameClosing, IllegalAction
from ..vocabulary import Between, Column, ReportVocabulary, Term
from . import records
from .engine import MAX_PLAYERS, MIN_PLAYERS, PotTable, Rules, close_table
from .presets import PRESETS, TITLES

RULE_KEYS = tuple(f.name for f in fields(Rules))
_INT_KEYS = ("ante", "min_players", "max_players")
_BOOL_KEYS = ("carry", "high_low", "sales")


#: a pot game's part of the report in its own words: antes, pots and (NASDAQ's) sales
WORDS = ReportVocabulary(
    columns=(
        Column("paid_in", "Antes", "antes and bets paid in"),
        Column("taken_out", "Pots", "pots taken (a pot left at the end given back)"),
        Column("between", "Sales", "cards sold and bought"),
    ),
    paid_in=Term("antes", "antes"),
    between=Between("sales", "sales_received", "sales_paid", "sales", "sale", won="received", lost="paid"),
    taken_out=Term("pots_won", "pots won"),
    returned=Term("unfinished_pot", "unfinished pot"),
    pot="pot",
)


class Pots:
    """Fixed-stake pots: antes or several fixed stakes, each pot won, split, split high-low or carried."""

    kind = "pots"
    title = "Fixed-stake pots"
    report_vocabulary = WORDS
    records_key = "deals"
    event_kinds = frozenset(records.EVENT_KINDS)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def rules_from_dict(self, raw: Mapping[str, Any]) -> Rules:
        """The rules: the preset's (default "fixed"), then each key given; the field at fault named."""
        if not isinstance(raw, Mapping):
            raise IllegalAction("'rules' must be an object")
        unknown = sorted(set(raw) - set(RULE_KEYS))
        if unknown:
            raise IllegalAction(f"unknown rule '{unknown[0]}'")
        preset = raw.get("preset", "fixed")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise IllegalAction(f"'preset' must be one of {', '.join(PRESETS)}")
        values: dict[str, Any] = {"preset": preset, **PRESETS[preset]}
        for key in _INT_KEYS:
            if key in raw and (isinstance(raw[key], bool) or not isinstance(raw[key], int)):
                raise IllegalAction(f"'{key}' must be a whole number")
        for key in _BOOL_KEYS:
            if key in raw and not isinstance(raw[key], bool):
                raise IllegalAction(f"'{key}' must be true or false")
        if "sale_limit" in raw and raw["sale_limit"] is not None and (
            isinstance(raw["sale_limit"], bool) or not isinstance(raw["sale_limit"], int)
        ):
            raise IllegalAction("'sale_limit' must be a whole number or null")
        if "stake_rule" in raw and not isinstance(raw["stake_rule"], str):
            raise IllegalAction("'stake_rule' must be \"free\" or \"fat_one\"")
        if "stakes" in raw:
            stakes = raw["stakes"]
            if not isinstance(stakes, list) or any(isinstance(s, bool) or not isinstance(s, int) for s in stakes):
                raise IllegalAction("'stakes' must be a list of whole numbers")
            raw = {**raw, "stakes": tuple(stakes)}
            if stakes and "ante" not in raw:
                raw["ante"] = 0
        values.update({key: raw[key] for key in RULE_KEYS if key in raw and key != "preset"})
        try:
            return Rules(**values)
        except IllegalAction as error:
            raise IllegalAction(f"rules: {error}") from None

    def rules_to_dict(self, rules: Rules) -> dict[str, Any]:
        data = asdict(rules)
        data["stakes"] = list(rules.stakes)
        return data

    def title_of(self, rules: Rules) -> str:
        """What the players call the game these rules came from ("Tips to the Fat One")."""
        return TITLES.get(rules.preset, self.title)

    def default_players(self, seated: Sequence[str], dealer: str, rules: Rules) -> tuple[str, ...]:
        """Who plays unless the scorekeeper changes it: everyone seated, or, when the game takes
        fewer (Tips to the Fat One: two), the dealer and those on the dealer's left, in seat order."""
        seated = tuple(seated)
        if len(seated) <= rules.max_players:
            return seated
        start = seated.index(dealer) if dealer in seated else 0
        picked = {seated[(start + i) % len(seated)] for i in range(rules.max_players)}
        return tuple(name for name in seated if name in picked)

    def new_state(
        self,
        players: Sequence[str],
        first_dealer: str | None,
        rules: Rules,
        carried_in: Mapping[str, int] | None = None,
    ) -> PotTable:
        return PotTable(players, first_dealer, rules, carried_in or None)

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        return records.to_event(action)

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        return records.from_event(kind, payload)

    def read_records(self, state: PotTable, records_: Any) -> None:
        records.read_deals(state, records_)

    def write_records(self, state: PotTable) -> list[Any]:
        return records.write_deals(state)

    def close(self, state: PotTable, rules: Rules) -> GameClosing:
        """A pot still carried (or a deal left unfinished) goes back to who paid it in: nothing is carried."""
        closing = close_table(state)
        return GameClosing(net=closing.net, carried={}, note=closing.note)

    def carries_over(self, rules: Rules) -> bool:
        """Never: RULES-POKER.md returns a pot still carried at the end to who paid it in."""
        return False

    def live_actions(self, state: PotTable) -> list[Any]:
        """The actions that count, in order (undone ones and the undos left out): what an import stores."""
        return [record.action for record in state.live_records()]

    def next_dealer(self, state: PotTable) -> str:
        """Who deals next: in the middle of a deal its dealer has dealt, so the deal passes on."""
        seat = state.players.index(state.dealer)
        if state.position.anted:
            seat = (seat + 1) % len(state.players)
        return state.players[seat]

    def replay_extras(self, state: PotTable) -> dict[str, Any]:
        return {
            "preset": state.rules.preset,
            "pots": state.pots,
            "deals": state.deal_number - 1,
            "dealer": state.dealer,
            "open_pots": list(state.open_pots) if state.position.anted else [],
        }


#: the one instance the registry holds
POTS = Pots()
