"""Backups of a live database, and putting one back.

``flask --app companion backup FILE`` writes a consistent copy while the app keeps
recording:

- SQLite: the online backup API (:meth:`sqlite3.Connection.backup`) copies every
  page inside one read transaction, so the copy is the database as it was at one
  instant, with every committed action and no half of one; writers carry on
  meanwhile (WAL).  The copy is checked (``PRAGMA integrity_check``), turned into a
  single self-contained file (no ``-wal``), and moved into place atomically.
- PostgreSQL: ``pg_dump --format=custom``, which reads one snapshot of the database.

``flask --app companion restore FILE`` brings a backup back into the configured
database (SQLite from a SQLite backup, PostgreSQL from a ``pg_dump`` file).  It
refuses to replace a database that already holds nights unless told ``--force``;
stop the server first, so that no process keeps a fold of nights that were replaced.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

SQLITE_MAGIC = b"SQLite format 3\x00"
PGDUMP_MAGIC = b"PGDMP"


class BackupError(RuntimeError):
    """The backup or restore could not be done; nothing was changed."""


@dataclass(frozen=True)
class Summary:
    """What a backup holds, or what a restore put back."""

    backend: str
    nights: int
    events: int
    where: str  # the backup file, or the database restored into

    def describe(self, verb: str) -> str:
        return f"{verb} {self.nights} night(s) and {self.events} event(s) ({self.backend}): {self.where}"


def backup(url: str | URL, destination: str | os.PathLike[str]) -> Summary:
    """Write a consistent backup of the database at ``url`` to ``destination``."""
    url = make_url(url)
    destination = Path(destination)
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BackupError(f"cannot write to {destination.parent}: {error.strerror}") from None
    if url.get_backend_name() == "sqlite":
        return _backup_sqlite(_sqlite_path(url), destination)
    if url.get_backend_name() == "postgresql":
        return _backup_postgresql(url, destination)
    raise BackupError(f"cannot back up a {url.get_backend_name()} database")


def restore(url: str | URL, source: str | os.PathLike[str], force: bool = False) -> Summary:
    """Put the backup ``source`` back into the database at ``url``."""
    url = make_url(url)
    source = Path(source)
    try:
        with source.open("rb") as handle:
            magic = handle.read(16)
    except OSError as error:
        raise BackupError(f"cannot read {source}: {error.strerror}") from None
    backend = url.get_backend_name()
    if magic.startswith(SQLITE_MAGIC):
        if backend != "sqlite":
            raise BackupError(f"{source} is a SQLite backup; the configured database is {backend}")
        return _restore_sqlite(source, _sqlite_path(url), force)
    if magic.startswith(PGDUMP_MAGIC):
        if backend != "postgresql":
            raise BackupError(f"{source} is a PostgreSQL dump; the configured database is {backend}")
        return _restore_postgresql(source, url, force)
    raise BackupError(f"{source} is not a backup made by 'flask --app companion backup'")


# --- SQLite ------------------------------------------------------------------------------


def _sqlite_path(url: URL) -> Path:
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory database has nothing to back up")
    return Path(url.database)


def _count_sqlite(connection: sqlite3.Connection) -> tuple[int, int]:
    try:
        nights = connection.execute("SELECT count(*) FROM night").fetchone()[0]
        events = connection.execute("SELECT count(*) FROM event").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise BackupError(f"not a companion database: {error}") from None
    return nights, events


def _check_sqlite(connection: sqlite3.Connection, what: Path) -> None:
    try:
        result = connection.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{what} is not a sound SQLite database: {error}") from None
    if result != "ok":
        raise BackupError(f"{what} fails its integrity check: {result}")


def _backup_sqlite(source: Path, destination: Path) -> Summary:
    if not source.exists():
        raise BackupError(f"there is no database at {source}")
    if destination.exists() and destination.resolve() == source.resolve():
        raise BackupError("the backup must go to another file than the database itself")
    partial = _private_file(destination.with_name(destination.name + ".partial"))
    src = sqlite3.connect(source, timeout=30)
    try:
        src.execute("PRAGMA busy_timeout=30000")
        dst = sqlite3.connect(partial)
        try:
            # pages=-1: every page in one step, inside one read transaction: one instant's database
            src.backup(dst, pages=-1)
            _check_sqlite(dst, partial)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
            nights, events = _count_sqlite(dst)
        finally:
            dst.close()
    except sqlite3.Error as error:
        partial.unlink(missing_ok=True)
        raise BackupError(f"the backup failed: {error}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    _fsync(partial)
    os.replace(partial, destination)
    _fsync_dir(destination.parent)
    return Summary("sqlite", nights, events, str(destination))


def _restore_sqlite(source: Path, target: Path, force: bool) -> Summary:
    src = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        _check_sqlite(src, source)
        nights, events = _count_sqlite(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        dst = sqlite3.connect(target, timeout=30)
        try:
            dst.execute("PRAGMA busy_timeout=30000")
            if not force:
                _refuse_if_in_use(_existing_nights_sqlite(dst), target)
            # the backup API replaces the whole target under its lock, WAL and all
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode=WAL")
            _check_sqlite(dst, target)
            restored = _count_sqlite(dst)
        finally:
            dst.close()
    except sqlite3.Error as error:
        raise BackupError(f"the restore failed: {error}") from None
    finally:
        src.close()
    if restored != (nights, events):  # pragma: no cover - the backup API copies every page
        raise BackupError(f"the restore holds {restored}, the backup {(nights, events)}")
    return Summary("sqlite", nights, events, str(target))


def _existing_nights_sqlite(connection: sqlite3.Connection) -> int:
    try:
        return connection.execute("SELECT count(*) FROM night").fetchone()[0]
    except sqlite3.OperationalError:  # no table yet: an empty database
        return 0


def _refuse_if_in_use(nights: int, where: object) -> None:
    if nights:
        raise BackupError(
            f"{where} already holds {nights} night(s); restore into an empty database, "
            "or add --force to replace them (stop the server first)"
        )


def _private_file(path: Path) -> Path:
    """A new empty file at ``path`` that only its owner can read: a backup holds every night's
    secret links, so it is made 0600 like the database itself, whatever the umask."""
    path.unlink(missing_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    path.chmod(0o600)
    return path


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - not every platform opens directories
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- PostgreSQL --------------------------------------------------------------------------


def _libpq(url: URL) -> tuple[str, dict[str, str]]:
    """A libpq connection string without the password, and the environment that carries it."""
    env = dict(os.environ)
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None, query={})
    return plain.render_as_string(hide_password=False), env


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not installed (apt-get install postgresql-client)")
    return found


def _count_postgresql(url: URL) -> tuple[int, int]:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            if not sa.inspect(connection).has_table("night"):
                return 0, 0
            nights = connection.execute(sa.text("SELECT count(*) FROM night")).scalar_one()
            events = connection.execute(sa.text("SELECT count(*) FROM event")).scalar_one()
    except sa.exc.SQLAlchemyError as error:
        raise BackupError(f"cannot read the database: {error}") from None
    finally:
        engine.dispose()
    return nights, events


def _backup_postgresql(url: URL, destination: Path) -> Summary:
    """pg_dump inside a snapshot this process holds open, so the counts printed are the dump's."""
    target, env = _libpq(url)
    partial = _private_file(destination.with_name(destination.name + ".partial"))
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool, isolation_level="REPEATABLE READ")
    try:
        with engine.connect() as connection, connection.begin():
            snapshot = connection.execute(sa.text("SELECT pg_export_snapshot()")).scalar_one()
            nights = connection.execute(sa.text("SELECT count(*) FROM night")).scalar_one()
            events = connection.execute(sa.text("SELECT count(*) FROM event")).scalar_one()
            done = subprocess.run(
                [_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
                 f"--snapshot={snapshot}", "--file", str(partial), target],
                env=env, capture_output=True, text=True,
            )
    except sa.exc.SQLAlchemyError as error:
        partial.unlink(missing_ok=True)
        raise BackupError(f"cannot read the database: {error}") from None
    finally:
        engine.dispose()
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BackupError(f"pg_dump failed: {done.stderr.strip()}")
    _check_dump(partial)
    _fsync(partial)
    os.replace(partial, destination)
    _fsync_dir(destination.parent)
    return Summary("postgresql", nights, events, str(destination))


def _check_dump(path: Path) -> None:
    """Check that a dump holds the app's tables (pg_restore --list reads it without a database)."""
    done = subprocess.run([_tool("pg_restore"), "--list", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BackupError(f"{path} cannot be read back: {done.stderr.strip()}")
    listing = done.stdout
    if " TABLE DATA public night " not in listing or " TABLE DATA public event " not in listing:
        raise BackupError(f"{path} does not hold the night and event tables")


def _restore_postgresql(source: Path, url: URL, force: bool) -> Summary:
    _check_dump(source)
    if not force:
        _refuse_if_in_use(_count_postgresql(url)[0], "the database")
    target, env = _libpq(url)
    done = subprocess.run(
        [_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges",
         "--single-transaction", "--exit-on-error", "--dbname", target, str(source)],
        env=env, capture_output=True, text=True,
    )
    if done.returncode != 0:
        raise BackupError(f"pg_restore failed (nothing was changed): {done.stderr.strip()}")
    nights, events = _count_postgresql(url)
    return Summary("postgresql", nights, events, url.render_as_string(hide_password=True))
