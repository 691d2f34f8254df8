"""The group's one-row stamp, read by its link: its plan and its cost on SQLite and PostgreSQL (issue 25).

Run from the project root:  .venv/bin/python bench/stamp_bench.py [--runs 400] [--nights 200]

A repeat request for a group's page asks the database one statement (web/groups.py ``_STAMP_SQL``:
the group's row, and the count and sum of versions of its nights), so its cost is the page's floor.
This imports a group of ``--nights`` nights (``group_bench.group_file``) into a fresh database made by
the migrations (a temporary SQLite file, and the PostgreSQL database ``COMPANION_STAMP_DATABASE``,
default ``companion_stamp``, made and dropped, when it answers at 127.0.0.1:5432 as postgres), then
prints the statement's plan (SQLite: ``EXPLAIN QUERY PLAN``; PostgreSQL: ``EXPLAIN (ANALYZE, BUFFERS)``
once) and the median of ``--runs`` runs of: the client's round trip of the statement itself, and on
PostgreSQL the server's own ``Execution Time`` and ``Planning Time`` from ``EXPLAIN ANALYZE``
(with ``VACUUM ANALYZE`` first, as autovacuum leaves a table after a bulk import).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


#: the covering index tried (``--indexes``, ``--compare``) beside the migrations' (0009: ``group_night (group_id,
#: night_id)``, which makes the group's nights an index-only read): each night's version beside its id, so that
#: the sum needs no table page either.  (Tried and not kept, bench/README.md: on PostgreSQL it changes no plan
#: on the load bench's database, and it would make every recorded stage, which updates the night's version, a
#: non-HOT update.)
INDEXES = {
    "sqlite": ["CREATE INDEX ix_try_night_version ON night (id, version)"],
    "postgresql": ["CREATE INDEX ix_try_night_version ON night (id) INCLUDE (version)"],
}


#: groups imported (``--groups``): the database of one group, or of many, whose stamp reads one group's rows
GROUPS = 1
#: rounds of :func:`compare` (``--compare``); 0: measure the schema as it is (with ``--indexes``, those added)
COMPARE = 0


def seeded(url: str, nights: int, groups: int = 1) -> str:
    """Migrate the database at ``url``, import ``groups`` groups; the last one's organiser link."""
    from flask_migrate import upgrade

    from companion import create_app, service
    from companion.extensions import db
    from group_bench import group_file

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": secrets.token_urlsafe(48)})
    with app.app_context():
        upgrade(directory=str(ROOT / "companion" / "db" / "migrations"))
        for _ in range(groups):
            key = service.import_group(group_file(nights)).organiser_key
        db.session.remove()
        db.engine.dispose()
    return key


def statement(engine: sa.Engine) -> str:
    """The stamp's statement as web/groups.py sends it, with the driver's placeholder."""
    from companion.web.groups import _STAMP_BY

    mark = "?" if engine.dialect.name == "sqlite" else "%s"
    return _STAMP_BY[True].format(mark)


def round_trips(engine: sa.Engine, sql: str, key: str, runs: int) -> float:
    """Median seconds of the statement, sent and read on one raw connection, as web/raw_reads.py reads it."""
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            cursor.execute(sql, (key,))
            cursor.fetchall()
            times.append(time.perf_counter() - t0)
        raw.rollback()
        return statistics.median(times)
    finally:
        raw.close()


def measure_sqlite(nights: int, runs: int, indexes: bool = False) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/stamp.db"
        key = seeded(url, nights, GROUPS)
        engine = sa.create_engine(url)
        sql = statement(engine)
        if COMPARE:
            compare(engine, sql, key, runs, COMPARE, "sqlite")
            engine.dispose()
            return
        with engine.connect() as conn:
            for ddl in INDEXES["sqlite"] if indexes else ():
                conn.exec_driver_sql(ddl)
            conn.commit()
            plan = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, (key,)).fetchall()
            print("SQLite, EXPLAIN QUERY PLAN, before ANALYZE (as served: the app never runs it):")
            for row in plan:
                print("   ", row[-1])
            print(f"SQLite, the statement's round trip: median {round_trips(engine, sql, key, runs) * 1e6:.0f} µs "
                  f"of {runs}")
            conn.exec_driver_sql("ANALYZE")
            conn.commit()
            plan = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, (key,)).fetchall()
        print("SQLite, EXPLAIN QUERY PLAN, after ANALYZE:")
        for row in plan:
            print("   ", row[-1])
        print(f"SQLite, the statement's round trip: median {round_trips(engine, sql, key, runs) * 1e6:.0f} µs "
              f"of {runs}")
        engine.dispose()


