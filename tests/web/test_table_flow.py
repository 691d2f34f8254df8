"""A night played through the scorekeeper's screens, checked against sums done by hand.

Seats Ann, Ben, Cat, Dan; Ann deals first; ante 1 on every hand; 2 tokens win.
"""

from __future__ import annotations

import sqlite3

import pytest
import sqlalchemy

from companion.extensions import db
from pages import TablePage
from companion.db.models import Event


def test_a_night_with_every_kind_of_stage_adds_up(start_night):
    t = start_night(tokens_to_win="2")
    assert t.dealer() == "Ann" and t.pot() == 0

    # Hand 1, Ann deals. Stage 1: Ben and Cat say Yes; the ante makes the pot 4.
    t.declare("Ben", "Cat")
    assert t.pot() == 4
    t.winner("Cat")  # Ben pays Cat the pot, 4
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [-1, -5, 3, -1]
    t.declare()  # stage 2: nobody
    t.declare("Ann")  # stage 3: the dealer alone
    assert "who challenges" in t.html
    t.challenge()  # nobody: Ann takes a token
    assert t.tokens("Ann") == 1
    assert t.dealer() == "Ben"

    # Hand 2, Ben deals. Stage 1: nobody; the ante makes the pot 8.
    t.declare()
    assert t.pot() == 8
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [-2, -6, 2, -2]
    # Stage 2: Ben (dealer) alone, challenged by Cat and Dan, who tie for best:
    # Ben pays 8 to each of them.
    t.declare("Ben")
    t.challenge("Cat", "Dan")
    t.tie("Cat", "Dan")
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [-2, -22, 10, 6]
    # Stage 3 by the cards: Cat's queen-high straight flush beats Ann's full house.
    t.declare("Ann", "Cat")
    t.cards(Ann="As Ad Ah Kc Kd 2s 3s", Cat="Qs Js Ts 9s 8s 2h 3h")
    assert "straight flush" in t.html
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [-10, -22, 18, 6]

    # Undo twice: the showdown, then the declaration; back to stage 3's question.
    t.undo()
    t.undo()
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [-2, -22, 10, 6]
    assert "Stage 3" in t.html and "who said Yes?" in t.html
    assert t.html.count('class="voided') >= 2
    t.declare("Dan")  # a lone Yes: Dan's first token
    assert t.tokens("Dan") == 1

    # Hand 3, Cat deals. Stage 1: Ann alone; the ante makes the pot 12, and her
    # second token wins it on the spot.
    t.declare("Ann")
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [9, -23, 9, 5]
    assert t.pot() == 0
    assert "Game 1: <strong>Ann</strong> took 12" in t.html
    # Game 2 starts with Dan dealing, everyone at 0 tokens.
    assert t.dealer() == "Dan"
    assert all(t.tokens(n) == 0 for n in "Ann Ben Cat Dan".split())

    # Game 2, hand 1. Stage 1 by the cards: a pair of kings beats ace-queen.
    t.declare("Ann", "Ben")
    t.cards(Ann="Ks Kd", Ben="As Qd")
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [12, -28, 8, 4]
    # Stage 2 by the cards (deuce-to-seven): 8-6-4-3-2 beats ace high.
    t.declare("Ben", "Cat")
    t.cards(Ben="As Qd 7c 5c 3h", Cat="8h 6d 4c 3s 2d")
    assert [t.net(n) for n in "Ann Ben Cat Dan".split()] == [12, -32, 12, 4]
    assert t.pot() == 4  # 12 + -32 + 12 + 4 = -4: the pot holds the rest


def test_a_stale_screen_records_nothing_and_says_so(start_night, app):
    t = start_night()
    other_phone = TablePage(t.client, t.url)
    other_phone.declare("Ben")
    response = t.declare()  # this screen still shows version 0
    assert response.status_code == 409
    assert "changed since this screen was shown" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Event).count() == 1


def test_a_doubled_tap_records_once_and_answers_the_same(start_night, app):
    t = start_night()
    stamp = t.stamp("declare")
    first = t.post("declare", {"yes": ["Ben"], "confirm": "1"}, stamp=stamp)
    again = t.post("declare", {"yes": ["Ben"], "confirm": "1"}, stamp=stamp)
    assert first.status_code == again.status_code == 303
    assert "Already recorded" in t.html
    assert t.tokens("Ben") == 1
    with app.app_context():
        assert db.session.query(Event).count() == 1


def test_a_table_locked_by_another_writer_answers_busy_and_the_same_tap_later_records_once(start_night, app):
    """A write that waited out the lock is not a stale screen: 503, not confirmed, safe to send again."""
    if not app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        pytest.skip("holds SQLite's write lock")
    t = start_night()
    with app.app_context():
        path = db.engine.url.database
        db.engine.dispose()

        @sqlalchemy.event.listens_for(db.engine, "connect")
        def _short_wait(dbapi_connection, _record):  # noqa: ANN001 - wait 50 ms, not 10 s
            dbapi_connection.execute("PRAGMA busy_timeout=50")

    stamp = t.stamp("declare")
    other_writer = sqlite3.connect(path, isolation_level=None)
    other_writer.execute("BEGIN IMMEDIATE")
    try:
        busy = t.post("declare", {"yes": ["Ben"], "confirm": "1"}, stamp=stamp)
    finally:
        other_writer.execute("ROLLBACK")
        other_writer.close()
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "1"
    assert "busy and this was not confirmed" in busy.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Event).count() == 0
    again = t.post("declare", {"yes": ["Ben"], "confirm": "1"}, stamp=stamp)
    assert again.status_code == 303 and t.tokens("Ben") == 1
    with app.app_context():
        assert db.session.query(Event).count() == 1


