"""The scorekeeper's table: record each stage in as few taps as the rules allow.

Every view here only translates: a form into an action for
:func:`companion.service.commands.record`, and the result into a page.  Rule errors come
back as form errors (422), stale or repeated submits as a plain message (409).
"""

from __future__ import annotations

import functools

import re
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from companion.web import qr
from companion import service as services
from companion.extensions import db
from companion.web.forms import (
    KEY_PATTERN,
    ActionForm,
    NightBaseForm,
    RotateForm,
    UndoForm,
    move_seat_up,
    next_game_form_class,
    night_form_class,
    picked_another_game,
)
from companion.games import GAMES
from companion.games.base import IllegalAction
from companion.games.fold import Void
from companion.games.web import SCREENS, GameScreens, offers_of
from companion.db.models import Night
from companion.web.security import RotationMemory
from companion.web import kept_pages
from companion.web import pagination
from companion.web import post_redirect_get
from companion.web import tap_guard
from companion.web.downloads import Download, attachment, keep_download, kept_download
from companion.web.hosts import lan_address
from companion.web.links import NightLink, keeper_link, keeper_night
from companion.web.standings import standings_of
from companion.web.this_browser import device_label, remember
from companion.night.file import Money

bp = Blueprint("table", __name__, url_prefix="/k/<key>")


# --- forms for the current state ---------------------------------------------------


def _fresh(form: Any, version: int) -> Any:
    form.version.data = version
    form.request_key.data = services.new_key()
    return form


def screens_of(night: Night) -> GameScreens:
    """The screens of the game at the table (the last one started and not taken back)."""
    return SCREENS[services.play_for(night).current.setup.kind]


def forms_for(night: Night, submitted: Any = None) -> dict[str, Any]:
    """The forms the table screen shows now, each stamped with the version and a new key."""
    state = services.table_for(night)
    forms = dict(screens_of(night).forms(state))
    forms[UNDO] = UndoForm(formdata=None)
    for form in forms.values():
        _fresh(form, night.version)
    if submitted is not None:
        forms[submitted[0]] = submitted[1]
        # a re-shown form keeps what was typed but gets a new key: it is a new attempt
        _fresh(submitted[1], night.version)
    return forms


def render_table(  # type: ignore[no-untyped-def]
    night: Night, status: int = 200, submitted: Any = None, message: str | None = None, flashed: Any = None
):
    st = standings_of(night)
    screens = screens_of(night)
    state = services.table_for(night)
    can_undo = state.can_void()
    continued = services.continuation_of(night)  # its pot went on to another night: no form is shown
    if submitted is not None and message is None:
        shown = tuple(screens.shown_now(state))
        if continued is not None or submitted[0] not in shown + ((UNDO,) if can_undo else ()):
            # the form that failed is not on the screen now: say why at the top
            errors = [e for es in submitted[1].errors.values() for e in es]
            message = "; ".join(str(e) for e in errors) or "That could not be recorded."
    key = night.keeper_key
    play = services.play_for(night)
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
    return _fresh(UndoForm(formdata=None), version), play.played()[-2]


# --- recording ---------------------------------------------------------------------

#: the one action every game has: undo the last live record (the fold's Void)
UNDO = "undo"


def _refused(night: Night, status: int, form_name: str | None = None, form: Any = None, message: str | None = None):  # type: ignore[no-untyped-def]
    """Redirect a refused submit to the table's address, keeping what was typed (see post_redirect_get.py)."""
    location = url_for("table.show", key=night.keeper_key)
    return post_redirect_get.refuse(location, status, message=message, form_name=form_name, form=form, version=night.version)


def _record(night: Night, form: Any, form_name: str, build) -> Any:  # type: ignore[no-untyped-def]
    """Validate ``form``, build an action, and record it; the one path every action takes."""
    return _record_with(night, form, form_name, lambda f: services.record(
        night.id, build(f), f.version.data, f.request_key.data, recorded_by=device_label()
    ))


