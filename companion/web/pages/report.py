"""The end-of-night report: who pays whom, and why; past nights and each player's history.

Routes (``<key>`` is a night's secret link):

* ``GET /k/<key>/report``, ``GET /p/<key>/report``: the report.  ``?view=pairwise``
  shows pair-by-pair debts instead of the fewest payments.  The scorekeeper's
  link also shows "Mark paid" on each payment; the players' link never does.
  ``?payer=&payee=&chips=`` (the first tap of "Mark paid") shows the confirming
  second form.  The chips are counted on the Bank page (its counts are checked against
  chips bought + the app's tally); the scorekeeper's report links there.
* ``GET …/report.csv`` and ``GET …/report.json``: the same report as files.
* ``POST /k/<key>/paid``: record that a payment was made (a "paid" event, with the
  table forms' version and request-key protection); 403 for the players' link.
* ``POST /k/<key>/carry``: "Start the next night with this pot", for a night whose
  setting carries an unfinished pot and whose pot is not empty: a new night with the
  same seats and settings whose first game starts with that pot; once per night
  (the same request key, or another phone, finds the night already started); 303 to
  its table.  403 for the players' link, 422 when there is no pot to carry.
* ``GET /nights``, ``GET /players/<name>``: the nights this browser has opened as
  scorekeeper (``session["nights"]``) and one player's results across them.
  Nothing else is listed, so no stranger's link can leak.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from markupsafe import Markup

from companion.service import bank as bank_service
from companion import service
from companion.report.charts import net_chart
from companion.report.night_chart import ChipSeries, line_points, player_chart
from companion.web.forms import CarryForm, PaidForm
from companion.money.amounts import chips_text, format_money, value_text
from companion.service import NightRow
from companion.games import IllegalAction
from companion.values.reading import Unreadable, whole_number
from companion.report.export import report_csv, report_dict
from companion.report.model import VIEWS, Report
from companion.report.parts import games_played_text
from companion.web.plumbing import kept_pages
from companion.web.plumbing import post_redirect_get
from companion.web.plumbing.downloads import Download, attachment, keep_download, kept_download
from companion.web.plumbing.stale import refusal_words
from companion.web.plumbing.links import NightLink, keeper_link, keeper_night, recorded_by, viewer_link, viewer_night
from companion.web.pages.night_pay import night_offers, pay_stamp
from companion.web.pages.standings import standings_of
from companion.web.plumbing.this_browser import held_links, known_nights, my_nights, remember

bp = Blueprint("report", __name__)

#: the night's report at its version, as the group reads it too (companion.service.night_report)
report_of = service.report_of

MAX_CHIPS = 10**9

def chip_series(night: NightRow) -> ChipSeries:
    """Each player's chips over ``night`` at its version, for the report's charts: extended from what this
    process kept at an earlier version when only play was appended since, else made from the whole fold.

    Made from the whole fold, the series is a pass over every live record of the night, a few
    milliseconds of each first report after an action on a 2,000-stage night (issue 22);
    :meth:`ChipSeries.extended` says when appending is provably the same, and falls back otherwise.
    """
    kept = service.derived("chip-series", night.id, night.version)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    play = service.play_for(night)
    games = [(p.number, p.state, p.close().net) for p in play.of_the_night()]  # a game taken back or left empty: none
    before = service.derived_before("chip-series", night.id, night.version)
    chips = before[1].extended(games) if before is not None else None
    if chips is None:
        chips = ChipSeries.of(games, play.seated)
    service.keep_derived("chip-series", night.id, night.version, chips)
    return chips


def _view() -> str:
    """The report's view the address asks (``view=``), "plan" for anything else."""
    view = request.args.get("view", "plan")
    return view if view in VIEWS else "plan"


# --- the report ------------------------------------------------------------------------------


