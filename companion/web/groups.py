"""A group's pages: the organiser's (``/g/<key>``) and the members' (``/m/<key>``), and a night kept in a group.

The group has two secret links, as a night has: the organiser's, which keeps nights, edits the
members and their pay handles and marks the tab paid; and the members', which reads the season,
the chart, the rivalries and the tab, and says "I got it" for a payment to a member.  A wrong key
is a 404 on either (counted against the client, :func:`~companion.web.security.reject_unknown_link`),
and the members' link never opens an organiser's page: it is a wrong key there.

Routes:

* ``POST /groups``: make a group (the home page's form), ``POST /groups/import``: a group file;
* ``GET /g/<key>``: the organiser's page (``?period=`` all, ``2025``, ``2025-04`` or ``range`` with
  ``from``/``to``; ``?first=&second=`` a rivalry); its forms post to ``/g/<key>/…``;
  ``GET /g/<key>/new-night`` the night's setup prefilled from the group's last night, whose
  *Start the night* keeps the new night in the group; ``GET /g/<key>/export.json``;
  ``GET /g/<key>/members-qr.svg``;
* ``GET /m/<key>``: the members' page; ``POST /m/<key>/got-it``;
* ``GET|POST /k/<key>/group``: keep a night in a group (its scorekeeper link only).

Views stay thin: each form is read by its reader (web/forms.py), the service decides, and a rule
error is a form error with a 4xx and nothing changed; every POST answers 303 (web/post_redirect_get.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, url_for
from markupsafe import Markup
from sqlalchemy import select

from companion import service
from companion.db.brakes import brake
from companion.db.models import Group, GroupRecord, Night
from companion.extensions import db
from companion.games import GAMES
from companion.games.protocol import IllegalAction
from companion.games.web import SCREENS
from companion.group.chart import running_chart
from companion.group.file import GroupFileError
from companion.group.members import MemberError, UnknownMember
from companion.group.pay_links import Iban, PayHandle
from companion.group.season import ALL_TIME, Period
from companion.group.tab import Overpayment, TabPayment
from companion.money.amounts import format_money
from companion.night.file import Money
from companion.night.ledger import BANK_LINE, BANK_LINE_MEANS
from companion.values.reading import Unreadable, iso_date, whole_number
from companion.web import kept_pages, live_push, post_redirect_get, qr
from companion.web.addresses import shared_url
from companion.web.downloads import attachment
from companion.web.forms import (
    HANDLE_KINDS,
    KEY_PATTERN,
    GroupForm,
    GroupImportForm,
    HandleForm,
    KeepNightForm,
    MemberForm,
    MergeForm,
    NightBaseForm,
    NightMoveForm,
    OwnLinkForm,
    RemoveHandleForm,
    RenameForm,
    RotateForm,
    SettleForm,
    TabPaidForm,
    fresh,
    move_seat_up,
    night_form_class,
)
from companion.web.pay_offers import PayOffers, pay_offers
from companion.web.first_game import first_games, show_rules_of
from companion.web.links import KEY_CHARS, MAX_KEY_LENGTH, keeper_night
from companion.web.security import RotationMemory, client_id, reject_unknown_link, same_secret
from companion.web.this_browser import remember

bp = Blueprint("groups", __name__)

#: what the service refuses with (service.GROUP_REFUSALS), and a payment that cannot be (a payer paying
#: themselves: ValueError); each is a form error with its message, and nothing changed
REFUSED = (IllegalAction, MemberError, UnknownMember, Overpayment, Unreadable, GroupFileError, ValueError)
#: a group's organiser link as pasted: the whole address, or the key alone
ORGANISER_LINK = re.compile(r"(?:^|/g/)([A-Za-z0-9_-]{16,64})/?(?:[?#].*)?$")


# --- the links ----------------------------------------------------------------------------------


def _looks_like_key(key: str) -> bool:
    return bool(key) and len(key) <= MAX_KEY_LENGTH and KEY_CHARS.fullmatch(key) is not None


def organiser_group(key: str) -> Group:
    """The group whose organiser link is ``key``; 404 for anything else, the members' link included."""
    group = service.group_for_organiser(key) if _looks_like_key(key) else None
    if group is None:
        reject_unknown_link(current_app)
    assert group is not None
    return group


def member_group(key: str) -> Group:
    """The group whose members' link is ``key``; 404 for anything else."""
    group = service.group_for_member(key) if _looks_like_key(key) else None
    if group is None:
        reject_unknown_link(current_app)
    assert group is not None
    return group


def own_link(key: str) -> tuple[Group, str]:
    """The group and the member whose own link is ``key`` (their latest); 404 for anything else."""
    found = service.group_for_member_link(key) if _looks_like_key(key) else None
    if found is None:
        reject_unknown_link(current_app)
    assert found is not None
    return found


