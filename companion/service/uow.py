"""The unit of work: every command that writes goes through one, and only a unit commits.

As Cosmic Python's ``unit_of_work.py``, without repository classes (the SQLAlchemy session
is the one repository): a command opens a unit, reads and checks what it needs inside it,
and either the unit commits what the command added, once, or nothing at all is written.
Every command of the service (a game's action, a payment marked paid, a game started or
taken back, the bank and the Bonus Round, the setup, a link replaced, a night opened,
imported or carried on) is made safe here, in one place, against a doubled tap, a resend
after a lost answer, and another phone's submit at the same moment:

* **the write transaction**: entering a unit ends the request's read, and the unit's
  transaction begins with ``BEGIN IMMEDIATE`` on SQLite (the engine's one switch,
  :func:`companion.db.engine.write_transaction`), so two writers queue at BEGIN instead of
  failing half-way; a night is loaded for writing with its row locked (:meth:`UnitOfWork.night`,
  PostgreSQL), so two commands on one night take turns; leaving a unit uncommitted rolls back;
* **the request key**: a form carries a key made with the page; the same key again is
  answered with what the first submit did (:class:`Recorded` with ``repeated``, or the night
  it started) and records nothing, and the same key with other content is refused
  (:class:`KeyConflict`);
* **the version compare-and-set**: a command made for an older version of the table changes
  nothing (:class:`StaleTable`); the version moves on with each event, in the same
  transaction;
* **a group's command** (:meth:`UnitOfWork.group_command`): the group's row locked, the same
  key and version checks on the group's records, and the night events a tab payment appends
  to several nights in the same transaction, each night's version moving on;
* **the one commit point**, :meth:`UnitOfWork.commit`, after which the process's kept folds
  follow what was committed (:func:`companion.service.store.advance`).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from companion.db import change_watch, disk
from companion.db.engine import write_transaction
from companion.db.models import Event, Game, Group, GroupNight, GroupRecord, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.games.night_kinds import LEDGER_KINDS
from companion.values import limits
from companion.night.play import NightPlay
from companion.service import store
from companion.service.history import summary_of

#: 32 random bytes: 43 URL-safe characters, 256 bits, far beyond guessing.
KEY_BYTES = 32


def new_key() -> str:
    """A fresh secret: a night's link, or the request key a form is made with."""
    return secrets.token_urlsafe(KEY_BYTES)


def new_keys(count: int) -> list[str]:
    """``count`` fresh secrets as :func:`new_key` makes each (``secrets.token_urlsafe``: the URL-safe base64
    of as many bytes of ``os.urandom``, unpadded), from one read of the system's randomness: a kept page
    with forty forms pastes forty request keys into every request's copy."""
    raw = os.urandom(KEY_BYTES * count)
    return [
        base64.urlsafe_b64encode(raw[at : at + KEY_BYTES]).rstrip(b"=").decode("ascii")
        for at in range(0, KEY_BYTES * count, KEY_BYTES)
    ]


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


def check_storable(value: Any, what: str) -> None:
    """Raise IllegalAction if ``value`` holds text that cannot be stored (NUL, lone surrogates)."""
    if limits.unstorable(value):
        raise IllegalAction(limits.unstorable_message(what))