def _report_page(
    link: NightRow | NightLink, keeper: bool, continued: int | None, group: tuple[int, int] | None, source: int | None
) -> tuple[Any, ...]:
    """What the kept report depends on besides (night, version): whose link, its links, the view, the next night,
    and the group it is kept in at its version (a handle set there changes the *Pay* offers: web/pages/night_pay.py);
    for the scorekeeper's, the links this browser holds to the night its pot went to and came from (each
    linked by it alone)."""
    others = held_links(continued, source) if keeper else ()
    return ("report", keeper, link.keeper_key, link.viewer_key, _view(), continued, group, others)


def plain_report(night: NightRow, keeper: bool) -> Any:
    """The report as every phone sees it at this version (no question in the address): kept per version."""
    pay = service.night_pay(night)  # the group's version read first: the page is never keyed newer than it shows
    if not set(request.args) <= {"view"}:
        return render_report(night, keeper, pay=pay)
    continued = service.continuation_of(night)
    what = _report_page(night, keeper, continued.id if continued else None, pay_stamp(pay), night.carried_from)
    return kept_pages.render_kept(
        what, night.id, night.version, lambda flashed: render_report(night, keeper, flashed=flashed, pay=pay)[0]
    )


def render_report(  # type: ignore[no-untyped-def]
    night: NightRow, keeper: bool, status: int = 200, message: str | None = None, view: str | None = None,
    flashed: Any = None, pay: service.NightPay | None | bool = False,
):
    """The report page; ``pay``: the night's group as :func:`service.night_pay` read it (False: read it now)."""
    report = report_of(night)
    view = view or _view()
    group_pay = service.night_pay(night) if isinstance(pay, bool) else pay
    # the group's tab cannot count the night's unit: nothing is offered there, as on the group's pages (issue 35)
    refusal = group_pay.refusal if group_pay is not None else ""
    confirm = None
    paid_form = None
    if keeper and request.args.get("payer") and refusal:
        message = message or f"That payment cannot be marked paid: {refusal}."
    elif keeper and request.args.get("payer"):
        try:
            chips = whole_number(request.args.get("chips", ""), "chips", low=1, high=MAX_CHIPS)
        except Unreadable:
            chips = 0
        confirm = report.find(view, request.args.get("payer", ""), request.args.get("payee", ""), chips)
        if confirm is None and message is None:
            message = "That payment is not in the plan, or it is already marked paid."
        if confirm is not None:
            paid_form = PaidForm(formdata=None)
            paid_form.version.data = night.version
            paid_form.request_key.data = service.new_key()
            paid_form.payer.data, paid_form.payee.data, paid_form.chips.data = confirm.payer, confirm.payee, confirm.chips
    key = night.keeper_key if keeper else night.viewer_key
    # a pot carried on to the next night, or ready to be; and a pot carried in
    continued = service.continuation_of(night)
    next_night = carry_form = None
    if continued is None and report.closing.carried:
        try:
            next_night = service.next_night_of(night)
        except IllegalAction:  # pragma: no cover - a carried pot is exactly what it needs
            next_night = None
        if keeper and next_night is not None:
            carry_form = CarryForm(formdata=None)
            carry_form.version.data = night.version
            carry_form.request_key.data = service.new_key()
    source = service.carried_from_of(night)
    # another night is linked by the link this browser holds to it, else named alone (docs/keepers.md)
    continued_link, source_link = held_links(continued.id if continued else None, source.id if source else None)
    chip_charts = service.derived("chip-charts", night.id, night.version)
    if chip_charts is None:
        chips = chip_series(night)
        series = {name: list(points) for name, points in chips.series.items()}
        play = service.play_for(night)
        if play.of_the_night()[-1] is not play.current:  # the game at the table has nothing in it: no game of
            tally = play.net()  # the night, and the last one that is was stopped: each line ends where it closed
            if any(points[-1] != tally.get(name, 0) for name, points in series.items()):
                for name, points in series.items():
                    points.append(tally.get(name, 0))
        added = bank_service.night_extra(night)
        ledger = ""
        if added is not None:  # each line ends at the player's result, not at the games' tally
            ledger = added[0].removeprefix("The ").capitalize()
            for name, points in series.items():
                points.append(points[-1] + added[1].get(name, 0))
        game_starts = list(chips.game_starts)
        # each line's points drawn at the version kept last: only what was added since is drawn anew (issue 22)
        before = service.derived_before("chip-lines", night.id, night.version)
        kept_lines = before[1] if before is not None else {}
        lines = {name: line_points(points, kept_lines.get(name)) for name, points in series.items()}
        service.keep_derived("chip-lines", night.id, night.version, {name: line[1] for name, line in lines.items()})
        chip_charts = {
            name: Markup(player_chart(name, points, game_starts, ledger=ledger, line=lines[name][0]))
            for name, points in series.items()
        }
        service.keep_derived("chip-charts", night.id, night.version, chip_charts)
    return (
        render_template(
            "report/show.html",
            chip_charts=chip_charts,
            night=night,
            played=service.games_of_the_night(night),  # a game taken back, or left with nothing in it: none
            st=standings_of(night),
            rep=report,
            view=view,
            keeper=keeper,
            # who recorded the night's records (issue 39): the scorekeeper's details only, each phone by its name
            recorders=service.recorders_of(night.id) if keeper else (),
            key=key,
            endpoint="report.keeper" if keeper else "report.viewer",
            confirm=confirm,
            paid_form=paid_form,
            message=message,
            continued=continued,
            continued_link=continued_link,
            next_night=next_night,
            carry_form=carry_form,
            source=source,
            source_link=source_link,
            pay_for=night_offers(night, report, view, group_pay),
            kept_in=group_pay.group_name if group_pay is not None else None,
            refusal=refusal,
            **({"flashed": flashed} if flashed is not None else {}),
        ),
        status,
    )


