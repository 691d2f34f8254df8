"""Fingerprinted static files, served immutable (issue 14, item 13).

A page names each of its static files with ``static_url("app.css")``:
``/static/app.css?v=<the first 12 hex digits of the file's SHA-256>``.  An answer
for that exact fingerprint never changes, so it is sent with ``Cache-Control:
public, max-age=31536000, immutable``: a phone on a weak table Wi-Fi loads a screen
in one round trip, with no revalidation of the CSS, the script or the icons.  A new
version of a file has a new fingerprint, hence a new URL.  The same file asked for
without a fingerprint, or with an old one, is sent as before (``no-cache``).

The service worker stays at ``/sw.js``, unfingerprinted and ``no-cache``
(``web/home.py``): a browser must be able to find its new version.  The hashes
are worked out once per file and again only when the file's size or time changes.
"""

from __future__ import annotations

import hashlib
import os
import threading

from flask import Flask, Response, request, url_for

IMMUTABLE = "public, max-age=31536000, immutable"
DIGITS = 12


class Fingerprints:
    """The content hash of each static file, kept while the file is unchanged."""

    def __init__(self, folder: str) -> None:
        self.folder = os.path.realpath(folder)
        self._known: dict[str, tuple[tuple[float, int], str]] = {}
        self._lock = threading.Lock()

    def of(self, filename: str) -> str | None:
        path = os.path.realpath(os.path.join(self.folder, filename))
        if not path.startswith(self.folder + os.sep):
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        stamp = (stat.st_mtime, stat.st_size)
        known = self._known.get(filename)
        if known is not None and known[0] == stamp:
            return known[1]
        with open(path, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()[:DIGITS]
        with self._lock:
            self._known[filename] = (stamp, digest)
        return digest


def init_app(app: Flask) -> None:
    fingerprints = Fingerprints(app.static_folder or "static")

    def static_url(filename: str) -> str:
        """The URL of a static file with its fingerprint (without one if the file is missing)."""
        digest = fingerprints.of(filename)
        return url_for("static", filename=filename, **({"v": digest} if digest else {}))

    app.jinja_env.globals["static_url"] = static_url

    @app.after_request
    def _immutable(response: Response) -> Response:
        if request.endpoint != "static" or response.status_code not in (200, 304):
            return response
        wanted = request.args.get("v")
        filename = (request.view_args or {}).get("filename", "")
        if wanted and wanted == fingerprints.of(filename):
            response.headers["Cache-Control"] = IMMUTABLE
        return response