def members_url(group: Group) -> tuple[str, str | None]:
    """The members' link as other phones must open it, and a warning when they can't."""
    return shared_url(url_for("groups.members", key=group.member_key))


# --- the period ---------------------------------------------------------------------------------


def period_from(args: Mapping[str, str]) -> Period:
    """The period the page asks for: ``?period=`` all, a year (2025), a month (2025-04), or ``range``
    with ``from`` and ``to`` (YYYY-MM-DD, both included).  :class:`Unreadable` says what is wrong."""
    asked = args.get("period", "all") or "all"
    if asked == "all":
        return ALL_TIME
    # a year a calendar date can have (year 0 has none): anything else is the last line's refusal
    if re.fullmatch(r"[0-9]{4}", asked) and int(asked) >= 1:
        return Period.year(int(asked))
    month = re.fullmatch(r"([0-9]{4})-([0-9]{2})", asked)
    if month and int(month[1]) >= 1 and 1 <= int(month[2]) <= 12:
        return Period.month(int(month[1]), int(month[2]))
    if asked == "range":
        start, end = iso_date(args.get("from", ""), "the first day"), iso_date(args.get("to", ""), "the last day")
        if start > end:
            raise Unreadable(f"the period ends ({end}) before it starts ({start})")
        return Period.between(start, end)
    raise Unreadable("choose a period from the list, or a first and last day")


def period_args(period: Period) -> dict[str, str]:
    """The address's question for ``period``, as :func:`period_from` reads it."""
    if period == ALL_TIME:
        return {}
    if period.start and period.end and period == Period.year(period.start.year):
        return {"period": str(period.start.year)}
    if period.start and period.end and period == Period.month(period.start.year, period.start.month):
        return {"period": f"{period.start:%Y-%m}"}
    return {"period": "range", "from": str(period.start), "to": str(period.end)}


def period_choices(periods: Iterable[Period]) -> list[tuple[str, str]]:
    """(value, label) of the periods the filter offers: all time, then each year and each month with nights."""
    return [("all", "All time"), *((period_args(p)["period"], p.label) for p in periods)]


# --- what the pages show ------------------------------------------------------------------------


def unit_text(unit: str | None) -> str:
    return unit if unit is not None else "chips"


def amount_text(amount: Decimal | int, unit: str | None) -> str:
    """An amount of the tab or the season as the pages say it: "12.50 EUR", "7 chips"."""
    if unit is None:
        return f"{amount} chip{'s' if abs(amount) != 1 else ''}"
    return format_money(Decimal(amount), unit)


def signed_text(amount: Decimal | int, unit: str | None) -> str:
    """The same with its sign: "+12.50 EUR", "−7 chips", "0 chips" (a true minus sign)."""
    shown = amount_text(abs(amount), unit)
    return ("+" if amount > 0 else "\u2212" if amount < 0 else "") + shown


def plain_amount(amount: Decimal) -> str:
    """An amount as a form's field holds it: "12.50", "0.125", "7"."""
    return f"{amount:f}"


def charts_of(view: Any) -> list[tuple[str, Markup]]:
    """(unit's words, SVG) of the season's running totals, one chart per unit: currencies, then chips."""
    units = {n.unit for n in view.season.nights}
    ordered = sorted(u for u in units if u is not None) + ([None] if None in units else [])
    out = []
    for unit in ordered:
        svg = running_chart(view.season, unit)
        if svg:
            out.append((unit_text(unit), Markup(svg)))
    return out


