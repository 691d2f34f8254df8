"""The scorekeeper's table: record each stage in as few taps as the rules allow.

Every view here only translates: a form into an action for
:func:`companion.service.recording.record`, and the result into a page.  Rule errors come
back as form errors (422), stale or repeated submits as a plain message (409).  The
table's other pages have their own blueprints: the history (web/pages/history.py), the
players' link (web/pages/share.py), the setup before play (web/pages/night_setup.py) and the next
game (web/pages/next_game.py).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from companion import service
from companion.service import NightRow
from companion.games.protocol import IllegalAction
from companion.games.fold import Void
from companion.games.web import SCREENS, GameScreens
from companion.web.plumbing import kept_pages
from companion.web.plumbing import post_redirect_get
from companion.web.plumbing import tap_guard
from companion.web.forms import ActionForm, UndoForm, fresh
from companion.web.plumbing.links import NightLink, keeper_link, keeper_night, recorded_by
from companion.web.plumbing.stale import refusal_words
from companion.web.pages.standings import standings_of
from companion.web.plumbing.this_browser import held_links

bp = Blueprint("table", __name__, url_prefix="/k/<key>")

#: the one action every game has: undo the last live record (the fold's Void)
UNDO = "undo"


# --- forms for the current state ---------------------------------------------------


def screens_of(night: NightRow) -> GameScreens:
    """The screens of the game at the table (the last one started and not taken back)."""
    return SCREENS[service.play_for(night).current.setup.kind]


def forms_for(night: NightRow, submitted: Any = None) -> dict[str, Any]:
    """The forms the table screen shows now, each stamped with the version and a new key."""
    state = service.table_for(night)
    forms = dict(screens_of(night).forms(state))
    forms[UNDO] = UndoForm(formdata=None)
    for form in forms.values():
        fresh(form, night.version)
    if submitted is not None:
        forms[submitted[0]] = submitted[1]
        # a re-shown form keeps what was typed but gets a new key: it is a new attempt
        fresh(submitted[1], night.version)
    return forms


def render_table(  # type: ignore[no-untyped-def]
    night: NightRow, status: int = 200, submitted: Any = None, message: str | None = None, flashed: Any = None
):
    st = standings_of(night)
    screens = screens_of(night)
    state = service.table_for(night)
    can_undo = state.can_void()
    continued = service.continuation_of(night)  # its pot went on to another night: no form is shown
    if submitted is not None and message is None:
        shown = tuple(screens.shown_now(state))
        if continued is not None or submitted[0] not in shown + ((UNDO,) if can_undo else ()):
            # the form that failed is not on the screen now: say why at the top
            errors = [e for es in submitted[1].errors.values() for e in es]
            message = "; ".join(str(e) for e in errors) or "That could not be recorded."
    key = night.keeper_key
    play = service.play_for(night)
    return (
        render_template(
            "table/show.html",
            night=night,
            at_table=play.current,
            take_back=take_back_offer(play, night.version),
            st=st,
            view=st.view,
            screens=screens,
            forms=forms_for(night, submitted),
            act=lambda action: url_for("table.act", key=key, action=action),
            message=message,
            can_undo=can_undo,
            continued=continued,
            # the night its pot went to, linked by the link this browser holds to it, else named alone
            continued_link=held_links(continued.id)[0] if continued is not None else None,
            **({"flashed": flashed} if flashed is not None else {}),
        ),
        status,
    )


def take_back_offer(play: Any, version: int) -> tuple[Any, Any] | None:
    """(the form, the game that would be at the table again) when the game at the table can be
    taken back (started by mistake, nothing recorded in it), else None."""
    try:
        play.verify_take_back(play.current.number)
    except IllegalAction:
        return None
    return fresh(UndoForm(formdata=None), version), play.played()[-2]


# --- recording ---------------------------------------------------------------------


def _refused(night: NightRow, status: int, form_name: str | None = None, form: Any = None, message: str | None = None):  # type: ignore[no-untyped-def]
    """Redirect a refused submit to the table's address, keeping what was typed (see post_redirect_get.py)."""
    location = url_for("table.show", key=night.keeper_key)
    return post_redirect_get.refuse(location, status, message=message, form_name=form_name, form=form, version=night.version)


def _record(night: NightRow, form: Any, form_name: str, build) -> Any:  # type: ignore[no-untyped-def]
    """Validate ``form``, build an action, and record it; the one path every action takes."""
    return _record_with(night, form, form_name, lambda f: service.record(
        night.id, build(f), f.version.data, f.request_key.data, recorded_by=recorded_by()
    ))


