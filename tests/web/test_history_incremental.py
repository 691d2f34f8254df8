"""The history's lines follow the night by appending (issue 22): after each action the lines this
process kept for the version before are extended with the events recorded since, never remade
from the whole night, and they must equal what the whole log, read afresh, gives.

The oracle here is the history as it was made before (every event read, every game folded anew
from the log by ``play_at``, each game's records paired with its events in order), after every
action of a night with undos, a game taken back, three games, a payment marked paid and the
bank's events, and after a jump of several versions written by "another process".  The night
file, written by extending the last version's text (companion/night/file_text.py), is checked
the same way against the file written whole.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from companion import service as services
from companion.db.models import Night
from companion.extensions import db
from companion.games.napalm import Declare, Void
from companion.games.web import SCREENS
from companion.night import file as nightfile
from companion.night.file import Money
from companion.service import bank, night_ledger, store
from companion.web.pages import history

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
NAPALM = {"kind": "napalm", "players": None, "first_dealer": "Ann",
          "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5, "unfinished_pot": "return_antes"}}
GRID = {"grid": {"dice": "d20", "cells": [f"Game {i}" for i in range(1, 21)], "bonuses": {}}, "lucky_chips": 1}


class Dice:
    def randint(self, a: int, b: int) -> int:
        return 7


def afresh(night: Night) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The history of ``night`` at its version from its whole log, nothing kept used (the way it was made)."""
    play = store.play_at(night, night.version)
    position = {game.id: game.position for game in night.games}
    events = [e for e in services.events_of(night) if e.seq <= night.version]
    by_game: dict[int, list[Any]] = {}
    for e in events:
        if e.game_id is not None and e.kind != services.GAME_STARTED:
            by_game.setdefault(position[e.game_id], []).append(e)
    rows = sorted(
        (
            (e.seq, e.kind, e.payload, e.created_at, e.recorded_by, e.game_id, p.number, p.title,
             SCREENS[p.game.kind].parts_template, record)
            for p in play.games
            for record, e in zip(p.state.log, by_game.get(p.number, []))
        ),
        key=lambda row: row[0],
    )
    others = [(e.seq, e.kind, e.payload, e.created_at, e.recorded_by, e.game_id)
              for e in events if e.game_id is None or e.kind == services.GAME_STARTED]
    return rows, others


def whole_file(night: Night) -> str:
    """The night file written whole from the log, nothing kept used."""
    play = store.play_at(night, night.version)
    return nightfile.dumps(
        night.name, play, services.money_of(night), night_ledger.ledger_of(night), night_ledger.paid_payments(night)
    )


def kept(night: Night) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The history as the page reads it: the lines this process keeps, extended."""
    rows, others = history.history_lines(night)
    return (
        [(r.event.seq, r.event.kind, r.event.payload, r.event.created_at, r.event.recorded_by, r.event.game_id,
          r.game, r.title, r.parts, r.record) for r in rows],
        [(e.seq, e.kind, e.payload, e.created_at, e.recorded_by, e.game_id) for e in others],
    )


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``since`` of each read of the log the history makes."""
    since: list[int] = []
    real = services.events_after

    def spy(night: Night, after: int) -> list[Any]:
        since.append(after)
        return real(night, after)

    monkeypatch.setattr(services, "events_after", spy)
    return since


