"""A tap in the first moments of a freshly loaded screen does not act (issue 14, bug 2).

Two whole nights played at a real table showed a "Nobody said Yes" tapped twice,
the second tap 150–800 ms after the first: the first records and loads the next
screen, which has the same button in the same place, and the second lands on it
and records the next stage too.

How the delay was chosen: every measured second tap came at most 800 ms after
the first, so a screen ignores taps until **1000 ms after the tap that opened it**
(800 ms plus a 200 ms margin).  A deliberate tap on a new screen comes later than
that: the scorekeeper first reads the new question.  The browser measures from
the navigation's start (``performance.now()`` on the new page counts from the tap
that opened it), in ``static/app.js``.

Without JavaScript the server keeps the same guard: a submit made for the current
screen that arrives less than 900 ms after that screen's action was recorded is
refused with a message, and records nothing.  The server measures from when it
recorded the first tap, a little after the tap itself, so its figure is 100 ms
less than the browser's: a tap the browser lets through is never refused here.

``TAP_GUARD_MS`` (``COMPANION_TAP_GUARD_MS``) sets the browser's figure; 0 turns
both guards off (the test suite's robots tap faster than any person).
"""

from __future__ import annotations

from flask import current_app

from companion import service
from companion.service import NightRow

DEFAULT_MS = 1000
#: the server measures from its own record of the first tap, a little after the tap
SERVER_MARGIN_MS = 100
TOO_SOON = (
    "That tap came as the screen changed (a double tap?), so it was not recorded. "
    "If you meant it, tap again."
)


def guard_ms() -> int:
    """How long, from the tap that opened a screen, the screen ignores taps (0: never)."""
    return int(current_app.config.get("TAP_GUARD_MS", DEFAULT_MS))


def too_soon(night: NightRow, version: int | None) -> bool:
    """True when a submit for the screen now shown comes in the first moments after it changed."""
    guard = guard_ms() - SERVER_MARGIN_MS
    if guard <= 0 or version is None or version != night.version or night.version == 0:
        return False
    since = service.since_last_record(night.id)
    return since is not None and since.total_seconds() * 1000 < guard
