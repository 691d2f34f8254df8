"""Eight phones recording on one table at once, against a real server process.

The server is ``flask --app companion serve`` in a subprocess (gunicorn, one gevent worker)
on a SQLite file in WAL mode, or on PostgreSQL when COMPANION_TEST_DATABASE_URL is
set.  The phones speak plain HTTP (``http.client``) with their own cookies and CSRF
tokens, like eight browsers.  The run lasts COMPANION_SOAK_SECONDS (30 s in CI, 5 s
elsewhere).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter

from reliability.harness import (
    NIGHT,
    Phone,
    assert_page_matches,
    backend_name,
    check_log,
    parse_table_page,
    read_nights,
    record_figures,
    serve_subprocess,
    soak_seconds,
    live_database,
    start_night_over_http,
)
from reliability.soak import PhoneLog, check_accepted, record_loop

CLIENTS = 8
EXTERNAL = os.environ.get("COMPANION_TEST_DATABASE_URL")
PLAYERS = [NIGHT[f"seat_{i}"] for i in range(1, 5)]


def test_eight_phones_at_once_lose_nothing_double_nothing_and_agree_with_the_log(tmp_path):
    seconds = soak_seconds()
    with live_database(EXTERNAL, tmp_path, "soak") as url, \
            serve_subprocess(url, tmp_path / "instance", tmp_path / "server.log") as (port, _):
        keeper = Phone(port)
        path = start_night_over_http(keeper)
        logs = [PhoneLog() for _ in range(CLIENTS)]
        deadline = time.monotonic() + seconds
        started = time.monotonic()
        phones = [
            threading.Thread(target=record_loop, args=(lambda: port, path, deadline, logs[i], 1000 + i, PLAYERS))
            for i in range(CLIENTS)
        ]
        for phone in phones:
            phone.start()
        for phone in phones:
            phone.join(timeout=seconds + 120)
        elapsed = time.monotonic() - started
        assert not any(phone.is_alive() for phone in phones), "a phone hung"
        final = keeper.get(path)
        keeper.close()

        errors = [e for log in logs for e in log.errors]
        assert not errors, f"{len(errors)} wrong answers, e.g. {errors[:10]}"
        (night,) = read_nights(url)
        table = check_log(night)
        assert_page_matches(parse_table_page(final.body), table, night.version)
        accepted = [a for log in logs for a in log.accepted]
        outcome = check_accepted(accepted, night.events)
        assert outcome == {"lost": 0, "duplicated": 0, "misplaced": 0, "unexplained": 0}, outcome
        assert len(night.events) == len(accepted), "the log holds other actions than the accepted ones"

    counts = sum((log.counts for log in logs), Counter())
    assert counts["accepted"] > 0 and counts["refused_stale"] > 0
    record_figures(
        "concurrency",
        {
            "clients": CLIENTS,
            "seconds": round(elapsed, 1),
            "attempted": counts["attempted"],
            "accepted": counts["accepted"],
            "refused_stale_409": counts["refused_stale"],
            "refused_illegal_422": counts["refused_illegal"],
            "busy_unconfirmed_503": counts["busy_unconfirmed"],
            "doubled_taps_answered_once": counts["doubled_answered_once"],
            "events_stored": len(night.events),
            "games_finished": len(table.games),
            "accepted_per_second": round(counts["accepted"] / elapsed, 1),
            **outcome,
            "errors": 0,
        },
        backend_name(url),
    )
