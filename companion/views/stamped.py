"""Pages kept per night version, with what each request makes anew filled in (issue 14, item 12).

The table screen, the report and the history of a long night cost milliseconds to
render, and every phone at the table asks for the same version right after a change.
What differs between two requests for the same page at the same version is small
and known: the session's CSRF token, a fresh request key in each form (so that a
doubled submit is told from a new one) and the flashed message of the action just
recorded.  The page is rendered once per (page, night, version, links, …), and each
of those is cut out of it; a later request pastes in its own.  Anything else that
could differ (a refused form re-shown, a question in the address) is rendered in
full, as before.

A request for a kept page asks the database one row (the night's id, version and
links, and the night its pot went on to: ``common.keeper_link``) and, when this
process keeps the page at that version, answers with it (:func:`kept_page`) without
loading the night through the ORM.  Every request still reads the version, so a
change recorded by any process shows at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property

from flask import current_app, get_flashed_messages
from markupsafe import Markup, escape

from .. import services

#: stands in for the flashed messages while a page is rendered to be kept
FLASH_MARK = Markup("\x00flash\x00")
#: a request key as ``services.new_key`` makes them, in a form's hidden field
_KEY_VALUE = re.compile(r'(?<=name="request_key" )((?:required )?type="hidden" value=")([A-Za-z0-9_-]{16,64})(")')
_GAP = re.compile("\x00(csrf|key|flash)\x00")


@dataclass(frozen=True)
class Stamped:
    """A rendered page cut at what each request makes anew: ``pieces`` around ``gaps``."""

    pieces: tuple[str, ...]
    gaps: tuple[str, ...]  # "csrf" | "key" | "flash", one between each two pieces

    @cached_property
    def encoded(self) -> tuple[bytes, ...]:
        """``pieces`` in UTF-8, made once: encoding a 75 KB report that is not all ASCII costs more than pasting it."""
        return tuple(piece.encode() for piece in self.pieces)


def _csrf_token() -> str | None:
    if not current_app.config.get("WTF_CSRF_ENABLED", True):
        return None
    from flask_wtf.csrf import generate_csrf

    return generate_csrf()


def _stamp(html: str, token: str | None) -> Stamped:
    html = _KEY_VALUE.sub(lambda m: m.group(1) + "\x00key\x00" + m.group(3), html)
    if token:
        html = html.replace(token, "\x00csrf\x00")
    pieces: list[str] = []
    gaps: list[str] = []
    at = 0
    for found in _GAP.finditer(html):
        pieces.append(html[at : found.start()])
        gaps.append(found.group(1))
        at = found.end()
    pieces.append(html[at:])
    return Stamped(tuple(pieces), tuple(gaps))


def flash_html() -> Markup:
    """The flashed messages as base.html shows them."""
    return Markup("").join(
        Markup('<p class="flash" role="status">{}</p>').format(escape(message)) for message in get_flashed_messages()
    )


def kept_page(what: Hashable, night_id: int, version: int) -> bytes | None:
    """The page kept as ``what`` at this version with this request's token, keys and flashes (UTF-8); None if none is kept.

    The fast path of a kept page: with (night id, version) read from the database for
    this request (common.keeper_link), nothing else of the night is loaded.
    """
    kept = services.derived(f"page/{what!r}", night_id, version)
    if kept is None:
        return None
    filled = [value.encode() for value in _gap_values(kept, _csrf_token())]
    return b"".join(part for pair in zip(kept.encoded, filled) for part in pair) + kept.encoded[-1]


def render_kept(what: Hashable, night_id: int, version: int, render: Callable[[Markup], str]) -> str:
    """``render(flash)`` once per (``what``, night, version); each request fills in its own token, keys and flashes.

    ``render`` is given the markup to show in place of the flashed messages.
    ``what`` must name everything else the page depends on (links, page number, view).
    """
    name = f"page/{what!r}"
    kept = services.derived(name, night_id, version)
    token = _csrf_token()
    if kept is None:
        kept = _stamp(render(FLASH_MARK), token)
        if "\x00" in "".join(kept.pieces):  # pragma: no cover - something unforeseen in the page: do not keep it
            return render(flash_html())
        services.keep_derived(name, night_id, version, kept)
    return _paste(kept, token)


def _paste(kept: Stamped, token: str | None) -> str:
    filled = _gap_values(kept, token)
    return "".join(part for pair in zip(kept.pieces, filled) for part in pair) + kept.pieces[-1]


def _gap_values(kept: Stamped, token: str | None) -> list[str]:
    """What this request puts in each gap of ``kept``: a fresh key each, its CSRF token, its flashed messages."""
    flashes: str | None = None
    values = []
    for gap in kept.gaps:
        if gap == "key":
            values.append(services.new_key())
        elif gap == "csrf":
            values.append(token or "")
        else:
            flashes = flash_html() if flashes is None else flashes
            values.append(flashes)
    return values
