"""What the pages of the night's own ledger share (the Bank page, the Bonus Round, dealer's choice).

Every submit on them takes one path (:func:`submit`): it carries the night's version and
a request key (a doubled or stale submit records nothing twice) and answers 303
(Post/Redirect/Get); a refusal redirects to the page, which answers 422 or 409 with the
reason (:func:`recall`).  The Bonus Round and dealer's choice both ask who deals next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import flash, redirect, url_for

from companion.service import bank as bank_service
from companion import service
from companion.service import NightRow
from companion.games import IllegalAction
from companion.night.bank import MAX_CHIPS
from companion.values.reading import Unreadable, whole_number
from companion.web.plumbing import post_redirect_get
from companion.web.plumbing import tap_guard
from companion.web.plumbing.links import recorded_by
from companion.web.plumbing.stale import refusal_words


def chips_from(text: str | None, what: str, low: int = 1) -> int:
    """A number of chips as typed; IllegalAction with a sentence the scorekeeper can act on."""
    try:
        return whole_number(text or "", what, low=low, high=MAX_CHIPS, unit="chips")  # companion.values.reading: one reader
    except Unreadable as error:
        raise IllegalAction(str(error)) from None


def refuse(night: NightRow, page: str, status: int, message: str, form_name: str | None = None, form: Any = None):  # type: ignore[no-untyped-def]
    """Redirect a refused submit to ``page`` (an endpoint) with its message, keeping what was typed."""
    location = url_for(page, key=night.keeper_key)
    return post_redirect_get.refuse(location, status, message=message, form_name=form_name, form=form, version=night.version)


def submit(night: NightRow, form: Any, page: str, act: Callable[[Any], Any], form_name: str | None = None):  # type: ignore[no-untyped-def]
    """Validate the form's stamp, run ``act`` (it records through services), answer 303 to ``page``."""
    if not form.validate():
        errors = "; ".join(str(e) for es in form.errors.values() for e in es)
        return refuse(night, page, 400, f"That could not be understood: {errors}. Nothing was recorded.")
    if tap_guard.too_soon(night, form.version.data):
        return refuse(night, page, 409, tap_guard.TOO_SOON)
    location = url_for(page, key=night.keeper_key)  # before the write: read after the commit, it loads the night again
    try:
        result = act(form)
    except IllegalAction as error:
        return refuse(night, page, 422, f"Not recorded: {error}", form_name, form)
    except (service.StaleTable, service.KeyConflict) as refusal:
        now = service.night_again(night.id) or night
        return refuse(now, page, 409, refusal_words(refusal, now, form.version.data))
    flash(("Already recorded: " if result.repeated else "") + result.summary)
    return redirect(location, code=303)


def record(night: NightRow, kind: str, payload: dict[str, Any], form: Any) -> Any:
    """Record one night ledger event of ``kind`` with the form's stamp, as this browser."""
    return bank_service.record(
        night.id, kind, payload, form.version.data, form.request_key.data, recorded_by=recorded_by()
    )


def recall(night: NightRow) -> tuple[int, str | None, Any]:
    """(status, message, the refusal) the page answers with after a refused submit; (200, None, None) otherwise."""
    kept = post_redirect_get.recall(night.version)
    if kept is None:
        return 200, None, None
    return kept.status, kept.message, kept


def next_dealer(night: NightRow) -> str:
    """Who deals next: the dealer the game at the table passes the deal to."""
    current = service.play_for(night).current
    return current.game.next_dealer(current.state)
