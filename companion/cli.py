"""Command-line entry points: ``flask --app companion replay FILE`` (a night or a group), ``serve``, ``backup FILE``,
``restore FILE``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click
from flask import Flask

from companion.group import file as groupfile
from companion.group import replay as group_replay
from companion.night import file as nightfile
from companion.web.plumbing.hosts import lan_address
from .games import IllegalAction, RecordError


@click.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def replay_command(file: Path) -> None:
    """Read a night FILE (companion-night/2, or a game's older format) and print the standings as JSON.

    A group FILE (companion-group/1) prints the group's season table (all time) and its tab.
    """
    try:
        data = file.read_bytes()
    except OSError as error:
        click.echo(f"error: cannot read {file}: {error.strerror}", err=True)
        sys.exit(2)
    if groupfile.declares_group(data):
        try:
            group = groupfile.loads(data)
        except groupfile.GroupFileError as error:
            click.echo(f"error: {file}: {error}", err=True)
            sys.exit(1)
        click.echo(json.dumps(group_replay.replay_summary(group), indent=2, ensure_ascii=False))
        return
    try:
        parsed = nightfile.loads(data)
    except (RecordError, IllegalAction) as error:
        click.echo(f"error: {file}: {error}", err=True)
        sys.exit(1)
    # a game's older format (a napalm-hand-history/1) prints exactly what it always printed; a night file its games
    summary = parsed.legacy.replay_summary() if parsed.legacy is not None else nightfile.replay_summary(parsed)
    click.echo(json.dumps(summary, indent=2, ensure_ascii=False))


#: Open connections one gunicorn worker holds at most (``--worker-connections``): every phone at every table
#: holds one or two (its page's stream, its requests kept alive), and a socket that sent half a request
#: holds one, for KEEP_ALIVE seconds at most (companion/web/plumbing/server.py); a greenlet each, never a thread.
CONNECTION_LIMIT = 2000
#: Files one process may have open: its connections, the database's files and the listening socket.
OPEN_FILES = 4096
#: files kept for other uses than connections (database, pool, logs, imports' temporary files)
SPARE_FILES = 100


def raise_open_files_limit(wanted: int = OPEN_FILES) -> int:
    """Let this process (and the server it becomes) open ``wanted`` files, as far as the hard limit allows; the limit now."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no such limit to raise
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


@click.command("serve")
@click.option("--host", default="0.0.0.0", show_default=True, help="0.0.0.0 lets the other phones reach it")
@click.option("--port", default=5000, show_default=True, type=int)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="gunicorn worker processes sharing the port, each serving all its connections with gevent "
    "(a Python process runs on one core at a time)",
)
@click.option(
    "--worker-connections",
    default=CONNECTION_LIMIT,
    show_default=True,
    type=click.IntRange(min=10),
    help="open connections each worker holds at most (a phone holds one or two)",
)
def serve_command(host: str, port: int, workers: int, worker_connections: int) -> None:
    """Upgrade the database, then serve the app with gunicorn and gevent workers (Unix only).

    This process upgrades the database and says where to open the app, then becomes
    gunicorn's master (``exec``: the same process, a fresh interpreter) through
    ``companion/web/plumbing/server.py``, whose docstring says why each worker builds its own app.
    """
    from flask.cli import ScriptInfo
    from flask_migrate import upgrade

    from .extensions import db

    upgrade()
    open_files = raise_open_files_limit()  # the server inherits the limit
    connections = max(10, min(worker_connections, open_files - SPARE_FILES))
    lan = lan_address()
    click.echo(f"companion: serving on http://{host}:{port}/ ({workers} process{'es' if workers > 1 else ''} "
               f"x {connections} connections, gunicorn with gevent)")
    if lan and host in ("0.0.0.0", "::"):
        click.echo(f"companion: phones on this network open http://{lan}:{port}/")
    for engine in db.engines.values():  # the connections the upgrade used: closed, not carried into the server
        engine.dispose()
    info = click.get_current_context().find_object(ScriptInfo)
    app_import_path = info.app_import_path if info is not None else None
    command = [sys.executable, "-m", "companion.web.plumbing.server", "--host", host, "--port", str(port),
               "--workers", str(workers), "--worker-connections", str(connections)]
    if app_import_path:
        command += ["--app", app_import_path]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, command)


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def backup_command(file: Path) -> None:
    """Write a consistent backup of the live database to FILE (SQLite online backup, or pg_dump)."""
    from companion.db.backup import BackupError, backup
    from .extensions import db

    try:
        summary = backup(db.engine.url, file)
    except BackupError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    click.echo(summary.describe("backed up"))


@click.command("restore")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="replace a database that already holds nights")
def restore_command(file: Path, force: bool) -> None:
    """Put the backup FILE back into the configured database (stop the server first)."""
    from companion.db.backup import BackupError, restore
    from .extensions import db

    db.engine.dispose()  # this process holds no connection to the file being replaced
    try:
        summary = restore(db.engine.url, file, force=force)
    except BackupError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    click.echo(summary.describe("restored"))


def init_app(app: Flask) -> None:
    app.cli.add_command(replay_command)
    app.cli.add_command(serve_command)
    app.cli.add_command(backup_command)
    app.cli.add_command(restore_command)
