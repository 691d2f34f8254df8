"""Databases that go away on purpose: a throwaway PostgreSQL cluster, and a SQLite disk that fills up.

The outage tests (``test_database_outage.py``) stop, restart and SIGKILL a database
under a live server.  They never touch the machine's shared PostgreSQL (other test
runs use it): :class:`Cluster` makes its own in a temporary folder, on its own port,
with the server binaries of the installed PostgreSQL (``initdb``, ``pg_ctl``), run as
the ``postgres`` user when the tests run as root (``initdb`` refuses root).
:class:`SmallDisk` mounts a small tmpfs for a SQLite file and fills it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from reliability.harness import free_port


def postgres_binaries() -> Path | None:
    """The folder of the newest installed PostgreSQL's ``initdb`` and ``pg_ctl``, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb and shutil.which("pg_ctl") else None


class Cluster:
    """A PostgreSQL cluster of its own: one temporary folder, one port, started and stopped at will."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="companion-pg-"))
        self.data = self.folder / "data"
        self.user: str | None = None
        if os.geteuid() == 0:  # initdb refuses to run as root
            self.user = "postgres"
            account = pwd.getpwnam(self.user)
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.binaries / tool), *args]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        admin = sa.create_engine(self.url("postgres"), isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        admin.dispose()
        return self.url(name)

    def start(self) -> None:
        # fsync off: nothing here survives the test, and the machine itself never crashes in it
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")

    def restart(self) -> None:
        """A clean restart (``pg_ctl restart -m fast``): every connection is closed by the server."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        self.start()

    def processes(self) -> list[int]:
        """The postmaster and every process it started."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        found = [postmaster]
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError, ValueError):
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                    found.append(int(stat.parent.name))
        return found

    def kill(self) -> None:
        """SIGKILL the postmaster and all its processes at once, as a crash of the database would."""
        pids = self.processes()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in pids):
            time.sleep(0.02)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


class SmallDisk:
    """A tmpfs of ``size`` bytes mounted at ``where`` (root only), that :meth:`fill` fills and :meth:`free` empties."""

    def __init__(self, where: Path, size: int) -> None:
        where.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                       check=True, capture_output=True, timeout=30)
        self.where = where
        self.filler = where / "filler"

    def fill(self) -> None:
        """Write a file until the disk says it is full (ENOSPC)."""
        chunk = b"\0" * 4096
        with open(self.filler, "ab", buffering=0) as out:
            with contextlib.suppress(OSError):
                while True:
                    out.write(chunk)

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.where)], capture_output=True, timeout=30)


def mount_small_disk(where: Path, size: int) -> SmallDisk | str:
    """A :class:`SmallDisk`, or why one cannot be mounted here."""
    if os.geteuid() != 0:
        return "mounting a small tmpfs needs root"
    try:
        return SmallDisk(where, size)
    except (subprocess.CalledProcessError, OSError) as error:
        detail = getattr(error, "stderr", b"") or b""
        return f"cannot mount a tmpfs here: {detail.decode(errors='replace').strip() or error}"


@contextlib.contextmanager
def own_cluster() -> Iterator[Cluster]:
    binaries = postgres_binaries()
    assert binaries is not None
    cluster = Cluster(binaries)
    try:
        yield cluster
    finally:
        cluster.close()
