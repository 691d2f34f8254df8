"""The night's keeper phones: a second phone's own keeper link, named, made and taken back (issue 39).

A night has its first keeper link (``Night.keeper_key``) and as many more as the table hands out, one per
phone (:class:`~companion.db.models.KeeperLink`), each with its name ("Ben's phone").  Every keeper phone is
equal at the table (docs/keepers.md): it records and corrects, makes a link for another phone, and takes
back any other phone's link (the first phone's too) or its own ("hand over and leave"), so long as one
keeper phone is left: a night nobody can keep score of any more is never made by a tap.

These are links, not records of the game: the ledger is not touched (a record made through a link keeps
the phone's name in its ``recorded_by`` after the link is taken back), and the night's version does not
move.  Each command is one unit of work with the night's row locked, so two phones taking links back at the
same moment cannot leave the night with none; a doubled "Make a link" makes one (its request key).

A request that came by a phone's own link finds it here (:func:`phone_link_of`), and the night's row it
loads reads that link as its scorekeeper link (:func:`read_keeper_key_as`, :func:`on_night_read`), so that
no page it is answered with shows the first link.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import event, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value

from companion.db.models import Event, KeeperLink, Night, utcnow
from companion.extensions import db
from companion.games import IllegalAction
from companion.service.uow import UnitOfWork, new_key
from companion.values import limits, reading

#: what a record's ``recorded_by`` says (the first phone, a phone's name, no phone): one definition, in the
#: values layer, which a night file's reader shares (companion.values.limits)
FIRST_PHONE = limits.FIRST_PHONE
FIRST_PHONE_WORDS = limits.FIRST_PHONE_WORDS
NOT_A_PHONE = limits.NOT_A_PHONE
MAX_PHONE_NAME = limits.MAX_PHONE_NAME
#: keeper phones a night may have at once besides the first: a table, not a stadium
MAX_PHONES = 8


@dataclass(frozen=True)
class Phone:
    """One keeper phone of a night as the share page lists it: ``id`` None for the first link's phone."""

    id: int | None
    name: str
    key: str | None
    created_at: datetime | None = None


@dataclass(frozen=True)
class Keepers:
    """The phones that keep score of a night now: the first link's (while it is not taken back) and the others."""

    first_phone: bool
    others: tuple[Phone, ...]

    @property
    def count(self) -> int:
        return int(self.first_phone) + len(self.others)

    @property
    def names(self) -> tuple[str, ...]:
        return ((FIRST_PHONE_WORDS,) if self.first_phone else ()) + tuple(p.name for p in self.others)


def recorded_by_words(recorded_by: str) -> str:
    """Who a record says recorded it, in words: "the first phone", "Ben's phone", "the import of a night file"."""
    if recorded_by == FIRST_PHONE:
        return FIRST_PHONE_WORDS
    return NOT_A_PHONE.get(recorded_by, recorded_by)


def phones_of(night_id: int, version: int) -> dict[int, str]:
    """Each of the night's first ``version`` records a keeper phone other than the first recorded: its number → the
    phone's name, as a night file writes it (its games' ``recorded_by``, docs/night-file.md).

    Left out: the first phone's records and those of no phone (an import's, the organiser's), which a file does not
    name, and a name the one reader of a phone's name would not read back as it is (a label from before keeper
    phones): a file names only what its import takes back exactly, so export, import, export writes the same bytes.
    """
    rows = db.session.execute(
        select(Event.seq, Event.recorded_by).where(
            Event.night_id == night_id, Event.seq <= version, Event.recorded_by.not_in([FIRST_PHONE, *NOT_A_PHONE])
        )
    ).all()
    readable: dict[str, bool] = {}
    phones: dict[int, str] = {}
    for seq, name in rows:
        if name not in readable:
            try:
                readable[name] = reading.phone_name(name) == name
            except reading.Unreadable:
                readable[name] = False
        if readable[name]:
            phones[seq] = name
    return phones


def keepers_of(night_id: int) -> Keepers:
    """The night's keeper phones now, the others in the order their links were made."""
    return keepers_of_nights([night_id])[night_id]


def keepers_of_nights(night_ids: Collection[int]) -> dict[int, Keepers]:
    """Each of ``night_ids``' keeper phones now, in one read: the share page's, and *Past nights*' line of which
    phones keep score (issue 39)."""
    rows: dict[int, list[KeeperLink]] = {night_id: [] for night_id in night_ids}
    if rows:
        for row in db.session.scalars(
            select(KeeperLink).where(KeeperLink.night_id.in_(list(rows))).order_by(KeeperLink.id)
        ):
            rows[row.night_id].append(row)
    return {night_id: _keepers(links) for night_id, links in rows.items()}


def _keepers(rows: Sequence[KeeperLink]) -> Keepers:
    first_left = any(row.first_phone for row in rows)
    others = tuple(Phone(row.id, row.name, row.key, row.created_at)
                   for row in rows if not row.first_phone and row.taken_back_at is None)
    return Keepers(not first_left, others)


@dataclass(frozen=True)
class PhoneLink:
    """A live keeper phone's own link as stored: what a request that came by it needs to act as that phone."""

    id: int
    night_id: int
    key: str
    name: str


def phone_link_of(key: str) -> PhoneLink | None:
    """The keeper phone whose own link, not taken back, is ``key`` (docs/keepers.md), or None.

    The key is handed back for the caller's constant-time comparison (web/plumbing/links.py) before the night is
    loaded: the statement finds the row, the comparison admits it.  A link taken back has no key left.
    """
    row = db.session.scalar(select(KeeperLink).where(KeeperLink.key == key, KeeperLink.taken_back_at.is_(None)))
    if row is None or row.key is None:
        return None
    return PhoneLink(row.id, row.night_id, row.key, row.name)


