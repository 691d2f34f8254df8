"""A group's pages: the organiser's (``/g/<key>``) and the members' (``/m/<key>``), and a night kept in a group.

The group has two secret links, as a night has: the organiser's, which keeps nights, edits the
members and their pay handles and marks the tab paid; and the members', which reads the season,
the chart, the rivalries and the tab, and says "I got it" for a payment to a member.  A wrong key
is a 404 on either (counted against the client, :func:`~companion.web.plumbing.security.reject_unknown_link`),
and the members' link never opens an organiser's page: it is a wrong key there.

Routes:

* ``POST /groups``: make a group (the home page's form), ``POST /groups/import``: a group file;
* ``GET /g/<key>``: the organiser's page (``?period=`` all, ``2025``, ``2025-04`` or ``range`` with
  ``from``/``to``; ``?first=&second=`` a rivalry); its forms post to ``/g/<key>/…``;
  ``GET /g/<key>/new-night`` the night's setup prefilled from the group's last night, whose
  *Start the night* keeps the new night in the group; ``GET /g/<key>/export.json``;
  ``GET /g/<key>/members-qr.svg``;
* ``GET /m/<key>``: the members' page (it only looks); ``GET /y/<key>``: a member's own page, whose
  ``POST /y/<key>/got-it`` records "I got it" (confirmed first);
* ``GET|POST /k/<key>/group``: keep a night in a group (its scorekeeper link only).

This module holds the blueprint and the pages that read: the organiser's and the members' pages with
their kept pages' keys and their streams, a member's own page, the QR codes and the export.  What the
pages write adds its routes to the same blueprint: the commands and their confirming pages
(web/pages/group_commands.py), a new night from the group and a night kept in a group (web/pages/group_nights.py);
web/wiring.py imports both before it registers the blueprint.  The links are read in web/pages/group_links.py,
the words the pages say in web/pages/group_words.py.

Views stay thin: each form is read by its reader (web/forms.py), the service decides, and a rule
error is a form error with a 4xx and nothing changed; every POST answers 303 (web/plumbing/post_redirect_get.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Blueprint, Response, abort, render_template, request, url_for

from companion import service
from companion.service import GroupRow
from companion.games.protocol import IllegalAction
from companion.group.file import GroupFileError
from companion.group.members import MemberError, UnknownMember
from companion.group.season import ALL_TIME, Period
from companion.group.tab import Overpayment, TabPayment
from companion.values.reading import Unreadable
from companion.web.plumbing import kept_pages, live_push, post_redirect_get, qr
from companion.web.plumbing.addresses import shared_url
from companion.web.plumbing.downloads import attachment
from companion.web.forms import (
    GroupForm,
    GroupImportForm,
    HandleForm,
    MemberForm,
    MergeForm,
    OwnLinkForm,
    RemoveHandleForm,
    RenameForm,
    RotateForm,
    SettleForm,
    TabPaidForm,
    fresh,
)
from companion.web.pages.group_links import looks_like_key, member_group, members_url, organiser_group, own_link
from companion.web.pages.group_words import (
    amount_text,
    bank_says,
    charts_of,
    handle_words,
    offers_maker,
    period_args,
    period_choices,
    period_from,
    plain_amount,
    signed_text,
    unit_text,
)
from companion.web.plumbing.security import same_secret

bp = Blueprint("groups", __name__)

#: what the service refuses with (service.GROUP_REFUSALS), and a payment that cannot be (a payer paying
#: themselves: ValueError); each is a form error with its message, and nothing changed
REFUSED = (IllegalAction, MemberError, UnknownMember, Overpayment, Unreadable, GroupFileError, ValueError)


# --- the pages ------------------------------------------------------------------------------------


#: the nights, and each night's open balances in the tab, shown at first: the newest; ``?nights=all`` shows every one
#: (a group of two hundred nights would otherwise send some 80 KB of lists to a phone at the table)
LISTED = 12


def _all_listed() -> bool:
    return request.args.get("nights") == "all"


def _rivalry(group: GroupRow, period: Period) -> tuple[Any, str | None]:
    """The rivalry the address asks for (``?first=&second=``), or None; and why it cannot be shown, if it cannot."""
    first, second = request.args.get("first", ""), request.args.get("second", "")
    if not (first and second):
        return None, None
    try:
        return service.rivalry_view(group, first, second, period), None
    except REFUSED as error:
        return None, f"That rivalry cannot be shown: {error}"


def _render(group: GroupRow, view: Any, period: Period, *, organiser: bool, status: int = 200,
            message: str | None = None, forms: Mapping[str, Any] | None = None, rivalry: Any = None,
            me: str | None = None, own_key: str | None = None, live_id: str | None = None,
            template: str | None = None, **shown: Any) -> tuple[str, int]:
    """The organiser's or the members' page of ``group`` over ``period`` (``shown``: ``flashed``, when kept);
    with ``me``, the members' page as ``me``'s own link ``own_key`` shows it ("I got it" for payments to them).

    ``live_id``: the event id of the group's stamp the page was made at (read before its view), which its
    stream starts from (web/plumbing/live_push.py); a member's own page has no stream.  ``template``: another template
    given the same names (the members' page's live part, which its stream pushes)."""
    first, second = request.args.get("first", ""), request.args.get("second", "")
    url, warning = members_url(group)
    key = group.organiser_key if organiser else own_key or group.member_key
    endpoint = "groups.organiser" if organiser else "groups.own" if own_key else "groups.members"
    nights, in_play = _night_rows(view)
    stream_url = _stream_url(organiser, key, period) if live_id is not None and not own_key else None
    return render_template(
        template or ("groups/organiser.html" if organiser else "groups/members.html"),
        group=group,
        stream_url=stream_url,
        live_id=live_id,
        view=view,
        key=key,
        endpoint=endpoint,
        period=period,
        period_args=period_args(period),
        choices=period_choices(view.periods),
        rivalry=rivalry,
        first=first,
        second=second,
        charts=charts_of(view),
        nights=nights,
        in_play=in_play,
        offers_for=offers_maker(group, view),
        handle_words=handle_words,
        rotate=RotateForm(formdata=None),
        rotate_key=service.new_key(),
        members_link=url,
        link_warning=warning,
        forms=forms or {},
        pay_form=lambda payment: filled_pay_form(TabPaidForm, view.version, payment),
        settle_form=lambda unit: filled_settle_form(view.version, unit),
        amount_text=amount_text,
        signed_text=signed_text,
        unit_text=unit_text,
        bank_says=bank_says(view),
        organiser=organiser,
        me=me,
        own_links=service.member_links(group, view.members) if organiser else {},
        own_link_form=lambda: fresh(OwnLinkForm(formdata=None), view.version),
        own_url=lambda k: shared_url(url_for("groups.own", key=k))[0],
        message=message,
        listed=None if _all_listed() else LISTED,
        all_url=url_for(endpoint, key=key, nights="all", **period_args(period)),
        **shown,
    ), status


def _night_rows(view: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The group's nights that count, newest first, and those still in play, each with its players'
    link (never its scorekeeper link: the members' page must not hand it out)."""
    ids = [k.night_id for k in view.nights] + [n.night_id for n in view.in_play]
    keys = service.viewer_keys_of(ids)
    counted = [{"result": k.result, "id": k.night_id, "viewer_key": keys[k.night_id],
                "chip": amount_text(k.result.chip_value, k.result.currency) if k.result.currency is not None else None}
               for k in reversed(view.nights)]
    in_play = [{"name": n.name, "date": n.date, "reason": n.reason, "viewer_key": keys[n.night_id], "id": n.night_id,
                "broken": n.broken} for n in view.in_play]
    return counted, in_play


