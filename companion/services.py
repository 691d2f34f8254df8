"""The service layer: the one place that commits to the database.

Views translate a request into a call here and the result into a page; rule
errors come back as :class:`~companion.napalm.IllegalAction`, stale or doubled
submits as :class:`StaleTable` / :class:`KeyConflict`, and nothing is written
unless the whole action is legal and the table is still at the version the
scorekeeper saw.

A night's :class:`~companion.napalm.Table` is the fold of its events.  Each
process keeps the fold of the nights it has served, keyed by the night's
version, and catches up from the database when another process (or phone) has
written since, so recording stays constant-time on a long night without
trusting anything but the event log.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from .database import write_transaction
from .extensions import db
from .models import Event, Night
from .napalm import IllegalAction, Record, Rules, Table
from .napalm import history as hh
from .napalm.closing import close_night
from .napalm.codec import GAME_KINDS, from_event, to_event
from .napalm.table import Action

#: 32 random bytes: 43 URL-safe characters, 256 bits, far beyond guessing.
KEY_BYTES = 32
LEDGER_KINDS = ("paid",)

#: What a night's row can hold (see :class:`~companion.models.Night`): a longer name or a
#: larger chip value is refused with a message, never cut short or left to the database.
MAX_NIGHT_NAME = 80
MAX_CHIP_VALUE = Decimal("99999999.9999")  # Numeric(12, 4)
#: Text no database stores faithfully: NUL (PostgreSQL refuses it) and lone surrogates (not UTF-8).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def check_storable(value: Any, what: str) -> None:
    """Raise IllegalAction if ``value`` holds text that cannot be stored (NUL, lone surrogates)."""
    if isinstance(value, str):
        if _UNSTORABLE.search(value):
            raise IllegalAction(f"{what} contains characters that cannot be stored (a NUL or a broken character)")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_storable(key, what)
            check_storable(item, what)
    elif isinstance(value, (list, tuple)):
        for item in value:
            check_storable(item, what)


def _check_night_fields(name: str, players: list[str], settings: hh.Settings) -> None:
    check_storable(name, "the night's name")
    check_storable(list(players), "a player's name")
    check_storable(settings.currency, "the currency")
    if len(name.strip()) > MAX_NIGHT_NAME:
        raise IllegalAction(f"the night's name is longer than {MAX_NIGHT_NAME} characters")
    if not Decimal(0) <= Decimal(settings.chip_value) <= MAX_CHIP_VALUE:
        raise IllegalAction(f"a chip can be worth at most {MAX_CHIP_VALUE:,}")


class StaleTable(Exception):
    """The form was made for an older version of the table; nothing was recorded."""

    def __init__(self, current_version: int) -> None:
        super().__init__("The table changed since this screen was shown; nothing was recorded.")
        self.current_version = current_version


class KeyConflict(Exception):
    """The same request key came back with different content; nothing was recorded."""

    def __init__(self) -> None:
        super().__init__("This form was already submitted with different content; nothing was recorded.")


@dataclass(frozen=True)
class Recorded:
    """What a successful (or repeated) submit did."""

    seq: int
    summary: str
    repeated: bool = False


def new_key() -> str:
    return secrets.token_urlsafe(KEY_BYTES)


# --- the per-process fold cache ------------------------------------------------

_cache: dict[int, tuple[int, Table]] = {}
_locks: dict[int, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock_for(night_id: int) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(night_id, threading.Lock())


def clear_cache() -> None:
    """Forget every cached fold (tests use this to prove the log alone suffices)."""
    _cache.clear()
    _derived.clear()


#: (what, night id) -> (version, value): what this process last derived from each night.
_derived: dict[tuple[str, int], tuple[int, Any]] = {}


def derived(what: str, night_id: int, version: int) -> Any | None:
    """The value kept by :func:`keep_derived` for this night at this version, if any.

    Once play has started (version > 0) a night's seating, rules and settings can no
    longer change, and its first ``version`` events never do: anything computed from
    them is a function of the night's id and version, valid in any process.
    """
    kept = _derived.get((what, night_id))
    return kept[1] if kept is not None and kept[0] == version and version > 0 else None


def keep_derived(what: str, night_id: int, version: int, value: Any) -> None:
    """Keep ``value`` as ``what`` of this night at this version (never before play starts)."""
    if version > 0:
        if len(_derived) >= 10_000:  # bounded memory
            _derived.clear()
        _derived[(what, night_id)] = (version, value)


def rules_of(night: Night) -> Rules:
    return Rules(ante=night.ante, ante_every=night.ante_every, tokens_to_win=night.tokens_to_win)


def new_table(night: Night) -> Table:
    return Table(night.players, night.first_dealer, rules_of(night), night.carried_in or None)


def settings_of(night: Night) -> hh.Settings:
    return hh.Settings(
        chip_value=Decimal(night.chip_value or 0),
        currency=night.currency or "",
        unfinished_pot=night.unfinished_pot,
    )


def _apply(table: Table, event: Event) -> None:
    if event.kind in GAME_KINDS:
        table.push(from_event(event.kind, event.payload))


def table_for(night: Night) -> Table:
    """The fold of ``night``'s events at ``night.version`` (cached; rebuilt from the log when needed)."""
    with _lock_for(night.id):
        cached = _cache.get(night.id)
        if cached is not None and cached[0] <= night.version and _same_setup(cached[1], night):
            version, table = cached
        else:
            version, table = 0, new_table(night)
        if version < night.version:
            events = db.session.scalars(
                select(Event)
                .where(Event.night_id == night.id, Event.seq > version, Event.seq <= night.version)
                .order_by(Event.seq)
            ).all()
            for event in events:
                _apply(table, event)
            version = night.version
            _cache[night.id] = (version, table)
        return _snapshot(table)


