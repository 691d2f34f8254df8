"""A night and its group: a new night started from the group's page, and a night kept in a group.

Both are routes of the group's blueprint (web/pages/groups.py; web/wiring.py imports this module before it
registers the blueprint): ``GET /g/<key>/new-night`` is the night's setup filled in from the group's last
night, whose *Start the night* (``POST /g/<key>/nights``) keeps the new night in the group in the same
unit of work; ``GET|POST /k/<key>/group`` keeps a night in a group from its scorekeeper link alone, in a
new group made from it or in the group whose organiser link is pasted.
"""

from __future__ import annotations

from typing import Any

from flask import Response, abort, current_app, flash, redirect, render_template, request, url_for

from companion import service
from companion.service import GroupRow
from companion.games import GAMES
from companion.games.web import SCREENS
from companion.group.members import UnknownMember
from companion.night.file import Money
from companion.web.plumbing import post_redirect_get
from companion.web.pages.first_game import first_games, show_rules_of
from companion.web.forms import KeepNightForm, NightBaseForm, move_seat_up, night_form_class
from companion.web.pages.group_commands import errors_text
from companion.web.pages.group_links import organiser_group, pasted_group
from companion.web.pages.groups import REFUSED, bp
from companion.web.plumbing.links import keeper_night
from companion.web.plumbing.security import brake, client_id
from companion.web.plumbing.this_browser import remember


# --- a new night, from the group's page -------------------------------------------------------------


def _new_night_form(group: GroupRow, formdata: Any = None) -> NightBaseForm:
    defaults = service.next_night_defaults(group)
    kind = defaults.kind if defaults.kind in SCREENS and defaults.kind in GAMES else next(k for k in GAMES if k in SCREENS)
    form = night_form_class(SCREENS[kind].rules_fields)(formdata=formdata)
    form.game.data = kind
    if formdata is None:
        for field, name in zip(form.seat_fields(), defaults.players):
            field.data = name
        if defaults.first_dealer in defaults.players:
            form.first_dealer.data = str(list(defaults.players).index(defaults.first_dealer) + 1)
        if defaults.rules and kind == defaults.kind:
            SCREENS[kind].fill_rules(form, defaults.rules)
        form.name.data = defaults.name
        form.chip_value.data = f"{defaults.chip_value.normalize():f}" if defaults.chip_value else ""
        form.currency.data = defaults.currency or form.currency.data
        form.request_key.data = service.new_key()
    return form


def _render_new_night(group: GroupRow, form: NightBaseForm, status: int = 200):  # type: ignore[no-untyped-def]
    form.submit.label.text = "Start the night"
    return render_template(
        "groups/new_night.html", group=group, form=form, rules_template=SCREENS[form.game.data].rules_template,
        first_games=first_games(),
    ), status


@bp.get("/g/<key>/new-night")
def new_night(key: str):  # type: ignore[no-untyped-def]
    """The night's setup, filled in from the group's last night: *Start the night* is the second tap."""
    group = organiser_group(key)
    form = _new_night_form(group)
    kept = post_redirect_get.recall()
    if kept is not None and kept.form == "night":
        # a refusal too large to keep comes back without what was typed (post_redirect_get.keep): the game
        # shown is then the group's, never none; another game picked comes back with its own rules' fields
        typed = dict(kept.data).get("game")
        if typed in SCREENS and typed in GAMES and typed != form.game.data:
            form = night_form_class(SCREENS[typed].rules_fields)(formdata=None)
        kind = typed if typed in SCREENS and typed in GAMES else form.game.data
        kept.refill(form)
        form.game.data = kind
        form.request_key.data = service.new_key()
        return _render_new_night(group, form, kept.status)
    return _render_new_night(group, form)


@bp.post("/g/<key>/nights")
def start_night(key: str):  # type: ignore[no-untyped-def]
    """Start the night as set up, kept in the group in the same unit of work."""
    group = organiser_group(key)
    kind = request.form.get("game", "")
    if kind not in SCREENS or kind not in GAMES:
        abort(400, "choose one of the games offered")
    here = url_for("groups.new_night", key=group.organiser_key)
    shown = request.form.get("rules_of") or kind  # a page that says nothing showed the picked game's
    if shown != kind or request.form.get("show_rules"):  # another first game picked: its rules, then start
        if shown not in SCREENS or shown not in GAMES:
            abort(400, "choose one of the games offered")
        return show_rules_of(kind, shown, asked=bool(request.form.get("show_rules")), here=here)
    form = night_form_class(SCREENS[kind].rules_fields)()
    form.game.data = kind
    if move_seat_up(form):
        return post_redirect_get.refuse(here, 200, form_name="night", form=form, data=post_redirect_get.typed(form))
    limit = current_app.extensions["companion_night_limit"]
    brake(limit, client_id(), "new nights")
    if form.validate():
        service.count_against(limit, client_id())
        try:
            night = service.open_night_in_group(
                group.id,
                form.name.data or "",
                form.players(),
                Money(form.chip_value_decimal(), (form.currency.data or "").strip()),
                {"kind": kind, "players": None, "first_dealer": form.first_dealer_name() or None,
                 "rules": SCREENS[kind].rules_from_form(form), "carried_in": None},
                request_key=form.request_key.data or None,
            )
        except REFUSED as error:
            form.seat_1.errors = [*form.seat_1.errors, str(error)]
        except (service.KeyConflict, service.StaleTable) as error:
            form.form_errors.append(str(error))
            return post_redirect_get.refuse(here, 409, form_name="night", form=form)
        else:
            remember(night)
            return redirect(url_for("table.show", key=night.keeper_key), code=303)
    return post_redirect_get.refuse(here, 422, form_name="night", form=form)

