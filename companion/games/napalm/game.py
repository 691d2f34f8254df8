"""Napalm as a game of the night: the :class:`~companion.games.protocol.GameKind` plug-in.

Everything here delegates to the engine (:mod:`.table`), its codec, its
hand-history reader and its closing; this module only says how the night sees
them.  Pure: no Flask, no database.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..protocol import GameClosing, RecordError
from ..basegame import BaseGame
from ..vocabulary import Between, Column, ReportVocabulary, Term
from . import codec
from .closing import close_night
from . import hand_history, rankings
from .hand_history import play_stages, stages_from
from .table import MAX_PLAYERS, MIN_PLAYERS, Challenge, Declare, Phase, Rules, Showdown, Table

UNFINISHED = "'unfinished_pot' must be one of return_antes, split_leaders, carry"


#: Napalm's part of the report in its own words: antes, side bets, pots and tokens
WORDS = ReportVocabulary(
    columns=(
        Column("paid_in", "Antes", "antes paid"),
        Column("between", "Side bets", "side bets won and lost"),
        Column("taken_out", "Pots", "pots taken (* the unfinished game's pot, as the setting says)"),
        Column("tokens", "Tok.", "tokens", title="tokens"),
    ),
    paid_in=Term("antes", "antes"),
    between=Between("side_bets", "side_bets_won", "side_bets_lost", "side bets", "side bet"),
    taken_out=Term("pots_won", "pots won"),
    returned=Term("unfinished_pot", "unfinished pot"),
    pot="pot",
    tokens=True,
)


class Napalm(BaseGame):
    """Napalm (Whipsaw): antes, three stages of Yes/No, side bets, tokens and the pot."""

    kind = "napalm"
    title = "Napalm"
    report_vocabulary = WORDS
    #: its part of the report, game by game to the token target, is ``report.py`` in this folder:
    #: the report layer's, found by it; these rules never import it
    has_report_part = True
    #: ...and extends its sums from the night's earlier version (report.Sums): a long night's report
    report_part_extends = True
    records_key = "stages"
    event_kinds = frozenset(codec.GAME_KINDS)
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_class = Rules
    rule_messages = {"unfinished_pot": UNFINISHED}
    #: the older file formats that hold one game of Napalm as a whole night: a night file
    #: reader given one of these hands the decoded document to :meth:`read_legacy`
    legacy_formats = frozenset({hand_history.FORMAT})

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

    def write_records_from(self, state: Table, start: int) -> list[tuple[int, Any]]:
        return stages_from(state, start)

    def read_legacy(self, data: Any) -> hand_history.History:
        """A ``napalm-hand-history/1`` document (decoded JSON), replayed: one game of Napalm as a night.

        HistoryError (a RecordError) says where the file is wrong (``docs/hand-history.md``).
        """
        return hand_history.from_dict(data)

    def close(self, state: Table, rules: Rules) -> GameClosing:
        closing = close_night(state, rules.unfinished_pot)
        note = closing.note if closing.pot else ""
        return GameClosing(net=dict(closing.net), carried=closing.carried_shares, note=note)

    def carries_over(self, rules: Rules) -> bool:
        return rules.unfinished_pot == "carry"

    def next_dealer(self, state: Table) -> str:
        # in the middle of a hand its dealer has dealt: the deal passes on; between hands
        # the next dealer is already known
        position = state.position
        seat = (position.dealer + 1) % len(state.players) if position.ante_paid else position.dealer
        return state.players[seat]

    def random_action(self, state: Table, rng: random.Random) -> Any:
        """A legal stage at random: who said Yes, who challenged, who won the showdown."""
        position = state.position
        if position.phase is Phase.DECLARE:
            order = list(state.declaration_order())
            return Declare(tuple(name for name in order if rng.random() < 0.4))
        if position.phase is Phase.CHALLENGE:
            others = [name for name in state.declaration_order() if name != state.dealer]
            return Challenge(tuple(name for name in others if rng.random() < 0.3))
        yes = list(position.yes)
        return Showdown(winners=tuple(rng.sample(yes, rng.randint(1, min(2, len(yes))))))

    def warm_up(self) -> None:
        """pokerkit's lookups, which rank stages 2 and 3, are built when first asked for (rankings.py)."""
        rankings.load_lookups()

    def replay_extras(self, state: Table) -> dict[str, Any]:
        return {
            "tokens": state.tokens,
            "pot": state.pot,
            "games": [{"winner": g.winner, "pot": g.pot} for g in state.games],
            "dealer": state.dealer,
            "next_stage": int(state.stage),
        }


#: the one instance the registry holds
NAPALM = GAME = Napalm()

__all__ = ["GAME", "NAPALM", "Napalm", "RecordError"]
