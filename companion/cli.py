"""Command-line entry points: ``flask --app companion replay FILE`` (a night or a group), ``serve``, ``backup FILE``,
``restore FILE``."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import click
from flask import Flask, current_app

from companion.group import file as groupfile
from companion.group import replay as group_replay
from companion.night import file as nightfile
from companion.web.hosts import lan_address
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


#: Open connections one process keeps: every phone at every table holds one (keep-alive) while it polls,
#: and a socket that sent half a request holds one too, without holding a thread (see waitress_options).
CONNECTION_LIMIT = 2000
#: Files one process may have open: its connections, the database's files and the listening socket.
OPEN_FILES = 4096
#: files kept for other uses than connections (database, pool, logs, imports' temporary files)
SPARE_FILES = 100


def waitress_options(app: Flask, threads: int, open_files: int = OPEN_FILES) -> dict[str, object]:
    """What each waitress process is told: the limits that keep a slow or idle client cheap.

    Waitress reads whole requests in its one I/O loop and hands a thread only a request
    that has fully arrived, so a socket that sends half a header and stops costs a
    connection slot and a small buffer, never a thread: the table keeps being answered.
    The bounds make each such socket cheap: a header larger than 32 KB or a body larger
    than the app takes is refused at once, a body past 64 KB waits in a temporary file
    rather than in memory (so 2,000 connections hold 64 MB of headers at most), and a
    connection idle for a minute is closed, half a request or not.  The connections
    stay under the files the process may open (``open_files``).
    """
    return {
        "threads": threads,
        "ident": "companion",
        "connection_limit": max(10, min(CONNECTION_LIMIT, open_files - SPARE_FILES)),
        # poll() rather than select(): select() cannot watch more than 1024 sockets.
        "asyncore_use_poll": True,
        "channel_timeout": 60,
        "max_request_header_size": 32_768,
        "max_request_body_size": int(app.config["MAX_CONTENT_LENGTH"]) + 65_536,
        "inbuf_overflow": 65_536,
        "backlog": 1024,
    }


def raise_open_files_limit(wanted: int = OPEN_FILES) -> int:
    """Let this process open ``wanted`` files (as far as the hard limit allows); the limit now."""
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
@click.option("--threads", default=8, show_default=True, type=int, help="threads per process")
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="processes sharing the port (Unix only), each one waitress with --threads threads",
)
def serve_command(host: str, port: int, threads: int, workers: int) -> None:
    """Upgrade the database and serve the app with a production WSGI server.

    Waitress with ``--threads`` threads; ``--workers N`` with N > 1 forks N waitress
    processes that share one listening socket, all behind the same database (a Python
    process runs on one core at a time).
    """
    from flask_migrate import upgrade

    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    upgrade()
    app.config["LISTEN_HOST"] = host  # the QR code may use the LAN address only if it reaches us
    if port:  # the players' and members' links name it (port 0: the one the server is given, SERVER_PORT)
        app.config["LISTEN_PORT"] = port
    open_files = raise_open_files_limit()
    lan = lan_address()
    click.echo(f"companion: serving on http://{host}:{port}/ ({workers} process{'es' if workers > 1 else ''} "
               f"x {threads} threads)")
    if lan and host in ("0.0.0.0", "::"):
        click.echo(f"companion: phones on this network open http://{lan}:{port}/")
    warm_up(app)
    settle_garbage_collector()
    if workers > 1:
        from companion.web.workers import serve_processes

        serve_processes(app, host, port, workers, waitress_options(app, threads, open_files))
        return
    from companion.web.waitress_serve import serve

    serve(app, host=host, port=port, **waitress_options(app, threads, open_files))


def warm_up(app: Flask) -> None:
    """Before the first request: every template compiled, the nights in play folded and their pages made (issue 22).

    What a restarted worker would otherwise do on its first requests, at a phone's
    expense: Jinja compiles each template on first use, a night's fold is rebuilt
    from its event log (service.warm_up), each game's screens and report part are
    imported when first asked for, and a page's standings, charts and history lines are
    worked out for its version (:func:`warm_pages`).  Forked workers inherit all of it.
    """
    from companion import service
    from companion.games import GAMES
    from companion.games.web import SCREENS
    from companion.report.parts import own_report_part

    for name in _template_names(app):
        if name.endswith(".html"):
            app.jinja_env.get_template(name)
    for kind in SCREENS:  # each game's screens, forms and views, and its own part of the report
        SCREENS[kind]
        own_report_part(GAMES[kind])
    warm_pages(app, service.warm_up())


#: the pages of a night in play made before the first request: the scorekeeper's (table, report,
#: history) and the players' (their page and the report)
WARM_PAGES = ("/k/{keeper}", "/k/{keeper}/report", "/k/{keeper}/history", "/p/{viewer}", "/p/{viewer}/report")


def warm_pages(app: Flask, night_ids: list[int]) -> None:
    """Ask this process for the pages of each of ``night_ids`` (:data:`WARM_PAGES`), as a phone would.

    A page is kept per night version (web/kept_pages), and what it derives (the standings,
    the report's charts, the history's lines) too: asked once here, the first phone after
    a restart is answered from what is kept rather than after a cold render (at 1,980
    stages: the table screen 27-66 ms, the report 30-52 ms, the history 80-150 ms).  The
    requests only read; a night since deleted is skipped, and a page that fails is logged,
    not raised: a server starts whatever one night's page does.
    """
    from companion.db.models import Night
    from companion.extensions import db

    paths = []
    for night_id in night_ids:
        night = db.session.get(Night, night_id)
        if night is not None:
            paths += [path.format(keeper=night.keeper_key, viewer=night.viewer_key) for path in WARM_PAGES]
    db.session.rollback()  # a read only, as service.warm_up's: no transaction open when the workers fork
    client = app.test_client()
    for path in paths:  # as a phone's browser asks: the compressed page is kept too
        try:
            client.get(path, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
        except Exception:  # a page that fails fails its phone too, which is told then: serving goes on
            app.logger.exception("warm-up: %s", path)


def _template_names(app: Flask) -> set[str]:
    """The templates the app's loaders can list (a loader that cannot is skipped: its templates compile on first use)."""
    loaders = [app.jinja_loader, *(bp.jinja_loader for bp in app.iter_blueprints())]
    names: set[str] = set()
    while loaders:
        loader = loaders.pop()
        if loader is None:
            continue
        if hasattr(loader, "loaders"):  # a ChoiceLoader: ask each of its loaders
            loaders.extend(loader.loaders)
            continue
        try:
            names.update(loader.list_templates())
        except TypeError:
            pass
    return names