def _snapshot(table: Table) -> Table:
    """A copy of the cached fold for one request to read and verify on its own.

    The cached fold goes on growing (under the lock) as other threads record; a
    request holding it could read it half-pushed, or verify an action against a
    later table than the version it checked (PostgreSQL does not serialise writers
    at BEGIN as SQLite does).  The copy shares only immutable parts: records and
    positions are frozen, so copying the lists costs microseconds on a long night.
    """
    copied = copy.copy(table)
    for name, value in vars(table).items():
        if isinstance(value, (list, dict, set)):
            setattr(copied, name, value.copy())
    return copied


def _same_setup(table: Table, night: Night) -> bool:
    """Whether ``table`` was folded for ``night``'s seating and rules as the database has them now.

    They change only before play (version 0), but another process may have changed
    them since this one cached the fold: then the fold is rebuilt, never trusted.
    """
    rules = table.rules
    return (
        table.players == tuple(night.players)
        and table.first_dealer == night.first_dealer
        and table.carried_in == (night.carried_in or {})
        and (rules.ante, rules.ante_every, rules.tokens_to_win) == (night.ante, night.ante_every, night.tokens_to_win)
    )


def events_of(night: Night) -> list[Event]:
    return list(db.session.scalars(select(Event).where(Event.night_id == night.id).order_by(Event.seq)))


# --- nights ----------------------------------------------------------------------


def create_night(
    name: str,
    players: list[str],
    first_dealer: str | None,
    rules: Rules,
    settings: hh.Settings,
    request_key: str | None = None,
    carried_in: Mapping[str, int] | None = None,
) -> Night:
    """Seat a new night; raises IllegalAction when the seating or rules are wrong.

    With a ``request_key``, the same form sent again (a doubled tap, a re-sent
    page) finds the night the first one started instead of starting another;
    the same key with other content raises :class:`KeyConflict`.  ``carried_in``
    is a pot carried in from a previous night (see :class:`~companion.napalm.Table`).
    """
    digest = _digest(
        "create", name, players, first_dealer, rules.ante, rules.ante_every, rules.tokens_to_win,
        str(settings.chip_value), settings.currency, settings.unfinished_pot,
        *([dict(carried_in)] if carried_in else []),
    )
    return _add_night(
        request_key, digest, lambda: _new_night(name, players, first_dealer, rules, settings, carried_in)
    )[0]