def read_keeper_key_as(night: Night, key: str) -> None:
    """``night``'s scorekeeper link reads as ``key`` (a phone's own) while this session holds the row; never written.

    A page opened by a keeper phone's own link must never show the first link: the row's link is set as
    if loaded so (no change to flush), and :func:`on_night_read` keeps it so when the row is read again.
    """
    set_committed_value(night, "keeper_key", key)


def on_night_read(hook: Callable[[Night], None]) -> None:
    """Call ``hook`` on a night's row each time one is loaded or refreshed from the database.

    The web layer's way to keep a keeper phone's link on the night it came by (web/plumbing/links.py): a commit
    expires the row, and its next read would bring the first link back.  Registered once, at import.
    """

    def read(night: Night, *_: Any) -> None:
        hook(night)

    event.listen(Night, "load", read)
    event.listen(Night, "refresh", read)


def read_phone_name(value: object) -> str:
    """A phone's name as the form gave it, read by the app's one name reader; IllegalAction says what to type."""
    try:
        return reading.phone_name(value)
    except reading.Unreadable as error:
        raise IllegalAction(str(error)) from None


def make_keeper_link(night_id: int, name: str, request_key: str | None) -> Phone:
    """Give another phone a keeper link of its own, named ``name``: the new link, once per request key.

    Refused (IllegalAction, nothing written): a name the one name reader refuses, one a keeper phone of the
    night already has, or a table with :data:`MAX_PHONES` other phones already.
    """
    name = read_phone_name(name)
    with UnitOfWork() as uow:
        uow.night(night_id)  # locked: two phones making links at once take turns
        earlier = _made_by(night_id, request_key)
        if earlier is not None:
            return earlier
        keepers = keepers_of(night_id)
        if name.casefold() in {n.casefold() for n in keepers.names}:
            raise IllegalAction(f"a phone named \u201c{name}\u201d keeps score already: choose another name")
        if len(keepers.others) >= MAX_PHONES:
            raise IllegalAction(f"{MAX_PHONES} other phones keep score already: take one back first")
        link = KeeperLink(night_id=night_id, name=name, key=new_key(), first_phone=False, request_key=request_key)
        db.session.add(link)
        try:
            uow.commit()
        except IntegrityError:  # pragma: no cover - the night's row is locked: only a writer outside a unit
            raise IllegalAction("another phone changed the keeper links at the same moment: try again") from None
        return Phone(link.id, link.name, link.key, link.created_at)


def _made_by(night_id: int, request_key: str | None) -> Phone | None:
    if request_key is None:
        return None
    row = db.session.scalar(
        select(KeeperLink).where(KeeperLink.night_id == night_id, KeeperLink.request_key == request_key)
    )
    return None if row is None else Phone(row.id, row.name, row.key, row.created_at)


@dataclass(frozen=True)
class TakenBack:
    """What taking a link back did: whose link, and whether it was taken back already (a doubled tap)."""

    name: str
    already: bool = False


def take_back_keeper_link(night_id: int, phone_id: int | None) -> TakenBack:
    """Take back a keeper phone's link (``phone_id`` None: the first link's): it opens nothing from now on.

    The first link is replaced by a secret nobody is given, and a row says the first phone left; another
    phone's row is marked taken back.  Refused when it would leave the night no keeper phone.  Taking back a
    link taken back already changes nothing (a doubled tap, or two phones at once): it says so.
    """
    with UnitOfWork() as uow:
        night = uow.night(night_id)  # locked: two phones taking links back at once cannot both leave none
        keepers = keepers_of(night_id)
        if phone_id is None:
            if not keepers.first_phone:
                return TakenBack(FIRST_PHONE_WORDS, already=True)
            name = FIRST_PHONE_WORDS
        else:
            row = db.session.get(KeeperLink, phone_id)
            if row is None or row.night_id != night_id or row.first_phone:
                raise IllegalAction("this night has no such keeper phone")
            if row.taken_back_at is not None:
                return TakenBack(row.name, already=True)
            name = row.name
        if keepers.count <= 1:
            raise IllegalAction(
                f"{name} is the only phone keeping score: give another phone a keeper link before it leaves"
            )
        if phone_id is None:
            night.keeper_key = new_key()  # the first link opens nothing now; nobody is given the new secret
            db.session.add(KeeperLink(night_id=night_id, name=FIRST_PHONE_WORDS, key=None, first_phone=True,
                                      taken_back_at=utcnow()))
        else:
            row.taken_back_at = utcnow()
            row.key = None  # its secret is gone from the database too: nothing can find it again
        uow.commit()
        return TakenBack(name)


def replace_phone_link(night_id: int, phone_id: int) -> str:
    """Replace a keeper phone's own link (its "Make a new link"): the new secret; the old one opens nothing."""
    with UnitOfWork() as uow:
        uow.night(night_id)
        row = db.session.get(KeeperLink, phone_id)
        if row is None or row.night_id != night_id or row.first_phone or row.taken_back_at is not None:
            raise IllegalAction("this phone's link was taken back: it keeps score no more")
        row.key = new_key()
        key = row.key
        uow.commit()
        return key


def recorders_of(night_id: int) -> tuple[tuple[str, int], ...]:
    """Who recorded the night's records, in words, and how many each, in the order each first recorded: what the
    report's details say ("the first phone: 12 records; Ben's phone: 5")."""
    rows = db.session.execute(
        select(Event.recorded_by, func.count(), func.min(Event.seq)).where(Event.night_id == night_id)
        .group_by(Event.recorded_by).order_by(func.min(Event.seq))
    ).all()
    return tuple((recorded_by_words(recorded_by), count) for recorded_by, count, _ in rows)
