"""The night's history and its file: every record of every game, newest first, and the export.

``GET /k/<key>/history`` (in pages of :data:`~.pagination.PER_PAGE`) and
``GET /k/<key>/export.json`` (the night file, docs/night-file.md), each kept per night
version: a long night's history is most of its reading time (issue 14, item 12).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, get_template_attribute, render_template, request
from markupsafe import Markup

from companion import service
from companion.service import NightRow
from companion.games.web import SCREENS
from companion.web.plumbing import kept_pages
from companion.web.plumbing import pagination
from companion.web.plumbing.downloads import Download, attachment, keep_download, kept_download
from companion.web.plumbing.links import NightLink, keeper_link, keeper_night

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


def _history_key(link: NightRow | NightLink) -> tuple[Any, ...]:
    """What a kept page of the history depends on besides (night, version): its link and which page."""
    return ("history", link.keeper_key, request.args.get("page", "1")[:8])


def _history_page(night: NightRow, flashed: Any) -> str:
    play = service.play_for(night)
    rows, ledger = history_lines(night)  # kept per version
    page = pagination.page_of(list(reversed(rows)))  # newest first, in pages
    # each shown game's "where" line, its parts imported once per page, not once per row (an
    # import inside the loop made the parts' module anew for each of a page's 100 rows)
    where = {parts: get_template_attribute(parts, "where") for parts in {row.parts for row in page.rows}}
    # each undone record of each game (by its seq in the game) → the night's number of its undo
    voided = {p.number: {seq: p.state.number_of(by) for seq, by in p.state.voided.items()} for p in play.games}
    several = len(play.played()) > 1  # a game taken back was never played
    shown = {p.number: play.shown_number(p.number) for p in play.games}
    return render_template(
        "history/show.html",
        night=night,
        rows=page.rows,
        rows_html=_rows_html(night, page.rows, voided, several, shown, where),
        page=page,
        ledger=ledger,
        describe=functools.partial(service.describe_ledger_event, play=play, money=service.money_of(night)),
        flashed=flashed,
    )


def _rows_html(
    night: NightRow, rows: Sequence[Row], voided: dict[int, dict[int, int]], several: bool, shown: dict[int, int],
    where: dict[str, Any],
) -> list[Markup]:
    """Each row of the page as HTML, made only where the row is new or shows something new (issue 22).

    A row shows its record and event, which never change, whether and by which number it was undone,
    and, on a night of several games, its game's number: the same four things give the same HTML.
    The rows made at the version this process kept last are reused, so the first page after an
    action makes the action's row, not all 100 (a 2,000-stage night's page had cost 1.6x a short
    night's, whose page holds a few rows).  Kept per night as one dict of the rows the page used,
    never changed once kept.
    """
    kept = service.derived("history-rows", night.id, night.version)
    if kept is None:
        before = service.derived_before("history-rows", night.id, night.version)
        kept = before[1] if before is not None else {}
    row_macro = get_template_attribute("history/_row.html", "row")
    made: dict[tuple[int, int | None, bool, int], Markup] = {}
    out = []
    for row in rows:
        voided_by = voided[row.game].get(row.record.seq)
        key = (row.event.seq, voided_by, several, shown[row.game])
        html = kept.get(key)
        if html is None:
            html = row_macro(row, voided_by, several, shown[row.game], where[row.parts])
        made[key] = html
        out.append(html)
    service.keep_derived("history-rows", night.id, night.version, made)
    return out


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


@dataclass(frozen=True)
class HistoryLines:
    """What the history keeps of a night at one version, made so that the next version only adds to it.

    ``made`` counts, per game (by its number in the night), the rows paired so far (record i
    with the game's event i); ``pending`` holds each game's events read but not yet paired with
    a record.  Never changed once kept: a request still showing this version may hold it.
    """

    rows: tuple[Row, ...]
    others: tuple[Line, ...]
    made: dict[int, int]
    pending: dict[int, tuple[Line, ...]]


EMPTY = HistoryLines((), (), {}, {})


def history_lines(night: Any) -> tuple[tuple[Row, ...], tuple[Line, ...]]:
    """(each game's log records with their events, in the order recorded; the night's other events), per version.

    Reading and mapping the whole event log was most of the history page's time on a
    long night (issue 14, item 12), and still was on the first request after each action
    (issue 22): the ledger is append-only, so the lines of the version this process kept
    last are extended with the events recorded since (however many, by whichever process),
    and the whole log is read only when nothing earlier is kept.
    """
    kept = service.derived("history-lines", night.id, night.version)
    if kept is None:
        before = service.derived_before("history-lines", night.id, night.version)
        kept = extend_lines(night, *(before or (0, EMPTY)))
        service.keep_derived("history-lines", night.id, night.version, kept)
    return kept.rows, kept.others


def extend_lines(night: Any, since: int, lines: HistoryLines) -> HistoryLines:
    """``lines`` (the night's history at version ``since``) with the events after ``since`` up to ``night.version``."""
    play = service.play_for(night)
    if any(len(played.state.log) < lines.made.get(played.number, 0) for played in play.games):
        return extend_lines(night, 0, EMPTY)  # a game's log is shorter than what was kept: never so, but never trusted
    position: dict[int, int] | None = None
    others: list[Line] = []
    pending = {number: list(events) for number, events in lines.pending.items()}
    for e in service.events_after(night, since):
        line = Line(e.seq, e.kind, e.payload, e.created_at, e.recorded_by, e.game_id)
        if e.game_id is None or e.kind == service.GAME_STARTED:
            others.append(line)
        else:
            if position is None:
                position = {game.id: game.position for game in night.games}
            pending.setdefault(position[e.game_id], []).append(line)
    made = dict(lines.made)
    new: list[Row] = []
    for played in play.games:
        waiting = pending.get(played.number)
        if not waiting:
            continue
        first = made.get(played.number, 0)
        log = played.state.log[first : first + len(waiting)]
        if log:
            title, parts = played.title, SCREENS[played.game.kind].parts_template  # once per game, not per row
            new.extend(Row(record, event, played.number, title, parts) for record, event in zip(log, waiting))
            made[played.number] = first + len(log)
            pending[played.number] = waiting[len(log) :]
    new.sort(key=lambda row: row.event.seq)
    rows = lines.rows + tuple(new)
    if lines.rows and new and new[0].event.seq < lines.rows[-1].event.seq:
        rows = tuple(sorted(rows, key=lambda row: row.event.seq))  # an older event paired late: in seq order again
    return HistoryLines(
        rows,
        lines.others + tuple(others),
        made,
        {number: tuple(events) for number, events in pending.items() if events},
    )