def _digest(*content: Any) -> str:
    return hashlib.sha256(json.dumps(content, ensure_ascii=True, default=str).encode()).hexdigest()


def _started_by(request_key: str, digest: str) -> Night | None:
    night = db.session.scalar(select(Night).where(Night.request_key == request_key))
    if night is not None and night.request_digest != digest:
        raise KeyConflict()
    return night


def _add_night(
    request_key: str | None,
    digest: str,
    make: Callable[[], Night],
    found_instead: Callable[[], Night | None] = lambda: None,
) -> tuple[Night, bool]:
    """Commit the night ``make`` builds, once per request key: (the night, whether this call added it).

    When a unique constraint refuses the commit (the same key, or ``found_instead``'s
    night, committed at the same moment by another request), the other request won:
    answer with its night.
    """
    if request_key is not None:
        earlier = _started_by(request_key, digest)
        if earlier is not None:
            return earlier, False
    night = make()  # validates: raises before anything is written
    night.request_key, night.request_digest = request_key, (digest if request_key else None)
    db.session.add(night)
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        earlier = _started_by(request_key, digest) if request_key is not None else None
        earlier = earlier or found_instead()
        if earlier is None:
            raise
        return earlier, False
    return night, True


def _new_night(
    name: str,
    players: list[str],
    first_dealer: str | None,
    rules: Rules,
    settings: hh.Settings,
    carried_in: Mapping[str, int] | None = None,
) -> Night:
    _check_night_fields(name, players, settings)
    table = Table(players, first_dealer, rules, carried_in)  # validates
    return Night(
        name=name.strip() or "Napalm night",
        keeper_key=new_key(),
        viewer_key=new_key(),
        players=list(table.players),
        first_dealer=table.first_dealer,
        ante=rules.ante,
        ante_every=rules.ante_every,
        tokens_to_win=rules.tokens_to_win,
        chip_value=settings.chip_value,
        currency=settings.currency,
        unfinished_pot=settings.unfinished_pot,
        version=0,
        carried_in=table.carried_in or None,
    )


def update_setup(
    night: Night,
    name: str,
    players: list[str],
    first_dealer: str | None,
    rules: Rules,
    settings: hh.Settings,
    expected_version: int,
) -> None:
    """Change seating and settings, allowed only before the first action is recorded."""
    if night.version != 0 or expected_version != 0:
        raise IllegalAction("play has started: the seating and rules can no longer change")
    _check_night_fields(name, players, settings)
    continued = continuation_of(night)
    if continued is not None:
        raise IllegalAction(f"this night's pot was carried into \u201c{continued.name}\u201d: its setup can no longer change")
    # a contributor not seated any more takes their share of the carried pot back in the
    # previous night's settle-up; the rest stays in this night's pot (issue 14, item 16)
    seated = {p.strip().casefold() for p in players}
    carried = {n: c for n, c in (night.carried_in or {}).items() if n.strip().casefold() in seated}
    table = Table(players, first_dealer, rules, carried or None)
    night.name = name.strip() or night.name
    night.players = list(table.players)
    night.first_dealer = table.first_dealer
    night.carried_in = table.carried_in or None  # the names as seated now
    night.ante, night.ante_every, night.tokens_to_win = rules.ante, rules.ante_every, rules.tokens_to_win
    night.chip_value = settings.chip_value
    night.currency = settings.currency
    night.unfinished_pot = settings.unfinished_pot
    result = db.session.execute(
        update(Night).where(Night.id == night.id, Night.version == 0).values(version=0)
    )
    if result.rowcount != 1:  # pragma: no cover - raced with the first action
        db.session.rollback()
        raise StaleTable(night.version)
    db.session.commit()
    _cache.pop(night.id, None)


