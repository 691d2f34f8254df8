"""Fixed-stake pot games as a game of the night: the :class:`~companion.games.protocol.GameKind` plug-in.

One kind ("pots") for every preset: the preset is in the rules, so a night file
says ``{"game": "pots", "rules": {"preset": "tips_to_the_fat_one", "stakes": [2, 3, 4, 6, 9], …}}``.
Everything delegates to the engine (:mod:`.engine`), the records (:mod:`.records`)
and the presets (:mod:`.presets`).  Pure: no Flask, no database.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..protocol import GameClosing, IllegalAction
from ..basegame import BaseGame
from ..vocabulary import Between, Column, ReportVocabulary, Term
from . import records
from .engine import MAX_PLAYERS, MIN_PLAYERS, Carry, HighLow, IntoPot, PotTable, Rules, Sale, Win, close_table
from .presets import PRESETS, TITLES



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


class Pots(BaseGame):
    """Fixed-stake pots: antes or several fixed stakes, each pot won, split, split high-low or carried."""

    kind = "pots"
    title = "Fixed-stake pots"
    report_vocabulary = WORDS
    records_key = "deals"
    event_kinds = frozenset(records.EVENT_KINDS)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_class = Rules
    rule_messages = {
        "preset": f"'preset' must be one of {', '.join(PRESETS)}",
        "stake_rule": "'stake_rule' must be \"free\" or \"fat_one\"",
    }

    def rules_from_dict(self, raw: Mapping[str, Any]) -> Rules:
        """The rules: the preset's (default "fixed"), then each key given; the field at fault named."""
        given = self.checked_rules(raw)  # unknown keys and wrong types refused, by name
        preset = given.get("preset", "fixed")
        if preset not in PRESETS:
            raise IllegalAction(self.rule_messages["preset"])
        values: dict[str, Any] = {"preset": preset, **PRESETS[preset]}
        if given.get("stakes") and "ante" not in given:
            given["ante"] = 0
        values.update({key: value for key, value in given.items() if key != "preset"})
        try:
            return Rules(**values)
        except IllegalAction as error:
            raise IllegalAction(f"rules: {error}") from None

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

    def write_records_from(self, state: PotTable, start: int) -> list[tuple[int, Any]]:
        return records.deals_from(state, start)

    def close(self, state: PotTable, rules: Rules) -> GameClosing:
        """A pot still carried (or a deal left unfinished) goes back to who paid it in: nothing is carried."""
        closing = close_table(state)
        return GameClosing(net=closing.net, carried={}, note=closing.note)

    def next_dealer(self, state: PotTable) -> str:
        """Who deals next: in the middle of a deal its dealer has dealt, so the deal passes on."""
        seat = state.players.index(state.dealer)
        if state.position.anted:
            seat = (seat + 1) % len(state.players)
        return state.players[seat]

    def random_action(self, state: PotTable, rng: random.Random) -> Any:
        """A legal action at random: chips into a pot, a sale, a pot won, split, split high-low or carried."""
        players = list(state.players)
        for _ in range(200):
            pot = rng.choice(list(state.open_pots)) if len(state.rules.pot_names) > 1 and state.open_pots else None
            some = tuple(rng.sample(players, rng.randint(1, min(3, len(players)))))
            action = rng.choice((
                Win(some, pot), Win(some[:1], pot), HighLow(some, tuple(rng.sample(players, 1)), pot), Carry(pot),
                IntoPot(rng.choice(players), rng.randint(1, 9), rng.choice(("bet", "bid", "unsold")), pot),
                Sale(*rng.sample(players, 2), rng.randint(1, 15), pot),
            ))
            if state.is_legal(action):
                return action
        raise IllegalAction("no legal action found")  # pragma: no cover - a pot game always has one

    def replay_extras(self, state: PotTable) -> dict[str, Any]:
        return {
            "preset": state.rules.preset,
            "pots": state.pots,
            "deals": state.deal_number - 1,
            "dealer": state.dealer,
            "open_pots": list(state.open_pots) if state.position.anted else [],
        }


#: the one instance the registry holds
POTS = GAME = Pots()
