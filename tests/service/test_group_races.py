"""Two commands on one group, or on a group and one of its nights, at the same moment.

Each command runs in a thread of its own, with its own app context and so its own connection, as
two phones' requests do.  The first to take its locks is held there for a moment (the command's
own check is slowed down), so the other one really arrives while the locks are held: on
PostgreSQL it waits on the group's row or the night's row, on SQLite at ``BEGIN IMMEDIATE``.
Every writer takes the group's row first, then the group's nights in id order; a night's own
command (a payment marked paid) takes its night alone, so no two writers can wait on each other.

The group is :mod:`service.group_support`'s "Fridays" at version 7.  Before any payment:
Dan owes 2.00 EUR on N1 (to Ann) and 2.00 EUR on N2 (to Ben); Ben is owed 3.00 EUR on N2;
N1's version is 4 (everyone bought in, three cashed out).
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Callable, Iterator
from decimal import Decimal as D
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from companion import service
from companion.db.models import GroupRecord, Night
from companion.extensions import db
from companion.group.tab import Overpayment, TabPayment, open_on
from companion.service import group_tab, recording
from companion.service.group_nights import counted
from service.group_support import CHIPS, group, group_of_three, played_night, tab_events, versions

#: how long the first command holds its locks once inside its own check
HOLD = 0.4
DAN_PAYS_BEN = [TabPayment("Dan", "Ben", "EUR", D("3.00"))]


class Outcome:
    """What a command run in a thread answered, or raised."""

    def __init__(self) -> None:
        self.answer: Any = None
        self.error: BaseException | None = None


def in_thread(app: Flask, command: Callable[[], Any], start: threading.Barrier | None = None) -> tuple[threading.Thread, Outcome]:
    """Run ``command`` in a thread of its own, in an app context of its own (its own session and connection)."""
    outcome = Outcome()

    def run() -> None:
        with app.app_context():
            if start is not None:
                start.wait(timeout=10)
            try:
                outcome.answer = command()
            except BaseException as error:  # noqa: BLE001 - kept for the test to read
                outcome.error = error
            finally:
                db.session.remove()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def finish(*threads: threading.Thread) -> None:
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a command hung: two writers waited on each other"


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Set once a command is inside its own check with its locks taken; that command then holds them HOLD seconds."""
    inside = threading.Event()
    real_pay, real_refuse = group_tab.pay, recording.refuse_paid_beyond_open

    def slow_pay(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        time.sleep(HOLD)
        return real_pay(*args, **kwargs)

    def slow_refuse(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        time.sleep(HOLD)
        return real_refuse(*args, **kwargs)

    monkeypatch.setattr(group_tab, "pay", slow_pay)
    monkeypatch.setattr(recording, "refuse_paid_beyond_open", slow_refuse)
    yield inside


def tab_paid_records() -> int:
    db.session.rollback()
    return db.session.scalar(select(func.count()).select_from(GroupRecord).where(GroupRecord.kind == "tab_paid"))


def never_more_cleared_than_owed(night_ids: list[int]) -> None:
    """On every night, each seat's open balance still has the sign its plan gave it, and is no larger."""
    db.session.rollback()
    for night_id in night_ids:
        result = counted(db.session.get(Night, night_id, populate_existing=True)).result
        planned = {seat: D(0) for seat in result.net}
        for transfer in result.planned:
            planned[transfer.payer] -= transfer.amount
            planned[transfer.payee] += transfer.amount
        for seat, left in open_on(result).items():
            assert (left == 0 or (left > 0) == (planned[seat] > 0)) and abs(left) <= abs(planned[seat]), (night_id, seat, left)


def dan_paid_ben_once(nights: list[int], before: list[int]) -> None:
    """Dan's 3.00 to Ben, recorded once: 2.00 clears N1 (the oldest), 1.00 part of N2; Ben's 3.00 on N2."""
    n1, n2, n3 = nights
    ref = "Fridays · tab #8"
    assert tab_events(n1) == [{"player": "Dan", "amount": "2.00", "payer": "Dan", "payee": "Ben", "ref": ref}]
    assert tab_events(n2) == [
        {"player": "Dan", "amount": "1.00", "payer": "Dan", "payee": "Ben", "ref": ref},
        {"player": "Ben", "amount": "-3.00", "payer": "Dan", "payee": "Ben", "ref": ref},
    ]
    assert versions(nights) == [before[0] + 1, before[1] + 2, before[2]]
    assert group(group_id_of(n1)).version == 8 and tab_paid_records() == 1
    never_more_cleared_than_owed(nights)


def group_id_of(night_id: int) -> int:
    return service.group_of_night(db.session.get(Night, night_id)).id


def test_two_tab_payments_at_one_moment_record_one_and_refuse_the_other_as_stale(app, held):
    with app.app_context():
        group_id, nights = group_of_three()
        before = versions(nights)
        start = threading.Barrier(2)
        one = in_thread(app, lambda: service.pay_tab(group_id, DAN_PAYS_BEN, 7, "a" * 43), start)
        two = in_thread(app, lambda: service.pay_tab(group_id, DAN_PAYS_BEN, 7, "b" * 43), start)
        finish(one[0], two[0])
        outcomes = [one[1], two[1]]
        recorded = [o.answer for o in outcomes if o.error is None]
        refused = [o.error for o in outcomes if o.error is not None]
        assert [(r.version, r.repeated) for r in recorded] == [(8, False)]
        assert len(refused) == 1 and isinstance(refused[0], service.StaleTable) and refused[0].current_version == 8
        dan_paid_ben_once(nights, before)


def test_the_one_that_waited_and_tries_again_at_the_new_version_is_refused_for_overpaying(app, held):
    """As a phone does after a stale answer: the page shown again, the same payment sent at version 8.  Dan then
    owes 1.00 (on N2) and Ben is owed nothing: 3.00 more is refused."""
    def pay_until_not_stale(key: str) -> Any:
        try:
            return service.pay_tab(group_id, DAN_PAYS_BEN, 7, key)
        except service.StaleTable as stale:
            return service.pay_tab(group_id, DAN_PAYS_BEN, stale.current_version, key)

    with app.app_context():
        group_id, nights = group_of_three()
        before = versions(nights)
        start = threading.Barrier(2)
        one = in_thread(app, lambda: pay_until_not_stale("a" * 43), start)
        two = in_thread(app, lambda: pay_until_not_stale("b" * 43), start)
        finish(one[0], two[0])
        errors = [o.error for o in (one[1], two[1]) if o.error is not None]
        assert len(errors) == 1 and isinstance(errors[0], Overpayment)
        assert str(errors[0]) == "Dan owes only 1.00 EUR: less than the 3.00 EUR paid"
        dan_paid_ben_once(nights, before)


def test_a_payment_marked_at_a_night_while_the_tab_clears_it_waits_and_is_refused(app, held):
    """The tab's payment holds the group and its nights; Dan's 8 chips to Ann marked at N1 (at N1's version 4)
    waits for N1, then finds it moved on (StaleTable).  Sent again at version 5 it is refused: the tab cleared
    Dan's 2.00 on N1 (8 chips at 0.25), so he owes nothing there and marking it would settle it twice."""
    with app.app_context():
        group_id, nights = group_of_three()
        n1 = nights[0]
        before = versions(nights)
        tab = in_thread(app, lambda: service.pay_tab(group_id, DAN_PAYS_BEN, 7, None))
        assert held.wait(timeout=10)
        marked = in_thread(app, lambda: service.mark_paid(n1, "Dan", "Ann", 8, 4, "m" * 43))
        finish(tab[0], marked[0])
        assert tab[1].error is None and tab[1].answer.version == 8
        assert isinstance(marked[1].error, service.StaleTable) and marked[1].error.current_version == 5
        with pytest.raises(service.IllegalAction, match="Dan owes 0.00 EUR at this night, not 2.00 EUR"):
            service.mark_paid(n1, "Dan", "Ann", 8, 5, "m" * 43)
        dan_paid_ben_once(nights, before)


def test_a_tab_payment_while_a_payment_is_marked_at_a_night_it_clears_waits_and_counts_it(app, held):
    """Dan's 8 chips to Ann marked at N1 holds N1; the tab's payment takes the group, then waits for N1, then
    finds Dan's N1 debt paid: he owes 2.00 (on N2 alone), so 3.00 is refused, and 2.00 then clears N2 only."""
    with app.app_context():
        group_id, nights = group_of_three()
        n1, n2, n3 = nights
        before = versions(nights)
        marked = in_thread(app, lambda: service.mark_paid(n1, "Dan", "Ann", 8, 4, None))
        assert held.wait(timeout=10)
        tab = in_thread(app, lambda: service.pay_tab(group_id, DAN_PAYS_BEN, 7, None))
        finish(marked[0], tab[0])
        assert marked[1].error is None and marked[1].answer.seq == 5
        assert isinstance(tab[1].error, Overpayment) and str(tab[1].error) == "Dan owes only 2.00 EUR: less than the 3.00 EUR paid"
        assert group(group_id).version == 7 and versions(nights) == [before[0] + 1, before[1], before[2]]

        service.pay_tab(group_id, [TabPayment("Dan", "Ben", "EUR", D("2.00"))], 7, None)
        ref = "Fridays · tab #8"
        assert tab_events(n1) == []
        assert tab_events(n2) == [
            {"player": "Dan", "amount": "2.00", "payer": "Dan", "payee": "Ben", "ref": ref},
            {"player": "Ben", "amount": "-2.00", "payer": "Dan", "payee": "Ben", "ref": ref},
        ]
        never_more_cleared_than_owed(nights)


def test_a_night_kept_while_a_payment_is_marked_at_it_sees_the_payment(app, held):
    """Keeping a night takes the group's row, then the night's: a payment marked at the night at that moment is
    either counted by the group (marked first) or checked against it (kept first); never neither."""
    with app.app_context():
        group_id, nights = group_of_three()
        # N4, chips only: Ann 60, Cat 40 → Ann +10, Cat −10; plan: Cat pays Ann 10 chips
        n4 = played_night("N4", {"Ann": 60, "Cat": 40}, CHIPS, datetime.date(2025, 3, 7))
        marked = in_thread(app, lambda: service.mark_paid(n4.id, "Cat", "Ann", 10, 3, None))
        assert held.wait(timeout=10)
        kept = in_thread(app, lambda: service.keep_night(group_id, n4.id, 7, None))
        finish(marked[0], kept[0])
        assert marked[1].error is None and kept[1].error is None and kept[1].answer.version == 8
        # marked first: kept with Cat's 10 chips paid, nothing left open on N4; a second mark is refused
        db.session.rollback()
        assert open_on(counted(db.session.get(Night, n4.id)).result) == {"Ann": D(0), "Cat": D(0)}
        with pytest.raises(service.IllegalAction, match="Cat owes 0 chips at this night, not 10 chips"):
            service.mark_paid(n4.id, "Cat", "Ann", 10, 4, None)
        never_more_cleared_than_owed([*nights, n4.id])
