"""The night's chip bank (issue 13): a page beside the table, and its part of the report.

Routes (``<key>``: the scorekeeper's link; the players' link gets 403):

* ``GET /k/<key>/bank``: the night's setting (settle on the app's tally or on chip counts),
  everyone buys in (one tap after the amount), each player's buy-in, rebuy and cash-out
  (counted chips), the bank's log with a Cancel on each line, and the check: whether the
  night can settle on the counts, and if not the difference and whose count to check;
  when it balances, the settle-up on the counts.
* ``POST /k/<key>/bank/setting``, ``/bank/everyone``, ``/bank/player``, ``/bank/cancel``.

Every submit takes the ledger pages' one path (web/pages/ledger_pages.py).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request, url_for

from companion.service import bank as bank_service
from companion import service
from companion.service import NightRow
from companion.games import IllegalAction
from companion.money.amounts import value_text
from companion.night.bank import BuyIn, Cancel, EveryoneBuysIn
from companion.values.reading import Unreadable, whole_number
from companion.web.plumbing import kept_pages
from companion.web.plumbing import post_redirect_get
from companion.web.forms import CancelForm, EveryoneForm, PlayerForm, SettingForm, fresh
from companion.web.pages.ledger_pages import chips_from, recall, record, refuse, submit
from companion.web.plumbing.links import NightLink, keeper_link, keeper_night

bp = Blueprint("bank", __name__, url_prefix="/k/<key>")

DEFAULT_BUY_IN = 100


def bank_key(link: NightRow | NightLink, continued: int | None) -> tuple[Any, ...]:
    """What the kept bank page depends on besides (night, version): its links, and the night its pot went to."""
    return ("bank", link.keeper_key, link.viewer_key, continued)


@bp.get("/bank")
def show(key: str):  # type: ignore[no-untyped-def]
    """The bank page: kept per version as the table screen is (issue 22), unless a refused form is shown again."""
    link = keeper_link(key)  # one SELECT: enough when this process keeps the page at that version
    if link is not None and post_redirect_get.recall(link.version) is None:
        page = kept_pages.kept_page(bank_key(link, link.continued), link.id, link.version)
        if page is not None:
            return page
    night = keeper_night(key)
    status, message, kept = recall(night)
    if kept is None:
        continued = service.continuation_of(night)
        return kept_pages.render_kept(
            bank_key(night, continued.id if continued is not None else None), night.id, night.version,
            lambda flashed: _bank_page(night, status, message, kept, flashed)[0],
        )
    return _bank_page(night, status, message, kept)


def _bank_page(night: NightRow, status: int, message: str | None, kept: Any, flashed: Any = None):  # type: ignore[no-untyped-def]
    state = bank_service.bank_state(night)
    ledger, check, tally, results, plan = state.ledger, state.check, state.tally, state.results, state.plan
    b = ledger.bank
    chip_value, currency = service.money_of(night).chip_value, night.currency or ""
    amounts = [e.action.chips for e in b.live_events() if isinstance(e.action, (EveryoneBuysIn, BuyIn))]
    everyone = fresh(EveryoneForm(formdata=None), night.version)
    everyone.chips.data = str(amounts[-1] if amounts else DEFAULT_BUY_IN)
    typed: dict[str, str] = {}
    if kept is not None and kept.form and kept.form.startswith("player:"):
        typed[kept.form.split(":", 1)[1]] = dict(kept.data).get("chips", "")
    if kept is not None and kept.form == "everyone":
        everyone.chips.data = dict(kept.data).get("chips", everyone.chips.data)
    rows = []
    for name in night.players:
        form = fresh(PlayerForm(formdata=None), night.version)
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
            form = fresh(CancelForm(formdata=None), night.version)
            form.seq.data = str(event.seq)
        log.append({"event": event, "cancelled_by": b.cancelled.get(event.seq), "form": form})
    marked = bank_service.marked_paid(night)
    setting = fresh(SettingForm(formdata=None), night.version)
    setting.on.data = bank_service.TALLY if ledger.settle_on == bank_service.BANK else bank_service.BANK
    return (
        render_template(
            "bank/show.html",
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
def setting(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = SettingForm()
    return submit(night, form, "bank.show", lambda f: record(night, bank_service.MODE_KIND, {"on": f.on.data}, f))


@bp.post("/bank/everyone")
def everyone(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = EveryoneForm()

    def act(f: EveryoneForm) -> Any:
        chips = chips_from(f.chips.data, "the buy-in")
        return record(night, "all_buy_in", {"chips": chips}, f)

    return submit(night, form, "bank.show", act, "everyone")


@bp.post("/bank/player")
def player(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = PlayerForm()
    kind = request.form.get("action", "")
    if kind not in ("buy_in", "rebuy", "cash_out"):
        return refuse(night, "bank.show", 400, "Choose buy in, rebuy or cash out. Nothing was recorded.")
    name = request.form.get("player", "")
    if name not in night.players:
        return refuse(night, "bank.show", 422, f"Not recorded: \u201c{name[:40]}\u201d is not seated tonight.")

    def act(f: PlayerForm) -> Any:
        what = {"buy_in": "the buy-in", "rebuy": "the rebuy", "cash_out": f"{name}'s count"}[kind]
        chips = chips_from(f.chips.data, what, low=0 if kind == "cash_out" else 1)
        return record(night, kind, {"player": name, "chips": chips}, f)

    return submit(night, form, "bank.show", act, f"player:{name}")


@bp.get("/bank/cancel")
def confirm_cancel(key: str):  # type: ignore[no-untyped-def]
    """The first tap of *Cancel* beside a line of the bank's log: the line in words, and one button that cancels
    it (issue 35, item 3), with the version of the Bank page the tap was made on and one request key."""
    night = keeper_night(key)
    back = url_for("bank.show", key=night.keeper_key)
    heading = "Cancel a line of the bank"
    try:
        seq = whole_number(request.args.get("seq", ""), "a line", low=1)
        version = whole_number(request.args.get("version", ""), "the page's version", low=0)
    except Unreadable:
        return render_template("confirm.html", heading=heading, form=None, back=back,
                               message="Choose a line of the bank's log to cancel. Nothing was recorded."), 422
    bank = bank_service.ledger_of(night).bank
    line = next((e for e in bank.log if e.seq == seq and not isinstance(e.action, Cancel)), None)
    if line is None or seq in bank.cancelled:
        return render_template("confirm.html", heading=heading, form=None, back=back,
                               message=f"There is no line #{seq} left to cancel. Nothing was recorded."), 422
    form = fresh(CancelForm(formdata=None), version)
    return render_template(
        "confirm.html", heading=heading, action=url_for("bank.cancel", key=night.keeper_key), form=form,
        fields={"seq": str(seq)}, question=f"cancel #{seq}, {line.summary}?",
        details=["A wrong line is cancelled, never changed: record the right one after."],
        yes=f"Yes, cancel #{seq}", back=back,
    )


@bp.post("/bank/cancel")
def cancel(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = CancelForm()

    def act(f: CancelForm) -> Any:
        try:
            seq = whole_number(f.seq.data or "", "a line", low=0)
        except Unreadable:
            raise IllegalAction("choose a line of the bank's log to cancel") from None
        return record(night, "bank_cancel", {"seq": seq}, f)

    return submit(night, form, "bank.show", act)


@bp.app_template_global()
def bank_report(night: NightRow) -> dict[str, Any]:
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