def _record_with(night: Night, form: Any, form_name: str | None, write) -> Any:  # type: ignore[no-untyped-def]
    """Validate ``form`` and ``write`` what it says (a :class:`services.Recorded`), answering as every action does.

    ``form_name`` None: a form the table does not show again; a refusal is said at the top.
    """
    if not form.validate():
        if form_name is None:
            return _refused(night, 422, message="; ".join(str(e) for es in form.errors.values() for e in es))
        return _refused(night, 422, form_name, form)
    if tap_guard.too_soon(night, form.version.data):
        return _refused(night, 409, message=tap_guard.TOO_SOON)
    try:
        result = write(form)
    except IllegalAction as error:
        if form_name is None:
            return _refused(night, 422, message=str(error))
        form.form_errors.append(str(error))
        return _refused(night, 422, form_name, form)
    except services.StaleTable as stale:
        db.session.expire_all()
        return _refused(db.session.get(Night, night.id), 409, message=str(stale))
    except services.KeyConflict as conflict:
        db.session.expire_all()
        return _refused(db.session.get(Night, night.id), 409, message=str(conflict))
    flash(("Already recorded: " if result.repeated else "") + result.summary)
    return redirect(url_for("table.show", key=night.keeper_key), code=303)


def _table_page(link: Night | NightLink, continued: int | None) -> tuple[Any, ...]:
    """What the kept table screen depends on besides (night, version): its links, and the night its pot went to."""
    return ("table", link.keeper_key, link.viewer_key, continued)


@bp.get("")
def show(key: str):  # type: ignore[no-untyped-def]
    link = keeper_link(key)  # one SELECT: enough when this process keeps the page at that version
    if link is not None and post_redirect_get.recall(link.version) is None:
        page = kept_pages.kept_page(_table_page(link, link.continued), link.id, link.version)
        if page is not None:
            return page
    night = keeper_night(key)
    kept = post_redirect_get.recall(night.version)
    if kept is None:  # the table as every phone sees it at this version: kept, with this request's keys
        continued = services.continuation_of(night)
        what = _table_page(night, continued.id if continued is not None else None)
        return kept_pages.render_kept(what, night.id, night.version, lambda flashed: render_table(night, flashed=flashed)[0])
    submitted = None
    if kept.form:  # the refused form, as typed, with its errors
        form = forms_for(night).get(kept.form)
        if form is not None:
            submitted = (kept.form, kept.refill(form))
    return render_table(night, kept.status, submitted, kept.message)


def _bound(night: Night, action: str) -> Any:
    """The form posted to ``action`` of the game at the table, or a refusal to answer with."""
    if action == UNDO:
        return UndoForm()
    state = services.table_for(night)
    repeated = services.event_for_key(night, request.form.get("request_key", ""))
    try:
        form = screens_of(night).bind(action, state, repeated)
    except IllegalAction as error:
        bare = UndoForm()  # carries only version and key: enough to tell a stale submit
        if bare.validate() and bare.version.data != night.version:
            return _refused(night, 409, message=str(services.StaleTable(night.version)))
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
    return _record(night, form, action, lambda f: screens.action(action, f, services.table_for(night)))


@bp.post("/take-back")
def take_back(key: str):  # type: ignore[no-untyped-def]
    """Take back the game at the table, started by mistake: an event; the game before it is back."""
    night = keeper_night(key)
    form = UndoForm()  # version and key: a stale screen or a doubled tap takes nothing back twice
    position = request.form.get("position", "")
    if not (position.isascii() and position.isdecimal() and len(position) < 6):
        return _refused(night, 422, message="say which game to take back")
    return _record_with(night, form, None, lambda f: services.take_back_game(
        night.id, int(position), f.version.data, f.request_key.data, recorded_by=device_label()))


# --- reading ------------------------------------------------------------------------


