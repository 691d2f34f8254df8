"""Fingerprinted static files, served immutable (issue 14, item 13).

A page names each of its static files with ``static_url("app.css")``:
``/static/app.css?v=<the first 12 hex digits of the SHA-256 of the bytes sent>``.  An answer
for that exact fingerprint never changes, so it is sent with ``Cache-Control:
public, max-age=31536000, immutable``: a phone on a weak table Wi-Fi loads a screen
in one round trip, with no revalidation of the CSS, the script or the icons.  A new
version of a file has a new fingerprint, hence a new URL.  The same file asked for
without a fingerprint, or with an old one, is sent as before (``no-cache``).

The service worker stays at ``/sw.js``, unfingerprinted and ``no-cache``
(``web/pages/home.py``): a browser must be able to find its new version.  The hashes
are worked out once per file and again only when the file's size or time changes.

Stylesheets and scripts are sent minified (issue 22: the table screen's first load
under 40 KB): rcssmin and rjsmin (pure Python, no dependencies) strip their comments
and spaces once per version of the file, and the bytes are kept.  The files in
``static/`` stay as written, readable; the fingerprint is the hash of the bytes sent,
so a change to the minifier is a new address too.  Any other file (icons, manifest) is
sent from disk as Flask sends it.  The minified bytes also go out compressed when the
browser takes it (issue 37: 21 of a first load's 31 KB were the script and the
stylesheet): Flask-Compress compresses them once per fingerprint and encoding
(web/plumbing/compression.py), and their ETag is weak, so one validator serves either copy.  The service worker at ``/sw.js`` is written from
``static/sw.js`` as it is (``web/pages/home.py``), its shell's addresses those of the
minified files.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
import mimetypes
import os
import threading
from collections.abc import Callable

import rcssmin
import rjsmin
from flask import Flask, Response, request, url_for
from werkzeug.security import safe_join

from companion.web.plumbing.compression import same_body_as

IMMUTABLE = "public, max-age=31536000, immutable"
DIGITS = 12

#: the files sent minified, by how their names end, with what makes them so
MINIFIERS: dict[str, Callable[[str], str]] = {".css": rcssmin.cssmin, ".js": rjsmin.jsmin}


def minified(filename: str, source: bytes) -> bytes:
    """``source`` as it is sent: minified if ``filename`` is a stylesheet or a script, else as it is."""
    minify = MINIFIERS.get(os.path.splitext(filename)[1])
    return source if minify is None else minify(source.decode("utf-8")).encode("utf-8")


class Fingerprints:
    """The content hash of each static file as sent (and a minified file's bytes), kept while the file is unchanged."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.realpath(folder)
        #: per file: (its time and size, its fingerprint, its bytes as sent if minified, else None)
        self._known: dict[str, tuple[tuple[float, int], str, bytes | None]] = {}
        self._lock = threading.Lock()

    def _look(self, filename: str) -> tuple[tuple[float, int], str, bytes | None] | None:
        """What is kept of ``filename`` (None: no such file under the folder, or a name no file has).

        Kept by the file's own path under the folder, however the address spells it (``a/../app.css``):
        a file once, whatever a stranger sends.  A NUL is in no file's name (the OS refuses it)."""
        joined = safe_join(self.folder, filename) if "\x00" not in filename else None
        if joined is None:
            return None
        path = os.path.realpath(joined)
        if not path.startswith(self.folder + os.sep):
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        filename = path[len(self.folder) + 1:]
        stamp = (stat.st_mtime, stat.st_size)
        known = self._known.get(filename)
        if known is not None and known[0] == stamp:
            return known
        with open(path, "rb") as file:
            source = file.read()
        sent = minified(filename, source)
        made = (stamp, hashlib.sha256(sent).hexdigest()[:DIGITS], sent if sent is not source else None)
        with self._lock:
            self._known[filename] = made
        return made

    def of(self, filename: str) -> str | None:
        """The fingerprint of ``filename`` as sent (None if there is no such file)."""
        known = self._look(filename)
        return None if known is None else known[1]

    def sent(self, filename: str) -> tuple[bytes, float, str] | None:
        """A minified file's bytes as sent, its time and its fingerprint (None for any other file)."""
        known = self._look(filename)
        if known is None or known[2] is None:
            return None
        return known[2], known[0][0], known[1]


def init_app(app: Flask) -> None:
    fingerprints = app.extensions["companion_static_fingerprints"] = Fingerprints(app.static_folder or "static")

    def static_url(filename: str) -> str:
        """The URL of a static file with its fingerprint (without one if the file is missing)."""
        digest = fingerprints.of(filename)
        return url_for("static", filename=filename, **({"v": digest} if digest else {}))

    app.jinja_env.globals["static_url"] = static_url
    send_as_it_is = app.view_functions["static"]

    def static(filename: str) -> Response:
        """A stylesheet or script from its kept minified bytes; any other file from disk, as Flask sends it."""
        sent = fingerprints.sent(filename)
        if sent is None:
            return send_as_it_is(filename=filename)
        body, modified, digest = sent
        mimetype = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        response = Response(body, mimetype=mimetype)
        response.last_modified = datetime.fromtimestamp(modified, timezone.utc)
        response.cache_control.no_cache = True  # revalidated, but at its fingerprint (below: immutable)
        # A weak validator: the same file goes out as it is or compressed (compression.py), and either
        # copy is revalidated by the one fingerprint.
        response.set_etag(digest, weak=True)
        same_body_as(f"static/{filename}/{digest}")
        return response.make_conditional(request)

    app.view_functions["static"] = static

    @app.after_request
    def _immutable(response: Response) -> Response:
        if request.endpoint != "static" or response.status_code not in (200, 304):
            return response
        wanted = request.args.get("v")
        filename = (request.view_args or {}).get("filename", "")
        if wanted and wanted == fingerprints.of(filename):
            response.headers["Cache-Control"] = IMMUTABLE
        return response
