"""What the web layer asks of the service besides its commands: reads, a request's hold on the database, the brakes.

The views import nothing of the database layer (issue 37, item 3): each query a view made of its own is a
function here, checked against hand-worked values on the database the tests run on (SQLite, or PostgreSQL
with ``COMPANION_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import datetime
import threading
from decimal import Decimal

import pytest
from sqlalchemy import update

from companion import service
from companion.db import brakes
from companion.db.models import KeptRefusal, Night, utcnow
from companion.extensions import db
from companion.night.file import Money

PLAYERS = ["Ann", "Ben", "Cat"]
MONEY = Money(Decimal("0.25"), "EUR")
NAPALM = {"kind": "napalm", "players": None, "first_dealer": "Ann",
          "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5, "unfinished_pot": "return_antes"}}


def test_viewer_keys_of_gives_each_existing_nights_players_link_and_never_the_scorekeepers(app):
    with app.app_context():
        first = service.open_night("First", PLAYERS, MONEY, NAPALM, None)
        second = service.open_night("Second", PLAYERS, MONEY, NAPALM, None)
        expected = {first.id: first.viewer_key, second.id: second.viewer_key}
        keys = service.viewer_keys_of([first.id, second.id, second.id + 1000])
        assert keys == expected
        assert first.keeper_key not in keys.values()
        assert service.viewer_keys_of([]) == {}


def test_recorded_in_group_finds_a_request_key_in_its_own_group_alone(app):
    with app.app_context():
        fridays = service.open_group("Fridays")
        saturdays = service.open_group("Saturdays")
        key = "k" * 22
        service.add_member(fridays.id, "Ann", fridays.version, key)
        assert service.recorded_in_group(fridays.id, key)
        assert not service.recorded_in_group(fridays.id, "o" * 22)
        assert not service.recorded_in_group(saturdays.id, key)


def test_a_kept_refusal_is_read_back_by_its_token_until_it_is_older_than_asked(app):
    with app.app_context():
        content = {"status": 422, "message": "No.", "data": [["name", "x"]]}
        token = service.keep_refusal("d" * 64, content, client="203.0.113.7", keep_seconds=3600, max_kept=10,
                                     max_per_client=5)
        assert service.kept_refusal(token, keep_seconds=3600) == ("d" * 64, content)
        assert service.kept_refusal("not-" + token, keep_seconds=3600) is None
        two_hours_ago = utcnow() - datetime.timedelta(hours=2)
        db.session.execute(update(KeptRefusal).where(KeptRefusal.token == token).values(created_at=two_hours_ago))
        db.session.commit()
        assert service.kept_refusal(token, keep_seconds=3600) is None  # two hours old: not shown any more
        assert service.kept_refusal(token, keep_seconds=3 * 3600) == ("d" * 64, content)


def test_retry_after_counts_the_window_and_ends_the_read(app, monkeypatch: pytest.MonkeyPatch):
    """Two in any 60 s, in buckets of 10 s: both counted at 600 s fill the bucket [600, 610), which leaves the
    window at 660 s: at 600 s the wait is 60 s, at 655 s it is 5 s, at 665 s none."""
    clock = [600.0]
    monkeypatch.setattr(brakes, "now", lambda: clock[0])
    limit = service.Limit("probe", limit=2, window=60)
    with app.app_context():
        assert service.retry_after(limit, "203.0.113.9") is None
        service.count_against(limit, "203.0.113.9")
        assert service.retry_after(limit, "203.0.113.9") is None  # one of two
        service.count_against(limit, "203.0.113.9")
        db.session.get(Night, 1)  # a read of the view's own, open until the brake is asked
        assert db.session().in_transaction()
        assert service.retry_after(limit, "203.0.113.9") == 60
        assert not db.session().in_transaction()
        assert service.retry_after(limit, "198.51.100.1") is None  # another client counts apart
        clock[0] = 655.0
        assert service.retry_after(limit, "203.0.113.9") == 5
        clock[0] = 665.0
        assert service.retry_after(limit, "203.0.113.9") is None


def test_the_database_answers_and_its_disk_is_told_full_below_the_free_room_asked(app):
    with app.app_context():
        assert service.database_health(0) is None
        full = service.database_health(10**18)
        if db.engine.dialect.name == "sqlite":  # the room on the file's disk is read; a server's is not
            assert full is not None and full.endswith("bytes are free on the disk that holds the database "
                                                      "(fewer than 1,000,000,000,000,000,000)")
        else:
            assert full is None


def test_letting_go_ends_the_read_and_after_an_error_too(app):
    with app.app_context():
        db.session.get(Night, 1)
        assert db.session().in_transaction()
        service.let_go_after_error()
        assert not db.session().in_transaction()
        db.session.get(Night, 1)
        service.let_go()
        assert not db.session().in_transaction()


def test_a_committed_unit_wakes_the_commit_watcher_and_moves_the_generation_on(app):
    waker = threading.Event()
    with app.app_context():
        watch = service.watch_commits(waker)
        assert not waker.is_set()
        before = watch.generation()
        service.open_night("Watched", PLAYERS, MONEY, NAPALM, None)
        assert waker.is_set()
        assert watch.generation() != before or before is None
