"""The report's chart series and Napalm's part of the report follow the night by appending (issue 22):
after each action what this process kept for the version before is extended with the records played
since, and must equal what the whole log, read afresh, gives; so must the report and its pages.

The oracle is the series as they were made before (``chips_over_games`` over the games of a fold
rebuilt from the log by ``play_at``) and the report page rendered with nothing kept (fresh
caches), after every action of a night of Napalm (a game to its token target won, so its games
are marked), Nap, a pot game and a betting game, with undos, a game taken back, a payment, the
Bonus Round and the bank's chip counts, and after a jump of several versions written by
"another process".  Each fallback to the whole fold is counted: extending must be what happens
when only play was appended, and never when anything else was.
"""

from __future__ import annotations

from decimal import Decimal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from companion import service as services
from companion.db.models import Night
from companion.extensions import db
from companion.games import GAMES
from companion.games.napalm import Declare, Void
from companion.games.napalm import report as napalm_report
from companion.night.file import Money
from companion.report import night_chart
from companion.report.night_chart import ChipSeries, chips_over_games
from companion.service import bank, store
from companion.service.lru import LRU
from companion.web.pages import report

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
NAPALM = {"kind": "napalm", "players": None, "first_dealer": "Ann",
          "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 2, "unfinished_pot": "return_antes"}}
GRID = {"grid": {"dice": "d20", "cells": [f"Game {i}" for i in range(1, 21)], "bonuses": {}}, "lucky_chips": 1}


class Dice:
    def randint(self, a: int, b: int) -> int:
        return 7


def afresh(night: Night) -> tuple[dict[str, list[int]], list[int]]:
    """The chart series of ``night`` at its version as they were made: the whole fold, rebuilt from the log."""
    play = store.play_at(night, night.version)
    return chips_over_games([(p.state, p.close().net) for p in play.of_the_night()], play.seated)


def pages(app: Any, night: Night) -> tuple[str, str]:
    """The scorekeeper's and the players' report pages of ``night`` as this process renders them now."""
    out = []
    for keeper in (True, False):
        with app.test_request_context("/k/x/report"):
            out.append(report.render_report(night, keeper)[0])
    return out[0], out[1]


@contextmanager
def nothing_kept() -> Iterator[None]:
    """As a new process would: nothing kept, and what this process keeps left as it was after."""
    saved = store._cache, store._derived
    store._cache, store._derived = LRU(8), LRU(64)
    try:
        yield
    finally:
        store._cache, store._derived = saved


def pages_afresh(app: Any, night: Night) -> tuple[str, str]:
    """The report pages with nothing kept."""
    with nothing_kept():
        return pages(app, night)


def report_afresh(night: Night) -> Any:
    """The report (its model) with nothing kept."""
    with nothing_kept():
        return report.report_of(night)


@pytest.fixture
def made_whole(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A mark for each series made from the whole fold (not extended)."""
    versions: list[int] = []
    real = ChipSeries.of.__func__  # type: ignore[attr-defined]

    def spy(cls: type[ChipSeries], games: Any, seated: Any) -> ChipSeries:
        versions.append(sum(table.version for _, table, _ in games))
        return real(cls, games, seated)  # type: ignore[no-any-return]

    monkeypatch.setattr(night_chart.ChipSeries, "of", classmethod(spy))
    return versions


@pytest.fixture
def summed_whole(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A mark for each time Napalm's part of the report added up every live record of its table (not extended)."""
    marks: list[int] = []
    real = napalm_report.Sums.of.__func__  # type: ignore[attr-defined]

    def spy(cls: type[Any], table: Any) -> Any:
        marks.append(1)
        return real(cls, table)

    monkeypatch.setattr(napalm_report.Sums, "of", classmethod(spy))
    return marks


def test_the_chart_series_extended_action_by_action_are_the_series_made_afresh(app, made_whole, summed_whole):
    with app.app_context():
        night_id = services.open_night("Friday", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id
        night = lambda: (db.session.rollback(), db.session.get(Night, night_id))[1]  # noqa: E731 - read afresh
        v = lambda: night().version  # noqa: E731

        def play(kind: str, event: str, payload: dict[str, Any]) -> Any:
            return lambda: services.record(night_id, GAMES[kind].from_event(event, payload), v())

        actions = [
            # (the action, whether the series may be extended from the version before it)
            (lambda: services.record(night_id, Declare(()), v()), False),  # 1: nothing kept before; ante 1 each
            (lambda: services.record(night_id, Declare(("Cat",)), v()), True),  # 2: a token to Cat
            (lambda: services.record(night_id, Void(), v()), False),  # 3: undoes 2
            (lambda: services.record(night_id, Declare(("Cat",)), v()), True),  # 4: a token to Cat
            (lambda: services.record(night_id, Declare(("Cat",)), v()), True),  # 5: Cat's 2nd: Napalm's game 1 won
            (lambda: services.record(night_id, Declare(("Dan",)), v()), True),  # 6: Napalm's 2nd game starts
            (lambda: services.mark_paid(night_id, "Ann", "Ben", 1, v()), True),  # 7: no record of a game
            (lambda: bank.record(night_id, "bonus_grid", GRID, v(), None), True),  # 8
            (lambda: bank.roll(night(), "Ben", v(), None, rng=Dice()), True),  # 9
            # 10: Nap started, nothing in it yet: no game of the night, the chart as it was (issue 35)
            (lambda: services.start_game(night_id, "nap", None, "Ben", {"variant": "pool"}, v()), True),
            (play("nap", "deal", {"bidder": "Cat", "bid": 2, "made": True}), False),  # 11: Nap's first deal: its game starts
            (play("nap", "deal", {"bidder": "Dan", "bid": "nap", "made": True}), True),  # 12
            (play("nap", "void", {}), False),  # 13: undoes 12
            (play("nap", "deal", {"bidder": "Ann", "bid": 3, "made": False}), True),  # 14
            (lambda: services.start_game(night_id, "pots", ["Ann", "Ben", "Cat"], "Ann",
                                         {"preset": "high_card"}, v()), True),  # 15: nothing in it
            (lambda: services.take_back_game(night_id, 3, v()), True),  # 16: game 3 taken back, as empty as before
            (play("nap", "deal", {"bidder": "Ben", "bid": 2, "made": True}), True),  # 17: Nap again, after a take-back
            (play("nap", "deal", {"bidder": "Cat", "bid": 2, "made": False}), True),  # 18
            (lambda: services.start_game(night_id, "pots", ["Ann", "Ben", "Cat"], "Ann",
                                         {"preset": "nasdaq"}, v()), True),  # 19: game 4, nothing in it yet
            (play("pots", "sale", {"seller": "Cat", "buyer": "Ben", "price": 4}), False),  # 20: its first record
            (play("pots", "win", {"winners": ["Ann"]}), True),  # 21
            (play("pots", "void", {}), False),  # 22: undoes 21
            (play("pots", "win", {"winners": ["Ben"]}), True),  # 23
            # 24: a game whose chips the app never sees is a game of the night with no record yet
            (lambda: services.start_game(night_id, "betting", None, "Ann", {"variant": "Texas hold'em"}, v()), False),
            (play("betting", "deal", {}), True),  # 25
            (play("betting", "void", {}), False),  # 26
            (play("betting", "deal", {"dealer": "Ann"}), True),  # 27
            (lambda: bank.record(night_id, "all_buy_in", {"chips": 50}, v(), None), True),  # 28: the bank's counts
            (lambda: bank.record(night_id, "cash_out", {"player": "Ann", "chips": 80}, v(), None), True),  # 29
            (play("betting", "deal", {}), True),  # 30
        ]
        summed_at = []  # the actions after which Napalm's part added up its whole table
        for number, (action, appended) in enumerate(actions, start=1):
            action()
            assert v() == number
            made = len(made_whole)
            chips = report.chip_series(night())
            assert (len(made_whole) == made) == appended, f"after action {number}: extended {appended}"
            series, starts = afresh(night())
            assert {name: list(points) for name, points in chips.series.items()} == series, f"after action {number}"
            assert list(chips.game_starts) == starts, f"after action {number}"
            whole = ChipSeries.of([(p.number, p.state, p.close().net) for p in store.play_at(night(), v()).of_the_night()],
                                  night().players)
            assert chips == whole, f"after action {number}"
            summed = len(summed_whole)
            kept_report = report.report_of(night())
            if len(summed_whole) > summed:
                summed_at.append(number)
            assert kept_report == report_afresh(night()), f"after action {number}"
            assert pages(app, night()) == pages_afresh(app, night()), f"after action {number}"
        # extended exactly when only play was appended since the version before: never after an undo, nor
        # when a game's first record makes it a game of the night (the first action: nothing was kept); a game
        # started or taken back with nothing in it changes nothing of the chart; and so most of the time
        assert sum(appended for _, appended in actions) == 22
        # Napalm's sums: added up whole at the first report (nothing kept), after its undo (3) and when
        # Nap started (10: Napalm is then the night's game 1, no longer its only game 0, although Nap with
        # nothing in it is no game of the night: Napalm is no longer the game at the table); else extended,
        # or, once it is over, the same (a game taken back after it, 16, changes nothing of it)
        assert summed_at == [1, 3, 10]
        # another process records three deals: the next read extends by all three at once
        for _ in range(3):
            services.record(night_id, GAMES["betting"].from_event("deal", {}), v())
        before = len(made_whole)
        chips = report.chip_series(night())
        assert len(made_whole) == before
        assert {name: list(points) for name, points in chips.series.items()} == afresh(night())[0]
        assert report.report_of(night()) == report_afresh(night())
        assert pages(app, night()) == pages_afresh(app, night())


def test_the_series_by_hand():
    """A night of two Napalm games to a target of 1 token, and one Nap deal after, worked out by hand.

    Napalm, ante 1 from each of Ann, Ben, Cat every hand, the one who says Yes alone takes the pot:
    Ben says Yes (Ann -1, Ben +2, Cat -1: a token, Napalm's game 1 won), then Cat (Ann -2, Ben +1,
    Cat +1): the second of Napalm's games starts at the second record.
    """
    kind = GAMES["napalm"]
    rules = kind.rules_from_dict({"ante": 1, "ante_every": 1, "tokens_to_win": 1, "unfinished_pot": "return_antes"})
    state = kind.new_state(("Ann", "Ben", "Cat"), "Ann", rules, None)
    state.push(Declare(("Ben",)))
    games = [(1, state, {"Ann": 0, "Ben": 0, "Cat": 0})]
    kept = ChipSeries.of(games, ("Ann", "Ben", "Cat"))
    assert dict(kept.series) == {"Ann": (0, -1), "Ben": (0, 2), "Cat": (0, -1)}
    state.push(Declare(("Cat",)))
    chips = kept.extended(games)
    assert chips is not None
    assert dict(chips.series) == {"Ann": (0, -1, -2), "Ben": (0, 2, 1), "Cat": (0, -1, 1)}
    assert chips.game_starts == (1,)
    state.push(Void())  # an undo: not extended
    assert chips.extended(games) is None
