"""The ``Content-Disposition`` of every download: a file name that any night's name can make.

A header is Latin-1 on the wire: a night named 金曜日, Ночь у Ани or ٣ made the report's
CSV and JSON downloads answer 500 on both links (issue 21, item 9; the hand-history
export had been mended alone).  Every download now names its file here, as RFC 6266
says: ``filename="…"`` in ASCII for old clients (each other character a ``-``) and
``filename*=UTF-8''…`` with the name as it is, percent-encoded (RFC 5987/8187).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from flask import Response

from companion.web.plumbing import compression
from companion import service

#: how much of the night's name goes into the file name
MAX_NAME = 40


def _stem(name: str, keep: str) -> str:
    """``name`` with every character but ``keep``'s turned into "-", runs of them made one."""
    kept = "".join(c if (c.isascii() if keep == "ascii" else True) and c.isalnum() else "-" for c in name[:MAX_NAME])
    return re.sub(r"-{2,}", "-", kept).strip("-")


def attachment(prefix: str, name: str, extension: str) -> str:
    """The header's value for a download named ``prefix-name.extension``: ASCII, whatever ``name`` holds."""
    ascii_name = "-".join(part for part in (prefix, _stem(name, "ascii")) if part) + "." + extension
    full_name = "-".join(part for part in (prefix, _stem(name, "any")) if part) + "." + extension
    value = f'attachment; filename="{ascii_name}"'
    if full_name != ascii_name:
        value += "; filename*=UTF-8''" + quote(full_name, safe="")
    return value


@dataclass(frozen=True)
class Download:
    """A download's body and headers, made once per night version (issue 22): every phone gets the same file."""

    body: bytes
    mimetype: str
    disposition: str


def kept_download(what: str, night_id: int, version: int) -> Response | None:
    """The download kept as ``what`` of this night at this version, if this process keeps it."""
    kept: Download | None = service.derived(f"download/{what}", night_id, version)
    return _response(kept, f"download/{what}/{night_id}/{version}") if kept is not None else None


def keep_download(what: str, night_id: int, version: int, make: Callable[[], Download]) -> Response:
    """The download ``make`` builds, kept as ``what`` of this night at this version (built once per version)."""
    name = f"download/{what}"
    kept = service.derived(name, night_id, version)
    if kept is None:
        kept = make()
        service.keep_derived(name, night_id, version, kept)
    return _response(kept, f"{name}/{night_id}/{version}" if version > 0 else None)


def _response(kept: Download, same_as: str | None) -> Response:
    if same_as is not None:  # the same bytes for every request at this version: compressed once
        compression.same_body_as(same_as)
    return Response(kept.body, mimetype=kept.mimetype, headers={"Content-Disposition": kept.disposition})
