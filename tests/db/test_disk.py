"""A full disk is told apart from a busy database (issue 36, item 5): by SQLite's SQLITE_FULL and
PostgreSQL's SQLSTATE 53100, as the driver raised it or as SQLAlchemy wrapped it; and an engine
remembers a write that found it full until a write is stored."""

from __future__ import annotations

import sqlite3

import psycopg.errors
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from companion.db import disk


def full_sqlite_error() -> sqlite3.Error:
    """What SQLite itself raises when a write needs a page the database may not take."""
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (junk BLOB)")
    connection.execute("PRAGMA max_page_count = 1")
    with pytest.raises(sqlite3.OperationalError) as raised:
        connection.execute("INSERT INTO t VALUES (randomblob(100000))")
    return raised.value


def busy_sqlite_error(tmp_path) -> sqlite3.Error:  # type: ignore[no-untyped-def]
    """What SQLite raises when another connection holds the write lock."""
    holder = sqlite3.connect(tmp_path / "busy.sqlite", isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    waiter = sqlite3.connect(tmp_path / "busy.sqlite", timeout=0, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError) as raised:
        waiter.execute("BEGIN IMMEDIATE")
    return raised.value


def test_sqlites_full_disk_is_a_full_disk_as_raised_and_as_sqlalchemy_wraps_it():
    error = full_sqlite_error()
    assert str(error) == "database or disk is full"
    assert disk.is_disk_full(error)
    assert disk.is_disk_full(OperationalError("INSERT", {}, error))


def test_a_busy_sqlite_database_is_not_a_full_disk(tmp_path):
    error = busy_sqlite_error(tmp_path)
    assert str(error) == "database is locked"
    assert not disk.is_disk_full(error)
    assert not disk.is_disk_full(OperationalError("BEGIN", {}, error))


def test_postgresqls_disk_full_is_a_full_disk_and_its_other_errors_are_not():
    assert disk.is_disk_full(OperationalError("INSERT", {}, psycopg.errors.DiskFull("could not extend file")))
    assert not disk.is_disk_full(OperationalError("SELECT", {}, psycopg.errors.AdminShutdown("terminating")))
    assert not disk.is_disk_full(OperationalError("SELECT", {}, psycopg.errors.OutOfMemory("out of memory")))


def test_an_engine_remembers_a_full_disk_until_a_write_is_stored_or_a_minute_has_passed(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(disk, "now", lambda: clock[0])
    engine = create_engine(f"sqlite:///{tmp_path / 'small.sqlite'}")
    disk.watch(engine)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (junk BLOB)"))
    assert disk.disk_full(engine, free_min=0) is None

    def write_on_a_full_disk() -> None:
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA max_page_count = 1")
            with pytest.raises(OperationalError):
                connection.execute(text("INSERT INTO t VALUES (randomblob(100000))"))

    write_on_a_full_disk()
    reason = "a write found the database's disk full, and nothing has been recorded since"
    assert disk.disk_full(engine, free_min=0) == reason
    clock[0] += disk.REMEMBER_SECONDS - 1
    assert disk.disk_full(engine, free_min=0) == reason
    disk.written(engine)
    assert disk.disk_full(engine, free_min=0) is None
    write_on_a_full_disk()
    clock[0] += disk.REMEMBER_SECONDS
    assert disk.disk_full(engine, free_min=0) is None
    engine.dispose()