#: allocations between two young collections (Python's default is 700): a request makes
#: thousands of short-lived objects, and each young collection that catches them
#: half-made promotes them, so that full collections come sooner
GC_YOUNG_THRESHOLD = 10_000
#: young collections between two collections of the middle generation (Python's default is 10).  A middle
#: collection walks the young objects and every one that survived the young collections since the last
#: one: at 10 that was up to eleven times GC_YOUNG_THRESHOLD objects, and a night folded for the first time
#: (a group's two hundred nights: their records, positions and transfers, all kept) survives whole, so the
#: middle collection walked 71,000 objects, 16-29 ms of CPU on the project's machine, 48-83 ms on a slower
#: one (issue 22).  At 1 it walks at most the survivors of two young collections: 23,000, 4 ms.
GC_MIDDLE_THRESHOLD = 1
#: middle collections before a full one is considered (Python's default is 10; Python also waits until the
#: objects promoted since the last full collection are a quarter of those it left).  A full collection walks
#: every kept fold (94,000-110,000 objects, 27-64 ms, with the load bench's nights): with the middle generation
#: collected ten times as often, 60 keeps full collections as rare as they were, one per
#: (1 + 1) x (60 + 1) = 122 young collections against (10 + 1) x (10 + 1) = 121.
GC_OLD_THRESHOLD = 60


def settle_garbage_collector() -> None:
    """Put what start-up made out of the collector's reach, before serving, and keep each collection short (issue 22).

    A full collection walks every tracked object: with the app, SQLAlchemy, Jinja and
    the games' modules loaded that was 100-250 ms on this project's machine, a pause for
    every request in that process.  ``gc.freeze()`` after start-up moves those objects to
    the permanent generation, which no collection walks (and forked workers keep sharing
    their pages).  What is collected afterwards is what serving made: the nights kept
    (bounded by FOLD_CACHE_EVENTS) and each request's garbage; the thresholds
    (GC_YOUNG_THRESHOLD, GC_MIDDLE_THRESHOLD, GC_OLD_THRESHOLD) bound what a young or middle
    collection walks, and leave full collections as rare as Python's defaults made them.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, GC_MIDDLE_THRESHOLD, GC_OLD_THRESHOLD)


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