# --- keep a night in a group (the night's scorekeeper) ----------------------------------------------

@bp.get("/k/<key>/group")
def keep(key: str):  # type: ignore[no-untyped-def]
    """Keep this night in a group: a new group made from it, or a group whose organiser link is pasted."""
    night = keeper_night(key)  # 403 for the players' link
    kept = post_redirect_get.recall()
    form = KeepNightForm(formdata=None)
    status, message = 200, None
    members: tuple[str, ...] = ()
    if kept is not None and kept.form == "keep":
        kept.refill(form)
        form.version.data = kept.version
        status, message = kept.status, kept.message
        group = pasted_group(form.link.data or "") if form.name_1.data else None
        members = tuple(service.group_view(group).members.names) if group is not None else ()
    form.request_key.data = service.new_key()
    return render_template(
        "groups/keep.html", night=night, form=form, message=message, in_group=service.group_of_night(night),
        members=members,
    ), status


@bp.post("/k/<key>/group")
def keep_night(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = KeepNightForm()
    here = url_for("groups.keep", key=night.keeper_key)

    def refused(status: int, message: str, version: int | None = None) -> Response:
        return post_redirect_get.refuse(here, status, message=message, form_name="keep", form=form,
                                        data=post_redirect_get.typed(form), version=version)

    if not form.validate():
        return refused(422, f"The night could not be kept: {errors_text(form)}.")
    request_key = form.request_key.data or service.new_key()
    if (form.link.data or "").strip():
        group = pasted_group(form.link.data or "")
        if group is None:
            return refused(422, "That is not a group's organiser link: paste the address of the group's organiser page.")
        try:
            version = form.version.data if form.version.data is not None else group.version
            add_new = []
            for index, (name, same_as) in enumerate(form.answers(), start=1):
                if not same_as:
                    add_new.append(name)
                    continue
                # a name that is a member under another name: added, then merged into them
                step = service.add_member(group.id, name, expected_version=version,
                                          request_key=f"{request_key[:48]}-a{index}")
                version = step.version
                step = service.merge_members(group.id, same_as, name, expected_version=version,
                                             request_key=f"{request_key[:48]}-m{index}")
                version = step.version
            service.keep_night(group.id, night.id, version, request_key, add_new=tuple(add_new))
        except UnknownMember as error:
            service.end_reads()  # the refusal's page reads the group anew (a member added on the way)
            names = list(getattr(error, "names", (error.name,)))
            for i in range(1, 8):
                getattr(form, f"name_{i}").data = names[i - 1] if i <= len(names) else ""
                getattr(form, f"as_{i}").data = ""
            return refused(
                422, "Some players are not members of the group yet: add each as a new member, "
                "or say which member they are.", group.version,
            )
        except REFUSED as error:
            return refused(422, f"The night could not be kept: {error}.")
        except (service.StaleTable, service.KeyConflict) as error:
            service.end_reads()  # the refusal's page reads the group anew: its version is the one current now
            return refused(409, str(error))
        flash(f"This night is kept in the group \u201c{group.name}\u201d.")
        return redirect(url_for("groups.organiser", key=group.organiser_key), code=303)
    if not (form.name.data or "").strip():
        return refused(422, "Give the new group a name, or paste the organiser link of a group.")
    limit = current_app.extensions["companion_group_limit"]
    brake(limit, client_id(), "new groups")
    service.count_against(limit, client_id())
    try:
        group = service.open_group(form.name.data, request_key=request_key, from_night=night)
    except REFUSED as error:
        return refused(422, f"The group could not be made: {error}.")
    except service.KeyConflict as error:
        return refused(409, str(error))
    flash(f"The group \u201c{group.name}\u201d is made with this night in it.")
    return redirect(url_for("groups.organiser", key=group.organiser_key), code=303)
