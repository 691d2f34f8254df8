"""Nights at the file bound, imported without a link and read page by page (issue 21, item 2).

Anyone who can reach the app can import a night file (no link needed, ``IMPORT_LIMIT``
files per address in any 10 minutes) and is then sent to that night's scorekeeper link,
so they can open every page of it.  These helpers do that as such a visitor would:
``tests/reliability/test_memory_ceiling.py`` checks that what a process keeps stays
under its ceiling, and ``bench/memory_bench.py`` measures the process's memory.
"""

from __future__ import annotations

import io
import json
import re
import secrets
from collections.abc import Iterator

from flask.testing import FlaskClient

from companion.values import limits
from companion.web.plumbing.pagination import PER_PAGE

#: the pages of a night a GET reaches, by link (the history's other pages come on top)
KEEPER_PAGES = ("", "/bank", "/bonus", "/bonus/grid", "/choice", "/export.json", "/history", "/next-game",
                "/players-qr.svg", "/report", "/report.csv", "/report.json", "/setup", "/share")
PLAYER_PAGES = ("", "/live", "/me", "/report", "/report.csv", "/report.json")


def night_at_the_bound(stages: int = limits.MAX_STAGES) -> bytes:
    """A night file of ``stages`` stages (2,000, the most one game holds) where nobody says Yes."""
    document = {
        "format": "napalm-hand-history/1",
        "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
        "players": ["Ann", "Ben", "Cat"],
        "first_dealer": "Ann",
        "stages": [{"yes": []} for _ in range(stages)],
    }
    return json.dumps(document).encode()


def import_from(client: FlaskClient, address: str, data: bytes) -> tuple[str, str]:
    """Import ``data`` from the client ``address`` (no link); the night's (scorekeeper key, players' key)."""
    form = {"file": (io.BytesIO(data), "night.json"), "request_key": secrets.token_urlsafe(32)}
    response = client.post("/import", data=form, content_type="multipart/form-data",
                           environ_base={"REMOTE_ADDR": address})
    assert response.status_code == 303, (response.status_code, response.get_data(as_text=True)[:400])
    keeper = response.headers["Location"].rstrip("/").rsplit("/", 1)[1]
    page = client.get(f"/k/{keeper}/share", environ_base={"REMOTE_ADDR": address}).get_data(as_text=True)
    found = re.search(r"/p/([A-Za-z0-9_-]{20,})", page)
    assert found, "no players' link on the share page"
    return keeper, found.group(1)


def every_page(keeper: str, viewer: str, stages: int) -> Iterator[str]:
    """Every page of the night a visitor with its scorekeeper link can open, the history's too."""
    for page in KEEPER_PAGES:
        yield f"/k/{keeper}{page}"
    for number in range(2, -(-stages // PER_PAGE) + 1):
        yield f"/k/{keeper}/history?page={number}"
    for page in PLAYER_PAGES:
        yield f"/p/{viewer}{page}"
