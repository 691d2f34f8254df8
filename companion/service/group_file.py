"""A group's file (``companion-group/1``, docs/group-file.md): a group written out, and a new group read in.

The file holds the group's member records, handles and every night that counts; a group read from one
stores each of its nights anew, with its payments marked paid and its tab's records, in one unit of work.
"""

from __future__ import annotations

import datetime
import hashlib
from types import MappingProxyType
from typing import Any

from companion.db.models import Group
from companion.extensions import db
from companion.games.night_kinds import PAID, TAB_CLEARED
from companion.group import file as groupfile
from companion.group.members import Added, MemberRecord, Merged
from companion.group.pay_links import Iban, PayHandle, PayPalMe, Revolut, Venmo
from companion.group.season import seated_members
from companion.service.group_keeping import add_kept_night
from companion.service.group_links import new_group
from companion.service.group_members import handle_value
from companion.service.group_nights import night_file_of
from companion.service.group_records import counting, folded_of, kept_nights
from companion.service.group_tab import amount_text
from companion.service.group_views import counted_nights
from companion.service.night_ledger import paid_payments
from companion.service.nights import night_from_file
from companion.service.uow import UnitOfWork, digest, end_reads

__all__ = ["export_group", "import_group", "IMPORTED_REF"]


#: the reference of the tab's records made from a group file (which keeps no payment references)
IMPORTED_REF = "imported with the group file"


def _kind_of(handle: PayHandle) -> str:
    return {PayPalMe: "paypal", Revolut: "revolut", Venmo: "venmo", Iban: "iban"}[type(handle)]


def export_group(group: Group) -> str:
    """The group as a ``companion-group/1`` file (docs/group-file.md): its member records, handles, and every
    night that counts (a night in play, or taken out of the group, is left out: the file holds nights that settle)."""
    folded = folded_of(group.id)
    nights = counting(kept_nights(group.id), folded)
    kept, _ = counted_nights(nights, folded.members)
    by_id = {n.id: n for n in nights}
    entries = tuple(
        groupfile.GroupNight(k.date, night_file_of(by_id[k.night_id]), paid_payments(by_id[k.night_id]), k.result)
        for k in kept
    )
    handles = {m: tuple(h.values()) for m, h in folded.handles.items()}
    return groupfile.dumps(
        groupfile.GroupFile(group.name, folded.records, folded.members, MappingProxyType(handles), entries)
    )


def import_group(text_: str | bytes, request_key: str | None = None) -> Group:
    """A new group from a ``companion-group/1`` file: its members, handles and nights (each a new night, with its
    payments marked paid and the tab's records), in one unit of work; nothing stored when the file is refused
    (:class:`~companion.group.file.GroupFileError` names where) or a night cannot be stored."""
    raw = text_.encode("utf-8", "surrogatepass") if isinstance(text_, str) else text_
    said = digest("import group", hashlib.sha256(raw).hexdigest())
    end_reads()  # read and replay the whole file before the write transaction begins
    parsed = groupfile.loads(raw)
    with UnitOfWork() as uow:

        def then(group: Group) -> None:
            records: list[tuple[str, dict[str, Any]]] = [_stored_member_record(r) for r in parsed.records]
            for member, handles in parsed.handles.items():
                records += [("handle_set", {"member": member, "kind": _kind_of(h), "value": handle_value(h)}) for h in handles]
            for entry in parsed.nights:
                seats = {m: s for s, m in seated_members(entry.result, parsed.members).items()}
                more = [(PAID, {"payer": p.payer, "payee": p.payee, "chips": p.chips}) for p in entry.paid]
                more += [(TAB_CLEARED, {
                    "player": seats[parsed.members.member(c.member)], "amount": amount_text(c.amount, entry.result.unit),
                    "payer": c.payer, "payee": c.payee, "ref": IMPORTED_REF,
                }) for c in entry.cleared]
                night = night_from_file(entry.night, entry.night.name or entry.result.title, more)
                night.created_at = datetime.datetime.combine(entry.date, datetime.time())
                db.session.add(night)
                db.session.flush()
                records.append(("night_kept", {"night_id": night.id}))
                add_kept_night(uow, group, night.id)
                db.session.flush()
            if records:
                uow.add_group_records(group, records, None, "import")

        return uow.add_group(request_key, said, lambda: new_group(parsed.name), then)


def _stored_member_record(record: MemberRecord) -> tuple[str, dict[str, Any]]:
    if isinstance(record, Added):
        return "member_added", {"name": record.name}
    if isinstance(record, Merged):
        return "member_merged", {"kept": record.kept, "merged": record.merged}
    return "member_renamed", {"old": record.old, "new": record.new}
