"""The Bonus Round (issue 13): the night's dice game beside the table, on its own page.

Routes (``<key>``: the scorekeeper's link; the players' link gets 403):

* ``GET /k/<key>/bonus``: the last roll, big; roll (the app rolls with ``secrets``); the
  lucky numbers.  ``POST /k/<key>/bonus/roll``, ``/bonus/lucky``.
* ``GET|POST /k/<key>/bonus/grid``: fill the grid (two dice or a 20-sided die), its bonus
  and anti-bonus cells, and what a lucky number pays.

Every submit takes the ledger pages' one path (web/pages/ledger_pages.py).
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, abort, render_template, request, url_for

from companion.service import bank as bank_service
from companion.service import NightRow
from companion.games import IllegalAction
from companion.night.bonus import DICE, MAX_GAME_NAME, BonusGrid, cell_label
from companion.web.plumbing import post_redirect_get
from companion.web.forms import GridForm, LuckyForm, RollForm, fresh
from companion.web.pages.ledger_pages import chips_from, next_dealer, recall, record, submit
from companion.web.plumbing.links import keeper_night, recorded_by

bp = Blueprint("bonus", __name__, url_prefix="/k/<key>")

#: at most this many games in the grid form's quick fill (a grid has 36 cells)
MAX_QUICK = 36


def _who_rolls(night: NightRow, ledger: bank_service.NightLedger) -> str:
    """Who rolls next: the dealer the game at the table passes the deal to, unless that dealer made the
    last roll already (then the next player on the left, as the deal will go: issue 20, item 13),
    skipping players cashed out of the bank."""
    players = list(night.players)
    dealer = next_dealer(night)
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
def show(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    status, message, _ = recall(night)
    ledger = bank_service.ledger_of(night)
    roll_form = fresh(RollForm(formdata=None), night.version)
    roll_form.roller.choices = [(n, n) for n in night.players]
    roll_form.roller.data = _who_rolls(night, ledger)
    lucky_form = fresh(LuckyForm(formdata=None), night.version)
    lucky_form.player.choices = [(n, n) for n in night.players]
    last = ledger.last_roll
    return (
        render_template(
            "bonus/show.html",
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
def roll(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = RollForm()
    form.roller.choices = [(n, n) for n in night.players]

    def act(f: RollForm) -> Any:
        return bank_service.roll(night, f.roller.data, f.version.data, f.request_key.data, recorded_by())

    return submit(night, form, "bonus.show", act)


@bp.post("/bonus/lucky")
def lucky(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    form = LuckyForm()
    form.player.choices = [(n, n) for n in night.players]

    def act(f: LuckyForm) -> Any:
        return bank_service.roll_lucky(night, f.player.data, f.version.data, f.request_key.data, recorded_by())

    return submit(night, form, "bonus.show", act)


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
def grid(key: str):  # type: ignore[no-untyped-def]
    night = keeper_night(key)
    if request.method == "POST":
        form = GridForm()

        def act(f: GridForm) -> Any:
            return record(night, "bonus_grid", _grid_payload(f, request.form), f)

        if form.validate() and form.dice.data in DICE:
            try:
                _grid_payload(form, request.form)
            except IllegalAction as error:
                location = url_for("bonus.grid", key=night.keeper_key, dice=form.dice.data)
                return post_redirect_get.refuse(location, 422, message=f"Not saved: {error}",
                                                form_name="grid", form=form, version=night.version)
        result = submit(night, form, "bonus.show", act, "grid")
        return result
    status, message, kept = recall(night)
    ledger = bank_service.ledger_of(night)
    current = ledger.grid
    quick = ""
    dice = request.args.get("dice") or (current.dice if current else "2d6")
    if dice not in DICE:
        abort(400, "choose two dice (2d6) or a 20-sided die (d20)")
    form = fresh(GridForm(formdata=None), night.version)
    form.dice.data = dice
    values: dict[str, str] = {}
    if current is not None and current.dice == dice:
        values = {f"cell_{label}": name for label, name in zip(_cells(dice), current.cells)}
        marked = current.to_dict()["bonuses"]
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
        render_template("bonus/grid.html", night=night, message=message, form=form, dice=dice, rows=rows,
                        values=values, max_name=MAX_GAME_NAME, quick=quick),
        status,
    )
