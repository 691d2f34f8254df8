"""The night's bank, Bonus Round and dealer's choice (issue 13): pages beside the table.

Routes (``<key>``: the scorekeeper's link; the players' link gets 403):

* ``GET /k/<key>/bank``: the chip bank: the night's setting (settle on the app's tally or on
  chip counts), everyone buys in (one tap after the amount), each player's buy-in, rebuy and
  cash-out (counted chips), the bank's log with a Cancel on each line, and the check: whether
  the night can settle on the counts, and if not the difference and whose count to check;
  when it balances, the settle-up on the counts.
* ``POST /k/<key>/bank/setting``, ``/bank/everyone``, ``/bank/player``, ``/bank/cancel``.
* ``GET /k/<key>/bonus``: the Bonus Round: the last roll, big; roll (the app rolls with
  ``secrets``); the lucky numbers; ``GET|POST /k/<key>/bonus/grid`` fills the grid;
  ``POST /k/<key>/bonus/roll``, ``/bonus/lucky``.
* ``GET /k/<key>/choice``: dealer's choice: the games to start next, the last played first;
  each opens the next-game screen with that game (one more tap starts it).

Every submit carries the night's version and a request key (a doubled or stale submit
records nothing twice) and answers 303 (Post/Redirect/Get); a refusal redirects to the
page, which answers 422 or 409 with the reason.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from wtforms import HiddenField, SelectField, StringField
from wtforms.validators import Length

from companion.service import bank as bank_service
from companion import service as services
from companion.extensions import db
from companion.web.forms import ActionForm
from companion.games import GAMES, IllegalAction, title_of
from companion.night.bonus import DICE, MAX_GAME_NAME, BonusGrid, cell_label
from companion.night.choice import as_offered, next_game_offers
from companion.games.web import SCREENS, offers_of
from companion.night.bank import MAX_CHIPS, BuyIn, Cancel, EveryoneBuysIn
from companion.money.amounts import chips_text, value_text
from companion.db.models import Night
from companion.reading import Unreadable, whole_number
from companion.web import kept_pages
from companion.web import post_redirect_get
from companion.web import tap_guard
from companion.web.links import NightLink, keeper_link, keeper_night
from companion.web.this_browser import device_label

bp = Blueprint("bank", __name__, url_prefix="/k/<key>")

DEFAULT_BUY_IN = 100
#: at most this many games in the grid form's quick fill (a grid has 36 cells)
MAX_QUICK = 36


class SettingForm(ActionForm):
    on = HiddenField()


class EveryoneForm(ActionForm):
    chips = StringField("Chips each")


class PlayerForm(ActionForm):
    player = HiddenField()
    chips = StringField("Chips")
    action = HiddenField()


class CancelForm(ActionForm):
    seq = HiddenField()


class RollForm(ActionForm):
    roller = SelectField("Who rolls (the dealer)", choices=[])


class LuckyForm(ActionForm):
    player = SelectField("Whose lucky number", choices=[])


def _fresh(form: Any, night: Night) -> Any:
    form.version.data = night.version
    form.request_key.data = services.new_key()
    return form


def chips_from(text: str | None, what: str, low: int = 1) -> int:
    """A number of chips as typed; IllegalAction with a sentence the scorekeeper can act on."""
    try:
        return whole_number(text or "", what, low=low, high=MAX_CHIPS, unit="chips")  # companion.reading: one reader
    except Unreadable as error:
        raise IllegalAction(str(error)) from None


# --- the one path every submit takes --------------------------------------------------------------


def _refuse(night: Night, page: str, status: int, message: str, form_name: str | None = None, form: Any = None):  # type: ignore[no-untyped-def]
    location = url_for(page, key=night.keeper_key)
    return post_redirect_get.refuse(location, status, message=message, form_name=form_name, form=form, version=night.version)


def _submit(night: Night, form: Any, page: str, act, form_name: str | None = None):  # type: ignore[no-untyped-def]
    """Validate the form's stamp, run ``act`` (it records through services), answer 303 to ``page``."""
    if not form.validate():
        errors = "; ".join(str(e) for es in form.errors.values() for e in es)
        return _refuse(night, page, 400, f"That could not be understood: {errors}. Nothing was recorded.")
    if tap_guard.too_soon(night, form.version.data):
        return _refuse(night, page, 409, tap_guard.TOO_SOON)
    try:
        result = act(form)
    except IllegalAction as error:
        return _refuse(night, page, 422, f"Not recorded: {error}", form_name, form)
    except (services.StaleTable, services.KeyConflict) as refusal:
        db.session.expire_all()
        return _refuse(db.session.get(Night, night.id) or night, page, 409, str(refusal))
    flash(("Already recorded: " if result.repeated else "") + result.summary)
    return redirect(url_for(page, key=night.keeper_key), code=303)


