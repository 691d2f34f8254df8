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
links, and the night its pot went on to: ``links.keeper_link``) and, when this
process keeps the page at that version, answers with it (:func:`kept_page`) without
loading the night through the ORM.  Every request still reads the version, so a
change recorded by any process shows at once.
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property

from flask import Response, current_app, g, get_flashed_messages, request
from markupsafe import Markup, escape

from companion import service
from companion.service.lru import LRU

#: stands in for the flashed messages while a page is rendered to be kept
FLASH_MARK = Markup("\x00flash\x00")
#: a request key as ``service.new_key`` makes them, in a form's hidden field
_KEY_VALUE = re.compile(r'(?<=name="request_key" )((?:required )?type="hidden" value=")([A-Za-z0-9_-]{16,64})(")')
_GAP = re.compile("\x00(csrf|key|flash)\x00")


@dataclass(frozen=True)
class Stamped:
    """A rendered page cut at what each request makes anew: ``pieces`` around ``gaps``."""

    pieces: tuple[str, ...]
    gaps: tuple[str, ...]  # "csrf" | "key" | "flash", one between each two pieces

    @cached_property
    def keys(self) -> int:
        """How many request keys each request pastes in."""
        return self.gaps.count("key")

    @cached_property
    def length(self) -> int:
        """How many bytes the page is, less its gaps."""
        return sum(len(piece) for piece in self.encoded)

    @cached_property
    def encoded(self) -> tuple[bytes, ...]:
        """``pieces`` in UTF-8, made once: encoding a 75 KB report that is not all ASCII costs more than pasting it."""
        return tuple(piece.encode() for piece in self.pieces)

    @cached_property
    def deflated(self) -> tuple[tuple[bytes, int, int], ...]:
        """Each encoded piece compressed on its own (raw deflate, ending byte-aligned), its Adler-32 and length.

        Made once per page and version: a request's answer is these with its own gaps
        between them as stored blocks (:func:`deflate_stream`), so the report of a long
        night goes out compressed for the cost of pasting it (issue 22).
        """
        out = []
        for piece in self.encoded:
            packer = zlib.compressobj(6, zlib.DEFLATED, -15)
            out.append((packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH), zlib.adler32(piece), len(piece)))
        return tuple(out)


def _csrf_token() -> str | None:
    if not current_app.config.get("WTF_CSRF_ENABLED", True):
        return None
    from flask_wtf.csrf import generate_csrf

    return generate_csrf()


