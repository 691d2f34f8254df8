"""A group's commands: what the organiser's and a member's forms record, and the page that asks first.

Each command is a POST on the group's blueprint (web/pages/groups.py; web/wiring.py imports this module before
it registers the blueprint, so the routes and their endpoint names, ``groups.add_member`` and the rest,
are the blueprint's): make or import a group, add, rename and merge members, set and remove pay handles,
mark the tab paid or settle a unit's plan, "I got it" on a member's own link, take a night out of the
group or put it back, make a member's own link, replace a link.

Each form is read by its reader (web/forms.py), the service decides, and a rule error is a form error
with a 4xx and nothing changed; every POST answers 303 (web/plumbing/post_redirect_get.py).  A payment or a
correction asks first (issue 35, item 3): its GET is a confirming page saying in words what will be
recorded, with one button that posts it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from flask import Response, abort, current_app, flash, redirect, render_template, request, url_for

from companion import service
from companion.service import GroupRow
from companion.games.protocol import IllegalAction
from companion.group.file import GroupFileError
from companion.group.tab import TabPayment
from companion.values.reading import Unreadable, whole_number
from companion.web.plumbing import post_redirect_get
from companion.web.forms import (
    KEY_PATTERN,
    GroupForm,
    GroupImportForm,
    HandleForm,
    MemberForm,
    MergeForm,
    NightMoveForm,
    OwnLinkForm,
    RemoveHandleForm,
    RenameForm,
    SettleForm,
    TabPaidForm,
    fresh,
)
from companion.web.pages.group_links import organiser_group, own_link
from companion.web.pages.group_words import amount_text, plain_amount, unit_text
from companion.web.pages.groups import REFUSED, bp, filled_pay_form, filled_settle_form
from companion.web.plumbing.security import RotationMemory, brake, client_id


# --- making a group -----------------------------------------------------------------------------


@bp.post("/groups")
def create():  # type: ignore[no-untyped-def]
    """ "Make a group" on the home page: its name; the organiser's page next."""
    form = GroupForm()
    here = url_for("groups.start")
    limit = current_app.extensions["companion_group_limit"]
    brake(limit, client_id(), "new groups")
    if form.validate():
        service.count_against(limit, client_id())  # every group that passes the form counts (a doubled tap too)
        try:
            group = service.open_group(form.name.data, request_key=form.request_key.data or None)
        except REFUSED as error:
            form.name.errors = [*form.name.errors, str(error)]
        except service.KeyConflict as error:
            form.form_errors.append(str(error))
            return post_redirect_get.refuse(here, 409, form_name="group", form=form)
        else:
            return redirect(url_for("groups.organiser", key=group.organiser_key), code=303)
    return post_redirect_get.refuse(here, 422, form_name="group", form=form)


@bp.post("/groups/import")
def import_group():  # type: ignore[no-untyped-def]
    """A group file (companion-group/1) made into a new group with its own links."""
    form = GroupImportForm()
    here = url_for("groups.start")
    limit = current_app.extensions["companion_import_limit"]
    brake(limit, client_id(), "imports")
    if form.validate():
        service.count_against(limit, client_id())  # before the file is read: every file read counts
        try:
            # the file's bytes as they came: read by the one rule every way in reads a file by (UTF-8 only,
            # companion.values.reading.file_text), as flask replay reads them
            group = service.import_group(form.file.data.read(), request_key=form.request_key.data or None)
        except (GroupFileError, *REFUSED) as error:
            form.file.errors = [*form.file.errors, str(error)]
        except service.KeyConflict as error:
            form.file.errors = [*form.file.errors, str(error)]
            return post_redirect_get.refuse(here, 409, form_name="group_import", form=form)
        else:
            return redirect(url_for("groups.organiser", key=group.organiser_key), code=303)
    return post_redirect_get.refuse(here, 422, form_name="group_import", form=form)


# --- the organiser's and a member's forms ---------------------------------------------------------


