"""Command-line entry points: ``flask --app companion replay FILE``, ``serve``, ``backup FILE`` and ``restore FILE``."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import click
from flask import Flask, current_app

from . import nightfile
from .games import IllegalAction, RecordError
from .games.napalm import history as hh

#: what ``replay`` prints for a ``napalm-hand-history/1`` file: the game's own summary
replay_summary = hh.replay_summary


@click.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def replay_command(file: Path) -> None:
    """Read a night FILE (companion-night/2, or a napalm-hand-history/1) and print the standings as JSON."""
    try:
        data = file.read_bytes()
    except OSError as error:
        click.echo(f"error: cannot read {file}: {error.strerror}", err=True)
        sys.exit(2)
    try:
        parsed = nightfile.loads(data)
    except (RecordError, IllegalAction) as error:
        click.echo(f"error: {file}: {error}", err=True)
        sys.exit(1)
    # a v1 hand history prints exactly what it always printed; a night file its games
    summary = replay_summary(parsed.v1) if parsed.v1 is not None else nightfile.replay_summary(parsed)
    click.echo(json.dumps(summary, indent=2, ensure_ascii=False))


def lan_address() -> str | None:
    """This machine's address on the local network, for the QR code (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


#: Open connections one server keeps: every phone at every table holds one (keep-alive) while it polls.
CONNECTION_LIMIT = 1000


@click.command("serve")
@click.option("--host", default="0.0.0.0", show_default=True, help="0.0.0.0 lets the other phones reach it")
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--threads", default=8, show_default=True, type=int, help="threads per process")
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="processes; more than 1 serves with gunicorn (Unix only) instead of waitress",
)
def serve_command(host: str, port: int, threads: int, workers: int) -> None:
    """Upgrade the database and serve the app with a production WSGI server.

    One process (the default) is waitress with ``--threads`` threads; ``--workers N``
    with N > 1 is gunicorn with N processes of ``--threads`` threads each, all behind
    the same database (a Python process runs on one core at a time).
    """
    from flask_migrate import upgrade

    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    upgrade()
    app.config["LISTEN_HOST"] = host  # the QR code may use the LAN address only if it reaches us
    lan = lan_address()
    click.echo(f"companion: serving on http://{host}:{port}/ ({workers} process{'es' if workers > 1 else ''} "
               f"x {threads} threads)")
    if lan and host in ("0.0.0.0", "::"):
        click.echo(f"companion: phones on this network open http://{lan}:{port}/")
    if workers > 1:
        serve_gunicorn(app, host, port, workers, threads)
        return
    from waitress import serve

    # poll() rather than select(): select() cannot watch more than 1024 sockets.
    serve(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="companion",
        connection_limit=CONNECTION_LIMIT,
        asyncore_use_poll=True,
    )


def serve_gunicorn(app: Flask, host: str, port: int, workers: int, threads: int) -> None:
    """Serve ``app`` with gunicorn: ``workers`` forked processes of ``threads`` threads each.

    The app is built once in the parent and forked; each child drops the parent's
    pooled database connections (a connection must never cross a fork) and opens its own.
    """
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError:  # pragma: no cover - gunicorn is Unix-only
        raise click.ClickException("--workers needs gunicorn, which runs on Unix only; use --threads") from None

    from .extensions import db

    def post_fork(_server, _worker) -> None:  # type: ignore[no-untyped-def]
        with app.app_context():
            for engine in db.engines.values():
                engine.dispose(close=False)

    options = {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": workers,
        "worker_class": "gthread",
        "threads": threads,
        "worker_connections": CONNECTION_LIMIT,
        "keepalive": 5,  # phones poll every 0.8 s: keep their connection between polls
        "preload_app": True,
        "proc_name": "companion",
        "post_fork": post_fork,
    }

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self) -> Flask:
            return app

    Server().run()


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def backup_command(file: Path) -> None:
    """Write a consistent backup of the live database to FILE (SQLite online backup, or pg_dump)."""
    from .backup import BackupError, backup
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
    from .backup import BackupError, restore
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
