"""The web layer: blueprints that turn a request into a service call and state into a page.

One blueprint per feature (home, table, history, share, setup, next_game, players,
report, bank, bonus, choice, groups), none importing another: what several share is in a
module of its own (links, standings, this_browser, forms, ledger_pages), beside the
HTTP machinery (live_poll, kept_pages, post_redirect_get, tap_guard, security, hosts, …).
:func:`init_app` registers them and the error pages.
"""

from __future__ import annotations

from flask import Flask, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from sqlalchemy.exc import DBAPIError, OperationalError

from companion import service
from companion.db import disk
from companion.db.engine import SAFE_METHODS
from companion.extensions import db
from companion.db.brakes import Braked
from companion.money.amounts import chips_text

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


def chips_filter(chips: int, signed: bool = False) -> str:
    """``{{ n|chips }}``: "1 chip", "4 chips" (issue 20, item 14); ``{{ n|chips(signed=True) }}``: "+4 chips",
    "−1 chip", "0 chips", signed as the report's figures are (a true minus sign)."""
    if not signed:
        return chips_text(chips)
    return ("+" if chips > 0 else "\u2212" if chips < 0 else "") + chips_text(abs(chips))


def init_app(app: Flask) -> None:
    """Register each feature's blueprint, the players' poll middleware, the template helpers and the error pages."""
    from companion.web import bank
    from companion.web import bonus
    from companion.web import choice
    from companion.web import early_pages
    from companion.web import groups
    from companion.web import history
    from companion.web import home
    from companion.web import links
    from companion.web import live_poll
    from companion.web import live_push
    from companion.web import next_game
    from companion.web import night_setup
    from companion.web import players
    from companion.web import report
    from companion.web import share
    from companion.web import table

    # a page opened by a second keeper phone's link makes every address with that link (web/links.py)
    app.url_defaults(links.keep_own_key)
    app.register_blueprint(home.bp)
    app.register_blueprint(table.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(share.bp)
    app.register_blueprint(night_setup.bp)
    app.register_blueprint(next_game.bp)
    app.register_blueprint(players.bp)
    early_pages.init_app(app)  # in front of Flask: a repeat request for a kept page never reaches it
    live_poll.init_app(app)  # in front of Flask: most polls of the players' page never reach it
    live_push.init_app(app)  # the live pages pushed by Server-Sent Events, beside the poll
    app.register_blueprint(report.bp)
    app.register_blueprint(bank.bp)
    app.register_blueprint(bonus.bp)
    app.register_blueprint(choice.bp)
    app.register_blueprint(groups.bp)
    from jinja2 import ChoiceLoader

    from companion.games.web import GameTemplates, rules_text

    app.add_template_filter(chips_filter, "chips")  # every page that counts chips
    # who recorded a record, in words: the history's lines, the report's (web/links.py names the phone)
    app.add_template_global(service.recorded_by_words, "recorded_by_words")
    app.add_template_global(rules_text, "rules_text")  # a game's rules in a few words, by its screens
    # an installed game's templates are the app's (templates/games/<kind>/); a game registered from
    # elsewhere (the tests' own) names its folder (GameScreens.templates_folder)
    app.jinja_loader = ChoiceLoader([app.jinja_loader, GameTemplates()])  # type: ignore[assignment, list-item]

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
        full = disk.is_disk_full(error)
        app.logger.warning("database %s: %s", "disk full" if full else "busy", error)
        try:
            db.session.rollback()
        except DBAPIError:  # the connection is gone with the database: nothing to roll back
            db.session.registry.clear()
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