# --- carrying an unfinished pot into the next night --------------------------------------

#: What the next night's name adds to the night its pot comes from.
CONTINUED = " (continued)"


@dataclass(frozen=True)
class NextNight:
    """What "Start the next night with this pot" starts: the rest is the same as the night it continues."""

    name: str
    first_dealer: str
    carried_in: dict[str, int]  # each contributor's chips in the carried pot, in seat order

    @property
    def pot(self) -> int:
        return sum(self.carried_in.values())


def continuation_of(night: Night) -> Night | None:
    """The night ``night``'s unfinished pot was carried into, if any (at most one: a unique column)."""
    if night.unfinished_pot != "carry":
        return None  # only a "carry" night can be continued: no query for the others
    return db.session.scalar(select(Night).where(Night.carried_from == night.id))


def carried_from_of(night: Night) -> Night | None:
    """The night whose unfinished pot ``night`` started with, if it was started that way."""
    return db.session.get(Night, night.carried_from) if night.carried_from is not None else None


def next_night_of(night: Night, table: Table | None = None) -> NextNight:
    """The night that would carry ``night``'s pot on; IllegalAction says why there is none.

    The same players in the same seats, the same rules and money settings; the
    deal passes to the left of the last hand's dealer (when the night ended in the
    middle of a hand; between hands the next dealer is already known); the first
    game's pot is the whole unfinished pot, each contributor keeping their share.
    """
    if night.unfinished_pot != "carry":
        raise IllegalAction(
            "this night's setting for an unfinished pot is not \u201ccarry it to the next night\u201d: "
            "there is no pot to carry"
        )
    table = table if table is not None else table_for(night)
    closing = close_night(table, "carry")
    if not closing.carried:
        raise IllegalAction("no game was left unfinished with chips in the pot: there is nothing to carry")
    position = table.position
    dealer = (position.dealer + 1) % len(table.players) if position.ante_paid else position.dealer
    name = night.name if night.name.endswith(CONTINUED) else night.name[: MAX_NIGHT_NAME - len(CONTINUED)].rstrip() + CONTINUED
    return NextNight(name=name, first_dealer=table.players[dealer], carried_in=closing.carried_shares)


def carry_pot(night: Night, expected_version: int, request_key: str | None = None) -> tuple[Night, bool]:
    """Start the next night with ``night``'s unfinished pot: (that night, whether this call started it).

    A night's pot is carried once: the same submit again (its ``request_key``), or
    another phone's, finds the night the first one started.  ``night`` itself is
    not changed (its ledger is append-only); the new night points back at it
    (``carried_from``), and from then on ``night`` takes no more game actions
    (its settle-up payments can still be marked).  Raises :class:`StaleTable` when
    ``night`` changed since the page was shown, IllegalAction when there is no pot
    to carry.
    """
    digest = _digest("carry", night.id)
    if request_key is not None:
        earlier = _started_by(request_key, digest)
        if earlier is not None:
            return earlier, False
    # Lock the night's row (PostgreSQL; SQLite serialises every write request at BEGIN): an
    # action being recorded on it finishes first, and one that comes after finds it carried.
    night = db.session.get(Night, night.id, with_for_update=True, populate_existing=True) or night
    existing = continuation_of(night)
    if existing is not None:
        return existing, False
    if expected_version != night.version:
        raise StaleTable(night.version)
    plan = next_night_of(night)
    night_id = night.id

    def make() -> Night:
        new = _new_night(
            plan.name, list(night.players), plan.first_dealer, rules_of(night), settings_of(night), plan.carried_in
        )
        new.carried_from = night_id
        return new

    # another phone carrying it at the same moment meets carried_from's unique constraint
    return _add_night(
        request_key, digest, make, lambda: continuation_of(db.session.get(Night, night_id, populate_existing=True))
    )