def _page_args(period: Period) -> dict[str, str]:
    """What the address asks a group's page to show besides its key: the period, the rivalry, the lists in full."""
    args = dict(period_args(period))
    for name in ("first", "second", "nights"):
        if request.args.get(name):
            args[name] = request.args[name]
    return args


def _stream_url(organiser: bool, key: str, period: Period) -> str | None:
    """The page's stream, asking for what the page shows; None where the server is not offered one."""
    if not live_push.offered():
        return None
    return url_for("groups.organiser_stream" if organiser else "groups.members_stream", key=key, **_page_args(period))


def filled_pay_form(cls: type[TabPaidForm], version: int, payment: TabPayment) -> TabPaidForm:
    """The form of one payment of the tab, filled in as the page shows it (its *Mark paid*, its confirming page)."""
    form = fresh(cls(formdata=None), version)
    form.payer.data, form.payee.data = payment.payer, payment.payee
    form.unit.data = payment.unit or ""
    form.amount.data = plain_amount(payment.amount)
    return form


def filled_settle_form(version: int, unit: str | None) -> SettleForm:
    """The form that settles one unit's whole plan, at the page's ``version``."""
    form = fresh(SettleForm(formdata=None), version)
    form.unit.data = unit or ""
    return form


#: the organiser's forms, by the name a refusal keeps them under
ORGANISER_FORMS: dict[str, Callable[..., Any]] = {
    "add": MemberForm, "rename": RenameForm, "merge": MergeForm, "handle": HandleForm,
    "remove_handle": RemoveHandleForm,
}


