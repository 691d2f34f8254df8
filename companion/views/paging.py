"""Pages of a long list: the history of a 450-stage night is 131 KB on one page (issue 14, item 12)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import abort, request

from .. import services

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
    raw = request.args.get("page", "1")
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 6 or int(raw) < 1:
        abort(400, "page must be a whole number from 1")
    number = int(raw)
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


GAME_KINDS = ("declare", "challenge", "showdown", "void")


def history_lines(night: Any) -> tuple[list[tuple[Any, Line]], list[Line]]:
    """(each log record with its event, the settle-up events), kept per version.

    Reading and mapping the whole event log was most of the history page's time on a
    long night (issue 14, item 12); it changes only with the version.
    """
    kept = services.derived("history-lines", night.id, night.version)
    if kept is None:
        events = [Line(e.seq, e.kind, e.payload, e.created_at, e.recorded_by) for e in services.events_of(night)]
        game = [e for e in events if e.kind in GAME_KINDS]
        kept = (list(zip(services.table_for(night).log, game)), [e for e in events if e.kind not in GAME_KINDS])
        services.keep_derived("history-lines", night.id, night.version, kept)
    return kept