def digest(*content: Any) -> str:
    """What a form that starts a night said, in 64 characters: the same key with another digest is refused."""
    return hashlib.sha256(json.dumps(content, ensure_ascii=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class Command:
    """One submit that adds an event to a night's log, as its form sent it.

    ``said`` is what the form asked for: the event's payload, but for what the app fills
    in when the command is carried out (``filled_in``: a roll's dice, the number of the game
    started), which a repeat of the same submit need not say again and cannot change.
    """

    night_id: int
    kind: str
    said: dict[str, Any]
    expected_version: int
    request_key: str | None = None
    recorded_by: str = "scorekeeper"
    filled_in: tuple[str, ...] = ()

    def said_again_in(self, event: Event) -> bool:
        """Whether ``event`` (recorded with this command's key) is this very command."""
        asked = {key: value for key, value in event.payload.items() if key not in self.filled_in}
        return event.kind == self.kind and asked == self.said


@dataclass(frozen=True)
class Entry:
    """What a command, checked against the night at its version, adds to the log.

    ``game``: the row of the game the event belongs to (one already played, or a new one
    the event starts, written with it), None for the night's own events.
    """

    payload: dict[str, Any]
    summary: str
    game: Game | None = None


#: a command's own check: given the night (locked, at the version the form was made for) and
#: its fold, the entry it adds, or IllegalAction saying why not (nothing is written)
Decide = Callable[[Night, NightPlay], Entry]


@dataclass(frozen=True)
class GroupRecorded:
    """What a successful (or repeated) group command did: the group's version after it, in a sentence."""

    version: int
    summary: str
    repeated: bool = False


@dataclass(frozen=True)
class GroupCommand:
    """One submit of a group's page, as its form sent it.

    ``kind`` and ``said`` are the record that carries the request key (the command's last), but for
    what the app fills in (``filled_in``: a payment's reference); ``summary_again`` answers a repeat.
    """

    group_id: int
    kind: str
    said: dict[str, Any]
    expected_version: int
    request_key: str | None = None
    recorded_by: str = "organiser"
    filled_in: tuple[str, ...] = ()
    summary_again: str = "Already recorded."


@dataclass(frozen=True)
class GroupEntry:
    """What a group command, checked against the group at its version, writes: its records in order
    (the last one is the command's own, ``GroupCommand.kind``), and night events per night id."""

    records: tuple[tuple[str, dict[str, Any]], ...]
    summary: str
    night_events: dict[int, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)


#: a group command's own check: given the unit (to lock and read nights) and the group (locked, at the
#: version the form was made for), what it writes, or IllegalAction (or a group rule's error) saying why not
GroupDecide = Callable[["UnitOfWork", Group], GroupEntry]


#: whether this thread (or task) is inside a unit: a command runs in one unit, never two nested
_inside: ContextVar[bool] = ContextVar("companion_unit_of_work", default=False)


def end_reads() -> None:
    """End the open read before something slow is done outside any unit (reading a large file), so that
    no lock is held meanwhile, or after a command was refused as stale, so that the page that says so
    reads its rows anew (the version it shows is the one that is current now).  Nothing is pending:
    only a unit writes."""
    db.session.rollback()


def watch_commits(waker: threading.Event) -> change_watch.ChangeWatch:
    """The change watch of this app's database (its ``generation()`` moves on after every commit, in any
    process), with ``waker`` set each time a commit is heard of: the live pages' push waits on it
    (web/plumbing/live_push.py).  Called within the app's context (the watch is its engine's)."""
    watch = change_watch.watch_of(db.engine)
    change_watch.wake_on_change(waker)
    return watch


class UnitOfWork:
    """One write transaction: ``with UnitOfWork() as uow: ... uow.commit()``; anything else rolls back.

    ``UnitOfWork(of_the_nights=False)``: a write that touches no night and no group (a refused form
    kept to show again, a count against a brake: service/housekeeping.py), whose commit the change
    watch need not hear of: no poll reads the database again for it."""

    def __init__(self, *, of_the_nights: bool = True) -> None:
        self._of_the_nights = of_the_nights
        self._committed = False
        self._nights: dict[int, Night] = {}
        self._after_commit: list[Callable[[], None]] = []
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> UnitOfWork:
        if _inside.get():
            raise RuntimeError("a unit of work is already open: a command runs in one unit")
        db.session.rollback()  # end the request's read: the unit's transaction starts afresh, immediately
        self._stack.enter_context(write_transaction())
        token = _inside.set(True)
        self._stack.callback(_inside.reset, token)
        return self

    def __exit__(
        self, error_type: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        with self._stack:
            if self._committed:
                return
            if error is None:
                db.session.rollback()
                return
            # an error on its way out: whatever it was, nothing of this unit is written; a connection
            # lost with it cannot roll back, and the request's teardown lets it go (the error stands)
            with contextlib.suppress(DBAPIError):
                db.session.rollback()

    def commit(self) -> None:
        """The one commit point; then the kept folds follow what was committed.

        The change watch hears of it (db/change_watch.py): every process's listener on
        PostgreSQL (a NOTIFY in the transaction, delivered only if it commits), and this
        process at once, so the live pages' push reads the stamps again.  A unit that changed no
        night or group (a refused form kept, a count against a brake) is not heard of.
        """
        if self._of_the_nights:
            change_watch.notify(db.session)
        try:
            db.session.commit()
        finally:  # even if it failed half-way (it may have been written): the push reads again
            if self._of_the_nights:
                change_watch.committed()
        disk.written(db.engine)  # stored: whatever full disk a write found before, there is room now
        self._committed = True
        for follow in self._after_commit:
            follow()

    def _rollback(self) -> None:
        db.session.rollback()
        self._nights.clear()
        self._after_commit.clear()

    # --- the nights it writes ------------------------------------------------------------------

    def night(self, night_id: int) -> Night:
        """``night_id``'s night, at its latest version, its row locked until the unit ends.

        The lock (PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` already holds off every other
        writer) makes the commands on one night take turns: a command checks the night as
        its write will find it, and a pot carried to the next night at the same moment is
        seen by an action recorded after it.
        """
        night = self._nights.get(night_id)
        if night is None:
            night = db.session.get(Night, night_id, with_for_update=True, populate_existing=True)
            if night is None:
                raise IllegalAction("this night does not exist")
            self._nights[night_id] = night
        return night

    def nights(self, night_ids: Iterable[int]) -> dict[int, Night]:
        """Each of ``night_ids``' nights at its latest version, all their rows locked in one query, in the order
        of their ids (one order for every writer: no two units wait on each other), until the unit ends.

        What :meth:`night` does for one, for many at once: a tab payment of a group of two hundred nights
        locks them in one ``SELECT … ORDER BY id FOR UPDATE`` (PostgreSQL locks the rows in the order
        it returns them), not in two hundred.  On SQLite ``BEGIN IMMEDIATE`` already holds every other
        writer off, and the query is a plain SELECT.
        """
        wanted = list(dict.fromkeys(night_ids))
        missing = sorted(set(wanted) - self._nights.keys())
        if missing:
            found = db.session.scalars(
                select(Night).where(Night.id.in_(missing)).order_by(Night.id).with_for_update()
                .execution_options(populate_existing=True)
            )
            for night in found:
                self._nights[night.id] = night
            if any(night_id not in self._nights for night_id in missing):
                raise IllegalAction("this night does not exist")
        return {night_id: self._nights[night_id] for night_id in wanted}

    def compare_and_set(self, night: Night, expected_version: int, version: int) -> None:
        """Move ``night`` from ``expected_version`` to ``version``, or raise :class:`StaleTable` (nothing moves)."""
        result = db.session.execute(
            update(Night).where(Night.id == night.id, Night.version == expected_version).values(version=version)
        )
        if result.rowcount != 1:
            raise StaleTable(night.version)

    def forget_fold_on_commit(self, night_id: int) -> None:
        """Once committed, drop the kept fold of a night whose setup this unit changed."""
        self._after_commit.append(lambda: store.forget(night_id))

    # --- a command that adds an event --------------------------------------------------------

    def append(self, command: Command, decide: Decide) -> Recorded:
        """Add the event ``decide`` makes of ``command`` to its night's log, once per request key,
        only at the version the form was made for; commit.

        In this order, whatever the command: what the form said must be storable; the same
        key again answers with the first result; a stale version is refused; a full night is
        refused; then the command's own check (``decide``), against the night's fold.
        """
        check_storable(command.said, "the form")
        night = self.night(command.night_id)
        repeated = self._answered(night, command)
        if repeated is not None:
            return repeated
        if command.expected_version != night.version:
            raise StaleTable(night.version)
        _check_room(night, command.kind)
        entry = decide(night, store.play_for(night))
        check_storable(entry.payload, "the form")
        seq = command.expected_version + 1
        try:
            self.compare_and_set(night, command.expected_version, seq)
        except StaleTable:  # pragma: no cover - the row is locked: only a writer outside every unit gets here
            return self._after_a_lost_race(command)
        game_id, position = self._game_of(night, entry)
        db.session.add(
            Event(
                night_id=night.id,
                game_id=game_id,
                seq=seq,
                kind=command.kind,
                payload=entry.payload,
                request_key=command.request_key,
                recorded_by=command.recorded_by[:40],
            )
        )
        night_id, version, kind, payload = night.id, command.expected_version, command.kind, entry.payload
        self._after_commit.append(lambda: store.advance(night_id, version, kind, payload, seq, position))
        try:
            self.commit()
        except IntegrityError:
            return self._after_a_lost_race(command)
        return Recorded(seq=seq, summary=entry.summary)

    def _answered(self, night: Night, command: Command) -> Recorded | None:
        """The first answer to ``command``'s key in ``night``, if it was used; KeyConflict if for another command."""
        if command.request_key is None:
            return None
        event = db.session.scalar(
            select(Event).where(Event.night_id == night.id, Event.request_key == command.request_key)
        )
        if event is None:
            return None
        if not command.said_again_in(event):
            raise KeyConflict()
        if night.version < event.seq:
            # read committed (PostgreSQL): the event committed after the night row was read
            db.session.refresh(night)
        return Recorded(seq=event.seq, summary=summary_of(night, event.seq), repeated=True)

    def _after_a_lost_race(self, command: Command) -> Recorded:
        """Another writer won (the same submit, or another phone's): answer as the winner did, or refuse."""
        self._rollback()
        night = db.session.get(Night, command.night_id, populate_existing=True)
        if night is not None:
            repeated = self._answered(night, command)
            if repeated is not None:
                return repeated
        raise StaleTable(night.version if night is not None else 0) from None

    @staticmethod
    def _game_of(night: Night, entry: Entry) -> tuple[int | None, int | None]:
        """(id, position) of the game the entry's event belongs to, writing its row first when it is new."""
        if entry.game is None:
            return None, None
        if entry.game.id is None:  # a game started by this event: its row and its start go together
            entry.game.night_id = night.id
            db.session.add(entry.game)
            db.session.flush()
        return entry.game.id, entry.game.position

    # --- a command that starts a night ---------------------------------------------------------

    def started_by(self, request_key: str, request_digest: str) -> Night | None:
        """The night the form with ``request_key`` started, if any; KeyConflict if it said something else."""
        night = db.session.scalar(select(Night).where(Night.request_key == request_key))
        if night is not None and night.request_digest != request_digest:
            raise KeyConflict()
        return night

    def add_night(
        self,
        request_key: str | None,
        request_digest: str,
        make: Callable[[], Night],
        found_instead: Callable[[], Night | None] = lambda: None,
        also: Callable[[Night], None] | None = None,
    ) -> tuple[Night, bool]:
        """Add and commit the night ``make`` builds, once per request key: (the night, whether this unit added it).

        ``found_instead``: a night that stands for it already (a pot carried on by another
        phone), answered instead.  When a unique constraint refuses the commit (the same key,
        or ``found_instead``'s night, committed at the same moment by another request), the
        other request won: answer with its night.  ``also``: what else the same commit writes
        with the new night (its row flushed, so it has its id): kept in a group, say.
        """
        if request_key is not None:
            earlier = self.started_by(request_key, request_digest)
            if earlier is not None:
                return earlier, False
        existing = found_instead()
        if existing is not None:
            return existing, False
        night = make()  # validates: raises before anything is written
        night.request_key, night.request_digest = request_key, (request_digest if request_key else None)
        db.session.add(night)
        if also is not None:
            db.session.flush()
            also(night)
        try:
            self.commit()
        except IntegrityError:
            self._rollback()
            earlier = self.started_by(request_key, request_digest) if request_key is not None else None
            earlier = earlier or found_instead()
            if earlier is None:
                raise
            return earlier, False
        return night, True


    # --- the group's commands -----------------------------------------------------------------

    def night_changed_for_its_group(self, night_id: int) -> None:
        """Tell the group ``night_id`` is kept in (if any) that the night changed what the group's pages show
        without its version moving: a players' link replaced, a setup edited before play.

        Its pages are kept by a one-row stamp (the group's row, and its nights' count and versions:
        web/pages/groups.py), which such a change would not move: this counts it on the group's row
        (``nights_changed``, never the version: that counts the records and guards the group's forms).
        Called before the night is locked: its group's row first, then the night, the order every
        group command takes them in (no two units wait on each other).
        """
        kept_in = select(GroupNight.group_id).where(GroupNight.night_id == night_id).scalar_subquery()
        db.session.execute(
            update(Group).where(Group.id == kept_in).values(nights_changed=Group.nights_changed + 1)
            .execution_options(synchronize_session=False)
        )

    def group(self, group_id: int) -> Group:
        """``group_id``'s group at its latest version, its row locked until the unit ends (PostgreSQL; SQLite's
        ``BEGIN IMMEDIATE`` holds off every other writer): the group's commands take turns."""
        group = db.session.get(Group, group_id, with_for_update=True, populate_existing=True)
        if group is None:
            raise IllegalAction("this group does not exist")
        return group

    def group_command(self, command: GroupCommand, decide: GroupDecide) -> GroupRecorded:
        """Carry out a group command once per request key, only at the version its form was made for; commit.

        In this order: what the form said must be storable; the group's row is locked; the same
        key again answers with the first result (the same key with another command:
        :class:`KeyConflict`); a stale version is refused (:class:`StaleTable`); then the
        command's own check (``decide``, which may lock and read nights through this unit)
        says what to write.  Its records are appended (the last one carries the request key),
        its night events appended to their nights (each night's version moving on), its nights
        kept; then the one commit.  Anything refused on the way writes nothing.
        """
        check_storable(command.said, "the form")
        group = self.group(command.group_id)
        repeated = self._group_answered(group, command)
        if repeated is not None:
            return repeated
        if command.expected_version != group.version:
            raise StaleTable(group.version)
        entry = decide(self, group)
        if not entry.records:
            raise IllegalAction("nothing to record")
        check_storable([payload for _, payload in entry.records], "the form")
        self.add_group_records(group, entry.records, command.request_key, command.recorded_by)
        for night_id, events in entry.night_events.items():
            self.add_night_events(self.night(night_id), events, command.recorded_by)
        version = group.version
        try:
            self.commit()
        except IntegrityError:  # pragma: no cover - the row is locked: only a writer outside every unit gets here
            self._rollback()
            locked = self.group(command.group_id)
            repeated = self._group_answered(locked, command)
            if repeated is not None:
                return repeated
            raise StaleTable(locked.version) from None
        return GroupRecorded(version=version, summary=entry.summary)

    def _group_answered(self, group: Group, command: GroupCommand) -> GroupRecorded | None:
        if command.request_key is None:
            return None
        record = db.session.scalar(
            select(GroupRecord).where(GroupRecord.group_id == group.id, GroupRecord.request_key == command.request_key)
        )
        if record is None:
            return None
        asked = {key: value for key, value in record.payload.items() if key not in command.filled_in}
        if record.kind != command.kind or asked != command.said:
            raise KeyConflict()
        return GroupRecorded(version=record.seq, summary=command.summary_again, repeated=True)

    def add_group_records(
        self,
        group: Group,
        records: Sequence[tuple[str, dict[str, Any]]],
        request_key: str | None,
        recorded_by: str,
    ) -> None:
        """Append ``records`` to ``group`` (locked) after its version, moving the version on by as many
        (compare-and-set: :class:`StaleTable` if another writer moved it); the last carries ``request_key``."""
        start = group.version
        result = db.session.execute(
            update(Group).where(Group.id == group.id, Group.version == start).values(version=start + len(records))
        )
        if result.rowcount != 1:  # pragma: no cover - the row is locked
            raise StaleTable(start)
        for offset, (kind, payload) in enumerate(records, start=1):
            last = offset == len(records)
            db.session.add(
                GroupRecord(
                    group_id=group.id, seq=start + offset, kind=kind, payload=payload,
                    request_key=request_key if last else None, recorded_by=recorded_by[:40],
                )
            )
        group.version = start + len(records)

    def add_night_events(self, night: Night, events: Sequence[tuple[str, dict[str, Any]]], recorded_by: str) -> None:
        """Append the night's own (ledger) ``events`` to ``night`` (locked through :meth:`night`), its version
        moving on by as many; the kept fold follows once committed.  IllegalAction when the night is full."""
        start = night.version
        _check_room_for(night, len(events))
        self.compare_and_set(night, start, start + len(events))
        for offset, (kind, payload) in enumerate(events, start=1):
            db.session.add(
                Event(night_id=night.id, game_id=None, seq=start + offset, kind=kind, payload=payload,
                      request_key=None, recorded_by=recorded_by[:40])
            )
            night_id, seq, version = night.id, start + offset, start + offset - 1
            self._after_commit.append(
                lambda n=night_id, v=version, k=kind, p=payload, s=seq: store.advance(n, v, k, p, s, None)
            )
        night.version = start + len(events)

    def group_started_by(self, request_key: str, request_digest: str) -> Group | None:
        """The group the form with ``request_key`` opened, if any; KeyConflict if it said something else."""
        group = db.session.scalar(select(Group).where(Group.request_key == request_key))
        if group is not None and group.request_digest != request_digest:
            raise KeyConflict()
        return group

    def add_group(
        self, request_key: str | None, request_digest: str, make: Callable[[], Group], then: Callable[[Group], None]
    ) -> Group:
        """Add and commit the group ``make`` builds, and what ``then`` writes with it (its row flushed), once per
        request key; the same key again (or at the same moment) answers with the group the first one opened."""
        if request_key is not None:
            earlier = self.group_started_by(request_key, request_digest)
            if earlier is not None:
                return earlier
        group = make()
        group.request_key, group.request_digest = request_key, (request_digest if request_key else None)
        group.version = 0
        db.session.add(group)
        db.session.flush()
        then(group)
        try:
            self.commit()
        except IntegrityError:
            self._rollback()
            earlier = self.group_started_by(request_key, request_digest) if request_key is not None else None
            if earlier is None:
                raise
            return earlier
        return group


def _check_room_for(night: Night, more: int) -> None:
    """Room in a night for ``more`` of its own ledger events (a tab payment's records)."""
    if night.version + more > limits.MAX_RECORDS + limits.RECORDS_FOR_SETTLING:
        raise IllegalAction(f"night {night.name!r} holds too many records to take the tab's")


def _check_room(night: Night, kind: str) -> None:
    """A night holds a bounded number of records, and a few more for settling up (companion.values.limits)."""
    full = limits.MAX_RECORDS + (limits.RECORDS_FOR_SETTLING if kind in LEDGER_KINDS else 0)
    if night.version >= full:
        raise IllegalAction(
            f"this night holds {night.version:,} records, the most one night can hold "
            f"({limits.MAX_RECORDS:,}): start a new night to play on"
        )