@bp.get("/k/<key>/report")
def keeper(key: str):  # type: ignore[no-untyped-def]
    link = keeper_link(key)  # one SELECT: enough when this process keeps the report at that version
    if link is not None and set(request.args) <= {"view"} and post_redirect_get.recall(link.version) is None:
        page = kept_pages.kept_page(_report_page(link, True, link.continued, link.group, link.source), link.id, link.version)
        if page is not None:
            return page
    night = keeper_night(key)
    kept = post_redirect_get.recall(night.version)
    if kept is not None:
        return render_report(night, True, kept.status, kept.message)
    return plain_report(night, keeper=True)


@bp.get("/p/<key>/report")
def viewer(key: str):  # type: ignore[no-untyped-def]
    link = viewer_link(key)  # one SELECT: enough when this process keeps the report at that version
    if link is not None and set(request.args) <= {"view"}:
        page = kept_pages.kept_page(_report_page(link, False, link.continued, link.group, link.source), link.id, link.version)
        if page is not None:
            return page
    night = viewer_night(key)
    # the players' page never offers the scorekeeper's forms, even when opened
    # with the scorekeeper's own link under /p/
    return plain_report(night, keeper=False)


def _csv(night: NightRow) -> Download:
    return Download(
        report_csv(report_of(night), _view()).encode(), "text/csv", attachment("night-report", night.name, "csv")
    )


def _json(night: NightRow) -> Download:
    return Download(
        _dumps(report_dict(report_of(night))).encode(), "application/json", attachment("night-report", night.name, "json")
    )


def _dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _download(key: str, keeper: bool, kind: str) -> Response:
    """The report as a file, made once per version (issue 22): one SELECT when this process keeps it."""
    view = _view() if kind == "csv" else "-"
    link = keeper_link(key) if keeper else viewer_link(key)
    if link is not None:
        kept = kept_download(f"{kind}/{view}/{link.continued}", link.id, link.version)
        if kept is not None:
            return kept
    night = keeper_night(key) if keeper else viewer_night(key)
    continued = service.continuation_of(night)  # the pot carried on changes the report without a new version
    what = f"{kind}/{view}/{continued.id if continued is not None else None}"
    return keep_download(what, night.id, night.version, lambda: (_csv if kind == "csv" else _json)(night))


@bp.get("/k/<key>/report.csv")
def keeper_csv(key: str):  # type: ignore[no-untyped-def]
    return _download(key, True, "csv")