@bp.post("/g/<key>/members/link")
def make_own_link(key: str):  # type: ignore[no-untyped-def]
    """A member's own link made (or made anew: the one before opens nothing from then on)."""
    group = organiser_group(key)
    form = OwnLinkForm()
    return _command(
        group, form, "own_link", "The link could not be made",
        lambda: service.make_member_link(group.id, form.member.data or "", expected_version=form.version.data,
                                         request_key=form.request_key.data),
        lambda: f"{form.member.data}'s own link is below: give it to them alone.",
    )


def _back(group: GroupRow, organiser: bool = True) -> str:
    """The page a group's form returns to, with the period it was shown for."""
    period = {k: v for k, v in request.form.items() if k in ("period", "from", "to") and v}
    if organiser:
        return url_for("groups.organiser", key=group.organiser_key, **period)
    return url_for("groups.members", key=group.member_key, **period)


#: the section of a group's page each form is in: a save returns there, its message at the top of the
#: screen (issue 35, item 6), the section opened (static/app.js: the page folds each section); adding a
#: member or a way to pay returns to that form, opened again for the next one
SECTION_OF = {"add": "add-h", "rename": "members-h", "merge": "members-h", "handle": "handle-h",
              "remove_handle": "members-h", "own_link": "members-h", "paid": "tab-h", "settle": "tab-h",
              "got_it": "tab-h", "move": "nights-h"}


def _refuse(group: GroupRow, form: Any, name: str, status: int, message: str, organiser: bool = True,
            back: str | None = None) -> Response:
    return post_redirect_get.refuse(
        back or _back(group, organiser), status, message=message, form_name=name, form=form, version=group.version,
        anchor=SECTION_OF.get(name),
    )


def errors_text(form: Any) -> str:
    """What a refused form says is wrong, in one line: each field's errors, else the form's own."""
    return "; ".join(str(e) for es in form.errors.values() for e in es) or "; ".join(form.form_errors)


def _command(group: GroupRow, form: Any, name: str, what: str, call: Callable[[], Any], done: str | Callable[[], str],
             organiser: bool = True, back: str | None = None) -> Response:
    """Validate ``form``, run the service's ``call``, and answer: 303 to the page, or the refusal.

    ``done`` says what was recorded; a callable is asked only once the form is read (an amount is parsed
    as the form validates: said before, it would read zero)."""
    if not form.validate():
        return _refuse(group, form, name, 422, f"{what}: {errors_text(form)}.", organiser, back)
    try:
        result = call()
    except REFUSED as error:
        return _refuse(group, form, name, 422, f"{what}: {error}.", organiser, back)
    except (service.StaleTable, service.KeyConflict) as error:
        service.end_reads()  # the refusal's page reads the group anew, at its current version
        return _refuse(group, form, name, 409, str(error), organiser, back)
    flash(("Already recorded: " if getattr(result, "repeated", False) else "Recorded: ") + (done() if callable(done) else done))
    section = SECTION_OF.get(name)
    return redirect((back or _back(group, organiser)) + (f"#{section}" if section else ""), code=303)


