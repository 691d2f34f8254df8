"""The unit of work (companion/service/uow.py): every command goes through the same checks.

A stale version changes nothing; the same request key again is answered with the first
result and records once; a request key reused for another command is refused; and the
bank's commands and the Bonus Round's rolls go through the very same checks as a game's
action.  Every value below is worked out by hand from the night's seating and the grid.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import OperationalError

from companion import service as services
from companion.db.models import Event, Night
from companion.extensions import db
from companion.games.napalm import Declare
from companion.night.file import Money
from companion.service import bank, store
from companion.service.uow import Command, Entry, KeyConflict, Recorded, StaleTable, UnitOfWork
from conftest import EXTERNAL_DB

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]  # Ann deals first
#: Napalm with an ante of 1 chip every stage: a stage where nobody says Yes puts 4 chips in the pot
NAPALM = {"kind": "napalm", "players": None, "first_dealer": "Ann",
          "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5, "unfinished_pot": "return_antes"}}
#: a 2d6 grid whose cell 1-1 pays its roller 2 chips from everyone
GRID = {
    "grid": {
        "dice": "2d6",
        "cells": [[f"Game {r}-{c}" for c in range(1, 7)] for r in range(1, 7)],
        "bonuses": {"1-1": {"kind": "everyone_pays_dealer", "chips": 2}},
    },
    "lucky_chips": 1,
}
KEY = "k" * 43
OTHER_KEY = "o" * 43


class Dice:
    """The app's dice, made to land on the faces given; counts how often it was rolled."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)
        self.rolled = 0

    def randint(self, a: int, b: int) -> int:
        self.rolled += 1
        return self.faces.pop(0)


