"""The group file: a group with all its nights as JSON (``companion-group/1``), read strictly and written back.

The format is documented in ``docs/group-file.md``; this module is its one reader and writer.
A group file holds the group's name, its member records (added, merged, renamed: in the order
made, :mod:`companion.group.members`), each member's pay handles (:mod:`companion.group.pay_links`),
and its nights in the order played: each one a whole ``companion-night/2`` document
(:mod:`companion.night.file`, which replays it), its date, the settle-up payments marked paid at
the night, and the records the group's tab appended against it (:class:`Cleared`).

Reading is as strict as a night file's: every key known, every value of the type the format
says, read by the one reader of its kind (:mod:`companion.values.reading`: names, texts, days;
:func:`~companion.money.amounts.parse_chip_value`: money, from a string; chips from JSON
integers), never a float; a wrong entry refused naming where it is
(``nights[2].night: games[0] (napalm): stages[1] …``), and nothing returned from a file that is
refused.  Each night is made into the :class:`~companion.group.nights.NightResult` the season and
the tab read (:mod:`companion.group.result`), and every name it seats must be a member.  Pure.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from companion.games import IllegalAction, RecordError
from companion.money.amounts import format_money, parse_chip_value
from companion.money.settle import Payment
from companion.night import file as nightfile
from companion.night.file import NightFile
from companion.values.limits import MAX_NIGHT_NAME
from companion.values.reading import Unreadable, declared_format, json_document, name as read_name, night_date, unknown_key, whole_number

from .members import Added, MemberError, MemberRecord, Members, Merged, Renamed, UnknownMember, members_from
from .nights import Cleared, NightResult, check_amount
from .pay_links import Iban, PayHandle, PayPalMe, Revolut, Venmo, read_iban, read_paypal_me, read_revolut, read_venmo
from .result import NotSettled, night_ledger, night_result
from .season import seated_members
from .tab import open_on, unreconciled

__all__ = [
    "FORMAT", "GroupFile", "GroupFileError", "GroupNight", "declares_group", "dumps", "from_dict", "loads", "to_dict",
]

FORMAT = "companion-group/1"
#: A group file larger than this is refused before it is parsed: 16 nights at a night file's largest.
MAX_BYTES = 32_000_000
#: A night sits three levels down (the list ``nights``, its entry, ``night``), and nests below that
#: as deep as a night file may.
MAX_DEPTH = nightfile.MAX_DEPTH + 3
#: More nights than a group plays in decades of weekly games.
MAX_NIGHTS = 5_000
#: More member records than a group makes (every member added, renamed and merged many times over).
MAX_MEMBER_RECORDS = 1_000
#: The most chips one settle-up payment marked paid may move (as the report's "Mark paid" reads it).
MAX_PAID_CHIPS = 10**9

_TOP_KEYS = {"format", "name", "members", "handles", "nights"}
_NIGHT_KEYS = {"date", "night", "paid", "cleared"}
_PAID_KEYS = {"from", "to", "chips"}
_CLEARED_KEYS = {"member", "amount", "from", "to"}
_IBAN_KEYS = {"iban", "holder", "bic"}
#: each member record's kind, and its second key (the one it has beside the kind's own)
_RECORD_KEYS = {"added": None, "merged": "into", "renamed": "to"}
#: each pay handle's key, its reader of a username, and its class (an IBAN is an object of its own)
_USERNAME_HANDLES: dict[str, tuple[Callable[[object], PayHandle], type]] = {
    "paypal_me": (read_paypal_me, PayPalMe),
    "revolut": (read_revolut, Revolut),
    "venmo": (read_venmo, Venmo),
}
_HANDLE_KEYS = (*_USERNAME_HANDLES, "iban")


class GroupFileError(ValueError):
    """A group file that cannot be read; the message says where it is wrong."""


@dataclass(frozen=True)
class GroupNight:
    """One night of the group: its day, its night file as replayed, the payments marked paid at it, and
    what the group sees of it (:class:`NightResult`, with the tab's records against it)."""

    date: datetime.date
    night: NightFile
    paid: tuple[Payment, ...]
    result: NightResult

    @property
    def cleared(self) -> tuple[Cleared, ...]:
        return self.result.cleared


@dataclass(frozen=True)
class GroupFile:
    """A read group file: its name, member records (and the members they make), handles and nights."""

    name: str
    records: tuple[MemberRecord, ...]
    members: Members
    #: each member's pay handles (as shown), in the order paypal_me, revolut, venmo, iban
    handles: Mapping[str, tuple[PayHandle, ...]]
    nights: tuple[GroupNight, ...]

    @property
    def results(self) -> tuple[NightResult, ...]:
        """The nights as the season and the tab read them, in the order played."""
        return tuple(n.result for n in self.nights)


# --- reading -------------------------------------------------------------------------------------


def declares_group(data: str | bytes) -> bool:
    """Whether ``data`` is JSON whose ``format`` says it is a group file (then :func:`loads` reads it)."""
    return bool(declared_format(data, max_bytes=MAX_BYTES) == FORMAT)


def loads(data: str | bytes) -> GroupFile:
    """Read a group file: refused before anything is replayed when too large, malformed or too deep."""
    try:
        document = json_document(data, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH, what="a group file")
    except Unreadable as error:
        raise GroupFileError(str(error)) from None
    return from_dict(document)


def from_dict(data: Any) -> GroupFile:
    """A group file's JSON object, read and every night replayed; :class:`GroupFileError` names where it is wrong."""
    if not isinstance(data, dict):
        raise GroupFileError("the file must hold one JSON object")
    said = data.get("format")
    if not (isinstance(said, str) and said.startswith("companion-group/")):
        # a night file, a list of anything: say it is not a group file, not which of its keys a group file
        # has no room for (which reads as if a group file were broken); a later version's own refusal follows
        raise GroupFileError(
            f"this is not a group file: a group file says \"format\": \"{FORMAT}\" (Export group file on a group's"
            " page makes one)"
        )
    _no_unknown(data, _TOP_KEYS, "the top level")
    if data.get("format") != FORMAT:
        raise GroupFileError(f"'format' must be \"{FORMAT}\"")
    name = _read(lambda: read_name(data.get("name"), "the group's name", max_length=MAX_NIGHT_NAME), "'name'")
    if not name:
        raise GroupFileError("'name': the group's name cannot be empty")
    records, members = _members(data.get("members"))
    handles = _handles(data.get("handles", {}), members)
    nights = data.get("nights")
    if not isinstance(nights, list):
        raise GroupFileError("'nights' must be a list of the group's nights, in the order played")
    if len(nights) > MAX_NIGHTS:
        raise GroupFileError(f"'nights': a group file holds at most {MAX_NIGHTS:,} nights")
    read: list[GroupNight] = []
    for index, entry in enumerate(nights):
        read.append(_night(index, entry, members, read[-1].date if read else None))
    _refuse_unreconciled(read, members)
    return GroupFile(name, records, members, MappingProxyType(handles), tuple(read))


def _refuse_unreconciled(nights: Sequence[GroupNight], members: Members) -> None:
    """The file's tab records, all nights together, must be what the tab makes: each payment's records clearing
    its payer's debts and its payee's credits by the same amount (:func:`~companion.group.tab.unreconciled`).
    A record on its own (one side of a payment) would leave a group whose tab does not add up: refused, naming
    the nights that hold that payment's records."""
    bad = unreconciled([n.result for n in nights], members)
    if bad:
        unit, ids = next(iter(bad.items()))
        where = ", ".join(f"nights[{int(i) - 1}]" for i in ids)
        raise GroupFileError(
            f"{where}: the tab's records in {unit or 'chips'} do not add up: a payment through the tab clears its payer's "
            "debts and its payee's credits by the same amount (a record on each side), so no record stands alone"
        )


def _no_unknown(entry: Mapping[str, Any], known: set[str], where: str) -> None:
    if (unknown := unknown_key(entry, known)) is not None:
        raise GroupFileError(f"{where}: unknown key '{unknown}'")


def _read(reader: Callable[[], Any], where: str) -> Any:
    """What ``reader`` reads; its refusal (Unreadable) said with ``where`` in front."""
    try:
        return reader()
    except Unreadable as error:
        raise GroupFileError(f"{where}: {error}") from None


def _members(raw: Any) -> tuple[tuple[MemberRecord, ...], Members]:
    """The member records, each checked as it applies to those before it."""
    if not isinstance(raw, list):
        raise GroupFileError(
            "'members' must be a list of member records, in the order made, such as {\"added\": \"Ann\"}"
        )
    if len(raw) > MAX_MEMBER_RECORDS:
        raise GroupFileError(f"'members': a group file holds at most {MAX_MEMBER_RECORDS:,} member records")
    records: list[MemberRecord] = []
    kinds: list[str] = []
    for index, entry in enumerate(raw):
        where = f"members[{index}]"
        if not isinstance(entry, dict):
            raise GroupFileError(f"{where} must be an object such as {{\"added\": \"Ann\"}}")
        found = [k for k in _RECORD_KEYS if k in entry]
        if len(found) != 1:
            raise GroupFileError(f"{where} must hold one of 'added', 'merged' (with 'into') or 'renamed' (with 'to')")
        kind = found[0]
        partner = _RECORD_KEYS[kind]
        where = f"{where} ({kind})"
        _no_unknown(entry, {kind} | ({partner} if partner else set()), where)
        if partner and partner not in entry:
            raise GroupFileError(f"{where}: '{partner}' is missing")
        names = [entry[kind], entry[partner]] if partner else [entry[kind]]
        if not all(isinstance(name, str) for name in names):
            raise GroupFileError(f"{where}: a member's name must be text")
        first, *rest = (" ".join(name.split()) for name in names)
        if kind == "added":
            records.append(Added(first))
        elif kind == "merged":
            records.append(Merged(rest[0], first))
        else:
            records.append(Renamed(first, rest[0]))
        kinds.append(kind)
    try:
        members = members_from(records)
    except MemberError as error:  # "member record 3: …": said as where it is in the file
        position, _, message = str(error).removeprefix("member record ").partition(": ")
        raise GroupFileError(f"members[{position}] ({kinds[int(position)]}): {message}") from None
    return tuple(records), members


def _handles(raw: Any, members: Members) -> dict[str, tuple[PayHandle, ...]]:
    """Each member's pay handles, read by each kind's reader."""
    if not isinstance(raw, dict):
        raise GroupFileError(
            "'handles' must map each member to their pay handles, such as {\"Ann\": {\"paypal_me\": \"AnnLee\"}}"
        )
    out: dict[str, tuple[PayHandle, ...]] = {}
    for name, entry in raw.items():
        where = f"handles.{name}"
        member = _member(members, name, where)
        if member in out:
            raise GroupFileError(f"{where}: {member}'s handles are given twice")
        if not isinstance(entry, dict) or not entry:
            raise GroupFileError(f"{where} must be an object with at least one of {', '.join(_HANDLE_KEYS)}")
        _no_unknown(entry, set(_HANDLE_KEYS), where)
        handles: list[PayHandle] = []
        for key in _HANDLE_KEYS:
            if key not in entry:
                continue
            if key == "iban":
                handles.append(_iban(entry[key], f"{where}.iban"))
            else:
                reader = _USERNAME_HANDLES[key][0]
                handles.append(_read(lambda: reader(entry[key]), f"{where}.{key}"))
        out[member] = tuple(handles)
    return out


def _iban(raw: Any, where: str) -> Iban:
    if not isinstance(raw, dict):
        raise GroupFileError(f"{where} must be an object such as {{\"iban\": \"DE89 3704 …\", \"holder\": \"Ann Lee\"}}")
    _no_unknown(raw, _IBAN_KEYS, where)
    for key in ("iban", "holder"):
        if key not in raw:
            raise GroupFileError(f"{where}: '{key}' is missing")
    return _read(lambda: read_iban(raw["iban"], raw["holder"], raw.get("bic", "")), where)  # type: ignore[no-any-return]


def _member(members: Members, name: Any, where: str) -> str:
    """The member ``name`` is; refused naming ``where`` when it is not text or no member goes by it."""
    if not isinstance(name, str):
        raise GroupFileError(f"{where}: a member's name must be text")
    try:
        return members.member(name)
    except UnknownMember as error:
        raise GroupFileError(f"{where}: {error}") from None


def _night(index: int, entry: Any, members: Members, before: datetime.date | None) -> GroupNight:
    where = f"nights[{index}]"
    if not isinstance(entry, dict):
        raise GroupFileError(f"{where} must be an object with 'date' and 'night'")
    _no_unknown(entry, _NIGHT_KEYS, where)
    for key in ("date", "night"):
        if key not in entry:
            raise GroupFileError(f"{where}: '{key}' is missing")
    date = _read(lambda: night_date(entry["date"]), f"{where}.date")
    if before is not None and date < before:
        raise GroupFileError(
            f"{where}.date: {date} is before the night listed before it ({before}): list nights in the order played"
        )
    document = entry["night"]
    if not isinstance(document, dict) or document.get("format") != nightfile.FORMAT:
        raise GroupFileError(f"{where}.night must be a night file of the format \"{nightfile.FORMAT}\"")
    try:
        night = nightfile.from_dict(document)
    except (RecordError, IllegalAction) as error:
        raise GroupFileError(f"{where}.night: {error}") from None
    if night.paid:  # one place for them, so a payment is never stored twice
        raise GroupFileError(
            f"{where}.night: a group file lists the night's payments marked paid beside it, under {where}.paid "
            "({\"from\": …, \"to\": …, \"chips\": …}), not in the night's 'paid'"
        )
    for seat, player in enumerate(night.players):
        _member(members, player, f"{where}.night.players[{seat}]")
    paid = _paid(entry.get("paid", []), night.players, f"{where}.paid")
    night_id = str(index + 1)
    try:
        bare = night_result(night, night_id=night_id, date=date, title=night.name or f"Night {night_id}", paid=paid)
        seated = seated_members(bare, members)
    except (NotSettled, MemberError) as error:
        raise GroupFileError(f"{where}.night: {error}") from None
    _refuse_overpaid(bare, f"{where}.paid")
    # the night's own tab_cleared events are in ``bare`` already; the entry's records come after them
    cleared = _cleared(entry.get("cleared", []), bare, seated, members, f"{where}.cleared")
    return GroupNight(date, night, paid, replace(bare, cleared=(*bare.cleared, *cleared)))


def _refuse_overpaid(night: NightResult, where: str) -> None:
    """The payments marked paid may settle each player's balance on the night (what its plan gives or asks)
    towards zero, never past it nor the other way: more would pay what the night does not owe, and a
    payment from who is owed to who owes moves both away from zero.  The tab refuses the same on the page."""
    planned = open_on(replace(night, paid=(), cleared=()))
    after = open_on(replace(night, cleared=()))
    for player, owed in planned.items():
        left = after[player]
        if left and (owed == 0 or (left > 0) != (owed > 0) or abs(left) > abs(owed)):
            raise GroupFileError(
                f"{where}: the payments leave {player}'s balance on this night at {left} where its plan's is {owed}: "
                "they pay more than the night owes, or run from who is owed to who owes"
            )


def _paid(raw: Any, players: Sequence[str], where: str) -> tuple[Payment, ...]:
    """The settle-up payments marked paid at the night, in chips, as its "paid" events hold them."""
    if not isinstance(raw, list):
        raise GroupFileError(f"{where} must be a list of payments such as {{\"from\": \"Ben\", \"to\": \"Ann\", \"chips\": 4}}")
    out = []
    for index, entry in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(entry, dict):
            raise GroupFileError(f"{at} must be an object such as {{\"from\": \"Ben\", \"to\": \"Ann\", \"chips\": 4}}")
        _no_unknown(entry, _PAID_KEYS, at)
        payer, payee = (entry.get(k) for k in ("from", "to"))
        for key, name in (("from", payer), ("to", payee)):
            if not isinstance(name, str) or name not in players:
                raise GroupFileError(f"{at}: '{key}' must be a player seated at the night, as its file names them")
        if payer == payee:
            raise GroupFileError(f"{at}: {payer} cannot pay themselves")
        chips = _chips(entry.get("chips"), f"{at}.chips")
        out.append(Payment(payer, payee, chips))
    return tuple(out)


def _chips(raw: Any, where: str) -> int:
    """Chips: a JSON integer (a float, even 4.0, is refused), 1 to :data:`MAX_PAID_CHIPS`."""
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise GroupFileError(f"{where}: chips are a whole number written without a decimal point, such as 4")
    return _read(lambda: whole_number(str(raw), "the chips", low=1, high=MAX_PAID_CHIPS), where)  # type: ignore[no-any-return]


def _money(raw: Any, where: str) -> Decimal:
    """A signed amount written as a string ("2.50", "-2.50"), read as a chip value is: exact, never a float."""
    if not isinstance(raw, str):
        raise GroupFileError(f"{where}: an amount is a decimal written as a string, such as \"2.50\" or \"-2.50\"")
    negative = raw.startswith("-")
    try:
        amount = parse_chip_value(raw[1:] if negative else raw)
    except ValueError as error:
        raise GroupFileError(f"{where}: {error}") from None
    if not amount:
        raise GroupFileError(f"{where}: a cleared amount is never zero")
    return -amount if negative else amount


def _cleared(
    raw: Any, night: NightResult, seated: Mapping[str, str], members: Members, where: str
) -> tuple[Cleared, ...]:
    """The tab's records against the night, each moving one member's balance there towards zero, never past it."""
    if not isinstance(raw, list):
        raise GroupFileError(f"{where} must be a list of the tab's records against the night")
    balance = _balances(night, seated)
    out = []
    for index, entry in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(entry, dict):
            raise GroupFileError(f"{at} must be an object with 'member', 'amount', 'from' and 'to'")
        _no_unknown(entry, _CLEARED_KEYS, at)
        for key in sorted(_CLEARED_KEYS):
            if key not in entry:
                raise GroupFileError(f"{at}: '{key}' is missing")
        member = _member(members, entry["member"], f"{at}.member")
        payer = _member(members, entry["from"], f"{at}.from")
        payee = _member(members, entry["to"], f"{at}.to")
        if member not in balance:
            raise GroupFileError(f"{at}.member: {member} did not play this night")
        amount = _money(entry["amount"], f"{at}.amount")
        try:
            check_amount(abs(amount), night.unit, "the amount")
        except (TypeError, ValueError) as error:
            raise GroupFileError(f"{at}.amount: {error}") from None
        offset = payer == payee
        if offset and member != payer:
            raise GroupFileError(
                f"{at}: an offset ('from' and 'to' one member) is {member}'s own: 'from' and 'to' must be {member}"
            )
        if not offset and member not in (payer, payee):
            raise GroupFileError(f"{at}: {member} is neither who paid ({payer}) nor who was paid ({payee})")
        if not offset and (amount > 0) != (member == payer):
            sign = "above zero (what the payer pays off)" if member == payer else "below zero (what the payee receives)"
            raise GroupFileError(f"{at}.amount: {member}'s record of this payment is {sign}, not {amount}")
        held = balance[member]
        if not held or (held > 0) == (amount > 0) or abs(amount) > abs(held):
            raise GroupFileError(
                f"{at}.amount: {member}'s balance on this night is {held}: {amount} does not move it towards zero"
            )
        balance[member] = held + amount
        out.append(Cleared(night.night_id, member, amount, payer, payee))
    return tuple(out)


def _balances(night: NightResult, seated: Mapping[str, str]) -> dict[str, Decimal]:
    """Each member's balance on the night before the entry's tab records: what its plan gives them (+) or asks
    of them (−), less what was marked paid at the night, plus what its night file's ``tab_cleared`` settled."""
    balance = dict.fromkeys(seated.values(), Decimal(0))
    for transfer, sign in [(t, 1) for t in night.planned] + [(t, -1) for t in night.paid]:
        balance[seated[transfer.payer]] -= sign * transfer.amount
        balance[seated[transfer.payee]] += sign * transfer.amount
    for record in night.cleared:  # the night file's own tab_cleared events
        balance[seated[record.member]] += record.amount
    return balance


# --- writing -------------------------------------------------------------------------------------


def to_dict(group: GroupFile) -> dict[str, Any]:
    """A group as a ``companion-group/1`` document: reading it back gives the same values."""
    document: dict[str, Any] = {"format": FORMAT, "name": group.name, "members": [_record(r) for r in group.records]}
    if group.handles:
        document["handles"] = {member: dict(_handle(h) for h in handles) for member, handles in group.handles.items()}
    document["nights"] = [_night_entry(n) for n in group.nights]
    return document


def dumps(group: GroupFile) -> str:
    return json.dumps(to_dict(group), indent=2, ensure_ascii=False) + "\n"


def _record(record: MemberRecord) -> dict[str, str]:
    if isinstance(record, Added):
        return {"added": record.name}
    if isinstance(record, Merged):
        return {"merged": record.merged, "into": record.kept}
    return {"renamed": record.old, "to": record.new}


def _handle(handle: PayHandle) -> tuple[str, Any]:
    if isinstance(handle, Iban):
        written = {"iban": handle.iban, "holder": handle.holder}
        return "iban", {**written, "bic": handle.bic} if handle.bic else written
    key = next(k for k, (_, kind) in _USERNAME_HANDLES.items() if isinstance(handle, kind))
    return key, handle.username


def _amount_text(amount: Decimal, unit: str | None) -> str:
    """An amount as the file writes it: whole chips ("3"), or money as the app writes it ("-0.50", "0.125")."""
    return f"{amount:f}" if unit is None else format_money(amount, "")


def _night_entry(night: GroupNight) -> dict[str, Any]:
    read = night.night
    entry: dict[str, Any] = {
        "date": night.date.isoformat(),
        "night": nightfile.to_dict(read.name, read.play, read.money, night_ledger(read), recorded_by=read.recorded_by),
    }
    if night.paid:
        entry["paid"] = [{"from": p.payer, "to": p.payee, "chips": p.chips} for p in night.paid]
    extra = night.cleared[len(night_ledger(read).tab):]  # those the night document does not hold itself
    if extra:
        entry["cleared"] = [
            {"member": c.member, "amount": _amount_text(c.amount, night.result.unit), "from": c.payer, "to": c.payee}
            for c in extra
        ]
    return entry