@bp.get("/history")
def history(key: str):  # type: ignore[no-untyped-def]
    link = keeper_link(key)  # one SELECT: enough when this process keeps this page at that version
    if link is not None:
        page = kept_pages.kept_page(_history_key(link), link.id, link.version)
        if page is not None:
            return page
    night = keeper_night(key)
    return kept_pages.render_kept(
        _history_key(night), night.id, night.version, lambda flashed: _history_page(night, flashed)
    )


def _history_key(link: Night | NightLink) -> tuple[Any, ...]:
    """What a kept page of the history depends on besides (night, version): its link and which page."""
    return ("history", link.keeper_key, request.args.get("page", "1")[:8])


def _history_page(night: Night, flashed: Any) -> str:
    play = services.play_for(night)
    rows, ledger = pagination.history_lines(night)  # kept per version
    return render_template(
        "table/history.html",
        night=night,
        rows=(page := pagination.page_of(list(reversed(rows)))).rows,  # newest first, in pages
        page=page,
        ledger=ledger,
        # each undone record of each game (by its seq in the game) → the night's number of its undo
        voided={p.number: {seq: p.state.number_of(by) for seq, by in p.state.voided.items()} for p in play.games},
        several=len(play.played()) > 1,  # a game taken back was never played
        shown={p.number: play.shown_number(p.number) for p in play.games},
        describe=functools.partial(services.describe_ledger_event, play=play),
        flashed=flashed,
    )


@bp.get("/export.json")
def export(key: str):  # type: ignore[no-untyped-def]
    link = keeper_link(key)  # one SELECT: enough when this process keeps the file at that version (issue 22)
    if link is not None:
        kept = kept_download("export", link.id, link.version)
        if kept is not None:
            return kept
    night = keeper_night(key)
    # the night file, whatever games the night held (docs/night-file.md): not a game's "napalm-"
    return keep_download("export", night.id, night.version, lambda: Download(
        services.export_history(night).encode(), "application/json", attachment("night", night.name, "json")
    ))


# --- the players' link and its QR code ---------------------------------------------------


def players_url(night: Night) -> tuple[str, str | None]:
    """The players' link as other phones must open it, and a warning when they can't."""
    path = url_for("players.show", key=night.viewer_key)
    base = current_app.config.get("PUBLIC_BASE_URL", "").rstrip("/")
    if base:
        return base + path, None
    host = request.host.lower()
    hostname = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    # this machine only: loopback, and the "any address" a server listens on (make run
    # prints http://0.0.0.0:5000/, which a browser on this machine opens happily)
    if hostname in ("localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]") or hostname.startswith("127.") or (
        hostname.endswith(".localhost")
    ):
        lan = lan_address()
        port = host.rsplit(":", 1)[1] if ":" in host and not host.endswith("]") else ""
        # the LAN address reaches this server only when it listens on every interface
        # (``serve`` records where it listens; make run uses 0.0.0.0)
        if lan and current_app.config.get("LISTEN_HOST") in ("0.0.0.0", "::"):
            return f"{request.scheme}://{lan}{':' + port if port else ''}{path}", None
        return (
            request.host_url.rstrip("/") + path,
            "This link points at this machine itself (localhost), so other phones cannot open it. "
            "Start the app on the local network (make run) or set COMPANION_PUBLIC_BASE_URL.",
        )
    return request.host_url.rstrip("/") + path, None