def test_the_same_key_with_other_content_is_refused(start_night, app):
    t = start_night()
    stamp = t.stamp("declare")
    t.post("declare", {"yes": ["Ben"], "confirm": "1"}, stamp=stamp)
    response = t.post("declare", {"yes": ["Cat"], "confirm": "1"}, stamp=stamp)
    assert response.status_code == 409
    with app.app_context():
        assert db.session.query(Event).count() == 1


def test_an_illegal_result_is_a_form_error_and_changes_nothing(start_night, app):
    t = start_night()
    t.declare("Ben", "Cat")
    response = t.post("showdown", {"winner": "Dan"})
    assert response.status_code == 422
    assert "Dan did not say Yes" in response.get_data(as_text=True)
    response = t.cards(Ben="As Kd", Cat="Ks")
    assert response.status_code == 422
    assert "needs 2 cards for Cat, got 1" in response.get_data(as_text=True)
    response = t.cards(Ben="As Kd", Cat="As 2c")
    assert response.status_code == 422
    assert "As is shown twice" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Event).count() == 1


def test_a_form_without_version_or_key_is_refused(start_night, app):
    t = start_night()
    response = t.client.post(f"{t.url}/declare", data={"nobody": "1"})
    assert response.status_code == 422
    response = t.client.post(f"{t.url}/declare", data={"nobody": "1", "version": "x", "request_key": "k" * 20})
    assert response.status_code == 422
    with app.app_context():
        assert db.session.query(Event).count() == 0


def test_undo_with_nothing_recorded_is_refused(start_night):
    t = start_night()
    response = t.client.post(f"{t.url}/undo", data={"version": "0", "request_key": "k" * 20})
    assert response.status_code == 422
    assert "nothing to undo" in response.get_data(as_text=True)


def test_the_players_link_cannot_record(start_night, client, app):
    t = start_night()
    from companion.db.models import Night

    with app.app_context():
        viewer = db.session.query(Night).one().viewer_key
    response = client.post(f"/k/{viewer}/declare", data={"nobody": "1", "version": "0", "request_key": "k" * 20})
    assert response.status_code == 403
    assert client.get(f"/k/{viewer}").status_code == 403
    assert client.get(f"/p/{viewer}").status_code == 200
    with app.app_context():
        assert db.session.query(Event).count() == 0


def test_an_unknown_link_is_not_found(client):
    assert client.get("/k/" + "x" * 43).status_code == 404
    assert client.get("/p/" + "x" * 43).status_code == 404


def test_a_try_again_page_leaves_the_notice_of_a_doubled_tap_for_the_page_after_the_outage(start_night, app, monkeypatch):
    """A doubled tap answered "Already recorded", then the database goes away as the phone asks for the
    table: the 503 "try again" page shows the outage alone, and the notice waits for the table the phone
    gets once the database is back (it used to be shown on, and spent by, the 503 page)."""
    t = start_night()
    stamp = t.stamp("declare")
    assert t.client.post(f"{t.url}/declare", data={**stamp, "yes": ["Ben"], "confirm": "1"}).status_code == 303
    assert t.client.post(f"{t.url}/declare", data={**stamp, "yes": ["Ben"], "confirm": "1"}).status_code == 303

    from companion import service
    from companion.web.plumbing import links

    def gone(*_args: object, **_kwargs: object) -> None:
        raise sqlalchemy.exc.OperationalError("SELECT night", {}, Exception("the database went away"))

    with monkeypatch.context() as patched:
        patched.setattr(service, "night_stamp_by_link", gone)  # the kept page's one read fails
        patched.setattr(links, "_lookup", gone)
        outage = t.client.get(t.url)
    assert outage.status_code == 503 and outage.headers["Retry-After"] == "1"
    assert "Already recorded" not in outage.get_data(as_text=True)

    back = t.client.get(t.url)
    assert back.status_code == 200
    assert "Already recorded" in back.get_data(as_text=True)
    assert t.refresh() and t.tokens("Ben") == 1  # recorded once


def test_a_recorded_stage_is_answered_without_reading_the_night_again(start_night, app):
    """The 303 after a record is made from what the request read before the write: nothing is read after the
    commit (the commit expires the night; reading its link again loaded the night and its games in a new
    transaction, on SQLite one that held the write lock until the answer was sent)."""
    t = start_night()
    stamp = t.stamp("declare")
    seen: list[str] = []

    def before(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append(statement.split()[0].upper())

    def committed(conn):  # type: ignore[no-untyped-def]
        seen.append("COMMITTED")

    with app.app_context():
        engine = db.engine
    sqlalchemy.event.listen(engine, "before_cursor_execute", before)
    sqlalchemy.event.listen(engine, "commit", committed)
    try:
        response = t.client.post(f"{t.url}/declare", data={**stamp, "nobody": "1"})
    finally:
        sqlalchemy.event.remove(engine, "before_cursor_execute", before)
        sqlalchemy.event.remove(engine, "commit", committed)
    assert response.status_code == 303 and response.headers["Location"].endswith(t.url)
    assert seen.count("COMMITTED") == 1 and seen[-1] == "COMMITTED", seen
    assert {"UPDATE", "INSERT"} <= set(seen)  # the version moved on and the event written, in that commit
    t.refresh()
    assert t.pot() == 4 and "Already recorded" not in t.html  # the ante of four seats, recorded once
