"""Backups taken while a phone is recording, and restored into a new database.

``flask --app companion backup FILE`` (and :func:`companion.db.backup.backup`) must
copy the database as it was at one instant: every event of every night up to its
version, no half-recorded action, a log that replays.  ``restore`` must bring that
back into an empty database, refuse to overwrite one that holds nights unless told
``--force``, and a server started on the restored database must show what the log
folds to.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from companion.db import backup as backups
from reliability.harness import (
    NIGHT,
    PYTHON,
    REPO,
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
from reliability.soak import PhoneLog, record_loop

EXTERNAL = os.environ.get("COMPANION_TEST_DATABASE_URL")
PLAYERS = [NIGHT[f"seat_{i}"] for i in range(1, 5)]


def flask_cli(url: str, instance: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **server_env(url, instance)}
    return subprocess.run(
        [str(Path(PYTHON).with_name("flask")), "--app", "companion", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )


def assert_is_a_prefix(snapshot: list, final: list) -> None:
    """A backup's nights are the live nights as they were: each log a prefix of the final one."""
    by_id = {night.id: night for night in final}
    for night in snapshot:
        check_log(night)  # version == events, seqs whole, replays legally: no half of an action
        later = by_id[night.id]
        assert later.events[: len(night.events)] == night.events, "the backup holds events the database never had"


def test_a_backup_taken_while_a_phone_records_restores_to_the_same_night(tmp_path: Path):
    if EXTERNAL and not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are needed to back up PostgreSQL")
    rng = random.Random(7)
    instance = tmp_path / "instance"
    zygote = Zygote(tmp_path / "servers.log")
    try:
        with live_database(EXTERNAL, tmp_path, "live") as url, live_database(EXTERNAL, tmp_path, "restored") as fresh:
            pid, port = zygote.spawn(server_env(url, instance))
            writer = Phone(port)
            path = start_night_over_http(writer)
            # a second night, so the backup has more than one
            start_night_over_http(writer, name="Second table")
            stop = threading.Event()
            log = PhoneLog()
            thread = threading.Thread(target=record_loop, args=(lambda: port, path, stop, log, 99, PLAYERS, writer))
            thread.start()
            try:
                time.sleep(0.5)
                snapshots = []
                in_process = 0 if EXTERNAL else 5
                for i in range(in_process):
                    time.sleep(rng.uniform(0.05, 0.3))
                    summary = backups.backup(url, tmp_path / f"hot-{i}.sqlite")
                    assert sqlite_integrity(tmp_path / f"hot-{i}.sqlite") == "ok"
                    snapshots.append(read_nights(f"sqlite:///{tmp_path / f'hot-{i}.sqlite'}"))
                    assert summary.events == sum(len(n.events) for n in snapshots[-1])
                target = tmp_path / ("night.backup" if EXTERNAL else "night.sqlite")
                done = flask_cli(url, instance, "backup", str(target))
                assert done.returncode == 0, done.stderr
                assert "backed up 2 night(s)" in done.stdout
                recorded = log.counts["accepted"]
                for _ in range(100):  # the phone goes on recording after the backup
                    if log.counts["accepted"] >= recorded + 3:
                        break
                    time.sleep(0.1)
            finally:
                stop.set()
                thread.join(timeout=60)
            assert not log.errors, log.errors[:5]
            final = read_nights(url)
            for snapshot in snapshots:
                assert_is_a_prefix(snapshot, final)
            zygote.kill(pid)

            # restore the CLI's backup into an empty database
            done = flask_cli(fresh, instance, "restore", str(target))
            assert done.returncode == 0, done.stderr
            assert "restored 2 night(s)" in done.stdout
            restored = read_nights(fresh)
            assert_is_a_prefix(restored, final)
            backed_up = sum(len(n.events) for n in restored)
            assert 0 < backed_up < sum(len(n.events) for n in final), "the backup was not taken mid-recording"
            for night in restored:
                assert night.replay().position == _replay_prefix(final, night).position

            # a database that holds nights is not overwritten by accident
            again = flask_cli(fresh, instance, "restore", str(target))
            assert again.returncode == 1 and "already holds 2 night(s)" in again.stderr
            assert read_nights(fresh) == restored
            if not EXTERNAL:
                forced = backups.restore(fresh, target, force=True)
                assert (forced.nights, forced.events) == (2, backed_up)
                assert sqlite_integrity(Path(fresh.removeprefix("sqlite:///"))) == "ok"
                assert read_nights(fresh) == restored

            # a server on the restored database shows what its log folds to
            pid, port = zygote.spawn(server_env(fresh, instance))
            reader = Phone(port)
            reader.cookies = dict(writer.cookies)
            page = reader.get(path)
            reader.close()
            zygote.kill(pid)
            night = next(n for n in restored if n.keeper_key == path.rsplit("/", 1)[-1])
            assert_page_matches(parse_table_page(page.body), check_log(night), night.version)
    finally:
        zygote.close()
    record_figures(
        "backup",
        {
            "backups_while_writing": len(snapshots) + 1,
            "events_live_at_end": sum(len(n.events) for n in final),
            "events_in_restored_backup": backed_up,
            "actions_recorded_meanwhile": log.counts["accepted"],
            "torn_or_inconsistent_backups": 0,
        },
        backend_name(url),
    )


def _replay_prefix(final: list, snapshot_night):  # type: ignore[no-untyped-def]
    """The live night's log cut at the backup's version, replayed."""
    live = next(n for n in final if n.id == snapshot_night.id)
    cut = type(live)(**{**live.__dict__, "events": live.events[: len(snapshot_night.events)]})
    return cut.replay()


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("not a database\n")
    with pytest.raises(backups.BackupError, match="is not a backup"):
        backups.restore(f"sqlite:///{tmp_path / 'x.sqlite'}", tmp_path / "notes.txt")
    with pytest.raises(backups.BackupError, match="cannot read"):
        backups.restore(f"sqlite:///{tmp_path / 'x.sqlite'}", tmp_path / "missing.sqlite")
    with pytest.raises(backups.BackupError, match="no database"):
        backups.backup(f"sqlite:///{tmp_path / 'missing.sqlite'}", tmp_path / "out.sqlite")
    assert not (tmp_path / "out.sqlite").exists()