def _night_rows(view: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The group's nights that count, newest first, and those still in play, each with its players'
    link (never its scorekeeper link: the members' page must not hand it out)."""
    ids = [k.night_id for k in view.nights] + [n.night_id for n in view.in_play]
    keys = {i: k for i, k in db.session.execute(select(Night.id, Night.viewer_key).where(Night.id.in_(ids)))} if ids else {}
    counted = [{"result": k.result, "id": k.night_id, "viewer_key": keys[k.night_id],
                "chip": amount_text(k.result.chip_value, k.result.currency) if k.result.currency is not None else None}
               for k in reversed(view.nights)]
    in_play = [{"name": n.name, "date": n.date, "reason": n.reason, "viewer_key": keys[n.night_id], "id": n.night_id,
                "broken": n.broken} for n in view.in_play]
    return counted, in_play


def handle_words(kind: str, handle: PayHandle) -> str:
    """A member's pay handle as the members' list says it: "PayPal.Me AnnLee", "IBAN DE89 … (Ann Lee)"."""
    if isinstance(handle, Iban):
        return f"IBAN {handle.grouped} ({handle.holder}{', BIC ' + handle.bic if handle.bic else ''})"
    return f"{dict(HANDLE_KINDS).get(kind, kind)} {handle.username}"


def offers_maker(group: Group, view: Any) -> Callable[[TabPayment], PayOffers | None]:
    """The *Pay* offers beside a payment of the tab: the payee's handles, this group's pages only."""

    def offers(payment: TabPayment) -> PayOffers | None:
        handles = view.handles.get(payment.payee)
        if not handles:
            return None
        # a chips-only night's payment: no offer, and the organiser is told why
        return pay_offers(handles, payment.amount, payment.unit or "", reference(group))

    return offers


def reference(group: Group) -> str:
    """What a payment through the tab says it is for, where the service has room: the group's name."""
    return f"{group.name}: the tab"[:80]


#: the nights, and each night's open balances in the tab, shown at first: the newest; ``?nights=all`` shows every one
#: (a group of two hundred nights would otherwise send some 80 KB of lists to a phone at the table)
LISTED = 12


def _all_listed() -> bool:
    return request.args.get("nights") == "all"


def _rivalry(group: Group, period: Period) -> tuple[Any, str | None]:
    """The rivalry the address asks for (``?first=&second=``), or None; and why it cannot be shown, if it cannot."""
    first, second = request.args.get("first", ""), request.args.get("second", "")
    if not (first and second):
        return None, None
    try:
        return service.rivalry_view(group, first, second, period), None
    except REFUSED as error:
        return None, f"That rivalry cannot be shown: {error}"


def _render(group: Group, view: Any, period: Period, *, organiser: bool, status: int = 200,
            message: str | None = None, forms: Mapping[str, Any] | None = None, rivalry: Any = None,
            me: str | None = None, own_key: str | None = None, live_id: str | None = None,
            template: str | None = None, **shown: Any) -> tuple[str, int]:
    """The organiser's or the members' page of ``group`` over ``period`` (``shown``: ``flashed``, when kept);
    with ``me``, the members' page as ``me``'s own link ``own_key`` shows it ("I got it" for payments to them).

    ``live_id``: the event id of the group's stamp the page was made at (read before its view), which its
    stream starts from (web/live_push.py); a member's own page has no stream.  ``template``: another template
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
        pay_form=lambda payment: _pay_form(TabPaidForm, view.version, payment),
        settle_form=lambda unit: _settle_form(view.version, unit),
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


def bank_says(view: service.GroupView) -> tuple[str, str] | None:
    """(the bank's line's title, what it is in one sentence) when the season shows that line (a member's
    game by game), as the night's report says it under its own line; None when it shows none."""
    title = BANK_LINE[0]
    return (title, BANK_LINE_MEANS) if any(title in row.per_game for row in view.season.rows) else None

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


def _pay_form(cls: type[TabPaidForm], version: int, payment: TabPayment) -> TabPaidForm:
    form = fresh(cls(formdata=None), version)
    form.payer.data, form.payee.data = payment.payer, payment.payee
    form.unit.data = payment.unit or ""
    form.amount.data = plain_amount(payment.amount)
    return form


def _settle_form(version: int, unit: str | None) -> SettleForm:
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


# --- the organiser's page -----------------------------------------------------------------------


def read_stamp(key: str, organiser: bool) -> tuple[Any, ...] | None:
    """The stamp of the group whose organiser's (or members') link is ``key``, read in one statement, as
    :func:`companion.service.group_stamp` gives it; None: no such group (the group's path decides the 404)."""
    if not _looks_like_key(key):
        return None
    stamp = service.group_stamp_by_link(key, organiser)
    if stamp is None or not same_secret(key, stamp[3] if organiser else stamp[4]):
        return None
    return stamp


def _kept_as(stamp: tuple[Any, ...], organiser: bool, period: Period) -> tuple[Any, ...]:
    """All a group's page depends on besides what each request makes anew (its CSRF token, its forms' request
    keys, its flashed messages: web/kept_pages.py): which page, the period, the rivalry asked for, the lists
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
    """A group page's stream (web/live_push.py), its event id the group's stamp: one render per change and per
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


def _back(group: Group, organiser: bool = True) -> str:
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


def _refuse(group: Group, form: Any, name: str, status: int, message: str, organiser: bool = True,
            back: str | None = None) -> Response:
    return post_redirect_get.refuse(
        back or _back(group, organiser), status, message=message, form_name=name, form=form, version=group.version,
        anchor=SECTION_OF.get(name),
    )


def _errors(form: Any) -> str:
    return "; ".join(str(e) for es in form.errors.values() for e in es) or "; ".join(form.form_errors)


def _command(group: Group, form: Any, name: str, what: str, call: Callable[[], Any], done: str | Callable[[], str],
             organiser: bool = True, back: str | None = None) -> Response:
    """Validate ``form``, run the service's ``call``, and answer: 303 to the page, or the refusal.

    ``done`` says what was recorded; a callable is asked only once the form is read (an amount is parsed
    as the form validates: said before, it would read zero)."""
    if not form.validate():
        return _refuse(group, form, name, 422, f"{what}: {_errors(form)}.", organiser, back)
    try:
        result = call()
    except REFUSED as error:
        return _refuse(group, form, name, 422, f"{what}: {error}.", organiser, back)
    except (service.StaleTable, service.KeyConflict) as error:
        db.session.rollback()
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
        return _refuse(group, form, "settle", 422, f"The plan could not be settled: {_errors(form)}.")
    if form.version.data != group.version:
        if _recorded(group, form.request_key.data):  # the same tap again (a double tap, a resend): done once
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


def _recorded(group: Group, request_key: str) -> bool:
    """Whether a submit with ``request_key`` is already recorded in ``group``."""
    found = db.session.scalar(
        select(GroupRecord.id).where(GroupRecord.group_id == group.id, GroupRecord.request_key == request_key).limit(1)
    )
    return found is not None


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


def _organiser_page(group: Group) -> str:
    return url_for("groups.organiser", key=group.organiser_key)


def _asked_version(group: Group) -> int:
    """The version of the page the first tap was made on (``version=`` of the address), read as a form's is."""
    try:
        return whole_number(request.args.get("version", ""), "the page's version", low=0)
    except Unreadable:
        return group.version


def _confirm_payment(group: Group, me: str | None, own_key: str = ""):  # type: ignore[no-untyped-def]
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
    form = _pay_form(TabPaidForm, _asked_version(group), payment)
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
    form = _settle_form(_asked_version(group), unit)
    return _confirm(
        _organiser_page(group), heading=heading, action=url_for("groups.tab_settle", key=group.organiser_key), form=form,
        fields={"unit": unit or ""}, question=f"all {len(plan)} payments in {unit_text(unit)} were made?",
        details=[f"{p.payer} paid {p.payee} {amount_text(p.amount, unit)}" for p in plan],
        yes=f"Yes, mark all {len(plan)} paid",
    )


def _asked_night(group: Group) -> Any:
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


def _confirm_move(group: Group, out: bool):  # type: ignore[no-untyped-def]
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


def _move(group: Group, out: bool) -> Response:
    form = NightMoveForm()
    call = service.leave_out_night if out else service.put_back_night

    def move() -> Any:
        night_id = whole_number(form.night.data or "", "the night", low=1, high=MAX_NIGHT_ID)
        return call(group.id, night_id, expected_version=form.version.data, request_key=form.request_key.data)

    return _command(
        group, form, "move", "The night could not be " + ("taken out" if out else "put back"), move,
        "the night is taken out of the group." if out else "the night counts in the group again.",
    )


# --- the links: QR, rotate, export ----------------------------------------------------------------


@bp.get("/g/<key>/members-qr.svg")
def members_qr(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    url, _ = members_url(group)
    return Response(qr.svg(url, title="QR code of the members' link"), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-store"})


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


@bp.get("/g/<key>/export.json")
def export(key: str):  # type: ignore[no-untyped-def]
    group = organiser_group(key)
    return Response(
        service.export_group(group), mimetype="application/json",
        headers={"Content-Disposition": attachment("group", group.name, "json"), "Cache-Control": "no-store"},
    )


# --- a new night, from the group's page -------------------------------------------------------------


def _new_night_form(group: Group, formdata: Any = None) -> NightBaseForm:
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


def _render_new_night(group: Group, form: NightBaseForm, status: int = 200):  # type: ignore[no-untyped-def]
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


def _pasted_group(link: str) -> Group | None:
    """The group whose organiser link is pasted in ``link`` (the address or the key), counting wrong ones."""
    found = ORGANISER_LINK.search(link.strip())
    limit = current_app.extensions["companion_link_limit"]
    brake(limit, client_id(), "wrong links")
    group = service.group_for_organiser(found[1]) if found else None
    if group is None:
        service.count_against(limit, client_id())
    return group


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
        group = _pasted_group(form.link.data or "") if form.name_1.data else None
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
        return refused(422, f"The night could not be kept: {_errors(form)}.")
    request_key = form.request_key.data or service.new_key()
    if (form.link.data or "").strip():
        group = _pasted_group(form.link.data or "")
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
            db.session.rollback()
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
            db.session.rollback()
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