def _record(night: Night, kind: str, payload: dict[str, Any], form: Any) -> Any:
    return bank_service.record(
        night.id, kind, payload, form.version.data, form.request_key.data, recorded_by=device_label()
    )


def _recall(night: Night) -> tuple[int, str | None, Any]:
    kept = post_redirect_get.recall(night.version)
    if kept is None:
        return 200, None, None
    return kept.status, kept.message, kept


# --- the bank ------------------------------------------------------------------------------------


def _bank_key(link: Night | NightLink, continued: int | None) -> tuple[Any, ...]:
    """What the kept bank page depends on besides (night, version): its links, and the night its pot went to."""
    return ("bank", link.keeper_key, link.viewer_key, continued)


@bp.get("/bank")
def bank(key: str):  # type: ignore[no-untyped-def]
    """The bank page: kept per version as the table screen is (issue 22), unless a refused form is shown again."""
    link = keeper_link(key)  # one SELECT: enough when this process keeps the page at that version
    if link is not None and post_redirect_get.recall(link.version) is None:
        page = kept_pages.kept_page(_bank_key(link, link.continued), link.id, link.version)
        if page is not None:
            return page
    night = keeper_night(key)
    status, message, kept = _recall(night)
    if kept is None:
        continued = services.continuation_of(night)
        return kept_pages.render_kept(
            _bank_key(night, continued.id if continued is not None else None), night.id, night.version,
            lambda flashed: _bank_page(night, status, message, kept, flashed)[0],
        )
    return _bank_page(night, status, message, kept)


def _bank_page(night: Night, status: int, message: str | None, kept: Any, flashed: Any = None):  # type: ignore[no-untyped-def]
    state = bank_service.bank_state(night)
    ledger, check, tally, results, plan = state.ledger, state.check, state.tally, state.results, state.plan
    b = ledger.bank
    chip_value, currency = services.money_of(night).chip_value, night.currency or ""
    amounts = [e.action.chips for e in b.live_events() if isinstance(e.action, (EveryoneBuysIn, BuyIn))]
    everyone = _fresh(EveryoneForm(formdata=None), night)
    everyone.chips.data = str(amounts[-1] if amounts else DEFAULT_BUY_IN)
    typed: dict[str, str] = {}
    if kept is not None and kept.form and kept.form.startswith("player:"):
        typed[kept.form.split(":", 1)[1]] = dict(kept.data).get("chips", "")
    if kept is not None and kept.form == "everyone":
        everyone.chips.data = dict(kept.data).get("chips", everyone.chips.data)
    rows = []
    for name in night.players:
        form = _fresh(PlayerForm(formdata=None), night)
        form.player.data = name
        form.chips.data = typed.get(name, "")
        rows.append(
            {
                "name": name,
                "bought": b.bought.get(name),
                "cashed": b.cashed_out.get(name),
                "expected": check.expected(name, tally) if tally is not None and name in b.bought else None,
                "difference": check.tally_differences.get(name),
                "result": results.get(name) if results is not None else None,
                "form": form,
            }
        )
    log = []
    for event in reversed(b.log):
        form = None
        if not isinstance(event.action, Cancel) and event.seq not in b.cancelled:
            form = _fresh(CancelForm(formdata=None), night)
            form.seq.data = str(event.seq)
        log.append({"event": event, "cancelled_by": b.cancelled.get(event.seq), "form": form})
    marked = bank_service.marked_paid(night)
    setting = _fresh(SettingForm(formdata=None), night)
    setting.on.data = bank_service.TALLY if ledger.settle_on == bank_service.BANK else bank_service.BANK
    return (
        render_template(
            "bank/bank.html",
            night=night,
            message=message,
            ledger=ledger,
            settle_on=ledger.settle_on,
            SETTLE_ON=bank_service.SETTLE_ON,
            setting=setting,
            # the switch only where it can do something: never once a payment is marked, never to
            # the tally with a betting game in the night (issue 20, items 1 and 13)
            switch=ledger.chip_by_chip and not marked,
            marked=marked,
            everyone=everyone,
            rows=rows,
            log=log,
            check=check,
            block=state.block,
            chip_by_chip=tally is not None,
            plan=plan,
            in_play=b.in_play,
            money=lambda chips: value_text(chips, chip_value, currency),
            **({"flashed": flashed} if flashed is not None else {}),
        ),
        status,
    )


