"""Brakes counted in the database: every process behind it sees the same counts.

Four things are limited per client address (``request.remote_addr``, the phone's own
behind a trusted proxy): unknown secret links (guessing), starting nights, making
groups, and importing files.  Each :class:`Limit` allows ``limit`` events in any ``window``
seconds, counted in ``BUCKETS`` buckets per window (a sliding window to a sixth of
it).  The counts live in the ``client_counter`` table; rows older than a window are
deleted as new ones are written (the service counts them: ``service.count_against``, its one writer,
and reads them for the web layer: ``service.retry_after``; the web layer's ``brake`` answers 429).  A
per-process count let two workers take twice the guesses (issue 15), a client could start nights
without end, and make 300 groups in 6 seconds (issue 36).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from sqlalchemy import select

from companion.extensions import db
from companion.db.models import ClientCounter

BUCKETS = 6
MAX_CLIENT = 64  # the column's width: an IPv6 address with a zone fits


def now() -> float:
    """The wall clock, shared by every process (tests move it)."""
    return time.time()


@dataclass(frozen=True)
class Limit:
    """At most ``limit`` events of ``kind`` per client in any ``window`` seconds."""

    kind: str
    limit: int
    window: int

    @property
    def bucket_seconds(self) -> float:
        return self.window / BUCKETS

    def retry_after(self, client: str) -> int | None:
        """Seconds until ``client`` may do this again, or None while it is under the limit."""
        at = now()
        oldest = self.bucket_of(at) - self.window + self.bucket_seconds
        rows = db.session.execute(
            select(ClientCounter.bucket, ClientCounter.hits)
            .where(ClientCounter.kind == self.kind, ClientCounter.client == client[:MAX_CLIENT])
            .where(ClientCounter.bucket >= math.floor(oldest))
            .order_by(ClientCounter.bucket)
        ).all()
        total = sum(hits for _, hits in rows)
        if total < self.limit:
            return None
        for bucket, hits in rows:  # the oldest bucket leaves the window first
            total -= hits
            if total < self.limit:
                return max(1, math.ceil(bucket + self.window - at))
        return self.window  # pragma: no cover - the loop always gets below the limit

    def bucket_of(self, at: float) -> float:
        """The start of the bucket the moment ``at`` falls in (events are counted per bucket)."""
        return math.floor(at / self.bucket_seconds) * self.bucket_seconds
