"""The server's disk is full (issue 36, item 5): each write said "busy… send it again", /healthz
said ok, and a link guess answered 503.

Now a write says the disk is full and that nothing was recorded (507), /healthz says so with
the reason, and a link guess is still a 404.  The disk is filled for real as SQLite sees it:
every connection's ``PRAGMA max_page_count`` is pinned at the database's size, and a trigger
on each table makes every write also store a megabyte, so each write needs a page the database
may not take and SQLite refuses it with SQLITE_FULL ("database or disk is full").
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest
from sqlalchemy import event, func, select

from companion.db import disk
from companion.db.models import Event, Night
from companion.extensions import db
from conftest import EXTERNAL_DB
from pages import TablePage, night_form

pytestmark = pytest.mark.skipif(bool(EXTERNAL_DB), reason="the disk is filled through SQLite's max_page_count")

FULL = "The server&#39;s disk is full: nothing was recorded."


@contextlib.contextmanager
def full_disk(app) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """Every write to the app's database refused by SQLite with SQLITE_FULL, until the block ends."""
    with app.app_context():
        engine = db.engine
        tables = [t.name for t in db.metadata.sorted_tables]
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE disk_filler (junk BLOB)")
            for table in tables:
                for change in ("INSERT", "UPDATE", "DELETE"):
                    connection.exec_driver_sql(
                        f"CREATE TRIGGER fill_{table}_{change.lower()} BEFORE {change} ON {table}"
                        " BEGIN INSERT INTO disk_filler VALUES (randomblob(1000000)); END"
                    )

        def pin(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            # as small as SQLite allows: the database's size now, so no page may be added
            dbapi_connection.execute("PRAGMA max_page_count = 1")

        event.listen(engine, "connect", pin)
        engine.dispose()  # every connection from now on is pinned
        try:
            yield
        finally:
            event.remove(engine, "connect", pin)
            engine.dispose()
            with engine.begin() as connection:
                for table in tables:
                    for change in ("insert", "update", "delete"):
                        connection.exec_driver_sql(f"DROP TRIGGER fill_{table}_{change}")
                connection.exec_driver_sql("DROP TABLE disk_filler")


def counts(app) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Night)), db.session.scalar(
            select(func.count()).select_from(Event))


def tap(table: TablePage):  # type: ignore[no-untyped-def]
    """The scorekeeper's next tap on the table as it is now: nobody said Yes."""
    table.refresh()
    return table.declare()


def test_a_tap_on_a_full_disk_says_the_disk_is_full_and_records_nothing(app, client, start_night):
    table = start_night()
    stamp = table.stamp("declare")
    before = counts(app)
    with full_disk(app):
        tap = client.post(f"{table.url}/declare", data={**stamp, "nobody": "1"})
        assert tap.status_code == 507
        page = tap.get_data(as_text=True)
        assert FULL in page and "once there is room, send it again" in page
        assert "busy" not in page and "Retry-After" not in tap.headers
        started = client.post("/nights", data=night_form(name="Saturday"))
        assert started.status_code == 507 and FULL in started.get_data(as_text=True)
        asked = client.post(f"{table.url}/declare", data={**stamp, "nobody": "1"}, headers={"Accept": "application/json"})
        assert (asked.status_code, asked.get_json()) == (507, {"error": (
            "The server's disk is full: nothing was recorded. Tell whoever runs the server; once there is room,"
            " send it again (it is recorded at most once).")})
        assert counts(app) == before
        assert table.refresh()  # reading still works: the table as it was
    # once there is room, the same tap (its request key) is recorded, once
    assert client.post(f"{table.url}/declare", data={**stamp, "nobody": "1"}).status_code == 303
    assert client.post(f"{table.url}/declare", data={**stamp, "nobody": "1"}).status_code == 303
    assert counts(app) == (before[0], before[1] + 1)


def test_healthz_says_the_disk_is_full_until_a_write_is_stored_again(app, client, start_night, monkeypatch):
    table = start_night()
    assert (client.get("/healthz").status_code, client.get("/healthz").get_json()) == (200, {"status": "ok"})
    with full_disk(app):
        assert client.get("/healthz").status_code == 200  # nothing has tried to write yet
        assert tap(table).status_code == 507
        health = client.get("/healthz")
        assert health.status_code == 507
        assert health.get_json() == {
            "status": "disk full",
            "error": "The server's disk is full: nothing can be recorded (a write found the database's disk full,"
                     " and nothing has been recorded since).",
        }
    assert client.get("/healthz").status_code == 507  # room again, but nothing stored yet to show it
    assert tap(table).status_code == 303
    assert client.get("/healthz").get_json() == {"status": "ok"}
    # a write that found the disk full a minute ago, and none since: no longer reported
    clock = [disk.now()]
    monkeypatch.setattr(disk, "now", lambda: clock[0])
    with full_disk(app):
        assert tap(table).status_code == 507
    assert client.get("/healthz").status_code == 507
    clock[0] += disk.REMEMBER_SECONDS
    assert client.get("/healthz").get_json() == {"status": "ok"}


def test_healthz_says_the_disk_is_full_when_the_database_has_too_little_room(make_app):
    app = make_app(DISK_FREE_MIN=10**19)  # more than any disk has free
    health = app.test_client().get("/healthz")
    assert health.status_code == 507
    error = health.get_json()["error"]
    assert re.fullmatch(
        r"The server's disk is full: nothing can be recorded \([\d,]+ bytes are free on the disk that holds the"
        r" database \(fewer than 10,000,000,000,000,000,000\)\)\.", error), error


def test_a_link_guess_on_a_full_disk_is_still_a_404(app, client, start_night):
    table = start_night()
    with full_disk(app):
        guess = client.get("/k/" + "A" * len(table.key))
        assert guess.status_code == 404
        assert "There is nothing here" in guess.get_data(as_text=True)
        assert client.get("/p/" + "B" * len(table.key)).status_code == 404
        assert client.get(table.url).status_code == 200  # the real link still answers
