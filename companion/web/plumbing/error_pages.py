"""The error pages: what a phone is told, in words, when a request is refused or the database is away.

Every refusal of every blueprint ends here (an ``abort``, a CSRF failure, a database that is
busy, down or out of disk): one page, ``error.html``, or ``{"error": …}`` for a JSON client.
"""

from __future__ import annotations

from flask import Flask, render_template, request
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException

from companion import service
from companion.web.plumbing.security import Braked

#: the methods that only read: a database out of reach is "cannot be read just now", not "not confirmed"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

MESSAGES = {
    400: "That request could not be understood.",
    403: "This link can only look, not change anything.",
    404: "There is nothing here. Check the link, or ask the scorekeeper for a new one.",
    405: "That page cannot be used this way.",
    409: "The table changed since this screen was shown; nothing was recorded.",
    413: "That upload is too large.",
    422: "That could not be recorded.",
    429: "Too many wrong links from this device; wait a minute.",
}
BUSY = "The table is busy and this was not confirmed; send it again (it is recorded at most once)."
#: the same for a page that only reads: the database is busy or out of reach for a moment
UNREACHABLE = "The table cannot be read just now; try again in a moment."
#: a write that found the disk full (issue 36, item 5): nothing of it is stored, and sending it again
#: helps only once someone has made room
DISK_FULL = ("The server's disk is full: nothing was recorded. Tell whoever runs the server; once there is "
             "room, send it again (it is recorded at most once).")


def init_app(app: Flask) -> None:
    """Register the error pages."""

    @app.errorhandler(CSRFError)
    def _csrf(error: CSRFError):  # type: ignore[no-untyped-def]
        message = "This form has expired or was not sent by this app; reload the page and try again."
        return render_template("error.html", code=400, error_message=message), 400

    @app.errorhandler(OperationalError)
    def _busy(error: OperationalError):  # type: ignore[no-untyped-def]
        """A lock that outwaited its timeout, a lost connection or a database that is down, in
        any query of any request: 503, try again (issue 21, item 13); a full disk: 507, which
        says so (issue 36, item 5).

        Not a stale screen: the scorekeeper's page is still current.  A lock that timed out
        recorded nothing, but a connection lost during a commit cannot tell, so the answer
        says "not confirmed"; sending the same form again is safe either way, since its
        request key records it at most once.  A write that found the disk full stored nothing
        (the database refused its whole transaction), and sending it again in a second would
        find the disk as full: no Retry-After.
        """
        full = service.is_disk_full(error)
        app.logger.warning("database %s: %s", "disk full" if full else "busy", error)
        service.let_go_after_error()  # a connection gone with the database is thrown away
        code, headers = (507, {}) if full else (503, {"Retry-After": "1"})
        message = DISK_FULL if full else UNREACHABLE if request.method in SAFE_METHODS else BUSY
        if request.path.endswith(".json") or request.accept_mimetypes.best == "application/json":
            return {"error": message}, code, headers
        # flashed="": the "try again" page leaves a notice still to show (an "Already recorded" of
        # the tap before the outage) for the page the phone gets once the database is back
        return render_template("error.html", code=code, error_message=message, flashed=""), code, headers

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException):  # type: ignore[no-untyped-def]
        code = error.code or 500
        if request.path.endswith(".json") or request.accept_mimetypes.best == "application/json":
            message = error.description if isinstance(error, Braked) else MESSAGES.get(code, error.description)
            return {"error": message}, code, {k: v for k, v in error.get_headers() if k == "Retry-After"}
        message = error.description if code in (400, 422) and error.description else MESSAGES.get(code, error.name)
        if isinstance(error, Braked):
            message = error.description
        # a 429 says when to come back (Retry-After)
        headers = {k: v for k, v in error.get_headers() if k == "Retry-After"}
        return render_template("error.html", code=code, error_message=message), code, headers
