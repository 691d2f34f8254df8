"""The database goes away while four phones record (issue 21, item 13).

A real server (``serve``: gunicorn with gevent) keeps running while its database is taken from
under it: a PostgreSQL cluster of the test's own is restarted, then SIGKILLed (all its
processes) and started again; a SQLite file's small disk fills up, then is freed.  The
table must answer a clear "try again" (503 with ``Retry-After`` and a message, never a
traceback) while the database is gone, and while the disk is full say so (507: "the
server's disk is full: nothing was recorded", and ``/healthz`` says it too: issue 36,
item 5); every action a phone was told was recorded must be stored, once, and none it was
told was not; the same server must record again once the database is back, with no
restart; and a tap that got the 503 or the 507, sent twice once the database is back, is
recorded once.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reliability.harness import (
    NIGHT,
    Phone,
    backend_name,
    check_log,
    parse_table_page,
    read_nights,
    record_figures,
    serve_subprocess,
    sqlite_integrity,
    start_night_over_http,
)
from reliability.outage import Cluster, mount_small_disk, postgres_binaries
from reliability.soak import BUSY, DISK_FULL, PhoneLog, check_accepted, disk_full, record_loop, unavailable

PLAYERS = [NIGHT[f"seat_{i}"] for i in range(1, 5)]
#: both tests make their own database; their figures go to the file of the suite that ran them
#: (CI runs the SQLite and PostgreSQL suites at once: one file each, never written by both)
SUITE = backend_name(os.environ.get("COMPANION_TEST_DATABASE_URL", ""))
PHONES = 4
#: how long the phones record between two blows, and after the last one
STEADY = 0.5


def four_phones_through(port: int, path: str, blows: list[Callable[[], None]], seed: int) -> tuple[list[PhoneLog], int]:
    """Four phones record while each of ``blows`` strikes in turn; (their logs, taps accepted after the last)."""
    stop = threading.Event()
    logs = [PhoneLog() for _ in range(PHONES)]
    workers = [
        threading.Thread(target=record_loop, args=(lambda: port, path, stop, logs[i], seed + i, PLAYERS, Phone(port, 10), 0.1),
                         kwargs={"outages": True})
        for i in range(PHONES)
    ]
    for worker in workers:
        worker.start()
    try:
        for blow in blows:
            time.sleep(STEADY)
            blow()
        accepted_before = sum(log.counts["accepted"] for log in logs)
        time.sleep(STEADY * 2)
        deadline = time.monotonic() + 15  # a loaded machine may take longer to get going again
        while sum(log.counts["accepted"] for log in logs) - accepted_before < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=60)
    assert not any(worker.is_alive() for worker in workers), "a phone hung"
    return logs, sum(log.counts["accepted"] for log in logs) - accepted_before


def stamp_of(phone: Phone, path: str) -> dict[str, str]:
    """A legal tap on the table screen as it is now, with its version and request key: nobody
    (said Yes, or challenged), or the first one-tap winner of a showdown."""
    page = phone.get(path)
    assert page.status == 200, page.status
    shown = parse_table_page(page.body)
    tap = {"winner": shown.winners[0]} if shown.phase == "showdown" else {"nobody": "1"}
    return {"form": shown.phase, **shown.forms[shown.phase], **tap}


def resend_after_outage(phone: Phone, path: str, down: Callable[[], None], up: Callable[[], None],
                        answered: Callable[[Any, PhoneLog], bool] | None = None, says: str = BUSY) -> dict[str, object]:
    """A tap sent while the database is down, then sent twice when it is back: one 503 (or what ``answered``
    checks, saying ``says``), then recorded once."""
    stamp = stamp_of(phone, path)
    form = stamp.pop("form")
    down()
    refused = phone.request("POST", f"{path}/{form}", stamp)
    log = PhoneLog()
    assert (answered or unavailable)(refused, log), (refused.status, refused.body[:300])
    assert says in refused.body.replace("&#39;", "'"), refused.body[:300]
    assert not log.errors, log.errors
    health = phone.request("GET", "/healthz")
    up()
    first = phone.request("POST", f"{path}/{form}", stamp)
    again = phone.request("POST", f"{path}/{form}", stamp)
    assert (first.status, again.status) == (303, 303), (first.status, again.status, first.body[:300])
    return {"key": stamp["request_key"], "retry_after": refused.headers.get("retry-after"), "status": refused.status,
            "healthz": (health.status, health.body)}


def check_after(url: str, logs: list[PhoneLog], resent_key: str) -> dict[str, int]:
    """Every acknowledged tap stored once where it was made, the resent one once, the log legal."""
    (night,) = read_nights(url)
    check_log(night)
    in_flight = set().union(*(log.in_flight for log in logs))
    accepted = [a for log in logs for a in log.accepted]
    outcome = check_accepted(accepted, night.events, in_flight | {resent_key})
    assert outcome == {"lost": 0, "duplicated": 0, "misplaced": 0, "unexplained": 0}, outcome
    assert [e["request_key"] for e in night.events].count(resent_key) == 1
    errors = [e for log in logs for e in log.errors]
    assert not errors, errors[:5]
    counts = sum((log.counts for log in logs), Counter())
    return {"attempted": counts["attempted"], "acknowledged": len(accepted), "stored": len(night.events),
            "answered_503": counts["unavailable"], "unconfirmed_503": counts["busy_unconfirmed"],
            "answered_507": counts["disk_full"],
            "lost": 0, "duplicated": 0}


@pytest.fixture
def cluster():
    binaries = postgres_binaries()
    if binaries is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) on this machine: apt-get install postgresql")
    own = Cluster(binaries)
    try:
        yield own
    finally:
        own.close()


def test_postgresql_restarted_and_killed_while_four_phones_record(cluster: Cluster, tmp_path: Path):
    url = cluster.create_database("outage")

    def kill_and_come_back() -> None:
        cluster.kill()
        time.sleep(0.5)  # the database is gone for half a second at least
        cluster.start()

    with serve_subprocess(url, tmp_path / "instance", tmp_path / "server.log") as (port, process):
        keeper = Phone(port)
        path = start_night_over_http(keeper)
        logs, after = four_phones_through(port, path, [cluster.restart, kill_and_come_back], seed=2111)
        assert after > 0, "nothing was recorded once the database was back"
        resent = resend_after_outage(keeper, path, cluster.kill, cluster.start)
        assert process.poll() is None, "the server did not survive the outage"  # recovered by itself
    assert "Traceback" not in (tmp_path / "server.log").read_text(), "an error escaped the app's handlers"
    figures = check_after(url, logs, str(resent["key"]))
    assert figures["answered_503"] > 0, "no phone ever saw the database gone"
    record_figures("outage_postgresql", {**figures, "recorded_after_the_last_outage": after}, SUITE)


def test_sqlite_disk_fills_up_mid_night_and_is_freed(tmp_path: Path):
    disk = mount_small_disk(tmp_path / "disk", 4 * 1024 * 1024)
    if isinstance(disk, str):
        pytest.skip(disk)
    try:
        url = f"sqlite:///{disk.where / 'companion.sqlite'}"
        with serve_subprocess(url, tmp_path / "instance", tmp_path / "server.log") as (port, process):
            keeper = Phone(port)
            path = start_night_over_http(keeper)
            logs, after = four_phones_through(port, path, [disk.fill, disk.free], seed=2113)
            assert after > 0, "nothing was recorded once the disk had room again"
            resent = resend_after_outage(keeper, path, disk.fill, disk.free, disk_full, DISK_FULL)
            assert process.poll() is None, "the server did not survive the full disk"
        status, body = resent["healthz"]
        assert status == 507 and '"status": "disk full"' in body.replace('":"', '": "'), (status, body)
        assert "Traceback" not in (tmp_path / "server.log").read_text(), "an error escaped the app's handlers"
        assert sqlite_integrity(disk.where / "companion.sqlite") == "ok"
        figures = check_after(url, logs, str(resent["key"]))
    finally:
        disk.close()
    record_figures("outage_sqlite_disk_full", {**figures, "recorded_after_the_disk_was_freed": after}, SUITE)
