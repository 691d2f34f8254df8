"""A stored night's report at its version: the one reading of a night that its pages and its group share.

The report page, its CSV and JSON, the players' page and the group's season and tab all read a
stored night through :func:`report_of`: its games' fold, its own ledger as the night folded it (the
bank with its cancels, the Bonus Round: :func:`~companion.service.night_ledger.ledger_of`, each event
under the night's own number), the payments marked paid and what the group's tab settled of it.  So
the group can never count a night otherwise than its report shows it (issue 35: a cancelled bank
line, read by the group under another number, once cancelled another player's line).

Kept per version (issue 14, item 12): every phone that opens the report at a version gets the same
one, built once per process.  The next night taking the pot on (item 16) changes the report without
a new version, so the pot it took is part of the key (:func:`report_key`).
"""

from __future__ import annotations

from companion.db.models import Night
from companion.report.model import Report
from companion.report.parts import build_night_report
from companion.report.tab import with_tab
from companion.service.night_ledger import night_extra, paid_payments, tab_records
from companion.service.nights import continuation_of
from companion.service.store import derived, derived_before, keep_derived, money_of, play_for

__all__ = ["carried_on", "report_key", "report_of"]


def carried_on(night: Night) -> dict[str, int] | None:
    """The pot the next night took from ``night`` ("carry"), by contributor; None before it exists."""
    continued = continuation_of(night)
    return dict(continued.first_game.carried_in or {}) if continued is not None else None


def report_key(night: Night) -> str:
    """What the report of ``night`` is kept under at its version, besides the night and version."""
    return _key(carried_on(night))


def _key(taken: dict[str, int] | None) -> str:
    return f"report/{sorted(taken.items()) if taken is not None else '-'}"


def report_of(night: Night) -> Report:
    """The report of ``night`` as it stands, with the payments recorded so far (kept per version)."""
    taken = carried_on(night)  # one look for the next night, for the key and the report alike
    what = _key(taken)
    kept = derived(what, night.id, night.version)
    if kept is None:
        kept = _build_report(night, taken)
        keep_derived(what, night.id, night.version, kept)
    return kept  # type: ignore[no-any-return]


def _build_report(night: Night, taken: dict[str, int] | None) -> Report:
    play = play_for(night)
    money = money_of(night)
    # the payments alone, in one query on the night's events (not every event through the ORM: issue 22)
    paid = [(p.payer, p.payee, p.chips) for p in paid_payments(night)]
    games = [(p.title, p.state, p.rules, p.close(), p.game) for p in play.played()]  # a game taken back: none
    # what the games' parts kept at the version before (or at this one, for another pot carried on): they extend it
    kept = derived("report-memo", night.id, night.version)
    if kept is None:
        before = derived_before("report-memo", night.id, night.version)
        kept = before[1] if before is not None else {}
    memo = dict(kept)
    report = build_night_report(
        games, play.seated, chip_value=money.chip_value, currency=money.currency, paid=paid, name=night.name,
        carried_on=taken, extra=night_extra(night), memo=memo,
    )
    keep_derived("report-memo", night.id, night.version, memo)
    # what the group's tab settled of the night since: then Mark paid offers only what remains
    return with_tab(report, tab_records(night))
