"""The night's history and its file: every record of every game, newest first, and the export.

``GET /k/<key>/history`` (in pages of :data:`~.pagination.PER_PAGE`) and
``GET /k/<key>/export.json`` (the night file, docs/night-file.md), each kept per night
version: a long night's history is most of its reading time (issue 14, item 12).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, render_template, request

from companion import service
from companion.db.models import Night
from companion.games.web import SCREENS
from companion.web import kept_pages
from companion.web import pagination
from companion.web.downloads import Download, attachment, keep_download, kept_download
from companion.web.links import NightLink, keeper_link, keeper_night

bp = Blueprint("history", __name__, url_prefix="/k/<key>")


@bp.get("/history")
def show(key: str):  # type: ignore[no-untyped-def]
    link = keeper_link(key)  # one SELECT: enough when this process keeps this page at that version
    if link is not None:
        page = kept_pages.kept_page(_history_key(link), link.id, link.version)
        if page is not None:
            return page
    night = keeper_night(key)
    return kept_pages.render_kept(
        _history_key(night), night.id, night.version, lambda flashed: _history_page(night, flashed)
    )


def _history_key(link: Night | NightLink) -> tuple[Any, ...]:
    """What a kept page of the history depends on besides (night, version): its link and which page."""
    return ("history", link.keeper_key, request.args.get("page", "1")[:8])


def _history_page(night: Night, flashed: Any) -> str:
    play = service.play_for(night)
    rows, ledger = history_lines(night)  # kept per version
    return render_template(
        "history/show.html",
        night=night,
        rows=(page := pagination.page_of(list(reversed(rows)))).rows,  # newest first, in pages
        page=page,
        ledger=ledger,
        # each undone record of each game (by its seq in the game) → the night's number of its undo
        voided={p.number: {seq: p.state.number_of(by) for seq, by in p.state.voided.items()} for p in play.games},
        several=len(play.played()) > 1,  # a game taken back was never played
        shown={p.number: play.shown_number(p.number) for p in play.games},
        describe=functools.partial(service.describe_ledger_event, play=play, money=service.money_of(night)),
        flashed=flashed,
    )


@bp.get("/export.json")
def export(key: str):  # type: ignore[no-untyped-def]
    link = keeper_link(key)  # one SELECT: enough when this process keeps the file at that version (issue 22)
    if link is not None:
        kept = kept_download("export", link.id, link.version)
        if kept is not None:
            return kept
    night = keeper_night(key)
    # the night file, whatever games the night held (docs/night-file.md): not a game's "napalm-"
    return keep_download("export", night.id, night.version, lambda: Download(
        service.export_history(night).encode(), "application/json", attachment("night", night.name, "json")
    ))


@dataclass(frozen=True)
class Line:
    """What the history shows of one stored event (plain values: safe to keep between requests)."""

    seq: int
    kind: str
    payload: Any
    created_at: Any
    recorded_by: str
    game_id: int | None = None


@dataclass(frozen=True)
class Row:
    """One record of one of the night's games, with the event that made it."""

    record: Any
    event: Line
    game: int  # the night's game it belongs to, 1-based
    title: str
    parts: str  # that game's macros (its ``where`` line)


def history_lines(night: Any) -> tuple[list[Row], list[Line]]:
    """(each game's log records with their events, in the order recorded; the night's other events), per version.

    Reading and mapping the whole event log was most of the history page's time on a
    long night (issue 14, item 12); it changes only with the version.
    """
    kept = service.derived("history-lines", night.id, night.version)
    if kept is None:
        events = [
            Line(e.seq, e.kind, e.payload, e.created_at, e.recorded_by, e.game_id) for e in service.events_of(night)
        ]
        play = service.play_for(night)
        position = {game.id: game.position for game in night.games}
        by_game: dict[int, list[Line]] = {}
        for e in events:
            if e.game_id is not None and e.kind != service.GAME_STARTED:
                by_game.setdefault(position[e.game_id], []).append(e)
        rows = [
            Row(record, event, played.number, played.title, SCREENS[played.game.kind].parts_template)
            for played in play.games
            for record, event in zip(played.state.log, by_game.get(played.number, []))
        ]
        rows.sort(key=lambda row: row.event.seq)
        others = [e for e in events if e.game_id is None or e.kind == service.GAME_STARTED]
        kept = (rows, others)
        service.keep_derived("history-lines", night.id, night.version, kept)
    return kept