def _organiser_forms(version: int, kept: post_redirect_get.Refusal | None) -> dict[str, Any]:
    forms = {}
    for name, cls in ORGANISER_FORMS.items():
        form = cls(formdata=None)
        if kept is not None and kept.form == name:
            kept.refill(form)
        forms[name] = fresh(form, version)
    return forms


# --- making a group -----------------------------------------------------------------------------


@bp.get("/groups")
def start():  # type: ignore[no-untyped-def]
    """Make a group or import one: the home page's forms, shown again with what a refused one said."""
    kept = post_redirect_get.recall()
    group_form = GroupForm(formdata=None)
    import_form = GroupImportForm(formdata=None)
    status = 200
    if kept is not None:
        kept.refill(import_form if kept.form == "group_import" else group_form)
        status = kept.status
    group_form.request_key.data = service.new_key()
    import_form.request_key.data = service.new_key()
    return render_template("groups/start.html", group_form=group_form, group_import_form=import_form), status


# --- the organiser's page -----------------------------------------------------------------------


def read_stamp(key: str, organiser: bool) -> tuple[Any, ...] | None:
    """The stamp of the group whose organiser's (or members') link is ``key``, read in one statement, as
    :func:`companion.service.group_stamp` gives it; None: no such group (the group's path decides the 404)."""
    if not looks_like_key(key):
        return None
    stamp = service.group_stamp_by_link(key, organiser)
    if stamp is None or not same_secret(key, stamp[3] if organiser else stamp[4]):
        return None
    return stamp


def _kept_as(stamp: tuple[Any, ...], organiser: bool, period: Period) -> tuple[Any, ...]:
    """All a group's page depends on besides what each request makes anew (its CSRF token, its forms' request
    keys, its flashed messages: web/plumbing/kept_pages.py): which page, the period, the rivalry asked for, the lists
    in full or not, the members' link as this request's host makes it, and the group's ``stamp`` (version,
    name, links, its nights' changes, count and versions: :func:`companion.service.group_stamp`)."""
    members_link = shared_url(url_for("groups.members", key=stamp[4]))
    return ("group", organiser, period, request.args.get("first", ""), request.args.get("second", ""),
            _all_listed(), members_link, stamp)


def _asked_period() -> tuple[Period, str | None]:
    """The period the address asks for; the whole season, and why, when it cannot be shown."""
    try:
        return period_from(request.args), None
    except Unreadable as unreadable:
        return ALL_TIME, f"That period cannot be shown: {unreadable}. The whole season is shown instead."


def _answer(refused: str | None, kept: post_redirect_get.Refusal | None) -> tuple[int, str | None]:
    """A group page's status and message made for this request: a refused form's (kept for it), else 400 with
    why the period or the rivalry asked for cannot be shown, else 200."""
    status, message = (400 if refused else 200), refused
    if kept is not None:
        status, message = kept.status, kept.message or message
    return status, message


def _page(key: str, organiser: bool):  # type: ignore[no-untyped-def]
    """The group's page: kept per (page, group's stamp, period) as a night's pages are per version (issue 25),
    unless it shows a refusal (a refused form as typed, a period or a rivalry that cannot be shown): then it is
    made anew for this request alone.  A request for a kept page asks the database one statement
    (:func:`read_stamp`), as a night's kept page does."""
    period, error = _asked_period()
    if error is None and "refused" not in request.args:
        stamp = read_stamp(key, organiser)
        if stamp is not None:
            page = kept_pages.kept_across(_kept_as(stamp, organiser, period))
            if page is not None:
                return page
    group = organiser_group(key) if organiser else member_group(key)
    kept = post_redirect_get.recall(group.version)
    stamp = service.group_stamp(group)  # before the view: the page's stream starts from it
    live_id = live_push.group_stamp(stamp).event_id
    what = _kept_as(stamp, organiser, period) if kept is None and error is None else None
    view = service.group_view(group, period)
    rivalry, refused = _rivalry(group, period)
    if what is not None and refused is None:
        forms = _organiser_forms(view.version, None) if organiser else {}
        return kept_pages.render_kept_across(what, lambda flashed: _render(
            group, view, period, organiser=organiser, forms=forms, rivalry=rivalry, flashed=flashed, live_id=live_id,
        )[0])
    status, message = _answer(error or refused, kept)
    forms = _organiser_forms(view.version, kept) if organiser else {}
    return _render(
        group, view, period, organiser=organiser, status=status, message=message, forms=forms, rivalry=rivalry,
        live_id=live_id,
    )


