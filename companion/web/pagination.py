"""Pages of a long list: the history of a 450-stage night is 131 KB on one page (issue 14, item 12)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import abort, request

from companion import service as services
from companion.values.reading import Unreadable, whole_number

PER_PAGE = 100


@dataclass(frozen=True)
class Page:
    rows: Sequence[Any]
    number: int
    count: int  # how many pages in all (at least 1)
    total: int  # how many rows in all

    @property
    def first_row(self) -> int:
        return (self.number - 1) * PER_PAGE + 1 if self.total else 0

    @property
    def last_row(self) -> int:
        return min(self.number * PER_PAGE, self.total)


def page_of(rows: Sequence[Any], per_page: int = PER_PAGE) -> Page:
    """The page ``?page=N`` asks for (1 when absent); 400 for a page that is not a number, 404 past the end."""
    try:
        number = whole_number(request.args.get("page", "1"), "page", low=1, high=999_999)
    except Unreadable:
        abort(400, "page must be a whole number from 1")
    count = max(1, -(-len(rows) // per_page))
    if number > count:
        abort(404)
    return Page(rows[(number - 1) * per_page : number * per_page], number, count, len(rows))


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
    kept = services.derived("history-lines", night.id, night.version)
    if kept is None:
        from companion.games.web import SCREENS

        events = [
            Line(e.seq, e.kind, e.payload, e.created_at, e.recorded_by, e.game_id) for e in services.events_of(night)
        ]
        play = services.play_for(night)
        position = {game.id: game.position for game in night.games}
        by_game: dict[int, list[Line]] = {}
        for e in events:
            if e.game_id is not None and e.kind != services.GAME_STARTED:
                by_game.setdefault(position[e.game_id], []).append(e)
        rows = [
            Row(record, event, played.number, played.title, SCREENS[played.game.kind].parts_template)
            for played in play.games
            for record, event in zip(played.state.log, by_game.get(played.number, []))
        ]
        rows.sort(key=lambda row: row.event.seq)
        others = [e for e in events if e.game_id is None or e.kind == services.GAME_STARTED]
        kept = (rows, others)
        services.keep_derived("history-lines", night.id, night.version, kept)
    return kept