@bp.get("/share")
def share(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    url, warning = players_url(night)
    return render_template(
        "table/share.html",
        night=night,
        url=url,
        warning=warning,
        rotate=RotateForm(formdata=None),
        request_key=services.new_key(),  # makes a doubled "Make a new link" safe
    )


@bp.get("/players-qr.svg")
def players_qr(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    url, _ = players_url(night)
    return Response(qr.svg(url), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@bp.post("/rotate")
def rotate(key: str):  # type: ignore[no-untyped-def]
    request_key = request.form.get("request_key", "")
    rotations: RotationMemory = current_app.extensions["companion_rotations"]
    location, conflict = rotations.recall(request_key, key, request.form.get("which", ""))
    if conflict:
        message = "This form was already submitted with different content; nothing was changed."
        return render_template("error.html", code=409, error_message=message), 409
    if location is not None:  # a repeat of a rotation already made: the same answer
        flash("Already done: the new link is below; the old one no longer works.")
        return redirect(location, code=303)
    night = keeper_night(key)
    form = RotateForm()
    if not form.validate() or not re.fullmatch(KEY_PATTERN, request_key):
        abort(400, "choose which link to replace")
    services.rotate_link(night, form.which.data)
    remember(night)  # this browser's list knows the new scorekeeper link even if the answer is lost
    location = url_for("table.share", key=night.keeper_key)
    rotations.keep(request_key, key, form.which.data, location)
    flash("A new players' link is ready; the old one no longer works." if form.which.data == "viewer"
          else "A new scorekeeper link is ready; the old one no longer works. Keep this page's address.")
    return redirect(location, code=303)


# --- setup before play --------------------------------------------------------------------


def _setup_form_class(night: Night) -> type[NightBaseForm]:
    return night_form_class(SCREENS[night.first_game.kind].rules_fields)


def _setup_form(night: Night) -> NightBaseForm:
    form = _setup_form_class(night)(formdata=None)
    form.name.data = night.name
    for field, name in zip(form.seat_fields(), night.players):
        field.data = name
    game = night.first_game
    form.game.data = game.kind
    form.first_dealer.data = str(night.players.index(game.first_dealer) + 1)
    SCREENS[game.kind].fill_rules(form, game.rules)
    form.chip_value.data = f"{night.chip_value.normalize():f}" if night.chip_value else ""
    form.currency.data = night.currency
    form.submit.label.text = "Save the setup"
    return form


def _render_setup(night: Night, form: NightBaseForm, status: int = 200):  # type: ignore[no-untyped-def]
    rules_template = SCREENS[night.first_game.kind].rules_template
    return render_template("table/setup.html", night=night, form=form, rules_template=rules_template), status


@bp.route("/setup", methods=["GET", "POST"])
def setup(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    if night.version != 0 and request.method == "POST":
        return _refused(night, 409, message="Play has started: the seating and rules can no longer change.")
    if request.method != "POST":  # GET and HEAD show the form; only POST submits it
        kept = post_redirect_get.recall(0)
        if kept is None or kept.form != "setup":
            return _render_setup(night, _setup_form(night))
        form = kept.refill(_setup_form(night))
        form.game.data = night.first_game.kind
        return _render_setup(night, form, kept.status)
    form = _setup_form_class(night)()
    form.game.data = night.first_game.kind  # the first game's kind is not changed here
    form.submit.label.text = "Save the setup"
    location = url_for("table.setup", key=night.keeper_key)
    if move_seat_up(form):
        return post_redirect_get.refuse(location, 200, form_name="setup", form=form, data=post_redirect_get.typed(form), version=0)
    if form.validate():
        try:
            services.update_setup(
                night,
                form.name.data or "",
                form.players(),
                form.first_dealer_name(),
                SCREENS[night.first_game.kind].rules_from_form(form),
                Money(form.chip_value_decimal(), (form.currency.data or "").strip()),
                expected_version=0,
            )
        except IllegalAction as error:
            form.seat_1.errors = [*form.seat_1.errors, str(error)]
        except services.StaleTable:
            return _refused(night, 409, message="Play has started: the seating and rules can no longer change.")
        else:
            flash("Setup saved.")
            return redirect(url_for("table.show", key=night.keeper_key), code=303)
    return post_redirect_get.refuse(location, 422, form_name="setup", form=form, version=0)


# --- the night's next game ---------------------------------------------------------------


def _next_game_form(night: Night, kind: str, formdata: Any = None) -> Any:
    screens = SCREENS[kind]
    form = next_game_form_class(screens.rules_fields)(formdata=formdata)
    form.game.choices = [(k, GAMES[k].title) for k in GAMES if k in SCREENS]
    form.players.choices = [(n, n) for n in night.players]
    form.first_dealer.choices = [(n, n) for n in night.players]
    return form


def _offer_of(kind: str, key: str | None) -> tuple[str, tuple[str, Any]] | None:
    """One of the game's offers (``?offer=``: a game the group plays under its own name), or None."""
    found = offers_of(kind).get(key or "")
    return (str(key), found) if found is not None else None


def _render_next_game(  # type: ignore[no-untyped-def]
    night: Night, kind: str, form: Any, status: int = 200, message: str | None = None, offer: Any = None
):
    return (
        render_template(
            "table/next_game.html", night=night, form=form, kind=kind,
            title=offer[1][0] if offer is not None else GAMES[kind].title,
            offer=offer[0] if offer is not None else None,
            rules_template=SCREENS[kind].rules_template, st=standings_of(night), message=message,
            stopping=services.play_for(night).current.stopping(),
        ),
        status,
    )


@bp.route("/next-game", methods=["GET", "POST"])
def next_game(key: str):  # type: ignore[no-untyped-def]
    """Start the night's next game: the one at the table stops, and its closing applies from then on."""
    night = keeper_night(key)
    kind = request.values.get("game") or services.play_for(night).current.setup.kind
    if kind not in SCREENS or kind not in GAMES:
        abort(400, "choose one of the games offered")
    offer = _offer_of(kind, request.values.get("offer"))
    location = url_for("table.next_game", key=night.keeper_key, game=kind,
                       **({"offer": offer[0]} if offer is not None else {}))
    if request.method != "POST":
        kept = post_redirect_get.recall(night.version)
        form = _next_game_form(night, kind)
        if kept is not None and kept.form == "next_game":  # the refused form, as typed, with its errors
            kept.refill(form)
            form.game.data = kind
        else:
            defaults = services.next_game_defaults(night, kind, offer[1][1] if offer is not None else None)
            form.game.data = kind
            form.players.data = list(defaults.players)
            form.first_dealer.data = defaults.first_dealer
            SCREENS[kind].fill_rules(form, defaults.rules)
        _fresh(form, night.version)
        status = kept.status if kept is not None else 200
        return _render_next_game(night, kind, form, status, message=kept.message if kept else None, offer=offer)
    shown = request.form.get("rules_of") or kind  # a page that says nothing showed the picked game's
    if shown != kind or request.form.get("show_rules"):
        # the picked game's own rules and players, shown before anything starts (issue 20, item 5)
        if shown not in SCREENS:
            abort(400, "choose one of the games offered")
        if request.form.get("show_rules"):
            return post_redirect_get.refuse(location, 200, version=night.version)
        return post_redirect_get.refuse(location, 422, message=picked_another_game(kind, "Start this game"), version=night.version)
    form = _next_game_form(night, kind, request.form)
    if not form.validate():
        return post_redirect_get.refuse(location, 422, form_name="next_game", form=form, version=night.version)
    if tap_guard.too_soon(night, form.version.data):
        return _refused(night, 409, message=tap_guard.TOO_SOON)
    try:
        result = services.start_game(
            night.id, kind, form.players.data, form.first_dealer.data, SCREENS[kind].rules_from_form(form),
            form.version.data, form.request_key.data, recorded_by=device_label(),
        )
    except IllegalAction as error:
        form.form_errors.append(str(error))
        return post_redirect_get.refuse(location, 422, form_name="next_game", form=form, version=night.version)
    except (services.StaleTable, services.KeyConflict) as refusal:
        db.session.expire_all()
        return _refused(db.session.get(Night, night.id), 409, message=str(refusal))
    flash(("Already recorded: " if result.repeated else "") + result.summary)
    return redirect(url_for("table.show", key=night.keeper_key), code=303)
