"""A stored night as the group sees it: its :class:`~companion.group.nights.NightResult`, kept per version.

The group's season, rivalries and tab read nights only as ``NightResult`` values.  A stored
night is made into one from its own report (:func:`~companion.service.night_report.report_of`,
the very report its report page shows: its fold, its money, its own ledger as the night folded
it, each bank line and cancel under the night's own number, and the payments marked paid), with
what the group's tab appended against it (its ``tab_cleared`` events).  Nothing else is read, so
the group can never disagree with the night's report (issue 35: the group once folded the night's
ledger anew, numbered 1…n, and a cancel named another line than the night's).

A night's first ``version`` events never change, so neither does its result: it is kept per
(night id, version) beside the night's fold (:func:`~companion.service.store.derived`), and a
group of two hundred nights builds only the nights that moved on since it was last shown.

A payment marked paid at a night kept in a group (:func:`refuse_paid_beyond_open`) settles only what
is still open there: the group's tab counts it, so a payment the tab already cleared, marked again
at the night, would be settled twice.

Which nights count, where the issue is silent: a night with nothing recorded yet, and a night
settling on chip counts whose bank does not balance yet, have no payments to owe: they are
"in play" (:data:`NightResult` None, with the reason), listed apart and counted nowhere.  A
night whose report cannot be made into a result at all (a record no night of the app could hold,
say) is ``broken``: listed with the reason, never a page's error (issue 35).  A
night's date is the day it was started (UTC), or the day its group file gave it when imported.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from companion.db.models import GroupNight, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.games.night_kinds import TAB_CLEARED
from companion.group.nights import NightResult
from companion.group.result import cleared_of, not_settled, result_of_report
from companion.group.tab import Overpayment, check_marked
from companion.night.file import NightFile, recorded_by_of
from companion.night.ledger import BANK, file_events
from companion.service.keepers import phones_of
from companion.service.night_ledger import bank_state, ledger_of
from companion.service.night_report import report_key, report_of
from companion.service.store import derived, keep_derived, money_of, play_for

#: what a night is while it cannot be counted yet: nothing recorded
NOTHING_YET = "nothing is recorded yet"


#: what a night is when what it holds cannot be counted (it cannot settle as it stands)
CANNOT_COUNT = "this night cannot be counted"


@dataclass(frozen=True)
class Counted:
    """A night as the group sees it (``result``), or why it cannot be counted (``in_play``): not yet (nothing
    recorded, a bank that does not balance yet), or ``broken``: what it holds cannot be counted at all."""

    result: NightResult | None
    in_play: str = ""
    broken: bool = False


def night_file_of(night: Night) -> NightFile:
    """``night`` at its version as a group file holds it: its name, fold, money and its own ledger's live events,
    numbered as a file numbers them (a cancelled bank line and its cancel left out, as an export writes them).
    The group's tab records against it are left out: a group file writes them as the group's (``cleared``).
    Its games' records say which keeper phone recorded them, as its night file does (``recorded_by``)."""
    events = tuple((kind, payload) for kind, payload in file_events(ledger_of(night)) if kind != TAB_CLEARED)
    play = play_for(night)
    phones = phones_of(night.id, night.version)  # which keeper phone recorded each game's records, as an export says
    return NightFile(night.name, play, money_of(night), ledger_events=events,
                     recorded_by=recorded_by_of(play, phones) if phones else ())


def counted(night: Night) -> Counted:
    """``night`` as the group sees it at its version, read from the night's own report (kept per version and
    per pot carried on, as the report is: :func:`~companion.service.night_report.report_key`)."""
    what = f"group-result {report_key(night)}"
    kept = derived(what, night.id, night.version)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    if night.version == 0:
        return Counted(None, NOTHING_YET)
    state = bank_state(night)
    if state.ledger.settle_on == BANK and state.block is not None:
        found = Counted(None, str(not_settled(state.block)))
    else:
        try:
            found = Counted(
                result_of_report(
                    report_of(night),
                    night_id=str(night.id),
                    date=night.created_at.date(),
                    title=night.name,
                    only=play_for(night).of_the_night()[0].title,
                    cleared=cleared_of(state.ledger.tab_records, str(night.id)),
                )
            )
        except (ValueError, TypeError, IllegalAction) as error:  # what the night holds cannot be counted
            found = Counted(None, f"{CANNOT_COUNT}: {error}", broken=True)
    keep_derived(what, night.id, night.version, found)
    return found


def refuse_paid_beyond_open(night: Night, payer: str, payee: str, chips: int) -> None:
    """IllegalAction when ``night`` is kept in a group and ``payer`` paying ``payee`` ``chips`` settles more than
    is still open there (what its plan asks, less what was marked paid, less what the group's tab cleared).

    Only the night is read (its row is the one the unit locked: a tab payment clearing it waits, or made it
    move on), never its group's row: a night's command takes its own night's lock and no other."""
    if db.session.scalar(select(GroupNight.id).where(GroupNight.night_id == night.id)) is None:
        return
    found = counted(night)
    if found.result is None:
        raise IllegalAction(f"nothing is owed at this night yet: {found.in_play}")
    try:
        check_marked(found.result, payer, payee, found.result.amount_of(chips))
    except Overpayment as error:
        raise IllegalAction(f"{error} (this night is kept in a group, whose tab settles it too)") from None
