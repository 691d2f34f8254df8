"""A kept page's one read runs outside any transaction, and is tried again once on a lost connection (issue 37).

``read_once`` spares the read its ``BEGIN`` and ``ROLLBACK`` (and, on PostgreSQL, the pool's ping): each
statement must still see every commit made before it, a connection the server dropped must cost one
retry on a fresh one and not an error page, and any other failure (a database that is down) must
reach the caller as before: the page's 503.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError, ProgrammingError

from companion.db.engine import read_once, reads_engine
from companion.extensions import db


def one(sql: str) -> object:
    return read_once(lambda connection: connection.execute(text(sql)).scalar())


def test_a_read_sees_a_commit_made_just_before_it_and_leaves_no_transaction_open(app):
    with app.app_context():
        db.session.execute(text("CREATE TABLE IF NOT EXISTS t_read_once (x INTEGER)"))
        db.session.execute(text("DELETE FROM t_read_once"))
        db.session.commit()
        assert one("SELECT count(*) FROM t_read_once") == 0
        db.session.execute(text("INSERT INTO t_read_once VALUES (7)"))
        assert one("SELECT count(*) FROM t_read_once") == 0  # not committed yet
        db.session.commit()
        assert one("SELECT sum(x) FROM t_read_once") == 7
        statements: list[str] = []
        reads = reads_engine(app)
        listener = lambda *args: statements.append(args[2])  # noqa: E731 - (conn, cursor, statement, ...)
        from sqlalchemy import event

        event.listen(reads, "before_cursor_execute", listener)
        try:
            assert one("SELECT 2") == 2
        finally:
            event.remove(reads, "before_cursor_execute", listener)
        assert statements == ["SELECT 2"]  # no BEGIN, no ping
        db.session.execute(text("DROP TABLE t_read_once"))
        db.session.commit()


def test_a_failed_statement_is_not_tried_again(app):
    calls: list[int] = []

    def read(connection):  # type: ignore[no-untyped-def]
        calls.append(1)
        return connection.execute(text("SELECT * FROM no_such_table")).all()

    with app.app_context(), pytest.raises((OperationalError, ProgrammingError)):
        read_once(read)
    assert calls == [1]


def test_a_connection_the_server_dropped_costs_one_retry_not_an_error(app):
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("a SQLite file never drops a connection")
        pid = one("SELECT pg_backend_pid()")
        with db.engine.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        assert one("SELECT pg_backend_pid()") != pid  # the pooled connection was found lost, a fresh one read


def test_a_server_that_is_down_still_fails_the_read(tmp_path, monkeypatch):
    from companion import create_app

    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    down = create_app({"SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://postgres@127.0.0.1:1/none", "SECRET_KEY": "k" * 48})
    with down.app_context(), pytest.raises(OperationalError):
        one("SELECT 1")  # nothing listens on port 1: refused, tried again, refused (the page's 503)
