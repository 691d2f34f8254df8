"""The front door: start a night, import one, and the nights this browser knows."""

from __future__ import annotations

import os
import re
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from companion import service
from companion.games import RecordError
from companion.games.protocol import IllegalAction
from companion.games.web import SCREENS
from companion.night.file import Money
from companion.web.plumbing import kept_pages
from companion.web.plumbing import post_redirect_get
from companion.web.forms import (
    GroupForm,
    GroupImportForm,
    ImportForm,
    NightBaseForm,
    move_seat_up,
)
from companion.web.pages.first_game import first_game_kind, first_games, night_form, show_rules_of
from companion.web.plumbing.security import brake, client_id
from companion.web.plumbing.this_browser import known_nights

bp = Blueprint("home", __name__)


def _home(form: NightBaseForm | None = None, import_form: ImportForm | None = None, status: int = 200):  # type: ignore[no-untyped-def]
    """The front door; a form not given is a fresh one with a new request key (never the other form's data)."""
    fresh = form is None and import_form is None
    if form is None:
        form = night_form(first_game_kind(request.args), formdata=None, request_key=service.new_key())
    import_form = import_form or ImportForm(formdata=None, request_key=service.new_key())
    kind = form.game.data
    nights = known_nights()

    def render(flashed: Any = None) -> str:
        return render_template(
            "home/index.html", form=form, import_form=import_form, nights=nights,
            kind=kind, rules_template=SCREENS[kind].rules_template, first_games=first_games(),
            # a group's two forms (web/pages/groups.py answers them, and shows their refusals at /groups)
            group_form=GroupForm(formdata=None, request_key=service.new_key()),
            group_import_form=GroupImportForm(formdata=None, request_key=service.new_key()),
            **({"flashed": flashed} if flashed is not None else {}),
        )

    if fresh:  # the same page for every browser that knows these nights: kept, with this request's keys
        return kept_pages.render_kept_across(("home", kind, nights), render), status
    return render(), status


@bp.get("/")
def index():  # type: ignore[no-untyped-def]
    kept = post_redirect_get.recall()
    if kept is None:
        page = kept_pages.kept_across(("home", first_game_kind(request.args), known_nights()))
        return page if page is not None else _home()
    # a new key for each attempt, as for a fresh form
    if kept.form == "import":  # the file itself cannot be kept: it is chosen again
        import_form = kept.refill(ImportForm(formdata=None))
        import_form.request_key.data = service.new_key()
        return _home(import_form=import_form, status=kept.status)
    kind = first_game_kind(dict(kept.data))
    form = kept.refill(night_form(kind, formdata=None))
    form.game.data = kind
    form.request_key.data = service.new_key()
    return _home(form, status=kept.status)


def first_game_setup(form: NightBaseForm, kind: str) -> dict[str, Any]:
    """The first game's setup as :func:`service.open_night` takes it, from the night's form."""
    return {
        "kind": kind, "players": None, "first_dealer": form.first_dealer_name() or None,
        "rules": SCREENS[kind].rules_from_form(form), "carried_in": None,
    }


@bp.post("/nights")
def create():  # type: ignore[no-untyped-def]
    kind = first_game_kind(request.form)
    shown = request.form.get("rules_of") or kind  # a page that says nothing showed the picked game's
    if shown != kind or request.form.get("show_rules"):
        return show_rules_of(kind, shown, asked=bool(request.form.get("show_rules")))
    form = night_form(kind)
    here = url_for("home.index")
    if move_seat_up(form):
        return post_redirect_get.refuse(here, 200, form_name="night", form=form, data=post_redirect_get.typed(form))
    limit = current_app.extensions["companion_night_limit"]
    brake(limit, client_id(), "new nights")
    if form.validate():
        service.count_against(limit, client_id())  # every start that passes the form counts (a doubled tap too)
        try:
            night = service.open_night(
                form.name.data or "",
                form.players(),
                Money(form.chip_value_decimal(), (form.currency.data or "").strip()),
                first_game_setup(form, kind),
                request_key=form.request_key.data or None,
            )
        except IllegalAction as error:
            form.seat_1.errors = [*form.seat_1.errors, str(error)]
        except service.KeyConflict as error:
            form.form_errors.append(str(error))
            return post_redirect_get.refuse(here, 409, form_name="night", form=form)
        else:
            return redirect(url_for("table.show", key=night.keeper_key), code=303)
    return post_redirect_get.refuse(here, 422, form_name="night", form=form)


@bp.post("/import")
def import_night():  # type: ignore[no-untyped-def]
    form = ImportForm()
    limit = current_app.extensions["companion_import_limit"]
    brake(limit, client_id(), "imports")
    if form.validate():
        service.count_against(limit, client_id())  # before the file is read: every file read counts
        upload = form.file.data
        try:
            night = service.import_history(
                upload.read(), form.name.data or None, request_key=form.request_key.data or None,
                playable=SCREENS.keys(),
            )
        except (RecordError, IllegalAction) as error:  # a file that cannot be read, and where
            form.file.errors = [*form.file.errors, str(error)]
        except service.KeyConflict as error:
            form.file.errors = [*form.file.errors, str(error)]
            return post_redirect_get.refuse(url_for("home.index"), 409, form_name="import", form=form)
        else:
            return redirect(url_for("table.show", key=night.keeper_key), code=303)
    return post_redirect_get.refuse(url_for("home.index"), 422, form_name="import", form=form)


@bp.get("/sw.js")
def service_worker():  # type: ignore[no-untyped-def]
    """The service worker, from the app's root so that its scope covers every page (/p/… too)."""
    response = current_app.response_class(service_worker_script(), mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"  # a new version is picked up on the next visit
    response.add_etag()
    return response.make_conditional(request)


#: the app shell's files in static/sw.js's list, each written with its fingerprint when served
_SHELL_FILE = re.compile(r'"/static/([A-Za-z0-9_.-]+)"')


def service_worker_script() -> str:
    """static/sw.js with each shell file's address as the pages name it (``static_url``: fingerprinted).

    The worker then fetches exactly what the page has just loaded, immutable: the
    browser's cache answers, and a first load moves each static file once (issue 22).
    A file changed has a new fingerprint, so the worker changes and is installed anew.
    """
    with open(os.path.join(current_app.static_folder or "static", "sw.js"), encoding="utf-8") as source:
        script = source.read()
    static_url = current_app.jinja_env.globals["static_url"]
    return _SHELL_FILE.sub(lambda found: '"' + static_url(found.group(1)) + '"', script)


@bp.get("/healthz")
def healthz():  # type: ignore[no-untyped-def]
    """``{"status": "ok"}`` after a round trip to the database; 507 with the reason when its disk is full
    (reads still work then, and every write fails: issue 36, item 5)."""
    full = service.database_health(int(current_app.config["DISK_FREE_MIN"]))
    if full is not None:
        return {"status": "disk full", "error": f"The server's disk is full: nothing can be recorded ({full})."}, 507
    return {"status": "ok"}