@bp.get("/g/<key>")
def organiser(key: str):  # type: ignore[no-untyped-def]
    return _page(key, organiser=True)


@bp.get("/m/<key>")
def members(key: str):  # type: ignore[no-untyped-def]
    return _page(key, organiser=False)


@bp.get("/g/<key>/stream")
def organiser_stream(key: str):  # type: ignore[no-untyped-def]
    """The organiser's page's stream: at each change of the group, a note that says so with a link to the page
    (its forms carry the group's version: the organiser reloads, as on a night's table when another phone
    recorded); ``?since=`` the event id the page was made at."""
    return _stream(key, organiser=True)


@bp.get("/m/<key>/stream")
def members_stream(key: str):  # type: ignore[no-untyped-def]
    """The members' page's stream: at each change of the group, the page's live part (the season, the chart,
    the tab, the rivalry, the nights) for the period and rivalry asked, to put in place of the one shown."""
    return _stream(key, organiser=False)


def _stream(key: str, organiser: bool):  # type: ignore[no-untyped-def]
    """A group page's stream (web/plumbing/live_push.py), its event id the group's stamp: one render per change and per
    page kind, period and rivalry asked, the same bytes for every phone that asks the same.  A wrong link is a
    404 before any stream (the members' link is a wrong link for the organiser's stream); a replaced one ends
    it; a period that cannot be read is the page's 400."""
    group = organiser_group(key) if organiser else member_group(key)
    period, error = _asked_period()
    if error is not None:
        abort(400)
    stamp = service.group_stamp(group)
    viewer = _kept_as(stamp, organiser, period)[:-1]  # what the fragment depends on besides the stamp

    def render() -> tuple[str, str] | None:
        found = service.group_for_organiser(key) if organiser else service.group_for_member(key)
        if found is None:
            return None
        now = live_push.group_stamp(service.group_stamp(found))  # before the view, as the page
        if organiser:
            page = url_for("groups.organiser", key=key, **_page_args(period))
            return now.event_id, render_template("groups/_changed.html", page=page)
        view = service.group_view(found, period)
        rivalry, _refused = _rivalry(found, period)
        html, _status = _render(found, view, period, organiser=False, rivalry=rivalry,
                                template="groups/_members_live.html")
        return now.event_id, html

    return live_push.stream(live_push.GROUP, group.id, key, live_push.group_stamp(stamp), viewer, render)


@bp.get("/y/<key>")
def own(key: str):  # type: ignore[no-untyped-def]
    """A member's own page (their own link, issue 35, item 7): the members' page, with "I got it" beside each
    payment to them alone.  Made for each request (a page of one member, seldom opened)."""
    group, me = own_link(key)
    period, error = _asked_period()
    kept = post_redirect_get.recall(group.version)
    view = service.group_view(group, period)
    rivalry, refused = _rivalry(group, period)
    status, message = _answer(error or refused, kept)
    return _render(group, view, period, organiser=False, status=status, message=message, rivalry=rivalry,
                   me=me, own_key=key)


@bp.get("/g/<key>/member-qr.svg")
def member_qr(key: str):  # type: ignore[no-untyped-def]
    """The QR code of one member's own link (``?member=``), for them to scan from the organiser's phone."""
    group = organiser_group(key)
    links = service.member_links(group)
    member = request.args.get("member", "")
    if member not in links:
        abort(404)
    url, _ = shared_url(url_for("groups.own", key=links[member]))
    return Response(qr.svg(url, title=f"QR code of {member}'s own link"), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


# --- the links: QR, export ---------------------------------------------------------------------


@bp.get("/g/<key>/members-qr.svg")
def members_qr(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    url, _ = members_url(group)
    return Response(qr.svg(url, title="QR code of the members' link"), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


@bp.get("/g/<key>/export.json")
def export(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    return Response(
        service.export_group(group), mimetype="application/json",
        headers={"Content-Disposition": attachment("group", group.name, "json"), "Cache-Control": "no-store"},
    )
