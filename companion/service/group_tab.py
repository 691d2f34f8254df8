"""Payments through a group's tab: a ``tab_paid`` record each, and the night events they clear, at once.

The pure tab (:mod:`companion.group.tab`) says which nights' debts a payment clears; this module
writes its records and those ``tab_cleared`` events in one unit of work, or nothing at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from companion.db.models import Group
from companion.games import IllegalAction
from companion.games.night_kinds import TAB_CLEARED
from companion.group.members import Members, member_name
from companion.group.nights import Cleared
from companion.group.season import seated_members
from companion.group.tab import TabPayment, check_payment, pay
from companion.night.tab import MAX_REF  # a payment's reference's longest, as a night's tab_cleared event reads it
from companion.service.group_records import ORGANISER, counting, folded_of, kept_nights
from companion.service.group_views import blocked_units, counted_nights
from companion.service.uow import GroupCommand, GroupEntry, GroupRecorded, UnitOfWork

__all__ = ["amount_text", "MAX_PAYMENTS", "MAX_REF", "pay_tab"]




def amount_text(amount: Decimal, unit: str | None) -> str:
    """An amount as a record holds it: whole chips ("12", "-12"), or exact money ("2.50", "0.125")."""
    return f"{int(amount)}" if unit is None else f"{amount:f}"


def _ref(group_name: str, seq: int) -> str:
    tail = f" · tab #{seq}"
    return group_name[: MAX_REF - len(tail)].rstrip() + tail


def _records_of(payments: Sequence[TabPayment], cleared: Sequence[Cleared], members: Members) -> list[list[Cleared]]:
    """``cleared`` (as :func:`~companion.group.tab.pay` returns them) split per payment, in order; the offsets
    after them are the last list."""
    out: list[list[Cleared]] = []
    rest = list(cleared)
    for payment in payments:
        payer, payee = members.member(payment.payer), members.member(payment.payee)
        mine: list[Cleared] = []
        paid = received = Decimal(0)
        while rest and (paid < payment.amount or received < payment.amount):
            record = rest[0]
            if record.offset or (record.payer, record.payee) != (payer, payee):
                break
            if record.amount > 0:
                paid += record.amount
            else:
                received -= record.amount
            mine.append(rest.pop(0))
        out.append(mine)
    out.append(rest)
    return out


#: the most payments one submit makes (the fewest-payments plan of a large group is far fewer)
MAX_PAYMENTS = 100


def _refuse_other_units(payments: Sequence[TabPayment], units: Sequence[str | None]) -> None:
    """IllegalAction for a payment in a unit none of the group's counted nights is played in: a currency they
    do not use, or chips when every night is played for money (or money when every night is for chips)."""
    for payment in payments:
        if payment.unit not in units:
            used = sorted({u or "chips" for u in units}) or ["none yet"]
            asked = payment.unit or "chips"
            raise IllegalAction(
                f"no night of the group is counted in {asked}: a payment through the tab is in what its nights "
                f"are played in ({', '.join(used)})"
            )


def pay_tab(
    group_id: int,
    payments: Sequence[TabPayment],
    expected_version: int,
    request_key: str | None,
    confirmed_by: str = ORGANISER,
) -> GroupRecorded:
    """Payments through the tab: one ``tab_paid`` record each, and the ``tab_cleared`` events they append to the
    nights they clear (oldest first, :func:`companion.group.tab.pay`), in one unit of work, or nothing at all.

    ``confirmed_by`` is "organiser", or the payee's member name ("I got it", from the members' page: then
    every payment must be to them).  Refused (nothing written): :class:`Overpayment`, a name no member goes
    by, a payee confirming another's payment, a stale version.
    """
    if isinstance(payments, (str, bytes)) or not isinstance(payments, Sequence) or not payments:
        raise IllegalAction("choose at least one payment")
    if len(payments) > MAX_PAYMENTS:
        raise IllegalAction(f"at most {MAX_PAYMENTS} payments at once")
    payments = [check_payment(p) for p in payments]

    def decide(uow: UnitOfWork, group: Group) -> GroupEntry:
        folded = folded_of(group.id)
        members = folded.members
        confirmer = ORGANISER if confirmed_by == ORGANISER else members.member(member_name(confirmed_by))
        for p in payments:
            if members.member(p.payer) == members.member(p.payee):
                raise IllegalAction(f"{p.payer} and {p.payee} are one member: nobody pays themselves")
        if confirmer != ORGANISER and any(members.member(p.payee) != confirmer for p in payments):
            raise IllegalAction(f"{confirmer} can say only that they got a payment to them")
        nights = counting(kept_nights(group.id, lock=uow), folded)
        kept, in_play = counted_nights(nights, members)
        results = {k.result.night_id: k.result for k in kept}
        _refuse_other_units(payments, [r.unit for r in results.values()])
        cleared = pay(list(results.values()), members, payments, blocked_units(in_play))
        per_payment = _records_of(payments, cleared, members)
        records: list[tuple[str, dict[str, Any]]] = []
        refs: list[str] = []
        for offset, payment in enumerate(payments, start=1):
            ref = _ref(group.name, group.version + offset)
            refs.append(ref)
            records.append(("tab_paid", {
                "payer": members.member(payment.payer), "payee": members.member(payment.payee),
                "amount": amount_text(payment.amount, payment.unit), "unit": payment.unit or "",
                "ref": ref, "confirmed_by": confirmer,
            }))
        events: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        for ref, batch in zip([*refs, refs[-1]], per_payment):
            for record in batch:
                result = results[record.night_id]
                seat = {m: s for s, m in seated_members(result, members).items()}[members.member(record.member)]
                events.setdefault(int(record.night_id), []).append((TAB_CLEARED, {
                    "player": seat, "amount": amount_text(record.amount, result.unit),
                    "payer": record.payer, "payee": record.payee, "ref": ref,
                }))
        shown = "; ".join(
            f"{r[1]['payer']} paid {r[1]['payee']} {r[1]['amount']} {r[1]['unit'] or 'chips'}" for r in records
        )
        return GroupEntry(tuple(records), f"{shown} (through the tab)", dict(sorted(events.items())))

    # what the key's record (the last payment's) says, names as the group shows them (read before the unit: a
    # name no member goes by is refused here, and the unit reads the members again under the group's lock)
    members = folded_of(group_id).members
    last = payments[-1]
    said = {"payer": members.member(last.payer), "payee": members.member(last.payee),
            "amount": amount_text(last.amount, last.unit), "unit": last.unit or "",
            "confirmed_by": confirmed_by if confirmed_by == ORGANISER else members.member(member_name(confirmed_by))}
    command = GroupCommand(group_id, "tab_paid", said, expected_version, request_key, recorded_by=confirmed_by,
                           filled_in=("ref",), summary_again="The payment is recorded.")
    with UnitOfWork() as uow:
        return uow.group_command(command, decide)
