"""A stored night as the group sees it: its :class:`~companion.group.nights.NightResult`, kept per version.

The group's season, rivalries and tab read nights only as ``NightResult`` values.  A stored
night is made into one exactly as a night file is (:func:`companion.group.result.night_result`,
the report page's own report): its fold (:func:`~companion.service.store.play_for`), its money,
its own ledger events (the bank, the Bonus Round) and the payments marked paid at it, gathered
here from the database into a :class:`~companion.night.file.NightFile`; the records the group's
tab appended against it are its ``tab_cleared`` events.  Nothing else is read, so the group never
disagrees with the night's report.

A night's first ``version`` events never change, so neither does its result: it is kept per
(night id, version) beside the night's fold (:func:`~companion.service.store.derived`), and a
group of two hundred nights builds only the nights that moved on since it was last shown.

A payment marked paid at a night kept in a group (:func:`refuse_paid_beyond_open`) settles only what
is still open there: the group's tab counts it, so a payment the tab already cleared, marked again
at the night, would be settled twice.

Which nights count, where the issue is silent: a night with nothing recorded yet, and a night
settling on chip counts whose bank does not balance yet, have no payments to owe: they are
"in play" (:data:`NightResult` None, with the reason), listed apart and counted nowhere.  A
night's date is the day it was started (UTC), or the day its group file gave it when imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from companion.db.models import Event, GroupNight, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.games.night_kinds import TAB_CLEARED
from companion.group.nights import Cleared, NightResult
from companion.group.result import NotSettled, night_result
from companion.group.tab import Overpayment, check_marked
from companion.night.file import NightFile
from companion.money.settle import Payment
from companion.night.ledger import KINDS
from companion.service.night_ledger import ledger_events, own_events
from companion.service.store import derived, keep_derived, money_of, play_for

#: what a night is while it cannot be counted yet: nothing recorded
NOTHING_YET = "nothing is recorded yet"


@dataclass(frozen=True)
class Counted:
    """A night as the group sees it (``result``), or why it cannot be counted yet (``in_play``)."""

    result: NightResult | None
    in_play: str = ""


def night_file_of(night: Night, own: Sequence[tuple[str, Mapping[str, Any]]] | None = None) -> NightFile:
    """``night`` at its version as a read night file: its name, fold, money and own ledger events
    (read from ``own``, the night's :func:`~companion.service.night_ledger.own_events`, when given)."""
    events = ledger_events(night) if own is None else tuple((k, p) for k, p in own if k in KINDS)
    return NightFile(night.name, play_for(night), money_of(night), ledger_events=events)


def cleared_of(night: Night, own: Sequence[tuple[str, Mapping[str, Any]]] | None = None) -> tuple[Cleared, ...]:
    """The records the group's tab appended against ``night`` (its ``tab_cleared`` events), in order
    (read from ``own`` when given).

    ``member`` is the night's seat name, as the event holds it (a member's name is one of theirs)."""
    if own is None:
        payloads: Iterable[Mapping[str, Any]] = db.session.scalars(
            select(Event.payload)
            .where(Event.night_id == night.id, Event.kind == TAB_CLEARED, Event.seq <= night.version)
            .order_by(Event.seq)
        )
    else:
        payloads = [p for k, p in own if k == TAB_CLEARED]
    return tuple(
        Cleared(str(night.id), p["player"], Decimal(p["amount"]), p["payer"], p["payee"]) for p in payloads
    )


def counted(night: Night) -> Counted:
    """``night`` as the group sees it at its version (kept per version in this process)."""
    kept = derived("group-result", night.id, night.version)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    if night.version == 0:
        return Counted(None, NOTHING_YET)
    own = own_events(night)  # one query for the night's ledger, its payments marked paid and the tab's records
    try:
        found = Counted(
            night_result(
                night_file_of(night, own),
                night_id=str(night.id),
                date=night.created_at.date(),
                title=night.name,
                paid=tuple(Payment(p["payer"], p["payee"], p["chips"]) for k, p in own if k == "paid"),
                cleared=cleared_of(night, own),
            )
        )
    except NotSettled as error:
        found = Counted(None, str(error))
    keep_derived("group-result", night.id, night.version, found)
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