def rotate_link(night: Night, which: str) -> None:
    """Replace the scorekeeper's or the players' secret; the old link stops working."""
    if which == "keeper":
        night.keeper_key = new_key()
    elif which == "viewer":
        night.viewer_key = new_key()
    else:
        raise IllegalAction("choose the scorekeeper's or the players' link")
    db.session.commit()


# --- recording ----------------------------------------------------------------------


def record(
    night_id: int,
    action: Action,
    expected_version: int,
    request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Record a game action, once, if legal and the table is still at ``expected_version``."""
    kind, payload = to_event(action)
    return _append(night_id, kind, payload, expected_version, request_key, recorded_by)


def mark_paid(
    night_id: int,
    payer: str,
    payee: str,
    amount: int,
    expected_version: int,
    request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Record that a settle-up payment was made (a ledger event; the game ignores it)."""
    payload = {"payer": payer, "payee": payee, "chips": amount}
    return _append(night_id, "paid", payload, expected_version, request_key, recorded_by)


def _append(
    night_id: int,
    kind: str,
    payload: dict[str, Any],
    expected_version: int,
    request_key: str | None,
    recorded_by: str,
) -> Recorded:
    check_storable(payload, "the form")
    db.session.rollback()  # end any read transaction: the write starts afresh, immediately
    # A lock that outwaits its timeout raises OperationalError here as in any query of the
    # request; the app answers every such error alike (views: 503, "busy, not confirmed").
    with write_transaction():
        return _append_locked(night_id, kind, payload, expected_version, request_key, recorded_by)


def _append_locked(
    night_id: int,
    kind: str,
    payload: dict[str, Any],
    expected_version: int,
    request_key: str | None,
    recorded_by: str,
) -> Recorded:
    night = db.session.get(Night, night_id, populate_existing=True)
    if night is None:
        raise IllegalAction("this night does not exist")
    if request_key is not None:
        repeated = _repeated(night, kind, payload, request_key)
        if repeated is not None:
            db.session.rollback()
            return repeated
    if expected_version != night.version:
        current = night.version
        db.session.rollback()
        raise StaleTable(current)
    table = table_for(night)
    if kind in GAME_KINDS:
        try:
            outcome = table.verify(from_event(kind, payload))
        except IllegalAction:
            db.session.rollback()
            raise
        summary = outcome.summary
    else:
        summary = _verify_ledger_event(night, table, kind, payload)
    result = db.session.execute(
        update(Night)
        .where(Night.id == night.id, Night.version == expected_version)
        .values(version=expected_version + 1)
    )
    if result.rowcount != 1:
        db.session.rollback()
        if request_key is not None:
            # Another copy of this very submit may have won the race (PostgreSQL makes the
            # loser wait for the winner's commit, then finds the version moved on): answer
            # as the winner did, or refuse the same key with other content.
            night = db.session.get(Night, night_id, populate_existing=True)
            repeated = _repeated(night, kind, payload, request_key) if night is not None else None
            if repeated is not None:
                db.session.rollback()
                return repeated
        raise StaleTable(expected_version + 1)
    if kind in GAME_KINDS:
        # checked with the night's row locked by the update above, so that a pot carried
        # to the next night at the same moment (carry_pot locks the row too) is seen here
        continued = continuation_of(night)
        if continued is not None:
            where = continued.name
            db.session.rollback()
            raise IllegalAction(
                f"this night's pot was carried into \u201c{where}\u201d: "
                "its table is closed (settle-up payments can still be marked)"
            )
    seq = expected_version + 1
    db.session.add(
        Event(
            night_id=night.id,
            seq=seq,
            kind=kind,
            payload=payload,
            request_key=request_key,
            recorded_by=recorded_by[:40],
        )
    )
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        night = db.session.get(Night, night_id, populate_existing=True)
        if request_key is not None and night is not None:
            repeated = _repeated(night, kind, payload, request_key)
            if repeated is not None:
                return repeated
        raise StaleTable(night.version if night else 0) from None
    with _lock_for(night_id):
        cached = _cache.get(night_id)
        if cached is not None and cached[0] == expected_version:
            # the cached fold is at the version this action was verified at: advance it
            try:
                if kind in GAME_KINDS:
                    cached[1].push(from_event(kind, payload))
                _cache[night_id] = (seq, cached[1])
            except IllegalAction:  # pragma: no cover - the same fold as the verified copy
                _cache.pop(night_id, None)
    return Recorded(seq=seq, summary=summary)


def _repeated(night: Night, kind: str, payload: dict[str, Any], request_key: str) -> Recorded | None:
    event = db.session.scalar(
        select(Event).where(Event.night_id == night.id, Event.request_key == request_key)
    )
    if event is None:
        return None
    if event.kind != kind or event.payload != payload:
        raise KeyConflict()
    if night.version < event.seq:
        # read committed (PostgreSQL): the event committed after the night row was read
        db.session.refresh(night)
    return Recorded(seq=event.seq, summary=summary_of(night, event.seq), repeated=True)


def card_holders_for_key(night: Night, request_key: str) -> tuple[str, ...] | None:
    """The Yes players whose cards were recorded by the submit made with ``request_key``, if any."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{16,64}", request_key or ""):
        return None
    event = db.session.scalar(select(Event).where(Event.night_id == night.id, Event.request_key == request_key))
    if event is None or event.kind != "showdown" or not isinstance(event.payload.get("cards"), dict):
        return None
    return tuple(event.payload["cards"])


def summary_of(night: Night, seq: int) -> str:
    """The summary of the record made by event ``seq`` (ledger events describe themselves)."""
    table = table_for(night)
    event = db.session.scalar(select(Event).where(Event.night_id == night.id, Event.seq == seq))
    if event is None:
        return ""
    if event.kind not in GAME_KINDS:
        return describe_ledger_event(event.kind, event.payload)
    game_seq = sum(
        1
        for kind in db.session.scalars(
            select(Event.kind).where(Event.night_id == night.id, Event.seq <= seq)
        )
        if kind in GAME_KINDS
    )
    return table.log[game_seq - 1].summary if 0 < game_seq <= len(table.log) else ""


def _verify_ledger_event(night: Night, table: Table, kind: str, payload: dict[str, Any]) -> str:
    if kind != "paid":
        raise IllegalAction(f"unknown event kind {kind!r}")
    payer, payee, chips = payload.get("payer"), payload.get("payee"), payload.get("chips")
    if payer not in table.players or payee not in table.players or payer == payee:
        raise IllegalAction("a payment is between two different players at this table")
    if isinstance(chips, bool) or not isinstance(chips, int) or chips <= 0:
        raise IllegalAction("a payment is a positive whole number of chips")
    return describe_ledger_event(kind, payload)


def describe_ledger_event(kind: str, payload: dict[str, Any]) -> str:
    if kind == "paid":
        return f"{payload['payer']} paid {payload['payee']} {payload['chips']} chips (settle-up)."
    return kind


# --- import / export -------------------------------------------------------------------


def import_history(text: str | bytes, name: str | None = None, request_key: str | None = None) -> Night:
    """A new night from a hand-history file; raises HistoryError and writes nothing if it is wrong.

    A ``request_key`` makes a doubled upload import once (see :func:`create_night`).
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    digest = _digest("import", hashlib.sha256(raw).hexdigest(), name)

    def make() -> Night:
        parsed = hh.loads(text)
        table = parsed.table
        night = _new_night(
            name or parsed.name or "Imported night",
            list(table.players),
            table.first_dealer,
            table.rules,
            parsed.settings,
            table.carried_in or None,
        )
        records = table.live_records()
        night.version = len(records)
        night.events = [
            Event(seq=seq, kind=kind, payload=payload, recorded_by="import")
            for seq, (kind, payload) in enumerate((to_event(r.action) for r in records), start=1)
        ]
        return night

    return _add_night(request_key, digest, make)[0]


def export_history(night: Night) -> str:
    return hh.dumps(table_for(night), settings_of(night), night.name)