def measure_postgresql(nights: int, runs: int, indexes: bool = False, settings: str = "") -> None:
    name = os.environ.get("COMPANION_STAMP_DATABASE", "companion_stamp")
    admin = sa.create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/postgres", isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError:
        print("PostgreSQL does not answer at 127.0.0.1:5432 as postgres: skipped")
        return
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    try:
        key = seeded(url, nights, GROUPS)
        options = " ".join(f"-c {setting}" for setting in settings.split(",") if setting)
        engine = sa.create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"options": options})
        sql = statement(engine)
        if COMPARE:
            compare(engine, sql, key, runs, COMPARE, "postgresql")
            engine.dispose()
            return
        with engine.connect() as conn:
            for ddl in INDEXES["postgresql"] if indexes else ():
                conn.exec_driver_sql(ddl)
            conn.exec_driver_sql("VACUUM ANALYZE")
            indexes = conn.exec_driver_sql(
                "SELECT indexdef FROM pg_indexes WHERE tablename IN ('group_night', 'night', 'home_group')"
                " ORDER BY tablename, indexname").fetchall()
            print("PostgreSQL, the tables' indexes:")
            for (definition,) in indexes:
                print("   ", definition)
            explain = "EXPLAIN (ANALYZE, BUFFERS) " + sql
            plan = conn.exec_driver_sql(explain, (key,)).fetchall()
            print("PostgreSQL, EXPLAIN (ANALYZE, BUFFERS), one run:")
            for (line,) in plan:
                print("   ", line)
            execution, planning = [], []
            for _ in range(runs):
                text = "\n".join(line for (line,) in conn.exec_driver_sql(explain, (key,)).fetchall())
                execution.append(float(re.search(r"Execution Time: ([0-9.]+) ms", text)[1]))
                planning.append(float(re.search(r"Planning Time: ([0-9.]+) ms", text)[1]))
        print(f"PostgreSQL, of {runs} runs: Execution Time median {statistics.median(execution) * 1000:.0f} µs, "
              f"Planning Time median {statistics.median(planning) * 1000:.0f} µs")
        print(f"PostgreSQL, the statement's round trip: median {round_trips(engine, sql, key, runs) * 1e6:.0f} µs "
              f"of {runs}")
        engine.dispose()
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def compare(engine: sa.Engine, sql: str, key: str, runs: int, rounds: int, dialect: str) -> None:
    """Without and with :data:`INDEXES`, in alternating rounds on the same database (so that the machine's other
    load touches both alike): the median over rounds of each round's median, round trip and (PostgreSQL)
    ``EXPLAIN ANALYZE``'s Execution Time, and the plan's scans each time."""
    names = [ddl.split()[2] for ddl in INDEXES[dialect]]
    found: dict[bool, dict[str, list[float]]] = {False: {"trip": [], "exec": []}, True: {"trip": [], "exec": []}}
    plans: dict[bool, set[str]] = {False: set(), True: set()}
    for round_ in range(rounds):
        for indexed in (False, True):
            with engine.connect() as conn:  # the schema changed and committed before anything is read
                for ddl, name in zip(INDEXES[dialect], names):
                    conn.exec_driver_sql(ddl if indexed else f"DROP INDEX IF EXISTS {name}")
                conn.commit()
                if dialect == "postgresql":  # (its connections are in autocommit)
                    conn.exec_driver_sql("VACUUM ANALYZE")
                indexes = [row[0] for row in conn.exec_driver_sql(
                    "SELECT name FROM sqlite_master WHERE type = 'index'" if dialect == "sqlite" else
                    "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'").fetchall()]
                assert all((name in indexes) == indexed for name in names), (indexed, indexes)
            with engine.connect() as conn:  # a connection that has not seen the statement before
                if dialect == "sqlite":
                    # a text of its own each time: an EXPLAIN reads no table, so a statement the driver
                    # keeps prepared would say the plan of the schema it was prepared under
                    explain = f"EXPLAIN QUERY PLAN {sql} /* {round_} {indexed} */"
                    plan = [row[-1] for row in conn.exec_driver_sql(explain, (key,)).fetchall()]
                    plans[indexed].add(" / ".join(plan))
                else:
                    executions = []
                    for _ in range(runs):
                        text = "\n".join(line for (line,) in conn.exec_driver_sql(
                            "EXPLAIN (ANALYZE, BUFFERS) " + sql, (key,)).fetchall())
                        executions.append(float(re.search(r"Execution Time: ([0-9.]+) ms", text)[1]) / 1000)
                        plans[indexed].add(" / ".join(re.findall(r"((?:Seq Scan|Index Only Scan using \w+|Index Scan using \w+) on \w+)", text)))
                    found[indexed]["exec"].append(statistics.median(executions))
            found[indexed]["trip"].append(round_trips(engine, sql, key, runs))
    for indexed in (False, True):
        said = "with" if indexed else "without"
        trip = statistics.median(found[indexed]["trip"]) * 1e6
        execution = f", Execution Time {statistics.median(found[indexed]['exec']) * 1e6:.0f} µs" if found[indexed]["exec"] else ""
        print(f"{dialect}, {said} the indexes, median of {rounds} rounds' medians of {runs}: round trip {trip:.0f} µs"
              f"{execution}; plans: {' | '.join(sorted(plans[indexed]))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--nights", type=int, default=200)
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--compare", type=int, default=0, help="rounds without and with the indexes, alternating")
    parser.add_argument("--groups", type=int, default=1, help="groups of --nights nights in the database (the last measured)")
    parser.add_argument("--indexes", action="store_true", help="add the covering indexes tried (INDEXES) first")
    parser.add_argument("--settings", default="", help="PostgreSQL settings for the measuring connections, "
                        "comma-separated (enable_seqscan=off,enable_hashjoin=off: the index-only plan, forced)")
    args = parser.parse_args()
    global GROUPS, COMPARE
    GROUPS = min(max(args.groups, 1), 50)
    COMPARE = min(max(args.compare, 0), 50)
    runs, nights = min(max(args.runs, 10), 10_000), min(max(args.nights, 1), 2000)
    print(f"{GROUPS} group(s) of {nights} nights; {os.cpu_count()} cores; Python {sys.version.split()[0]}; "
          f"{time.strftime('%Y-%m-%d %H:%M')}; load {os.getloadavg()[0]:.2f}", flush=True)
    if "sqlite" in args.databases:
        measure_sqlite(nights, runs, args.indexes)
    if "postgresql" in args.databases:
        measure_postgresql(nights, runs, args.indexes, args.settings)


if __name__ == "__main__":
    main()