def _record_with(night: NightRow, form: Any, form_name: str | None, write) -> Any:  # type: ignore[no-untyped-def]
    """Validate ``form`` and ``write`` what it says (a :class:`service.Recorded`), answering as every action does.

    ``form_name`` None: a form the table does not show again; a refusal is said at the top.
    """
    if not form.validate():
        if form_name is None:
            return _refused(night, 422, message="; ".join(str(e) for es in form.errors.values() for e in es))
        return _refused(night, 422, form_name, form)
    if tap_guard.too_soon(night, form.version.data):
        return _refused(night, 409, message=tap_guard.TOO_SOON)
    # where the answer sends the phone, worked out before the write: the commit expires the night, and its link
    # read afterwards would load the night and its games again (on SQLite in a transaction that holds the write
    # lock until the request ends, keeping every other table's record waiting on this one's answer)
    location = url_for("table.show", key=night.keeper_key)
    try:
        result = write(form)
    except IllegalAction as error:
        if form_name is None:
            return _refused(night, 422, message=str(error))
        form.form_errors.append(str(error))
        return _refused(night, 422, form_name, form)
    except service.StaleTable as stale:
        now = service.night_again(night.id)
        return _refused(now, 409, message=refusal_words(stale, now, form.version.data))
    except service.KeyConflict as conflict:
        return _refused(service.night_again(night.id), 409, message=str(conflict))
    flash(("Already recorded: " if result.repeated else "") + result.summary)
    return redirect(location, code=303)


def table_page(link: NightRow | NightLink, continued: int | None) -> tuple[Any, ...]:
    """What the kept table screen depends on besides (night, version): its links, the night its pot went to and the
    link this browser holds to it."""
    return ("table", link.keeper_key, link.viewer_key, continued, held_links(continued))


@bp.get("")
def show(key: str):  # type: ignore[no-untyped-def]
    link = keeper_link(key)  # one SELECT: enough when this process keeps the page at that version
    if link is not None and post_redirect_get.recall(link.version) is None:
        page = kept_pages.kept_page(table_page(link, link.continued), link.id, link.version)
        if page is not None:
            return page
    night = keeper_night(key)
    kept = post_redirect_get.recall(night.version)
    if kept is None:  # the table as every phone sees it at this version: kept, with this request's keys
        continued = service.continuation_of(night)
        what = table_page(night, continued.id if continued is not None else None)
        return kept_pages.render_kept(what, night.id, night.version, lambda flashed: render_table(night, flashed=flashed)[0])
    submitted = None
    if kept.form:  # the refused form, as typed, with its errors
        form = forms_for(night).get(kept.form)
        if form is not None:
            submitted = (kept.form, kept.refill(form))
    return render_table(night, kept.status, submitted, kept.message)


def _bound(night: NightRow, action: str) -> Any:
    """The form posted to ``action`` of the game at the table, or a refusal to answer with."""
    if action == UNDO:
        return UndoForm()
    state = service.table_for(night)
    repeated = service.event_for_key(night, request.form.get("request_key", ""))
    try:
        form = screens_of(night).bind(action, state, repeated)
    except IllegalAction as error:
        bare = UndoForm()  # carries only version and key: enough to tell a stale submit
        if bare.validate() and bare.version.data != night.version:
            return _refused(night, 409, message=refusal_words(service.StaleTable(night.version), night, bare.version.data))
        return _refused(night, 422, message=str(error))
    if form is None:
        abort(404)
    return form


@bp.post("/<action>")
def act(key: str, action: str):  # type: ignore[no-untyped-def]
    """Record one action of the game at the table: its screens read the form into the engine's action."""
    night = keeper_night(key)
    form = _bound(night, action)
    if not isinstance(form, ActionForm):
        return form  # a refusal
    if action == UNDO:
        return _record(night, form, UNDO, lambda f: Void())
    screens = screens_of(night)
    return _record(night, form, action, lambda f: screens.action(action, f, service.table_for(night)))


@bp.post("/take-back")
def take_back(key: str):  # type: ignore[no-untyped-def]
    """Take back the game at the table, started by mistake: an event; the game before it is back."""
    night = keeper_night(key)
    form = UndoForm()  # version and key: a stale screen or a doubled tap takes nothing back twice
    position = request.form.get("position", "")
    if not (position.isascii() and position.isdecimal() and len(position) < 6):
        return _refused(night, 422, message="say which game to take back")
    return _record_with(night, form, None, lambda f: service.take_back_game(
        night.id, int(position), f.version.data, f.request_key.data, recorded_by=recorded_by()))
