"""The database: nights and their append-only event log.

The event log is the source of truth.  A night's standings are the fold of its
events (see :mod:`companion.service.store`); nothing derived from them is stored, so
it can always be rebuilt.  Events are only ever inserted: a correction is a new
event (a ``void``), never an update or a delete.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, Numeric, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from companion.extensions import db
from companion.games import title_of


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Night(db.Model):  # type: ignore[name-defined]
    """One night at one table: its seating, its settings and its secret links."""

    __tablename__ = "night"
    __table_args__ = (
        UniqueConstraint("request_key", name="uq_night_request_key"),
        UniqueConstraint("carried_from", name="uq_night_carried_from"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    #: the scorekeeper's secret (records and corrects); rotated by replacing it
    keeper_key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    #: the players' secret (read only)
    viewer_key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    #: the players seated tonight, clockwise; each game of the night is played by all or some of them
    players: Mapped[list[str]] = mapped_column(JSON)
    chip_value: Mapped[Decimal] = mapped_column(Numeric(12, 4), default=Decimal("0"))
    currency: Mapped[str] = mapped_column(String(8), default="")
    #: how many events the night holds: the compare-and-set guard against stale submits
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: the key of the form that started this night (a doubled "Start" finds this night again)
    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: a digest of what that form said: the same key with other content is refused
    request_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: the night that pot came from, when it was started with "Start the next night with this
    #: pot" (unique: a pot is carried once; the old night's rows are never changed, it finds
    #: its continuation by this column)
    carried_from: Mapped[int | None] = mapped_column(
        ForeignKey("night.id", name="fk_night_carried_from_night"), nullable=True
    )

    events: Mapped[list[Event]] = relationship(
        back_populates="night", order_by="Event.seq", lazy="raise"
    )
    #: the games of the night, in the order played (the last one is the one at the table)
    games: Mapped[list[Game]] = relationship(
        back_populates="night", order_by="Game.position", lazy="selectin"
    )

    @property
    def first_game(self) -> Game:
        return self.games[0]

    @property
    def current_game(self) -> Game:
        """The last game started.  A game can be taken back (an event, not a row: issue 20, item 5),
        so the game at the table is ``services.play_for(night).current``; ask that one."""
        return self.games[-1]


class Game(db.Model):  # type: ignore[name-defined]
    """One game of a night: its kind, its rules, its players and first dealer.

    Inserted once, never changed once play has started (before the night's first
    action, the setup screen may still change game 1).  A game after the first is
    started by a ``game`` event, so the night's version counts it.
    """

    __tablename__ = "game"
    __table_args__ = (UniqueConstraint("night_id", "position", name="uq_game_night_position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("night.id"), index=True)
    #: 1-based order in the night
    position: Mapped[int] = mapped_column(Integer)
    #: the game's short name in the registry (:data:`companion.games.GAMES`)
    kind: Mapped[str] = mapped_column(String(20))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: all or some of the night's players, in seat order
    players: Mapped[list[str]] = mapped_column(JSON)
    first_dealer: Mapped[str] = mapped_column(String(40))
    #: a pot carried in from a previous night's unfinished game: {contributor: chips}, or None
    carried_in: Mapped[dict[str, int] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    night: Mapped[Night] = relationship(back_populates="games")

    @property
    def title(self) -> str:
        """What players call the game ("Napalm"), from the registry."""
        return title_of(self.kind, self.rules)


class Event(db.Model):  # type: ignore[name-defined]
    """One recorded action.  Inserted once, never changed."""

    __tablename__ = "event"
    __table_args__ = (
        UniqueConstraint("night_id", "seq", name="uq_event_night_seq"),
        UniqueConstraint("night_id", "request_key", name="uq_event_night_request_key"),
        # a night's events of one kind (the settle-up payments, read at each version) without walking the rest
        Index("ix_event_night_id_kind_seq", "night_id", "kind", "seq"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("night.id"), index=True)
    #: the game the event belongs to (None: a night's ledger event, such as a settle-up payment)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("game.id"), nullable=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: the key the submitting form was made with: the same key twice records once
    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    recorded_by: Mapped[str] = mapped_column(String(40), default="scorekeeper")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    night: Mapped[Night] = relationship(back_populates="events")
    game: Mapped[Game | None] = relationship(lazy="raise")


class KeeperLink(db.Model):  # type: ignore[name-defined]
    """A second keeper phone's own link to a night (``/k/<key>``, issue 39; docs/keepers.md): it keeps score as
    the night's first link does, under its name ("Ben's phone"), until it is taken back.

    Inserted once by a keeper phone; taking it back sets ``taken_back_at`` (a link, not a record of the game:
    the events it recorded keep its name in their ``recorded_by``).  A link taken back opens nothing.
    ``request_key``: the form that made it, so a doubled tap makes one link.  A row with ``first_phone`` set
    stands for the night's first link (``Night.keeper_key``, no key of its own here), written when that link
    is taken back: the night's list of keeper phones then leaves the first phone out.
    """

    __tablename__ = "keeper_link"
    __table_args__ = (UniqueConstraint("night_id", "request_key", name="uq_keeper_link_night_request_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("night.id"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    key: Mapped[str | None] = mapped_column(String(64), unique=True, index=True, nullable=True)
    first_phone: Mapped[bool] = mapped_column(default=False)
    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    taken_back_at: Mapped[datetime | None] = mapped_column(nullable=True)


class DisplayLink(db.Model):  # type: ignore[name-defined]
    """The night's table display link (``/d/<key>``, issue 39; docs/display.md): read only, opening the display
    and nothing else.

    One row per night at most (``night_id`` unique), made when the scorekeeper asks for it; replacing it
    writes a new ``key`` (the old one is then unknown), taking it back deletes the row, its secret with it.
    A link, not a record of the game: the ledger and the night's version are not touched.  A table of its own
    rather than a column of ``night``, so that a night's row, and every release's reading of it, stay as
    they were.
    """

    __tablename__ = "display_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    night_id: Mapped[int] = mapped_column(ForeignKey("night.id"), unique=True, index=True)
    key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ClientCounter(db.Model):  # type: ignore[name-defined]
    """How often one client did one limited thing in one time bucket (see :mod:`companion.db.brakes`).

    Kept in the database so that every process behind it counts the same; rows older
    than the longest window are deleted (a counter, not a record of the game).
    """

    __tablename__ = "client_counter"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    client: Mapped[str] = mapped_column(String(64), primary_key=True)
    bucket: Mapped[int] = mapped_column(BigInteger, primary_key=True, index=True)
    hits: Mapped[int] = mapped_column(Integer, default=0)


class KeptRefusal(db.Model):  # type: ignore[name-defined]
    """What a refused submit left for the page it redirects to (see :mod:`companion.web.plumbing.post_redirect_get`).

    Kept here, not in the session cookie: the cookie is signed but readable, and held the
    page's address (a scorekeeper's link) and what was typed; a refused Bonus Round grid
    made it larger than a browser keeps (issue 21, items 3 and 4).  The cookie holds only
    ``token``; the row holds a digest of the page's path, never the path.  Rows are deleted
    after an hour, beyond the newest few of each client address, and beyond the newest thousand
    taken from the client holding the most (a refusal, not a record of the game; issue 36, item 4).
    """

    __tablename__ = "kept_refusal"
    __table_args__ = (
        UniqueConstraint("token", name="uq_kept_refusal_token"),
        Index("ix_kept_refusal_client_id", "client", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32))
    path_digest: Mapped[str] = mapped_column(String(64))
    #: the address the refused submit came from (as the brakes count it): what one client keeps is bounded
    client: Mapped[str] = mapped_column(String(64), default="", server_default="")
    content: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class Group(db.Model):  # type: ignore[name-defined]
    """A home game's group across nights: its name, its two secret links, and how many records it holds.

    The group's members, their pay handles, the nights it keeps and the payments through its tab
    are its records (:class:`GroupRecord`), appended only; this row holds what a link finds and
    the version, which counts the records: the compare-and-set guard of every group command.
    """

    __tablename__ = "home_group"
    __table_args__ = (UniqueConstraint("request_key", name="uq_home_group_request_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    #: the organiser's secret (keeps nights, edits members, marks the tab paid); rotated by replacing it
    organiser_key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    #: the members' secret (reads the season and the tab; "I got it" for a payment to them)
    member_key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    #: how many records the group holds: the compare-and-set guard against stale submits
    version: Mapped[int] = mapped_column(Integer, default=0)
    #: how many times one of its nights changed what the group's pages show without that night's
    #: version moving (its players' link replaced, its setup edited before play): with the version
    #: and its nights' count and versions, the one-row stamp its pages are kept by (web/pages/groups.py).
    #: Not the version: that counts the records, and guards the group's forms, which such a change
    #: leaves as they were
    nights_changed: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: the key of the form that opened (or imported) this group: a doubled tap finds it again
    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: a digest of what that form said: the same key with other content is refused
    request_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)


class GroupRecord(db.Model):  # type: ignore[name-defined]
    """One record of a group (a member added, merged, renamed; a handle set or removed; a night kept;
    a payment through the tab).  Inserted once, never changed: a correction is a new record."""

    __tablename__ = "group_record"
    __table_args__ = (
        UniqueConstraint("group_id", "seq", name="uq_group_record_group_seq"),
        UniqueConstraint("group_id", "request_key", name="uq_group_record_group_request_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("home_group.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: the key the submitting form was made with: the same key twice records once
    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    recorded_by: Mapped[str] = mapped_column(String(40), default="organiser")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class MemberLink(db.Model):  # type: ignore[name-defined]
    """A member's own secret link to their group (issue 35, item 7): the group as the members' link shows it,
    and "I got it" for a payment to that member alone, so nobody says it for another, the payer least of all.

    Inserted with the group's ``member_link_made`` record, never changed: a new link for the same member is a
    new row, and only a member's latest row opens anything (the one before is replaced, as a rotated link).
    ``member`` is the member's name when it was made; the group's member records map it to who they are now."""

    __tablename__ = "member_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("home_group.id"), index=True)
    member: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class GroupNight(db.Model):  # type: ignore[name-defined]
    """A night kept in a group, at its place in the group's order.  Inserted once, with the group's
    ``night_kept`` record; a night is in one group at most (``night_id`` is unique)."""

    __tablename__ = "group_night"
    __table_args__ = (
        UniqueConstraint("night_id", name="uq_group_night_night"),
        UniqueConstraint("group_id", "position", name="uq_group_night_group_position"),
        # the group's nights read from the index alone by the one-row stamp of its pages (web/pages/groups.py
        # _STAMP_SQL; bench/README.md: 53 -> 44 µs on SQLite); it serves a look-up by the group alone too
        Index("ix_group_night_group_id_night_id", "group_id", "night_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("home_group.id"))
    night_id: Mapped[int] = mapped_column(ForeignKey("night.id"))
    #: 1-based order in the group (the order kept: nights of one date are taken in this order)
    position: Mapped[int] = mapped_column(Integer)
