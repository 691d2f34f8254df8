"""A game whose closing settles chips between players has its closing on a line of its own, in its words.

The game here is Scores, a points game kept for this test: each deal one player scores points, no
chip moves at the table, and when the game stops every two players settle the difference of their
points, a chip a point (issue 38, item 4).  Worked by hand: Ann scores 5, then Ben 2; Cat scores
nothing.  At the close Ben pays Ann 5 − 2 = 3, Cat pays Ann 5 − 0 = 5 and Ben 2 − 0 = 2:
Ann +3 +5 = +8, Ben +2 −3 = −1, Cat −5 −2 = −7 (8 − 1 − 7 = 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from companion.games.basegame import BaseGame
from companion.games.fold import BaseOutcome, BaseRecord, FoldTable, Transfer
from companion.games.protocol import GameClosing, IllegalAction, dealer_seat, validate_names
from companion.games.vocabulary import Between, Column, ReportVocabulary
from companion.report.export import report_dict
from companion.report.parts import build_night_report

THREE = ("Ann", "Ben", "Cat")


@dataclass(frozen=True)
class Score:
    player: str
    points: int


@dataclass(frozen=True)
class Position:
    dealer: int
    points: tuple[int, ...]


@dataclass(frozen=True)
class Record(BaseRecord):
    dealer: str


class ScoresTable(FoldTable[Position, Record]):
    def __init__(self, players: Sequence[str], first_dealer: str | None, rules: Any) -> None:
        self.players = validate_names(players, 2, 6, "Scores")
        self.rules = rules
        seat = dealer_seat(self.players, first_dealer)
        self.first_dealer = self.players[seat]
        self._begin(Position(seat, (0,) * len(self.players)))

    @property
    def net_chips(self) -> dict[str, int]:
        return dict.fromkeys(self.players, 0)  # points, never chips, until the game stops

    @property
    def points(self) -> dict[str, int]:
        return dict(zip(self.players, self._position.points))

    def _resolve(self, action: Any) -> BaseOutcome:
        if not isinstance(action, Score) or action.player not in self.players:
            raise IllegalAction("a score is a player's points")
        p = self._position
        points = list(p.points)
        points[self.players.index(action.player)] += action.points
        return BaseOutcome(position=Position((p.dealer + 1) % len(self.players), tuple(points)),
                           summary=f"{action.player} scored {action.points}")

    def _record(self, seq: int, action: Any, before: Position, outcome: BaseOutcome, voids: int | None) -> Record:
        return Record(seq=seq, action=action, summary=outcome.summary, voids=voids, dealer=self.players[before.dealer])


class Scores(BaseGame):
    kind = "scores"
    title = "Scores"
    event_kinds = frozenset({"score", "void"})
    table = ScoresTable
    report_vocabulary = ReportVocabulary(
        columns=(Column("between", "Points", "points settled in chips"),),
        paid_in=None, between=Between("points", "points_won", "points_lost", "points", "point"),
        taken_out=None, returned=None, pot=None,
    )

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        if isinstance(action, Score):
            return "score", {"player": action.player, "points": action.points}
        return super().to_event(action)

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        return Score(payload["player"], payload["points"]) if kind == "score" else super().from_event(kind, payload)

    def closing_transfers(self, state: ScoresTable, closing: GameClosing) -> tuple[Transfer, ...]:
        """Every two players settle the difference of their points: the fewer pays the more."""
        points = state.points
        return tuple(
            Transfer(b, a, points[a] - points[b], "points") if points[a] > points[b] else Transfer(a, b, points[b] - points[a], "points")
            for i, a in enumerate(state.players) for b in state.players[i + 1:] if points[a] != points[b]
        )

    def close(self, state: ScoresTable, rules: Any) -> GameClosing:
        net = dict(state.net_chips)
        for t in self.closing_transfers(state, GameClosing(net)):
            net[t.payer] -= t.chips
            net[t.payee] += t.chips
        return GameClosing(net=net, note="Points settled in chips, a chip a point: " +
                           ", ".join(f"{t.payer} paid {t.payee} {t.chips}" for t in self.closing_transfers(state, GameClosing(net))))


SCORES = Scores()


def scores_night() -> Any:
    state = SCORES.new_state(THREE, "Ann", SCORES.rules_from_dict({}), None)
    state.push(Score("Ann", 5))
    state.push(Score("Ben", 2))
    return state


def test_points_settled_at_the_close_are_the_games_own_line_in_its_own_words_never_returned() -> None:
    state = scores_night()
    closing = SCORES.close(state, state.rules)
    assert closing.net == {"Ann": 8, "Ben": -1, "Cat": -7}
    r = build_night_report([("Scores", state, state.rules, closing, SCORES)], THREE, chip_value=Decimal("0.5"), name="Friday")
    assert {p.name: p.net_chips for p in r.players} == {"Ann": 8, "Ben": -1, "Cat": -7}
    play, close = r.games
    assert (play.closing, close.closing) == (False, True)
    assert close.label == "1st game (Scores), at its close" and close.short == "1·end"
    assert close.text.startswith("Points settled in chips") and "Cat paid Ann 5" in close.text
    assert play.text == "2 records"  # the note is the closing's line, not the play's
    ann, ben, cat = r.players
    # the play moved no chip; the closing's line holds the points, in the Points column, none "returned"
    assert ann.games[0].net == ben.games[0].net == cat.games[0].net == 0
    assert ann.games[1].won_from == (("Ben", 3), ("Cat", 5)) and ann.games[1].unfinished == 0
    assert ben.games[1].won_from == (("Cat", 2),) and ben.games[1].lost_to == (("Ann", 3),)
    assert cat.games[1].lost_to == (("Ann", 5), ("Ben", 2))
    (section,) = r.sections()
    assert r.total_of(ann, section).side_net == 8 and r.total_of(cat, section).side_net == -7
    assert ann.total.parts(r.words) == ["points +3 from Ben", "points +5 from Cat"]
    assert r.closing.pot == 0 and not any(r.closing.shares.values())
    assert [p.stack_change for p in r.players] == [8, -1, -7]
    lines = report_dict(r)["games"]
    assert lines[1]["closing"] is True and "returned" not in str(lines)
    why = " ".join(s for line in r.plan for s in line.why)
    assert "returned" not in why and "Between the two directly: Cat lost 5 to Ann in points" in why


# --- a night of Napalm and Scores: the "Why?" in each game's words --------------------------------

FOUR = ("Ann", "Ben", "Cat", "Dan")


def napalm_then_scores() -> Any:
    """Napalm, ante 1 (tests/report/test_report_words.py): Ben and Cat say Yes, Cat wins and Ben pays
    her 4; Dan alone says Yes; the pot of 4 is unfinished, each ante comes back: Ann 0, Ben −4, Cat +4,
    Dan 0.  Then Scores, the four of them: Ann scores 5, Ben 2.  At its close Ben pays Ann 3, Cat pays
    Ann 5 and Ben 2, Dan pays Ann 5 and Ben 2: Ann +13, Ben +1, Cat −7, Dan −7.  The night: Ann +13,
    Ben −3, Cat −3, Dan −7."""
    from companion.games import GAMES

    napalm = GAMES["napalm"]
    rules = napalm.rules_from_dict({"ante": 1, "tokens_to_win": 5})
    first = napalm.new_state(FOUR, "Ann", rules, None)
    napalm.read_records(first, [{"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]}, {"stage": 2, "yes": ["Dan"]}])
    second = SCORES.new_state(FOUR, "Ann", SCORES.rules_from_dict({}), None)
    second.push(Score("Ann", 5))
    second.push(Score("Ben", 2))
    return build_night_report(
        [("Napalm", first, rules, napalm.close(first, rules), napalm),
         ("Scores", second, second.rules, SCORES.close(second, second.rules), SCORES)],
        FOUR, chip_value=Decimal("0.5"), name="Friday",
    )


def test_in_a_mixed_night_the_why_says_each_games_chips_in_its_own_words() -> None:
    from companion.money.settle import Payment
    from companion.report.why import why_pair, why_plan

    r = napalm_then_scores()
    assert {p.name: p.net_chips for p in r.players} == {"Ann": 13, "Ben": -3, "Cat": -3, "Dan": -7}
    assert r.words.between is not None and r.words.between.phrase == "direct payments"  # the night's totals: neutral
    by_name = {p.name: p for p in r.players}
    why = why_plan(Payment("Ben", "Cat", 1), (), by_name, r.words, r.games)
    assert why[0] == (
        "Ben ends the night 3 chips down (Napalm: antes \u22121, side bets \u22124 to Cat, unfinished pot +1; "
        "Scores: points +2 from Cat, points +2 from Dan, points \u22123 to Ann)."
    )
    assert why[2] == (
        "Between the two directly: Ben lost 4 to Cat in side bets and won 0 from Cat; "
        "Ben lost 0 to Cat in points and won 2 from Cat."
    )
    assert why_plan(Payment("Dan", "Cat", 1), (), by_name, r.words, r.games)[2] == (
        "Dan and Cat had no side bet or point against each other."
    )
    pair = why_pair(Payment("Ben", "Cat", 2), (4, -2), by_name, r.words, r.games)
    assert pair[0].startswith("Side bets and points: Ben lost 4 to Cat and won 2 from Cat")
    every = " ".join(s for line in (*r.plan, *r.pairwise) for s in line.why)
    assert "stakes" not in every and "direct payments" not in every
