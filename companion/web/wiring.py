"""The web layer put together: each feature's blueprint, the live pages, the template helpers, the error pages.

:func:`init_app` is called by ``create_app``.  It lives here, not in ``companion/web/__init__.py``,
so that importing a module of the web layer imports no other: gunicorn's master imports
``companion.web.plumbing.server`` before it forks its gevent workers, and must not have made the
app's locks (the fold's, the caches') before gevent patched them (web/plumbing/server.py).
"""

from __future__ import annotations

from flask import Flask

from companion import service
from companion.money.amounts import chips_text
from companion.web.plumbing import error_pages


def chips_filter(chips: int, signed: bool = False) -> str:
    """``{{ n|chips }}``: "1 chip", "4 chips" (issue 20, item 14); ``{{ n|chips(signed=True) }}``: "+4 chips",
    "−1 chip", "0 chips", signed as the report's figures are (a true minus sign)."""
    if not signed:
        return chips_text(chips)
    return ("+" if chips > 0 else "\u2212" if chips < 0 else "") + chips_text(abs(chips))


def init_app(app: Flask) -> None:
    """Register each feature's blueprint, the live pages' push, the template helpers and the error pages."""
    from companion.web.pages import bank
    from companion.web.pages import bonus
    from companion.web.pages import choice
    from companion.web.pages import display
    from companion.web.pages import group_commands  # noqa: F401 (its routes are the groups blueprint's)
    from companion.web.pages import group_nights  # noqa: F401 (its routes are the groups blueprint's)
    from companion.web.pages import groups
    from companion.web.pages import history
    from companion.web.pages import home
    from companion.web.plumbing import links
    from companion.web.plumbing import live_push
    from companion.web.pages import next_game
    from companion.web.pages import night_setup
    from companion.web.pages import players
    from companion.web.pages import report
    from companion.web.pages import share
    from companion.web.pages import table

    # a page opened by a second keeper phone's link makes every address with that link (web/plumbing/links.py)
    app.url_defaults(links.keep_own_key)
    app.register_blueprint(home.bp)
    app.register_blueprint(table.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(share.bp)
    app.register_blueprint(night_setup.bp)
    app.register_blueprint(next_game.bp)
    app.register_blueprint(players.bp)
    app.register_blueprint(display.bp)  # the table display (issue 39, docs/display.md)
    live_push.init_app(app)  # the live pages pushed by Server-Sent Events (the poll stays, for old browsers)
    app.register_blueprint(report.bp)
    app.register_blueprint(bank.bp)
    app.register_blueprint(bonus.bp)
    app.register_blueprint(choice.bp)
    # the group's pages, with the routes web/pages/group_commands.py and web/pages/group_nights.py added to its
    # blueprint when imported above (a blueprint takes no route once registered)
    app.register_blueprint(groups.bp)
    error_pages.init_app(app)
    from jinja2 import ChoiceLoader

    from companion.games.web import GameTemplates, rules_text

    app.add_template_filter(chips_filter, "chips")  # every page that counts chips
    # who recorded a record, in words: the history's lines, the report's (web/plumbing/links.py names the phone)
    app.add_template_global(service.recorded_by_words, "recorded_by_words")
    app.add_template_global(rules_text, "rules_text")  # a game's rules in a few words, by its screens
    # an installed game's templates are the app's (templates/games/<kind>/); a game registered from
    # elsewhere (the tests' own) names its folder (GameScreens.templates_folder)
    app.jinja_loader = ChoiceLoader([app.jinja_loader, GameTemplates()])  # type: ignore[assignment, list-item]

