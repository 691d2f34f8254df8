"""Pages of a long list: the history of a 450-stage night is 131 KB on one page (issue 14, item 12)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import abort, request

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