@bp.post("/bank/setting")
def bank_setting(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = SettingForm()
    return _submit(night, form, "bank.bank", lambda f: _record(night, bank_service.MODE_KIND, {"on": f.on.data}, f))


@bp.post("/bank/everyone")
def bank_everyone(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = EveryoneForm()

    def act(f: EveryoneForm) -> Any:
        chips = chips_from(f.chips.data, "the buy-in")
        return _record(night, "all_buy_in", {"chips": chips}, f)

    return _submit(night, form, "bank.bank", act, "everyone")


@bp.post("/bank/player")
def bank_player(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = PlayerForm()
    kind = request.form.get("action", "")
    if kind not in ("buy_in", "rebuy", "cash_out"):
        return _refuse(night, "bank.bank", 400, "Choose buy in, rebuy or cash out. Nothing was recorded.")
    player = request.form.get("player", "")
    if player not in night.players:
        return _refuse(night, "bank.bank", 422, f"Not recorded: \u201c{player[:40]}\u201d is not seated tonight.")

    def act(f: PlayerForm) -> Any:
        what = {"buy_in": "the buy-in", "rebuy": "the rebuy", "cash_out": f"{player}'s count"}[kind]
        chips = chips_from(f.chips.data, what, low=0 if kind == "cash_out" else 1)
        return _record(night, kind, {"player": player, "chips": chips}, f)

    return _submit(night, form, "bank.bank", act, f"player:{player}")


@bp.post("/bank/cancel")
def bank_cancel(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = CancelForm()

    def act(f: CancelForm) -> Any:
        try:
            seq = whole_number(f.seq.data or "", "a line", low=0)
        except Unreadable:
            raise IllegalAction("choose a line of the bank's log to cancel") from None
        return _record(night, "bank_cancel", {"seq": seq}, f)

    return _submit(night, form, "bank.bank", act)


@bp.app_template_filter("chips")
def chips_filter(chips: int, signed: bool = False) -> str:
    """``{{ n|chips }}``: "1 chip", "4 chips" (issue 20, item 14); ``{{ n|chips(signed=True) }}``: "+4 chips",
    "−1 chip", "0 chips", signed as the report's figures are (a true minus sign)."""
    if not signed:
        return chips_text(chips)
    return ("+" if chips > 0 else "\u2212" if chips < 0 else "") + chips_text(abs(chips))


@bp.app_template_global()
def bank_report(night: Night) -> dict[str, Any]:
    """What the report shows of the bank (templates/bank/_report.html, and the payments' section of
    templates/report/show.html): how the night settles, in the words of the table and the Bank page;
    why it cannot settle yet and what to do about it; the results on the counts; the Bonus Round's
    payments."""
    state = bank_service.bank_state(night)
    ledger = state.ledger
    bonus = dict(ledger.bonus_net) if ledger.rolls else None
    on_counts = ledger.settle_on == bank_service.BANK
    return {
        "shown": ledger.uses_bank or bonus is not None,
        "settle_on": ledger.settle_on,
        "settles": ledger.settles_text,
        "block": state.block,
        "no_payments": bank_service.NO_PAYMENTS_YET,
        "todo": _todo(state) if state.block else "",
        "results": state.results if on_counts else None,
        "bought": ledger.bank.bought,
        "cashed_out": ledger.bank.cashed_out,
        "bonus": bonus,
        "rolls": len(ledger.rolls),
    }


def _todo(state: bank_service.BankState) -> str:
    """What to do on the Bank page so that a night on the counts can settle (its check says why not)."""
    check = state.check
    if not state.ledger.bank.bought:
        return "Record the buy-ins on the Bank page, then count each player's chips there (Cash out)."
    if check.still_in:
        return "Count their chips and record each count on the Bank page (Cash out); the payments then appear here."
    return ("Recount on the Bank page: cancel the wrong cash-out in the bank's log, then record the right count; "
            "the payments then appear here.")


# --- the Bonus Round ----------------------------------------------------------------------------


def _next_dealer(night: Night) -> str:
    current = services.play_for(night).current
    return current.game.next_dealer(current.state)


def _who_rolls(night: Night, ledger: bank_service.NightLedger) -> str:
    """Who rolls next: the dealer the game at the table passes the deal to, unless that dealer made the
    last roll already (then the next player on the left, as the deal will go: issue 20, item 13),
    skipping players cashed out of the bank."""
    players = list(night.players)
    dealer = _next_dealer(night)
    start = players.index(dealer) if dealer in players else 0
    last = ledger.last_roll
    if last is not None and last[1].action.roller == dealer:
        start += 1
    out = bank_service.cashed_out(ledger)
    for step in range(len(players)):
        name = players[(start + step) % len(players)]
        if name not in out:
            return name
    return dealer


@bp.get("/bonus")
def bonus(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    status, message, _ = _recall(night)
    ledger = bank_service.ledger_of(night)
    roll_form = _fresh(RollForm(formdata=None), night)
    roll_form.roller.choices = [(n, n) for n in night.players]
    roll_form.roller.data = _who_rolls(night, ledger)
    lucky_form = _fresh(LuckyForm(formdata=None), night)
    lucky_form.player.choices = [(n, n) for n in night.players]
    last = ledger.last_roll
    return (
        render_template(
            "bank/bonus.html",
            night=night,
            message=message,
            ledger=ledger,
            last=last,
            just_rolled=last is not None and last[0] == night.version,
            roll_form=roll_form,
            lucky_form=lucky_form,
            label=lambda faces: cell_label(ledger.grid.dice if ledger.grid else "2d6", faces),
            net=ledger.bonus_net,
            left_out=bank_service.cashed_out(ledger),
        ),
        status,
    )


@bp.post("/bonus/roll")
def bonus_roll(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = RollForm()
    form.roller.choices = [(n, n) for n in night.players]

    def act(f: RollForm) -> Any:
        return bank_service.roll(night, f.roller.data, f.version.data, f.request_key.data, device_label())

    return _submit(night, form, "bank.bonus", act)


@bp.post("/bonus/lucky")
def bonus_lucky(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = LuckyForm()
    form.player.choices = [(n, n) for n in night.players]

    def act(f: LuckyForm) -> Any:
        return bank_service.roll_lucky(night, f.player.data, f.version.data, f.request_key.data, device_label())

    return _submit(night, form, "bank.bonus", act)


class GridForm(ActionForm):
    dice = HiddenField()
    lucky_chips = StringField("A lucky number pays", validators=[Length(max=12)])
    bonus_cells = StringField("Bonus cells: everyone pays the dealer", validators=[Length(max=200)])
    bonus_chips = StringField("chips each", validators=[Length(max=12)])
    anti_cells = StringField("Anti-bonus cells: the dealer pays everyone", validators=[Length(max=200)])
    anti_chips = StringField("chips each", validators=[Length(max=12)])


def _cells(dice: str) -> list[str]:
    if dice == "2d6":
        return [f"{r}-{c}" for r in range(1, 7) for c in range(1, 7)]
    return [str(i) for i in range(1, 21)]


def _grid_payload(form: GridForm, values: Any) -> dict[str, Any]:
    dice = form.dice.data
    if dice not in DICE:
        raise IllegalAction("choose two dice (6×6) or a 20-sided die")
    quick = [line.strip() for line in (values.get("quick") or "").splitlines() if line.strip()][:MAX_QUICK]
    for line in quick:
        if len(line) > MAX_GAME_NAME:
            raise IllegalAction(f"quick fill: \u201c{line[:20]}…\u201d is longer than {MAX_GAME_NAME} characters")
    names = []
    blank = 0
    for label in _cells(dice):
        name = (values.get(f"cell_{label}") or "").strip()
        if not name and quick:  # the empty cells take the quick list's games in order, repeating it
            name, blank = quick[blank % len(quick)], blank + 1
        if not name:
            raise IllegalAction(f"cell {label} needs a game's name (or list the games under quick fill)")
        if len(name) > MAX_GAME_NAME:
            raise IllegalAction(f"cell {label}: a game's name is at most {MAX_GAME_NAME} characters")
        names.append(name)
    cells: list[Any] = [names[r * 6 : r * 6 + 6] for r in range(6)] if dice == "2d6" else names
    bonuses: dict[str, dict[str, Any]] = {}
    for kind, cells_text, chips_text, what in (
        ("everyone_pays_dealer", form.bonus_cells.data, form.bonus_chips.data, "a bonus"),
        ("dealer_pays_everyone", form.anti_cells.data, form.anti_chips.data, "an anti-bonus"),
    ):
        labels = [part for part in re.split(r"[\s,;]+", cells_text or "") if part]
        if not labels:
            continue
        chips = chips_from(chips_text, f"{what}'s chips")
        for label in labels:
            if label not in _cells(dice):
                raise IllegalAction(f"\u201c{label[:10]}\u201d is not a cell of this grid (write it like {_cells(dice)[8]})")
            if label in bonuses:
                raise IllegalAction(f"cell {label} is marked twice")
            bonuses[label] = {"kind": kind, "chips": chips}
    lucky = chips_from(form.lucky_chips.data or "1", "a lucky number's chips")
    grid = BonusGrid.from_dict({"dice": dice, "cells": cells, "bonuses": bonuses})  # checks it all
    return {"grid": grid.to_dict(), "lucky_chips": lucky}


@bp.route("/bonus/grid", methods=["GET", "POST"])
def bonus_grid(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    if request.method == "POST":
        form = GridForm()

        def act(f: GridForm) -> Any:
            return _record(night, "bonus_grid", _grid_payload(f, request.form), f)

        if form.validate() and form.dice.data in DICE:
            try:
                _grid_payload(form, request.form)
            except IllegalAction as error:
                location = url_for("bank.bonus_grid", key=night.keeper_key, dice=form.dice.data)
                return post_redirect_get.refuse(location, 422, message=f"Not saved: {error}",
                                      form_name="grid", form=form, version=night.version)
        result = _submit(night, form, "bank.bonus", act, "grid")
        return result
    status, message, kept = _recall(night)
    ledger = bank_service.ledger_of(night)
    grid = ledger.grid
    quick = ""
    dice = request.args.get("dice") or (grid.dice if grid else "2d6")
    if dice not in DICE:
        abort(400, "choose two dice (2d6) or a 20-sided die (d20)")
    form = _fresh(GridForm(formdata=None), night)
    form.dice.data = dice
    values: dict[str, str] = {}
    if grid is not None and grid.dice == dice:
        values = {f"cell_{label}": name for label, name in zip(_cells(dice), grid.cells)}
        marked = grid.to_dict()["bonuses"]
        for kind, field, chips in (("everyone_pays_dealer", form.bonus_cells, form.bonus_chips),
                                   ("dealer_pays_everyone", form.anti_cells, form.anti_chips)):
            labels = [label for label, b in marked.items() if b["kind"] == kind]
            field.data = " ".join(labels)
            chips.data = str(marked[labels[0]]["chips"]) if labels else ""
        form.lucky_chips.data = str(ledger.lucky_chips)
    else:
        form.lucky_chips.data = "1"
    if kept is not None and kept.form == "grid":
        data = dict(kept.data)
        values = {k: v for k, v in data.items() if k.startswith("cell_")}
        for name in ("lucky_chips", "bonus_cells", "bonus_chips", "anti_cells", "anti_chips"):
            getattr(form, name).data = data.get(name, "")
        quick = data.get("quick", "")
    rows = [_cells(dice)[r * 6 : r * 6 + 6] for r in range(6)] if dice == "2d6" else [_cells(dice)]
    return (
        render_template("bank/grid.html", night=night, message=message, form=form, dice=dice, rows=rows,
                        values=values, max_name=MAX_GAME_NAME, quick=quick),
        status,
    )


# --- dealer's choice ------------------------------------------------------------------------------


def _named_games() -> dict[tuple[str, str], str | None]:
    """Every game the app can start, by the name the group plays it under, in the group's own
    order: ``(kind, name)`` to the game's offer key (a game's screens may list ``offers()``, e.g.
    a pot game's presets), or None for a game offered once by its title."""
    named: dict[tuple[str, str], str | None] = {}
    for kind in GAMES:
        if kind not in SCREENS:
            continue
        listed = offers_of(kind)
        if not listed:
            named[(kind, GAMES[kind].title)] = None
        for offer, (name, _rules) in listed.items():
            named.setdefault((kind, name), offer)
    return named


@bp.get("/choice")
def choice(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    named = _named_games()
    played = as_offered([(g.kind, title_of(g.kind, g.rules)) for g in services.played_games(night)], list(named))
    last = bank_service.ledger_of(night).last_roll
    offers = [
        {
            "kind": kind,
            "offer": named[(kind, name)],
            "title": name,
            "played": (kind, name) in played,
            "url": url_for("next_game.start", key=night.keeper_key, game=kind,
                           **({"offer": named[(kind, name)]} if named[(kind, name)] else {})),
        }
        for kind, name in next_game_offers(played, list(named))
    ]
    return render_template(
        "bank/choice.html",
        night=night,
        offers=offers,
        dealer=_next_dealer(night),
        rolled=last[1].action.game if last is not None else None,
    )