def test_the_history_extended_action_by_action_is_the_history_read_afresh(app, reads):
    with app.app_context():
        night_id = services.open_night("Friday", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id
        night = lambda: (db.session.rollback(), db.session.get(Night, night_id))[1]  # noqa: E731 - read afresh
        v = lambda: night().version  # noqa: E731
        actions = [
            lambda: services.record(night_id, Declare(("Ben", "Cat")), v()),  # 1
            lambda: services.record(night_id, Void(), v()),  # 2: undoes 1
            lambda: services.record(night_id, Declare(("Ben",)), v()),  # 3
            lambda: services.mark_paid(night_id, "Ann", "Ben", 1, v()),  # 4
            lambda: services.start_game(night_id, "napalm", None, None, None, v()),  # 5: game 2
            lambda: services.take_back_game(night_id, 2, v()),  # 6: game 2 taken back
            lambda: services.record(night_id, Declare(()), v()),  # 7: game 1 again
            lambda: services.start_game(night_id, "napalm", None, "Ben", None, v()),  # 8: game 3
            lambda: services.record(night_id, Declare(("Cat", "Dan")), v()),  # 9
            lambda: services.record(night_id, Void(), v()),  # 10: undoes 9
            lambda: bank.record(night_id, "bonus_grid", GRID, v(), None),  # 11
            lambda: bank.roll(night(), "Ben", v(), None, rng=Dice()),  # 12
            lambda: services.record(night_id, Declare(()), v()),  # 13
        ]
        for number, action in enumerate(actions, start=1):
            action()
            assert v() == number
            assert kept(night()) == afresh(night()), f"after action {number}"
            assert services.export_history(night()) == whole_file(night()), f"after action {number}"
        # the first read was of the whole log (nothing kept at version 0), each later one only what was added
        assert reads == list(range(0, len(actions)))
        # another process records three actions: the next read takes all three, not one
        for _ in range(3):
            services.record(night_id, Declare(()), v())
        assert kept(night()) == afresh(night())
        assert services.export_history(night()) == whole_file(night())
        assert reads[-1] == 13 and v() == 16
        rows, others = kept(night())
        # by hand: every game record (Napalm's declares and undos) in order; the start, take-back,
        # payment and bank events are the night's ledger
        assert [row[0] for row in rows] == [1, 2, 3, 7, 9, 10, 13, 14, 15, 16]
        assert [(row[0], row[6]) for row in rows if row[0] >= 9] == [(9, 3), (10, 3), (13, 3), (14, 3), (15, 3), (16, 3)]
        assert [(e[0], e[1]) for e in others] == [
            (4, "paid"), (5, "game"), (6, "game_taken_back"), (8, "game"), (11, "bonus_grid"), (12, "bonus_roll")]


def test_with_nothing_kept_the_history_is_read_whole_and_the_same(app, reads):
    with app.app_context():
        night_id = services.open_night("Friday", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id
        for version in range(4):
            services.record(night_id, Declare(("Ben",)) if version % 2 == 0 else Void(), version)
        db.session.rollback()
        night = db.session.get(Night, night_id)
        first = kept(night)
        services.clear_cache()  # as a new process: nothing kept
        assert kept(night) == first == afresh(night)
        assert reads == [0, 0]
        assert [row[0] for row in first[0]] == [1, 2, 3, 4] and first[1] == []


def test_the_history_page_made_from_kept_rows_is_the_page_made_afresh_and_makes_only_new_rows(app, monkeypatch):
    """Each row's HTML is kept and reused while its record, its undo and its game's numbering stay the
    same (issue 22): after each action the page equals the page made with nothing kept, and only the
    rows that are new or show something new are made again."""
    made: list[int] = []  # the event number of each row made from the template
    real = history.get_template_attribute

    def counting(template: str, name: str) -> Any:
        macro = real(template, name)
        if name != "row":
            return macro
        return lambda row, *rest: (made.append(row.event.seq), macro(row, *rest))[1]

    monkeypatch.setattr(history, "get_template_attribute", counting)
    client = app.test_client()
    with app.app_context():
        night_id = services.open_night("Friday", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id
        night = lambda: (db.session.rollback(), db.session.get(Night, night_id))[1]  # noqa: E731 - read afresh
        v = lambda: night().version  # noqa: E731
        key = night().keeper_key
        actions = [
            lambda: services.record(night_id, Declare(()), v()),  # 1
            lambda: services.record(night_id, Declare(()), v()),  # 2
            lambda: services.record(night_id, Void(), v()),  # 3: undoes 2, whose row now says so
            lambda: services.mark_paid(night_id, "Ann", "Ben", 1, v()),  # 4: no game's row
            lambda: services.record(night_id, Declare(()), v()),  # 5
            lambda: services.start_game(night_id, "napalm", None, None, None, v()),  # 6: game 2: each row names its game
            lambda: services.take_back_game(night_id, 2, v()),  # 7: game 2 taken back: one game again
            lambda: services.record(night_id, Declare(()), v()),  # 8
            lambda: services.start_game(night_id, "napalm", None, "Ben", None, v()),  # 9: game 3, the 2nd played
            lambda: services.record(night_id, Declare(()), v()),  # 10: in game 3
        ]
        # by hand, newest first, the rows each action's page makes: its own, and each one whose undo or game changed
        expected = [[1], [2], [3, 2], [], [5], [5, 3, 2, 1], [5, 3, 2, 1], [8], [8, 5, 3, 2, 1], [10]]
        pages = []
        for number, action in enumerate(actions, start=1):
            action()
            made.clear()
            page = client.get(f"/k/{key}/history")
            assert page.status_code == 200
            assert made == expected[number - 1], f"after action {number}"
            services.clear_cache()  # as a new process: nothing kept, every row made
            afresh_page = client.get(f"/k/{key}/history")
            assert page.get_data(as_text=True) == afresh_page.get_data(as_text=True), f"after action {number}"
            pages.append(page.get_data(as_text=True))
        assert "(undone by #3)" in pages[2] and "(undone by" not in pages[1]
        assert "1st game (" in pages[5] and "1st game (" not in pages[6] and "2nd game (" in pages[9]
