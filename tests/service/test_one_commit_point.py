"""Every command of the service runs in one unit of work, and the unit is the one place that commits.

Read two ways: by running each command once and counting the units it opened and the
commits they made (one each), and by reading the service's source: ``commit()`` is called
in ``companion/service/uow.py`` alone, and no module of the service reaches for another's
private names (the bank once called the write path's ``_append``).
"""

from __future__ import annotations

import ast
import datetime
from collections.abc import Callable, Iterator
from decimal import Decimal
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest

from companion import service as services
from companion.db.models import Group, Night
from companion.extensions import db
from companion.games.napalm import Declare
from companion.group.tab import Overpayment, TabPayment
from companion.night.file import Money
from companion.service import bank
from companion.service.uow import UnitOfWork
from security.support import history_file
from service.group_support import CHIPS, everything, group_of_three, played_night, poker

SERVICE = Path(__file__).resolve().parents[2] / "companion" / "service"
PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
MONEY = Money(Decimal("0.25"), "EUR")


def napalm(unfinished_pot: str = "return_antes") -> dict[str, Any]:
    return {"kind": "napalm", "players": None, "first_dealer": "Ann",
            "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5, "unfinished_pot": unfinished_pot}}


GRID = {"grid": {"dice": "d20", "cells": [f"Game {i}" for i in range(1, 21)], "bonuses": {}}, "lucky_chips": 1}


class Dice:
    def randint(self, a: int, b: int) -> int:
        return 7


@pytest.fixture
def units(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What the units of work did, in order: "open" as one is entered, "commit" as it commits."""
    seen: list[str] = []
    enter, commit = UnitOfWork.__enter__, UnitOfWork.commit

    def entering(self: UnitOfWork) -> UnitOfWork:
        seen.append("open")
        return enter(self)

    def committing(self: UnitOfWork) -> None:
        seen.append("commit")
        commit(self)

    monkeypatch.setattr(UnitOfWork, "__enter__", entering)
    monkeypatch.setattr(UnitOfWork, "commit", committing)
    yield seen


def version(night_id: int) -> int:
    db.session.rollback()
    return db.session.get(Night, night_id).version


def test_every_command_opens_one_unit_and_commits_once(app, units):
    with app.app_context():
        night_id = services.open_night("Friday", PLAYERS, MONEY, napalm()).id
        carried_id = services.open_night("Saturday", PLAYERS, MONEY, napalm("carry")).id
        night = lambda: db.session.get(Night, night_id)  # noqa: E731 - read afresh for each command
        commands: list[tuple[str, Callable[[], Any]]] = [
            ("update_setup", lambda: services.update_setup(night(), "Friday night", PLAYERS, "Ben", napalm()["rules"], MONEY, 0)),
            ("record", lambda: services.record(night_id, Declare(()), 0)),
            ("mark_paid", lambda: services.mark_paid(night_id, "Ann", "Ben", 1, 1)),
            ("start_game", lambda: services.start_game(night_id, "napalm", None, None, None, 2)),
            ("take_back_game", lambda: services.take_back_game(night_id, 2, 3)),
            ("bank.record", lambda: bank.record(night_id, "bonus_grid", GRID, 4, None)),
            ("bank.roll", lambda: bank.roll(night(), "Ben", 5, None, rng=Dice())),
            ("bank.roll_lucky", lambda: bank.roll_lucky(night(), "Cat", 6, None, rng=Dice())),
            ("rotate_link", lambda: services.rotate_link(night(), "viewer")),
            ("import_history", lambda: services.import_history(history_file())),
            ("carry_pot", lambda: services.carry_pot(db.session.get(Night, carried_id), version(carried_id))),
        ]
        services.record(carried_id, Declare(("Ben",)), 0)  # Ben alone said Yes: the ante makes a pot of 4 to carry
        units.clear()
        done = []
        for name, command in commands:
            command()
            done.append((name, units.copy()))
            units.clear()
        assert done == [(name, ["open", "commit"]) for name, _ in commands]
        assert version(night_id) == 7  # record, paid, start, take back, grid, roll, lucky


def test_a_refused_or_repeated_command_opens_one_unit_and_commits_nothing(app, units):
    with app.app_context():
        night_id = services.open_night("Friday", PLAYERS, MONEY, napalm()).id
        services.record(night_id, Declare(()), 0, "k" * 43)
        units.clear()
        services.record(night_id, Declare(()), 0, "k" * 43)  # repeated
        with pytest.raises(services.StaleTable):
            services.record(night_id, Declare(()), 0)
        with pytest.raises(services.KeyConflict):
            bank.record(night_id, "all_buy_in", {"chips": 10}, 1, "k" * 43)
        with pytest.raises(services.IllegalAction):
            services.mark_paid(night_id, "Ann", "Ann", 1, 1)
        assert units == ["open"] * 4


def group(group_id: int) -> Group:
    db.session.rollback()
    return db.session.get(Group, group_id)


def test_every_group_command_opens_one_unit_and_commits_once(app, units):
    """The group's commands, each once, on the group "Fridays" at version 7 (service.group_support)."""
    with app.app_context():
        group_id, (n1, n2, n3) = group_of_three()
        n4 = played_night("N4", {"Ann": 60, "Danny": 40}, CHIPS, datetime.date(2025, 3, 7))
        exported = services.export_group(group(group_id))
        iban = {"iban": "DE89 3704 0044 0532 0130 00", "holder": "Ann Lee", "bic": ""}
        commands: list[tuple[str, Callable[[], Any]]] = [
            ("open_group", lambda: services.open_group("Saturdays")),
            ("add_member", lambda: services.add_member(group_id, "Eve", 7, None)),  # 8
            ("keep_night", lambda: services.keep_night(group_id, n4.id, 8, None, add_new=("Danny",))),  # 9 Danny, 10 N4
            ("merge_members", lambda: services.merge_members(group_id, "Dan", "Danny", 10, None)),  # 11
            ("rename_member", lambda: services.rename_member(group_id, "Eve", "Evie", 11, None)),  # 12
            ("set_handle", lambda: services.set_handle(group_id, "Ann", "iban", iban, 12, None)),  # 13
            ("remove_handle", lambda: services.remove_handle(group_id, "Ann", "iban", 13, None)),  # 14
            # Dan owes 2.00 on N1 and 2.00 on N2; Ben is owed 3.00 on N2: 15
            ("pay_tab", lambda: services.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("3.00"))], 14, None)),
            ("open_night_in_group", lambda: services.open_night_in_group(group_id, "N5", ["Ann", "Cat"], CHIPS, poker("Ann"))),  # 16
            ("import_group", lambda: services.import_group(exported)),
            ("rotate_group_link", lambda: services.rotate_group_link(group(group_id), "members")),
        ]
        units.clear()
        done = []
        for name, command in commands:
            command()
            done.append((name, units.copy()))
            units.clear()
        assert done == [(name, ["open", "commit"]) for name, _ in commands]
        assert group(group_id).version == 16


