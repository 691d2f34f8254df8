"""Pages and downloads compressed where it pays (issue 22), by Flask-Compress.

A report of a long night is 70-290 KB of HTML that shrinks to a tenth; on a table's
Wi-Fi that is the difference between one round trip and many.  Flask-Compress picks
the best encoding the browser offers (zstd, Brotli, gzip, deflate) and compresses in
an ``after_request`` hook; it is registered here by hand rather than by itself, so
that it leaves alone what must stay as it is:

* anything but a 200, and bodies under :data:`MIN_SIZE` (a 304 has no body; a short
  answer gains less than the work costs);
* an answer with an ETag (but a minified stylesheet or script, below): the players' poll
  (web/pages/players.py) sends its ETag back as it was given, and the page reads the version in it,
  which Flask-Compress would change; the static files (fingerprinted, immutable) too;
* an answer already encoded (a kept page sent as kept, compressed: web/plumbing/kept_pages.py).

A body that is the same for every request at a night's version (a download, kept per
version), or a minified stylesheet or script at its fingerprint (web/plumbing/static_files.py, whose
weak ETag stands for every encoding of it), is compressed once: the view names it in ``g`` (:func:`same_body_as`) and
the compressed bytes are kept by that name and the encoding, bounded in size (8 MB).
"""

from __future__ import annotations

from flask import Flask, Response, g, request
from flask_compress import Compress

from companion.service.lru import LRU

#: below this many bytes an answer is sent as it is
MIN_SIZE = 1400
#: the compressed bodies kept for answers that are the same at a night's version, in KB
KEPT_KB = 8 * 1024
_NAME = "companion_same_body"


class _Kept:
    """Flask-Compress's cache backend: get/set by key, least recently used forgotten beyond KEPT_KB."""

    def __init__(self) -> None:
        self._map: LRU[str, bytes] = LRU(4096, lambda body: 1 + len(body) // 1024, KEPT_KB)

    def get(self, key: str) -> bytes | None:
        return self._map.get(key)

    def set(self, key: str, value: bytes) -> None:
        if self._map.get(key) is None:
            self._map[key] = value


def same_body_as(name: str) -> None:
    """Say that this request's answer is the same for every request named ``name`` (night, version, what)."""
    setattr(g, _NAME, name)


def init_app(app: Flask) -> None:
    app.config.setdefault("COMPRESS_REGISTER", False)  # our hook below decides what is compressed
    app.config.setdefault("COMPRESS_MIN_SIZE", MIN_SIZE)
    app.config.setdefault("COMPRESS_MIMETYPES", ["text/html", "text/csv", "application/json", "text/javascript", "text/css"])
    app.config.setdefault("COMPRESS_EVALUATE_CONDITIONAL_REQUEST", False)
    app.config.setdefault("COMPRESS_STREAMS", False)
    each_time = Compress(app)
    once = Compress(app)
    once.cache = _Kept()
    once.cache_key = lambda _request: getattr(g, _NAME)

    @app.after_request
    def _compress(response: Response) -> Response:
        if response.status_code != 200 or request.method != "GET" or "Content-Encoding" in response.headers:
            return response
        if request.endpoint == "static" and hasattr(g, _NAME):
            return once.after_request(response)
        if (
            response.direct_passthrough  # a file sent from disk: the static files, fingerprinted
            or "ETag" in response.headers
        ):
            return response
        return (once if hasattr(g, _NAME) else each_time).after_request(response)
