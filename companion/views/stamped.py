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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass

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


def kept_page(what: Hashable, night_id: int, version: int) -> str | None:
    """The page kept as ``what`` at this version with this request's token, keys and flashes; None if none is kept.

    The fast path of a kept page: with (night id, version) read from the database for
    this request (common.keeper_link), nothing else of the night is loaded.
    """
    kept = services.derived(f"page/{what!r}", night_id, version)
    return _paste(kept, _csrf_token()) if kept is not None else None


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
    out = [kept.pieces[0]]
    flashes: str | None = None
    for gap, piece in zip(kept.gaps, kept.pieces[1:]):
        if gap == "key":
            out.append(services.new_key())
        elif gap == "csrf":
            out.append(token or "")
        else:
            flashes = flash_html() if flashes is None else flashes
            out.append(flashes)
        out.append(piece)
    return "".join(out)