@pytest.fixture
def night_id(app) -> int:  # type: ignore[no-untyped-def]
    with app.app_context():
        return services.open_night("Friday", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id


def counts(night_id: int) -> tuple[int, int]:
    """(the night's version, the events in its log): what a refused command must leave alone."""
    db.session.rollback()
    night = db.session.get(Night, night_id, populate_existing=True)
    events = db.session.scalar(select(func.count(Event.id)).where(Event.night_id == night_id))
    return night.version, events


def test_a_stale_version_changes_nothing(app, night_id):
    with app.app_context():
        first = services.record(night_id, Declare(()), 0, "a" * 43)
        assert (first.seq, first.repeated) == (1, False)
        assert counts(night_id) == (1, 1)
        pot_before = services.play_for(db.session.get(Night, night_id)).current.state.pot

        with pytest.raises(StaleTable) as stale:  # another phone's form, made at version 0
            services.record(night_id, Declare(("Ben",)), 0, "b" * 43)
        assert stale.value.current_version == 1
        with pytest.raises(StaleTable):
            services.mark_paid(night_id, "Ann", "Ben", 1, 0, "c" * 43)
        with pytest.raises(StaleTable):
            services.start_game(night_id, "napalm", None, None, None, 0, "d" * 43)

        assert counts(night_id) == (1, 1)
        # the fold this process keeps was not moved either: one stage, nobody said Yes, 4 antes of 1
        night = db.session.get(Night, night_id)
        assert services.play_for(night).current.state.pot == pot_before == 4


def test_a_repeated_request_key_answers_the_first_result_and_records_once(app, night_id):
    with app.app_context():
        first = services.record(night_id, Declare(()), 0, KEY)
        # the same submit, sent four more times: from the version it was made for, and from later ones
        again = [services.record(night_id, Declare(()), 0, KEY) for _ in range(3)]
        services.record(night_id, Declare(()), 1, "x" * 43)  # the next stage, another key: version 2
        late = services.record(night_id, Declare(()), 0, KEY)

        assert first == Recorded(seq=1, summary="Ante 1 each, pot 4. Nobody said Yes.", repeated=False)
        assert again == [Recorded(seq=1, summary=first.summary, repeated=True)] * 3
        assert late == Recorded(seq=1, summary=first.summary, repeated=True)
        assert counts(night_id) == (2, 2)  # the key's submit once, the other one once
        keys = db.session.scalars(select(Event.request_key).where(Event.night_id == night_id).order_by(Event.seq))
        assert list(keys) == [KEY, "x" * 43]


def test_a_request_key_reused_for_another_command_is_refused(app, night_id):
    with app.app_context():
        services.record(night_id, Declare(()), 0, KEY)
        refused = [
            lambda: services.record(night_id, Declare(("Ben",)), 1, KEY),  # the same action, other content
            lambda: services.mark_paid(night_id, "Ann", "Ben", 1, 1, KEY),
            lambda: services.start_game(night_id, "napalm", None, None, None, 1, KEY),
            lambda: services.take_back_game(night_id, 1, 1, KEY),
            lambda: bank.record(night_id, "all_buy_in", {"chips": 100}, 1, KEY),
            lambda: bank.record(night_id, "bonus_grid", GRID, 1, KEY),
        ]
        for command in refused:
            with pytest.raises(KeyConflict):
                command()
        assert counts(night_id) == (1, 1)


def test_a_bank_command_goes_through_the_same_checks(app, night_id):
    with app.app_context():
        buy_in = bank.record(night_id, "all_buy_in", {"chips": 100}, 0, KEY)
        # 100 chips at 0.25 EUR: 25 EUR each
        assert buy_in == Recorded(1, "Everyone bought in 100 chips (25.00 EUR): Ann, Ben, Cat and Dan.")
        assert bank.record(night_id, "all_buy_in", {"chips": 100}, 0, KEY) == Recorded(1, buy_in.summary, True)
        with pytest.raises(KeyConflict):
            bank.record(night_id, "all_buy_in", {"chips": 200}, 1, KEY)
        with pytest.raises(StaleTable) as stale:
            bank.record(night_id, "buy_in", {"player": "Ann", "chips": 50}, 0, OTHER_KEY)
        assert stale.value.current_version == 1
        assert counts(night_id) == (1, 1)
        night = db.session.get(Night, night_id)
        assert bank.ledger_of(night).bank.bought == {"Ann": 100, "Ben": 100, "Cat": 100, "Dan": 100}


def test_a_bonus_round_roll_goes_through_the_same_checks_and_never_rolls_twice(app, night_id):
    with app.app_context():
        bank.record(night_id, "bonus_grid", GRID, 0, None)
        night = db.session.get(Night, night_id)
        dice = Dice(1, 1)
        first = bank.roll(night, "Ben", 1, KEY, rng=dice)
        # Ben rolled 1-1, the bonus cell: Ann, Cat and Dan pay him 2 each
        assert first == Recorded(2, "Ben rolled 1-1: Game 1-1. Bonus: everyone pays Ben 2.")
        assert dice.rolled == 2  # two dice, once

        unused = Dice(6, 6)
        night = db.session.get(Night, night_id)
        assert bank.roll(night, "Ben", 1, KEY, rng=unused) == Recorded(2, first.summary, repeated=True)
        with pytest.raises(KeyConflict):  # the same key asking for Cat's roll
            bank.roll(night, "Cat", 1, KEY, rng=unused)
        with pytest.raises(KeyConflict):  # the same key for a lucky number
            bank.roll_lucky(night, "Ben", 1, KEY, rng=unused)
        with pytest.raises(StaleTable):  # a roll made for the version before the first one
            bank.roll(night, "Cat", 1, OTHER_KEY, rng=unused)
        assert unused.rolled == 0  # no roll refused or repeated ever threw the dice

        assert counts(night_id) == (2, 2)
        night = db.session.get(Night, night_id)
        assert bank.ledger_of(night).bonus_net == {"Ann": -2, "Ben": 6, "Cat": -2, "Dan": -2}


def test_a_lucky_number_sent_again_is_the_one_first_rolled(app, night_id):
    with app.app_context():
        bank.record(night_id, "bonus_grid", GRID, 0, None)
        night = db.session.get(Night, night_id)
        first = bank.roll_lucky(night, "Ann", 1, KEY, rng=Dice(3, 4))
        assert first == Recorded(2, "Ann's lucky number is 3-4.")
        assert bank.roll_lucky(night, "Ann", 1, KEY, rng=Dice(5, 6)) == Recorded(2, first.summary, repeated=True)
        with pytest.raises(KeyConflict):
            bank.roll_lucky(night, "Ben", 1, KEY, rng=Dice(5, 6))
        assert bank.ledger_of(db.session.get(Night, night_id)).lucky == {"Ann": (3, 4)}


def test_starting_a_game_sent_again_answers_with_the_game_it_started(app, night_id):
    """The app numbers the game it starts: the same form again asked for that game, not one more after it."""
    with app.app_context():
        services.record(night_id, Declare(()), 0)
        started = services.start_game(night_id, "napalm", None, "Ben", None, 1, KEY)
        assert started.seq == 2 and started.summary.startswith("Game 2 of the night: Napalm starts, Ben deals.")
        assert services.start_game(night_id, "napalm", None, "Ben", None, 1, KEY) == Recorded(2, started.summary, True)
        with pytest.raises(KeyConflict):  # the same key, another dealer
            services.start_game(night_id, "napalm", None, "Cat", None, 1, KEY)
        night = db.session.get(Night, night_id)
        assert [g.position for g in night.games] == [1, 2] and counts(night_id) == (2, 2)


# --- the unit itself ---------------------------------------------------------------------------


def test_a_unit_left_without_a_commit_writes_nothing(app, night_id):
    with app.app_context():
        with UnitOfWork() as uow:
            uow.night(night_id).name = "Saturday"
        with pytest.raises(RuntimeError):
            with UnitOfWork() as uow:
                uow.night(night_id).name = "Sunday"
                raise RuntimeError("a command that failed half-way")
        db.session.expire_all()
        assert db.session.get(Night, night_id).name == "Friday"


def test_a_command_runs_in_one_unit_never_two_nested(app, night_id):
    with app.app_context():
        with UnitOfWork():
            with pytest.raises(RuntimeError, match="already open"):
                with UnitOfWork():
                    pass


def test_a_command_refused_by_its_own_check_writes_nothing_and_keeps_the_key_free(app, night_id):
    """The command's check (``decide``) refuses: nothing is written, and the same key can carry a legal
    submit afterwards (the key records a submit only once it is written)."""
    with app.app_context():
        with pytest.raises(services.IllegalAction, match="a payment is between two different players"):
            services.mark_paid(night_id, "Ann", "Ann", 1, 0, KEY)
        assert counts(night_id) == (0, 0)
        assert services.record(night_id, Declare(()), 0, KEY).seq == 1


def test_the_unit_checks_before_its_command_does(app, night_id):
    """The order every command gets: the key, then the version, then the command's own check (here a
    roller who is not seated, which a stale form is not even asked about)."""
    with app.app_context():
        bank.record(night_id, "bonus_grid", GRID, 0, None)
        night = db.session.get(Night, night_id)
        decided: list[int] = []

        def decide(night: Night, play: Any) -> Entry:
            decided.append(night.version)
            return Entry({"chips": 10}, "checked")

        command = Command(night_id, "all_buy_in", {"chips": 10}, 0, KEY)
        with pytest.raises(StaleTable):
            with UnitOfWork() as uow:
                uow.append(command, decide)
        with pytest.raises(StaleTable):
            bank.roll(night, "Nobody", 0, OTHER_KEY, rng=Dice())
        assert decided == []
        with UnitOfWork() as uow:
            assert uow.append(Command(night_id, "all_buy_in", {"chips": 10}, 1, KEY), decide) == Recorded(2, "checked")
        assert decided == [1]


@pytest.mark.skipif(bool(EXTERNAL_DB), reason="SQLite's write lock: PostgreSQL locks the night's row instead")
def test_the_unit_holds_the_write_lock_from_its_first_read(app, night_id):
    """On SQLite the unit begins ``BEGIN IMMEDIATE``: another writer waits from the unit's first read on."""
    with app.app_context():
        path = db.engine.url.database
        with UnitOfWork() as uow:
            uow.night(night_id)
            other = sqlite3.connect(path, timeout=0)
            try:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            finally:
                other.close()
        other = sqlite3.connect(path, timeout=0)
        try:
            other.execute("BEGIN IMMEDIATE")  # the unit ended: the lock is free again
            other.execute("ROLLBACK")
        finally:
            other.close()


def test_the_kept_fold_follows_each_commit(app, night_id):
    with app.app_context():
        for version in range(4):  # nobody says Yes four times: a hand is three stages, the fourth begins hand 2
            services.record(night_id, Declare(()), version)
            kept = store._cache.get(night_id)
            # kept from the second action on (play has started: version > 0), moved on by each commit
            assert (kept[0] if kept else None) == (None if version == 0 else version + 1)
        assert kept[1].current.state.pot == 8  # hand 1 and hand 2 each ante 1 × 4 players


def test_the_unit_locks_the_nights_row_on_postgresql(app, night_id):
    """On PostgreSQL the unit locks the night's row from its first read: another command on the night waits."""
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("PostgreSQL's row lock: SQLite holds every writer at BEGIN IMMEDIATE instead")
        lock = text("SELECT id FROM night WHERE id = :id FOR UPDATE NOWAIT")
        with UnitOfWork() as uow:
            uow.night(night_id)
            with db.engine.connect() as other:
                with pytest.raises(OperationalError, match="could not obtain lock"):
                    other.execute(lock, {"id": night_id})
        with db.engine.connect() as other:
            assert other.execute(lock, {"id": night_id}).scalar() == night_id  # the unit ended: free again
            other.rollback()


def test_many_nights_are_locked_in_one_query_in_the_order_of_their_ids(app):
    """A tab payment over a group's nights locks them all at once: one SELECT, ordered by id."""
    from sqlalchemy import event

    with app.app_context():
        ids = [services.open_night(f"Night {i}", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id for i in range(3)]
        seen: list[str] = []

        def keep(_conn, _cursor, statement, *_rest):  # type: ignore[no-untyped-def]
            seen.append(statement)

        with UnitOfWork() as uow:
            event.listen(db.engine, "before_cursor_execute", keep)
            try:
                locked = uow.nights([ids[2], ids[0], ids[1]])
                assert uow.night(ids[1]) is locked[ids[1]]  # held by the unit: not read again
            finally:
                event.remove(db.engine, "before_cursor_execute", keep)
        assert list(locked) == [ids[2], ids[0], ids[1]]  # as asked for
        assert [n.name for n in locked.values()] == ["Night 2", "Night 0", "Night 1"]
        night_reads = [s for s in seen if "FROM night " in s or "FROM night\n" in s]
        assert len(night_reads) == 1 and "ORDER BY night.id" in night_reads[0]
        if db.engine.dialect.name == "postgresql":
            assert "FOR UPDATE" in night_reads[0]


def test_a_night_that_does_not_exist_among_many_is_refused(app, night_id):
    with app.app_context():
        with UnitOfWork() as uow, pytest.raises(services.IllegalAction, match="this night does not exist"):
            uow.nights([night_id, night_id + 1000])


def test_the_unit_locks_many_nights_rows_on_postgresql(app):
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("PostgreSQL's row lock: SQLite holds every writer at BEGIN IMMEDIATE instead")
        ids = [services.open_night(f"Night {i}", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id for i in range(3)]
        lock = text("SELECT id FROM night WHERE id = :id FOR UPDATE NOWAIT")
        with UnitOfWork() as uow:
            uow.nights(ids)
            with db.engine.connect() as other:
                for night_id in ids:
                    with pytest.raises(OperationalError, match="could not obtain lock"):
                        other.execute(lock, {"id": night_id})
                    other.rollback()
        with db.engine.connect() as other:
            assert [other.execute(lock, {"id": i}).scalar() for i in ids] == ids  # the unit ended: free again
            other.rollback()


def test_new_keys_are_each_what_new_key_makes_and_all_different(monkeypatch):
    """Forty keys from one read of the system's randomness, each the URL-safe base64 of its own 32 bytes."""
    import base64
    import os as os_module

    from companion.service import uow

    reads: list[int] = []
    real = os_module.urandom

    def counted(size: int) -> bytes:
        reads.append(size)
        return real(size)

    monkeypatch.setattr(uow.os, "urandom", counted)
    keys = uow.new_keys(40)
    assert reads == [40 * 32]  # one read
    assert len(keys) == len(set(keys)) == 40
    # 32 bytes are 256 bits: 43 characters of 6 bits, unpadded, decoding back to 32 bytes
    assert all(len(key) == 43 and base64.urlsafe_b64decode(key + "=") and len(base64.urlsafe_b64decode(key + "=")) == 32
               for key in keys)
    assert all(set(key) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for key in keys)
    monkeypatch.setattr(uow.os, "urandom", lambda size: bytes(range(32)) * (size // 32))
    # the same bytes new_key would make its key of (secrets.token_urlsafe: base64 of os.urandom(32), unpadded)
    assert uow.new_keys(1) == [base64.urlsafe_b64encode(bytes(range(32))).rstrip(b"=").decode()]
    assert uow.new_keys(0) == []