def _token_used() -> str | None:
    """The CSRF token this request's rendering made, if it made one (a page with no form makes none).

    Asking for a token puts a CSRF secret in the session, and so a cookie on the
    answer: a page without forms (the players' page) must not ask for one.
    """
    if not current_app.config.get("WTF_CSRF_ENABLED", True):
        return None
    token = g.get(current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token"))
    return token if isinstance(token, str) else None


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


def kept_page(what: Hashable, night_id: int, version: int) -> bytes | Response | None:
    """The page kept as ``what`` at this version with this request's token, keys and flashes (UTF-8); None if none is kept.

    The fast path of a kept page: with (night id, version) read from the database for
    this request (links.keeper_link), nothing else of the night is loaded.
    """
    kept: Stamped | None = service.derived(f"page/{what!r}", night_id, version)
    return _encoded(kept)


def _encoded(kept: Stamped | None) -> bytes | Response | None:
    """The kept page with this request's gaps filled: compressed (deflate) when the browser takes it and it pays."""
    if kept is None:
        return None
    filled = [value.encode() for value in _gap_values(kept, _csrf_token() if "csrf" in kept.gaps else None)]
    if kept.length >= MIN_COMPRESSED and "deflate" in request.accept_encodings:
        response = Response(deflate_stream(kept.deflated, filled), mimetype="text/html")
        response.headers["Content-Encoding"] = "deflate"
        response.vary.add("Accept-Encoding")
        return response
    return b"".join(part for pair in zip(kept.encoded, filled) for part in pair) + kept.encoded[-1]


#: a kept page at least this long is sent compressed to a browser that takes it (companion.web.plumbing.compression.MIN_SIZE)
MIN_COMPRESSED = 1400
_ADLER_BASE = 65521


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings end to end, from each one's and the second's length (zlib's adler32_combine)."""
    rem = second_length % _ADLER_BASE
    low = first & 0xFFFF
    sum1 = (low + (second & 0xFFFF) + _ADLER_BASE - 1) % _ADLER_BASE
    sum2 = ((rem * low) % _ADLER_BASE + (first >> 16) + (second >> 16) + _ADLER_BASE - rem) % _ADLER_BASE
    return sum1 | (sum2 << 16)


def deflate_stream(pieces: tuple[tuple[bytes, int, int], ...], gaps: list[bytes]) -> bytes:
    """A zlib stream (RFC 1950, HTTP's "deflate") of the pieces with ``gaps`` between them, the gaps stored as they are.

    Each piece was compressed on its own and ends on a full flush (byte-aligned, no
    reference back), so a stored block can follow it; the stream ends with an empty
    final block and the Adler-32 of the whole, put together from each part's
    (:func:`adler32_combine`'s sums, worked here inline: it runs for every piece of
    every request of a kept page).
    """
    parts = [b"\x78\x9c"]
    append = parts.append
    checksum = 1
    base = _ADLER_BASE
    for (data, piece_sum, length), gap in zip(pieces, [*gaps, b""]):
        append(data)
        rem = length % base
        low = checksum & 0xFFFF
        checksum = ((low + (piece_sum & 0xFFFF) + base - 1) % base) | (
            (((rem * low) % base + (checksum >> 16) + (piece_sum >> 16) + base - rem) % base) << 16
        )
        size = len(gap)
        if size <= 0xFFFF:
            if size:
                append(struct.pack("<BHH", 0, size, size ^ 0xFFFF))
                append(gap)
                checksum = zlib.adler32(gap, checksum)
            continue
        for at in range(0, size, 0xFFFF):
            chunk = gap[at : at + 0xFFFF]
            append(struct.pack("<BHH", 0, len(chunk), len(chunk) ^ 0xFFFF) + chunk)
            checksum = zlib.adler32(chunk, checksum)
    append(b"\x01\x00\x00\xff\xff")  # the final block, empty
    append(struct.pack(">I", checksum))
    return b"".join(parts)


def render_kept(what: Hashable, night_id: int, version: int, render: Callable[[Markup], str]) -> str:
    """``render(flash)`` once per (``what``, night, version); each request fills in its own token, keys and flashes.

    ``render`` is given the markup to show in place of the flashed messages.
    ``what`` must name everything else the page depends on (links, page number, view).
    """
    name = f"page/{what!r}"
    kept = service.derived(name, night_id, version)
    if kept is None:
        kept = _stamp_or_none(render)
        if kept is None:  # pragma: no cover - something unforeseen in the page: do not keep it
            return render(flash_html())
        service.keep_derived(name, night_id, version, kept)
    return _paste(kept, _csrf_token() if "csrf" in kept.gaps else None)


def _stamp_or_none(render: Callable[[Markup], str]) -> Stamped | None:
    html = render(FLASH_MARK)
    kept = _stamp(html, _token_used())  # the token the rendering put in its forms, if any
    return None if "\x00" in "".join(kept.pieces) else kept


#: pages that depend on more than one night (the home page's list, a player's nights) are kept
#: per app (its settings shape them: CSRF on or off) by everything they depend on, bounded by
#: their size in KB (about 8 MB in all)
ACROSS_NIGHTS_KB = 8 * 1024
_ACROSS = "companion_pages_across_nights"


def _across_nights() -> LRU[Hashable, Stamped]:
    """The app's pages kept across nights, by what each depends on (:func:`render_kept_across`)."""
    kept = current_app.extensions.get(_ACROSS)
    if kept is None:
        kept = current_app.extensions.setdefault(
            _ACROSS, LRU(1024, lambda page: 1 + sum(map(len, page.pieces)) // 1024, ACROSS_NIGHTS_KB)
        )
    return kept


def kept_across(what: Hashable) -> bytes | Response | None:
    """The page kept as ``what`` by :func:`render_kept_across`, with this request's token, keys and flashes."""
    return _encoded(_across_nights().get(what))


def render_kept_across(what: Hashable, render: Callable[[Markup], str]) -> str:
    """As :func:`render_kept`, for a page that is not one night's: ``what`` names all it shows.

    The home page's list and a player's page across nights are kept by the nights'
    rows and versions they were made from (read for every request: one SELECT).
    """
    pages = _across_nights()
    kept = pages.get(what)
    if kept is None:
        kept = _stamp_or_none(render)
        if kept is None:  # pragma: no cover - something unforeseen in the page: do not keep it
            return render(flash_html())
        pages[what] = kept
    return _paste(kept, _csrf_token() if "csrf" in kept.gaps else None)



def _paste(kept: Stamped, token: str | None) -> str:
    filled = _gap_values(kept, token)
    return "".join(part for pair in zip(kept.pieces, filled) for part in pair) + kept.pieces[-1]


def _gap_values(kept: Stamped, token: str | None) -> list[str]:
    """What this request puts in each gap of ``kept``: a fresh key each, its CSRF token, its flashed messages
    (read at most once)."""
    shown: str | None = None
    values = []
    keys = iter(service.new_keys(kept.keys))
    for gap in kept.gaps:
        if gap == "key":
            values.append(next(keys))
        elif gap == "csrf":
            values.append(token or "")
        else:
            shown = flash_html() if shown is None else shown
            values.append(shown)
    return values
