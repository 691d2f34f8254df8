"""A night's row as a page finds it: by one of its links, by its id, read again after a refused write.

A page reads a night off the row the service hands it (:class:`~companion.service.rows.NightRow`)
and never queries one itself: every way the web layer finds a night is named here, so that what
a request asks of the database, and in which statement, is the service's to say.  A link's secret
is compared in constant time by the web layer (it holds the request that brought the key); these
reads only find the row whose column holds the key.

Also here, the two reads of a night besides its fold that a page makes: when its last record was
made (the tap guard, web/plumbing/tap_guard.py) and its links for the pages made before a server's first
request (web/plumbing/server.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Literal

from sqlalchemy import func, select

from companion.db.models import DisplayLink, Event, Night, utcnow
from companion.extensions import db
from companion.service.uow import end_reads

#: the columns a night's own links are kept in: the first scorekeeper link's and the players'
LINK_COLUMNS = {"keeper": Night.keeper_key, "viewer": Night.viewer_key}


def night_by_id(night_id: int) -> Night | None:
    """The night ``night_id`` as this request's session holds it (loaded once per request), or None."""
    return db.session.get(Night, night_id)


def night_again(night_id: int) -> Night | None:
    """The night ``night_id`` read again from the database, every row this request loaded forgotten.

    A write refused as stale (another phone recorded first) or as a request key's conflict leaves this
    request's rows as they were read before it: the page that answers the refusal must show the night
    as the other phone left it, its version and its screen, so the session's rows are expired first.
    """
    db.session.expire_all()
    return db.session.get(Night, night_id)


def night_by_link(key: str, which: Literal["keeper", "viewer"]) -> Night | None:
    """The night whose first scorekeeper link (``which="keeper"``) or players' link (``"viewer"``) is ``key``.

    The caller has read ``key`` as a link's alphabet and length (nothing else reaches SQL) and compares the
    row's link with it in constant time (web/plumbing/links.py): the statement finds the row, the comparison admits it.
    """
    return db.session.scalar(select(Night).where(LINK_COLUMNS[which] == key))


def display_link_of(key: str) -> tuple[str, int] | None:
    """The table display link ``key`` as stored (its key, its night's id), or None: no such link (docs/display.md).

    The key is handed back for the caller's constant-time comparison before the night is loaded
    (:func:`night_by_id`): the display link opens the display alone, so it is looked up only there.
    """
    row = db.session.scalar(select(DisplayLink).where(DisplayLink.key == key))
    return None if row is None else (row.key, row.night_id)


def since_last_record(night_id: int) -> timedelta | None:
    """How long ago the night's last record was made, on the database's clock of records; None before any.

    The tap guard (web/plumbing/tap_guard.py, issue 14) refuses a submit that comes in the first moments after the
    screen it was made for changed: it measures from when the record that changed it was stored.
    """
    last = db.session.scalar(select(func.max(Event.created_at)).where(Event.night_id == night_id))
    return None if last is None else utcnow() - last


def links_for_warm_up(night_ids: Iterable[int]) -> list[tuple[str, str]]:
    """The (scorekeeper link, players' link) of each of ``night_ids`` that still exists, in their order.

    What a server asks for its pages before its first request (web/plumbing/server.py): a read only, ended at once
    as :func:`~companion.service.store.warm_up`'s is, so that no transaction is left open in a worker.
    """
    links = []
    for night_id in night_ids:
        night = db.session.get(Night, night_id)
        if night is not None:
            links.append((night.keeper_key, night.viewer_key))
    end_reads()
    return links
