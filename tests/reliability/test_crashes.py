"""A server killed with SIGKILL at random moments while two phones record, fifty times.

Each round forks a fresh real server (``zygote.py``: the app built and the schema
upgraded as ``serve`` does, then served by gevent in a patched process, as each of
``serve``'s gunicorn workers serves), lets two phones record on the same table
over HTTP for a random 20-400 ms, and kills the server with SIGKILL, mid-request or
mid-commit as it happens.  After every kill the database must open, pass its
integrity check (SQLite: ``PRAGMA integrity_check``), hold every action a phone was
told was recorded (exactly once, at the version it was made at), and fold to a legal
night.  Actions whose answer never came may be stored or not, but only once.
"""

from __future__ import annotations

import os
import random
import threading
from collections import Counter
from pathlib import Path

from reliability.harness import (
    NIGHT,
    Phone,
    Zygote,
    assert_page_matches,
    backend_name,
    check_log,
    live_database,
    parse_table_page,
    read_nights,
    record_figures,
    server_env,
    sqlite_integrity,
    start_night_over_http,
)
from reliability.soak import PhoneLog, check_accepted, record_loop

EXTERNAL = os.environ.get("COMPANION_TEST_DATABASE_URL")
KILLS = int(os.environ.get("COMPANION_CRASH_KILLS", "50"))
PLAYERS = [NIGHT[f"seat_{i}"] for i in range(1, 5)]


def test_fifty_kills_mid_recording_lose_no_acknowledged_action_and_leave_a_sound_database(tmp_path: Path):
    rng = random.Random(20261123)
    zygote = Zygote(tmp_path / "servers.log")
    figures: Counter = Counter()
    try:
        with live_database(EXTERNAL, tmp_path, "crash") as url:
            env = server_env(url, tmp_path / "instance")
            phones = [Phone(0), Phone(0)]  # their cookies (session, CSRF) outlive every server
            logs = [PhoneLog(), PhoneLog()]
            path = ""
            for round_ in range(KILLS):
                pid, port = zygote.spawn(env)
                for phone in phones:
                    phone.port = port
                    phone.close()
                if not path:
                    path = start_night_over_http(phones[0])
                # the fresh process's first page (a cold render: the night folded, templates compiled) before
                # the clock starts, so that the kill lands while the phones record, whatever the machine's load
                # (on a busy CI machine a cold first page outlasted most of the 20-400 ms windows)
                assert phones[0].get(path).status == 200
                stop = threading.Event()
                workers = [
                    threading.Thread(target=record_loop,
                                     args=(lambda: port, path, stop, logs[i], round_ * 10 + i, PLAYERS, phones[i], 0.1))
                    for i in range(2)
                ]
                for worker in workers:
                    worker.start()
                stop.wait(rng.uniform(0.02, 0.4))
                zygote.kill(pid)
                stop.set()
                for worker in workers:
                    worker.join(timeout=60)
                assert not any(worker.is_alive() for worker in workers), "a phone hung on a dead server"
                figures["kills"] += 1

                # the database after the crash: sound, and holding everything that was acknowledged
                if url.startswith("sqlite"):
                    assert sqlite_integrity(Path(url.removeprefix("sqlite:///"))) == "ok"
                    figures["integrity_checks_ok"] += 1
                (night,) = read_nights(url)
                check_log(night)
                figures["log_checks_ok"] += 1
                in_flight = logs[0].in_flight | logs[1].in_flight
                outcome = check_accepted([a for log in logs for a in log.accepted], night.events, in_flight)
                assert outcome == {"lost": 0, "duplicated": 0, "misplaced": 0, "unexplained": 0}, (round_, outcome)
                errors = [e for log in logs for e in log.errors]
                assert not errors, errors[:5]

            # one last server: its page shows what the surviving log folds to
            pid, port = zygote.spawn(env)
            viewer = Phone(port)
            viewer.cookies = dict(phones[0].cookies)
            page = viewer.get(path)
            viewer.close()
            zygote.kill(pid)
            (night,) = read_nights(url)
            assert_page_matches(parse_table_page(page.body), check_log(night), night.version)
    finally:
        zygote.close()

    counts = sum((log.counts for log in logs), Counter())
    acknowledged = counts["accepted"]
    in_flight_total = len(in_flight)
    stored = len(night.events)
    record_figures(
        "crashes",
        {
            "kills": figures["kills"],
            "sqlite_integrity_checks_ok": figures["integrity_checks_ok"] if url.startswith("sqlite") else "n/a",
            "log_checks_ok": figures["log_checks_ok"],
            "attempted": counts["attempted"],
            "acknowledged": acknowledged,
            "unanswered_at_kill": in_flight_total,
            "stored": stored,
            "unanswered_but_stored": stored - acknowledged,
            "lost": 0,
            "duplicated": 0,
        },
        backend_name(url),
    )
    assert acknowledged > 0