def test_a_refused_or_repeated_group_command_opens_one_unit_and_commits_nothing(app, units):
    with app.app_context():
        group_id, _ = group_of_three()
        services.add_member(group_id, "Eve", 7, "k" * 43)  # version 8
        services.open_group("Saturdays", "s" * 43)
        before = everything()
        units.clear()
        services.add_member(group_id, "Eve", 7, "k" * 43)  # repeated
        services.open_group("Saturdays", "s" * 43)  # repeated
        with pytest.raises(services.StaleTable):
            services.add_member(group_id, "Fay", 7, None)
        with pytest.raises(services.KeyConflict):
            services.add_member(group_id, "Fay", 8, "k" * 43)
        with pytest.raises(services.KeyConflict):
            services.open_group("Sundays", "s" * 43)
        with pytest.raises(Overpayment):  # Ann is owed 2.00 in EUR, not 3.00
            services.pay_tab(group_id, [TabPayment("Dan", "Ann", "EUR", D("3.00"))], 8, None)
        with pytest.raises(services.UnknownPlayers):
            services.open_night_in_group(group_id, "N6", ["Ann", "Zoe"], CHIPS, poker("Ann"))
        assert units == ["open"] * 7
        assert everything() == before


def test_a_kept_refusal_and_a_brakes_count_commit_in_a_unit_of_their_own_that_no_poll_hears_of(app, units, monkeypatch):
    """Neither changes a night: each is one unit and one commit, and the change watch is not told (on PostgreSQL
    a NOTIFY would make every process's polls read the database again); a night's command is."""
    from companion.db import change_watch
    from companion.db.brakes import Limit
    from companion.db.models import ClientCounter, KeptRefusal

    told: list[str] = []
    monkeypatch.setattr(change_watch, "notify", lambda session: told.append("notify"))
    monkeypatch.setattr(change_watch, "committed", lambda: told.append("committed"))
    with app.test_request_context("/"):
        token = services.keep_refusal("d" * 64, {"status": 422}, client="203.0.113.9", keep_seconds=3600,
                                      max_kept=10, max_per_client=3)
        services.count_against(Limit("probe", limit=3, window=60), "203.0.113.9")
        services.count_against(Limit("probe", limit=3, window=60), "203.0.113.9")
        assert units == ["open", "commit"] * 3 and told == []
        assert db.session.get(KeptRefusal, 1).token == token
        assert db.session.query(ClientCounter).filter_by(kind="probe", client="203.0.113.9").one().hits == 2
        services.open_night("Told", PLAYERS, MONEY, napalm(), None)
        assert told == ["notify", "committed"]


def service_modules() -> list[Path]:
    return sorted(SERVICE.glob("*.py"))


def session_calls(path: Path, name: str) -> list[int]:
    """The lines of ``path`` that call the database session's ``name`` (``db.session.commit()``)."""
    return [
        node.lineno for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
        and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "session"
    ]


def test_only_the_unit_of_work_commits():
    committing = {path.name: session_calls(path, "commit") for path in service_modules()}
    assert {name for name, lines in committing.items() if lines} == {"uow.py"}
    assert len(committing["uow.py"]) == 1  # UnitOfWork.commit, the one commit point


def test_only_the_unit_of_work_rolls_back_but_for_the_end_of_a_read():
    """A rollback outside the unit only ends a read that wrote nothing: the warm-up's, before a server forks."""
    rolling_back = {path.name for path in service_modules() if session_calls(path, "rollback")}
    assert rolling_back == {"uow.py", "store.py"}
    assert len(session_calls(SERVICE / "store.py", "rollback")) == 1


def test_no_module_of_the_service_reaches_for_another_ones_private_names():
    ours = {path.stem for path in service_modules()}
    found = []
    for path in service_modules():
        tree = ast.parse(path.read_text())
        modules = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                   and node.module == "companion.service" for alias in node.names if alias.name in ours}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("companion.service"):
                found += [(path.name, alias.name) for alias in node.names if alias.name.startswith("_")]
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
                if node.attr.startswith("_") and not node.attr.startswith("__"):
                    found.append((path.name, f"{node.value.id}.{node.attr}"))
    assert found == []