@bp.post("/g/<key>/members/add")
def add_member(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    form = MemberForm()
    return _command(
        group, form, "add", "The member could not be added",
        # read by the one reader of a member's name (service.add_member: companion.group.members.member_name)
        lambda: service.add_member(group.id, form.name.data, expected_version=form.version.data,
                                   request_key=form.request_key.data),
        f"{form.name.data} is a member.",
    )


@bp.post("/g/<key>/members/rename")
def rename_member(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    form = RenameForm()
    return _command(
        group, form, "rename", "The member could not be renamed",
        lambda: service.rename_member(group.id, form.member.data, form.new.data,
                                      expected_version=form.version.data, request_key=form.request_key.data),
        f"{form.member.data} is now {form.new.data}.",
    )


@bp.post("/g/<key>/members/merge")
def merge_members(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    form = MergeForm()
    return _command(
        group, form, "merge", "The names could not be merged",
        lambda: service.merge_members(group.id, form.kept.data, form.merged.data,
                                      expected_version=form.version.data, request_key=form.request_key.data),
        f"{form.merged.data}'s nights now count for {form.kept.data}.",
    )


def handle_value(form: HandleForm) -> dict[str, str]:
    """What the service reads a handle from: the username or link, or the IBAN with its holder and BIC."""
    if form.kind.data == "iban":
        return {"iban": form.handle.data or "", "holder": form.holder.data or "", "bic": form.bic.data or ""}
    return {"username": form.handle.data or ""}


@bp.post("/g/<key>/handles")
def set_handle(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    form = HandleForm()
    return _command(
        group, form, "handle", "The pay handle could not be saved",
        lambda: service.set_handle(group.id, form.member.data, form.kind.data, handle_value(form),
                                   expected_version=form.version.data, request_key=form.request_key.data),
        f"{form.member.data}'s {dict(form.kind.choices).get(form.kind.data, '')} is saved.",
    )


@bp.post("/g/<key>/handles/remove")
def remove_handle(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    form = RemoveHandleForm()
    return _command(
        group, form, "remove_handle", "The pay handle could not be removed",
        lambda: service.remove_handle(group.id, form.member.data, form.kind.data,
                                      expected_version=form.version.data, request_key=form.request_key.data),
        f"{form.member.data}'s {dict(form.kind.choices).get(form.kind.data, '')} is removed.",
    )


def _payment(form: TabPaidForm) -> TabPayment:
    """The payment a tab form says was made, read by the tab's one reader of a payment (``Unreadable`` for one
    that cannot be: whole chips written with a fraction, a payer paying themselves)."""
    return service.read_payment(form.payer.data, form.payee.data, form.unit.data or None, form.amount.data)


@bp.post("/g/<key>/tab/paid")
def tab_paid(key: str):  # type: ignore[no-untyped-def]
    """ "Mark paid" beside one payment of the plan: the amount shown, or less (a part paid)."""
    group = organiser_group(key)
    form = TabPaidForm()
    return _command(
        group, form, "paid", "That payment could not be recorded",
        lambda: service.pay_tab(group.id, [_payment(form)], expected_version=form.version.data,
                                request_key=form.request_key.data),
        lambda: f"{form.payer.data} paid {form.payee.data} {amount_text(form.amount_decimal(), form.unit.data or None)}.",
    )


@bp.post("/g/<key>/tab/settle")
def tab_settle(key: str):  # type: ignore[no-untyped-def]
    """ "Settle everything": every payment of one unit's plan, as the page showed it (its version)."""
    group = organiser_group(key)
    form = SettleForm()
    unit = form.unit.data or None
    if not form.validate():
        return _refuse(group, form, "settle", 422, f"The plan could not be settled: {errors_text(form)}.")
    if form.version.data != group.version:
        # the same tap again (a double tap, a resend): done once
        if service.recorded_in_group(group.id, form.request_key.data):
            flash("Already recorded: the plan was marked paid.")
            return redirect(_back(group), code=303)
        # the plan shown is not the plan now: nothing is guessed
        return _refuse(group, form, "settle", 409, "The tab changed since this page was shown; nothing was recorded.")
    plan = service.group_view(group).tab.plan.get(unit, ())
    if not plan:
        return _refuse(group, form, "settle", 422, f"Nothing is owed in {unit_text(unit)}.")
    return _command(
        group, form, "settle", "The plan could not be settled",
        lambda: service.pay_tab(group.id, list(plan), expected_version=form.version.data,
                                request_key=form.request_key.data),
        f"every payment in {unit_text(unit)} is marked paid ({len(plan)}).",
    )


@bp.post("/y/<key>/got-it")
def got_it(key: str):  # type: ignore[no-untyped-def]
    """ "I got it" beside a payment to the member whose own link this is: said by them alone (issue 35, item 7)."""
    group, me = own_link(key)
    form = TabPaidForm()

    def call() -> Any:
        payment = _payment(form)
        if payment.payee != me:
            raise IllegalAction(f"only {payment.payee} can say they got a payment to them, on their own link")
        return service.pay_tab(group.id, [payment], expected_version=form.version.data,
                               request_key=form.request_key.data, confirmed_by=me)

    return _command(
        group, form, "got_it", "That payment could not be recorded", call,
        lambda: f"{form.payee.data} got {amount_text(form.amount_decimal(), form.unit.data or None)} from {form.payer.data}.",
        organiser=False, back=url_for("groups.own", key=key),
    )


# --- one more tap: what will be recorded, in words (issue 35, item 3) ------------------------------

#: the largest id a row can have (a 32-bit integer column): a larger number names no night
MAX_NIGHT_ID = 2**31 - 1


def _confirm(back: str, *, heading: str, action: str, form: Any, fields: Mapping[str, str], question: str, yes: str,
             details: Iterable[str] = ()) -> tuple[str, int]:
    """The confirming page of a payment or a correction: ``question`` in words and one button, whose form posts
    ``fields`` to ``action`` with the version the first tap was made at and one request key; ``back``: the
    page the first tap was made on."""
    return render_template("confirm.html", heading=heading, action=action, form=form, fields=fields,
                           question=question, yes=yes, details=list(details), back=back), 200


def _cannot_confirm(back: str, heading: str, message: str) -> tuple[str, int]:
    return render_template("confirm.html", heading=heading, form=None, message=message, back=back), 422


def _organiser_page(group: GroupRow) -> str:
    return url_for("groups.organiser", key=group.organiser_key)


def _asked_version(group: GroupRow) -> int:
    """The version of the page the first tap was made on (``version=`` of the address), read as a form's is."""
    try:
        return whole_number(request.args.get("version", ""), "the page's version", low=0)
    except Unreadable:
        return group.version


def _confirm_payment(group: GroupRow, me: str | None, own_key: str = ""):  # type: ignore[no-untyped-def]
    """Confirm one payment of the tab, as typed: *Mark paid* by the organiser (``me`` None), or *I got it* by
    ``me``, on their own link ``own_key`` (a payment to them alone)."""
    organiser = me is None
    heading = "Mark paid" if organiser else "I got it"
    back = _organiser_page(group) if organiser else url_for("groups.own", key=own_key)
    args = request.args
    try:
        payment = service.read_payment(args.get("payer", ""), args.get("payee", ""), args.get("unit") or None,
                                       args.get("amount", ""))
    except Unreadable as error:
        return _cannot_confirm(back, heading, f"That payment cannot be recorded: {error}.")
    if not organiser and payment.payee != me:
        return _cannot_confirm(back, heading, f"Only {payment.payee} can say they got a payment to them.")
    form = filled_pay_form(TabPaidForm, _asked_version(group), payment)
    shown = amount_text(payment.amount, payment.unit)
    fields = {"payer": payment.payer, "payee": payment.payee, "unit": payment.unit or "",
              "amount": plain_amount(payment.amount)}
    if organiser:
        return _confirm(back, heading=heading, action=url_for("groups.tab_paid", key=group.organiser_key),
                        form=form, fields=fields, question=f"{payment.payer} paid {payment.payee} {shown}?",
                        yes=f"Yes, {payment.payer} paid {payment.payee} {shown}")
    return _confirm(back, heading=heading, action=url_for("groups.got_it", key=own_key),
                    form=form, fields=fields, question=f"{payment.payee} got {shown} from {payment.payer}?",
                    yes=f"Yes, {payment.payee} got {shown}")


@bp.get("/g/<key>/tab/paid")
def confirm_paid(key: str):  # type: ignore[no-untyped-def]
    return _confirm_payment(organiser_group(key), None)


@bp.get("/y/<key>/got-it")
def confirm_got_it(key: str):  # type: ignore[no-untyped-def]
    group, me = own_link(key)
    return _confirm_payment(group, me, key)


@bp.get("/g/<key>/tab/settle")
def confirm_settle(key: str):  # type: ignore[no-untyped-def]
    """Confirm settling one unit's whole plan, each payment named."""
    group = organiser_group(key)
    unit = request.args.get("unit") or None
    plan = service.group_view(group).tab.plan.get(unit, ())
    heading = "Settle everything"
    if not plan:
        return _cannot_confirm(_organiser_page(group), heading, f"Nothing can be settled in {unit_text(unit)[:24]}.")
    form = filled_settle_form(_asked_version(group), unit)
    return _confirm(
        _organiser_page(group), heading=heading, action=url_for("groups.tab_settle", key=group.organiser_key), form=form,
        fields={"unit": unit or ""}, question=f"all {len(plan)} payments in {unit_text(unit)} were made?",
        details=[f"{p.payer} paid {p.payee} {amount_text(p.amount, unit)}" for p in plan],
        yes=f"Yes, mark all {len(plan)} paid",
    )


def _asked_night(group: GroupRow) -> Any:
    """The kept night ``night=`` names, as the group's view has it (counted, or taken out); None: none of its."""
    try:
        night_id = whole_number(request.args.get("night", ""), "the night", low=1, high=MAX_NIGHT_ID)
    except Unreadable:
        return None
    view = service.group_view(group)
    return next((n for n in (*view.nights, *view.left_out) if n.night_id == night_id), None)


@bp.get("/g/<key>/nights/out")
def confirm_leave_out(key: str):  # type: ignore[no-untyped-def]
    return _confirm_move(organiser_group(key), out=True)


@bp.get("/g/<key>/nights/back")
def confirm_put_back(key: str):  # type: ignore[no-untyped-def]
    return _confirm_move(organiser_group(key), out=False)


def _confirm_move(group: GroupRow, out: bool):  # type: ignore[no-untyped-def]
    heading = "Take a night out" if out else "Put a night back"
    night = _asked_night(group)
    if night is None:
        return _cannot_confirm(_organiser_page(group), heading, "That night is not kept in this group.")
    form = fresh(NightMoveForm(formdata=None), _asked_version(group))
    question = (f"take {night.name} ({night.date}) out of the group? Its season and tab stop counting it; the "
                "night itself, its payments included, is kept, and it can be put back." if out else
                f"put {night.name} ({night.date}) back? The group's season and tab count it again.")
    return _confirm(
        _organiser_page(group), heading=heading, action=url_for("groups.leave_out" if out else "groups.put_back",
                                                     key=group.organiser_key),
        form=form, fields={"night": str(night.night_id)}, question=question,
        yes=f"Yes, take {night.name} out" if out else f"Yes, put {night.name} back",
    )


@bp.post("/g/<key>/nights/out")
def leave_out(key: str):  # type: ignore[no-untyped-def]
    return _move(organiser_group(key), out=True)


@bp.post("/g/<key>/nights/back")
def put_back(key: str):  # type: ignore[no-untyped-def]
    return _move(organiser_group(key), out=False)


def _move(group: GroupRow, out: bool) -> Response:
    form = NightMoveForm()
    call = service.leave_out_night if out else service.put_back_night

    def move() -> Any:
        night_id = whole_number(form.night.data or "", "the night", low=1, high=MAX_NIGHT_ID)
        return call(group.id, night_id, expected_version=form.version.data, request_key=form.request_key.data)

    return _command(
        group, form, "move", "The night could not be " + ("taken out" if out else "put back"), move,
        "the night is taken out of the group." if out else "the night counts in the group again.",
    )


# --- the links: replaced ---------------------------------------------------------------------------


@bp.post("/g/<key>/rotate")
def rotate(key: str):  # type: ignore[no-untyped-def]
    """Replace the members' or the organiser's link; the old one then opens nothing (a doubled tap: the first answer)."""
    request_key = request.form.get("request_key", "")
    which = request.form.get("which", "")
    rotations: RotationMemory = current_app.extensions["companion_rotations"]
    location, conflict = rotations.recall(request_key, "g:" + key, which)
    if conflict:
        message = "This form was already submitted with different content; nothing was changed."
        return render_template("error.html", code=409, error_message=message), 409
    if location is not None:
        flash("Already done: the new link is below; the old one no longer works.")
        return redirect(location, code=303)
    group = organiser_group(key)
    if which not in ("members", "organiser") or not re.fullmatch(KEY_PATTERN, request_key):
        abort(400, "choose which link to replace")
    service.rotate_group_link(group, which)
    location = url_for("groups.organiser", key=group.organiser_key)
    rotations.keep(request_key, "g:" + key, which, location)
    flash("A new members' link is ready; the old one no longer works." if which == "members"
          else "A new organiser link is ready; the old one no longer works. Keep this page's address.")
    return redirect(location, code=303)