@bp.get("/p/<key>/report.csv")
def viewer_csv(key: str):  # type: ignore[no-untyped-def]
    return _download(key, False, "csv")


@bp.get("/k/<key>/report.json")
def keeper_json(key: str):  # type: ignore[no-untyped-def]
    return _download(key, True, "json")


@bp.get("/p/<key>/report.json")
def viewer_json(key: str):  # type: ignore[no-untyped-def]
    return _download(key, False, "json")


def _refused(night: NightRow, status: int, message: str, view: str | None = None):  # type: ignore[no-untyped-def]
    """Redirect a refused submit to the report's address with its message (web/plumbing/post_redirect_get.py)."""
    location = url_for("report.keeper", key=night.keeper_key, **({"view": view} if view else {}))
    return post_redirect_get.refuse(location, status, message=message, version=night.version)


@bp.post("/k/<key>/paid")
def paid(key: str):  # type: ignore[no-untyped-def]
    """The confirming second tap of "Mark paid": record the payment once."""
    night = keeper_night(key)  # 403 for the players' link
    form = PaidForm()
    view = request.form.get("view", "plan")
    view = view if view in VIEWS else "plan"
    if not form.validate():
        errors = "; ".join(str(e) for es in form.errors.values() for e in es)
        return _refused(night, 422, f"That payment could not be recorded: {errors}.", view)
    report = report_of(night)
    payer, payee, chips = form.payer.data, form.payee.data, form.chips.data
    if form.version.data == night.version and report.find(view, payer, payee, chips) is None:
        # at the version the form was made for, the plan holds no such unpaid payment
        return _refused(night, 422, "That payment is not in the plan, or it is already marked paid.", view)
    try:
        result = service.mark_paid(
            night.id, payer, payee, chips, form.version.data, form.request_key.data, recorded_by=recorded_by()
        )
    except IllegalAction as error:
        return _refused(night, 422, str(error), view)
    except (service.StaleTable, service.KeyConflict) as error:
        now = service.night_again(night.id)
        return _refused(now, 409, refusal_words(error, now, form.version.data), view)
    money = value_text(chips, report.chip_value, report.currency)
    flash(("Already recorded: " if result.repeated else "Recorded: ") + f"{payer} paid {payee} {money} ({chips_text(chips)}).")
    return redirect(url_for("report.keeper", key=night.keeper_key, view=view), code=303)


@bp.post("/k/<key>/carry")
def carry(key: str):  # type: ignore[no-untyped-def]
    """ "Start the next night with this pot": a new night whose first game starts with it."""
    night = keeper_night(key)  # 403 for the players' link
    form = CarryForm()
    if not form.validate():
        errors = "; ".join(str(e) for es in form.errors.values() for e in es)
        return _refused(night, 422, f"The next night could not be started: {errors}.")
    try:
        new, started = service.carry_pot(night, form.version.data, form.request_key.data)
    except IllegalAction as error:
        return _refused(night, 422, f"The next night could not be started: {error}.")
    except (service.StaleTable, service.KeyConflict) as error:
        return _refused(service.night_again(night.id), 409, str(error))
    remember(new)
    pot = sum((new.first_game.carried_in or {}).values())
    flash(
        (f"Started \u201c{new.name}\u201d" if started else f"Already started: \u201c{new.name}\u201d")
        + f" with the pot of {chips_text(pot)} carried in from \u201c{night.name}\u201d."
    )
    return redirect(url_for("table.show", key=new.keeper_key), code=303)


# --- past nights and each player's history ----------------------------------------------------


def _known() -> tuple[list[tuple[NightRow, Report]], dict[int, str]]:
    """The nights this browser opened as scorekeeper, newest first, with their reports; and each night's link as
    this browser holds it (a keeper phone's own: the page links by it, never by the night's first link)."""
    mine = my_nights()
    return [(night, report_of(night)) for night, _ in mine], {night.id: key for night, key in mine}


def games_of(night: NightRow, report: Report) -> str:
    """The night's games as played, in words fit for every game (issue 23): their titles in order,
    and for a game that plays games to a target inside it (Napalm) how many finished."""
    return games_played_text([p.title for p in service.play_for(night).of_the_night()], report.games)


@bp.get("/nights")
def nights():  # type: ignore[no-untyped-def]
    known, links = _known()
    names: dict[str, str] = {}
    for night, _ in known:
        for name in night.players:
            names.setdefault(name.casefold(), name)
    listed = [(night, report, games_of(night, report)) for night, report in known]
    keepers = service.keepers_of_nights([night.id for night, _ in known])
    return render_template("report/nights.html", known=listed, links=links, keepers=keepers,
                           names=sorted(names.values(), key=str.casefold))


@bp.get("/players/<path:name>")
def player(name: str):  # type: ignore[no-untyped-def]
    """One player's nights: kept by the nights it is made of, their versions and the nights they carried on to (issue 22)."""
    what = ("player", name, known_nights())
    page = kept_pages.kept_across(what)
    if page is not None:
        return page
    return kept_pages.render_kept_across(what, lambda flashed: _player_page(name, flashed))


def _player_page(name: str, flashed: Any) -> str:
    folded = name.casefold()
    rows = []
    known, links = _known()
    for night, report in reversed(known):  # oldest first: the chart runs left to right in time
        mine = next((p for p in report.players if p.name.casefold() == folded), None)
        if mine is not None:
            rows.append((night, report, mine, games_of(night, report)))
    if not rows:
        abort(404)
    shown = rows[-1][2].name
    currencies = {r.currency for _, r, _, _ in rows}
    values = {r.chip_value for _, r, _, _ in rows}
    in_money = len(currencies) == 1 and len(values) >= 1 and any(values)
    unit = next(iter(currencies)) if in_money else "chips"
    points: list[tuple[str, Decimal | int]] = [
        (f"{n.created_at:%Y-%m-%d} {n.name}", p.money if in_money else p.net_chips) for n, _, p, _ in rows
    ]
    chart = Markup(net_chart(points, label=f"{shown}: net per night and running total, in {unit or 'money'}", unit=unit))
    totals: dict[str, Decimal] = {}
    for _, r, p, _ in rows:
        totals[r.currency] = totals.get(r.currency, Decimal(0)) + p.money
    return render_template(
        "report/player.html",
        name=shown,
        links=links,
        rows=list(reversed(rows)),  # newest first in the table
        chart=chart,
        unit=unit,
        in_money=in_money,
        money_totals=[format_money(v, c) for c, v in sorted(totals.items())],
        net_chips=sum(p.net_chips for _, _, p, _ in rows),
        games_won=sum(p.games_won for _, _, p, _ in rows),
        # games won only where a night's games play games to a target inside them (Napalm's): a Nap
        # or pot night has none to win (issue 23)
        counts_games=any(counts_games(r) for _, r, _, _ in rows),
        counted=counts_games,
        tokens=sum(p.total.tokens for _, _, p, _ in rows),
        # said in the nights' own words (issue 23): tokens only when a night's games count them,
        # chips between players as the nights call them when they all agree ("side bets", "bids")
        counts_tokens=any(r.words.tokens for _, r, _, _ in rows),
        between=between_words({r.words.between.phrase for _, r, _, _ in rows if r.words.between is not None}),
        side_won=sum(p.total.side_won for _, _, p, _ in rows),
        side_lost=sum(p.total.side_lost for _, _, p, _ in rows),
        flashed=flashed,
    )


def counts_games(report: Report) -> bool:
    """Whether a night's report counts games won: one of its games plays games to a target inside it."""
    return any(g.number and not g.extra for g in report.games)


def between_words(phrases: set[str]) -> str:
    """What a player's chips won from and lost to other players are called across nights: the
    nights' own words when they agree ("Side bets", "Bids"), else neutral ones."""
    return phrases.pop().capitalize() if len(phrases) == 1 else "Won/lost between players"
