"""Nights as wholes: open one, import and export its night file, replace its links, carry its pot on.

Each command that starts a night (opening it, importing a file, carrying an unfinished pot
into the next night) is done once per request key by the unit of work
(:meth:`companion.service.uow.UnitOfWork.add_night`): a doubled tap finds the night the first
one started.  A night whose pot was carried on is closed at its table (its settle-up goes on):
:func:`refuse_on_a_carried_night` is the check every command at the table makes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import aliased

from companion.db.engine import read_once
from companion.db.models import DisplayLink, Event, Game, Group, GroupNight, KeeperLink, Night
from companion.extensions import db
from companion.games import GAMES, IllegalAction
from companion.games.night_kinds import GAME_STARTED, GAME_TAKEN_BACK, PAID
from companion.night import file as nightfile
from companion.night import file_text
from companion.night import paid as night_paid
from companion.values import limits
from companion.night.play import GameSetup, NightPlay, set_up_game, validate_seating
from companion.service.keepers import phones_of
from companion.service.night_ledger import ledger_of, paid_payments
from companion.service.store import derived_before, keep_derived, money_of, play_for
from companion.service.uow import StaleTable, UnitOfWork, digest, end_reads, new_key

#: What a night's row can hold: one set of checks for the form, /import and replay (companion.values.limits).
MAX_NIGHT_NAME = limits.MAX_NIGHT_NAME
MAX_CHIP_VALUE = limits.MAX_CHIP_VALUE


def check_night_fields(name: str, players: Sequence[str], money: nightfile.Money) -> None:
    """IllegalAction when the night's name, seats or money cannot be stored (companion.values.limits)."""
    problem = limits.night_fields_problem(name, list(players), money.currency, money.chip_value)
    if problem is not None:
        raise IllegalAction(problem)


def game_row(position: int, setup: GameSetup) -> Game:
    """The row of the night's game at ``position``, set up as ``setup`` says."""
    return Game(
        position=position,
        kind=setup.kind,
        rules=dict(setup.rules),
        players=list(setup.players),
        first_dealer=setup.first_dealer,
        carried_in=dict(setup.carried_in) if setup.carried_in else None,
    )


def new_night(name: str, players: list[str], money: nightfile.Money, first: Mapping[str, Any]) -> Night:
    check_night_fields(name, players, money)
    seated = validate_seating(players)
    setup, *_ = set_up_game(
        seated, first.get("kind"), first.get("players"), first.get("first_dealer"), first.get("rules"),
        first.get("carried_in"),
    )
    return Night(
        name=name.strip() or "Card night",
        keeper_key=new_key(),
        viewer_key=new_key(),
        players=list(seated),
        chip_value=money.chip_value,
        currency=money.currency,
        version=0,
        games=[game_row(1, setup)],
    )


def open_night(
    name: str,
    players: list[str],
    money: nightfile.Money,
    first: Mapping[str, Any],
    request_key: str | None = None,
) -> Night:
    """Seat a new night and its first game; raises IllegalAction when the seating or rules are wrong.

    ``first`` is the first game's setup: ``kind``, ``players`` (None: everyone
    seated), ``first_dealer``, ``rules`` (a JSON object) and ``carried_in`` (a pot
    carried in from a previous night).  With a ``request_key``, the same form sent
    again (a doubled tap, a re-sent page) finds the night the first one started
    instead of starting another; the same key with other content raises
    :class:`KeyConflict`.
    """
    said = digest("create", name, players, str(money.chip_value), money.currency, dict(first))
    with UnitOfWork() as uow:
        return uow.add_night(request_key, said, lambda: new_night(name, players, money, first))[0]


def rotate_link(night: Night, which: str) -> None:
    """Replace the scorekeeper's or the players' secret; the old link stops working.

    A rotation sent again is the web's to answer (the old link it was posted to is gone:
    :class:`companion.web.plumbing.security.RotationMemory`); here it is one write, in a unit of work.
    """
    if which not in ("keeper", "viewer"):
        raise IllegalAction("choose the scorekeeper's or the players' link")
    night_id = night.id
    with UnitOfWork() as uow:
        if which == "viewer":  # the group's pages show the players' link (never the scorekeeper's)
            uow.night_changed_for_its_group(night_id)
        locked = uow.night(night_id)  # the same row as ``night``, locked: the new secret lands on it
        if which == "keeper":
            locked.keeper_key = new_key()
        else:
            locked.viewer_key = new_key()
        uow.commit()


def display_key_of(night_id: int) -> str | None:
    """The night's table display link now (docs/display.md), or None: it has none, or it was taken back."""
    return db.session.scalar(select(DisplayLink.key).where(DisplayLink.night_id == night_id))


def new_display_link(night_id: int) -> str:
    """Make the night's table display link, or replace it (docs/display.md): the new secret; the old one, if
    any, opens nothing from now on.  A link, not a record: the night's version does not move.  The night's row
    is locked, so two phones making one at once take turns (one row per night)."""
    with UnitOfWork() as uow:
        uow.night(night_id)
        row = db.session.scalar(select(DisplayLink).where(DisplayLink.night_id == night_id))
        key = new_key()
        if row is None:
            db.session.add(DisplayLink(night_id=night_id, key=key))
        else:
            row.key = key
        uow.commit()
        return key


def take_back_display_link(night_id: int) -> bool:
    """Take the night's display link back: it opens nothing from now on (its row, and its secret, are deleted).
    False when it had none (a doubled tap, or another phone took it back first): nothing changed."""
    with UnitOfWork() as uow:
        uow.night(night_id)
        row = db.session.scalar(select(DisplayLink).where(DisplayLink.night_id == night_id))
        if row is None:
            return False
        db.session.delete(row)
        uow.commit()
        return True


# --- import / export -------------------------------------------------------------------


def import_history(
    text: str | bytes,
    name: str | None = None,
    request_key: str | None = None,
    playable: Collection[str] | None = None,
) -> Night:
    """A new night from a night file (v2, or a v1 hand history); writes nothing if it is wrong.

    The file is read and replayed in full before the database is touched, so a
    large or wrong file holds no lock.  Raises RecordError (NightFileError,
    HistoryError) or IllegalAction with a message saying where it is wrong.  A
    ``request_key`` makes a doubled upload import once (see :func:`open_night`).
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    said = digest("import", hashlib.sha256(raw).hexdigest(), name)
    # Read and replay the whole file before the database is asked anything: the unit begins
    # the write transaction (BEGIN IMMEDIATE), and every other table would wait while a large
    # file is parsed under it.
    end_reads()
    parsed = nightfile.loads(text)
    unplayable = [p for p in parsed.play.games if playable is not None and p.setup.kind not in playable]
    if unplayable:
        played = unplayable[0]
        raise IllegalAction(
            f"game {played.number} of this night is {played.title}, which the app cannot show at the table yet "
            "(flask --app companion replay reads the file whole)"
        )

    def make() -> Night:
        return night_from_file(parsed, name or parsed.name or "Imported night")

    with UnitOfWork() as uow:
        return uow.add_night(request_key, said, make)[0]


def night_from_file(
    parsed: nightfile.NightFile, name: str, more: Sequence[tuple[str, dict[str, Any]]] = (), recorded_by: str = "import"
) -> Night:
    """A new night's row holding ``parsed`` (a night file, read and replayed): its games and every event, then
    ``more`` (the night's own events a group file adds: payments marked paid, the tab's records), numbered in order.
    Raises IllegalAction when its seating or settings cannot be stored; writes nothing (the unit adds it).

    Each event says it was recorded by ``recorded_by`` (an import), but a game's record the file names a keeper
    phone for (its ``recorded_by``): each of that record's events says that phone, as the night it came from did."""
    first = parsed.play.games[0].setup
    night = new_night(
        name,
        list(parsed.players),
        parsed.money,
        {"kind": first.kind, "players": list(first.players), "first_dealer": first.first_dealer,
         "rules": dict(first.rules), "carried_in": first.carried_in},
    )
    events: list[Event] = []
    phones: list[str | None] = [None] * len(events)  # each event's phone, where the file names one
    for played in parsed.play.games:
        if played.number == 1:
            game = night.games[0]
        else:
            game = game_row(played.number, played.setup)
            night.games.append(game)
            events.append(Event(game=game, kind=GAME_STARTED,
                                payload={**played.setup.as_dict(), "position": played.number}))
            if played.taken_back:  # nothing recorded in it: its start, then its taking back
                events.append(Event(kind=GAME_TAKEN_BACK,
                                    payload={"position": played.number, "kind": played.setup.kind}))
        phones.extend([None] * (len(events) - len(phones)))
        named = parsed.recorded_by[played.number - 1] if played.number <= len(parsed.recorded_by) else {}
        for action, phone in zip(played.game.live_actions(played.state), nightfile.action_phones(played, named)):
            kind, payload = played.game.to_event(action)
            events.append(Event(game=game, kind=kind, payload=payload))
            phones.append(phone)
    events.extend(Event(kind=kind, payload=payload) for kind, payload in parsed.ledger_events)  # bank, Bonus Round
    # the payments marked paid, after the rest: the file's reader checked each as mark_paid does and against
    # what the night leaves open (companion.night.paid), so the night never offers a payment made as owed
    events.extend(Event(kind=PAID, payload=payload) for payload in night_paid.file_entries(parsed.paid))
    events.extend(Event(kind=kind, payload=payload) for kind, payload in more)
    phones.extend([None] * (len(events) - len(phones)))
    for seq, (event, phone) in enumerate(zip(events, phones), start=1):
        event.seq, event.recorded_by = seq, phone or recorded_by
    night.version = len(events)
    night.events = events
    return night


def export_history(night: Night) -> str:
    """The night as a ``companion-night/2`` file (every game's live records, the payments marked paid).

    Written by extending the text this process last wrote of the night (:mod:`companion.night.file_text`:
    the same bytes as written whole), so that the file after an action costs what the action changed
    more than what the night holds (issue 22).
    """
    before = derived_before("night-file-text", night.id, night.version)
    text, written = file_text.dumps(
        night.name, play_for(night), money_of(night), ledger_of(night),
        before[1] if before is not None else file_text.Written(), paid_payments(night),
        phones_of(night.id, night.version),
    )
    keep_derived("night-file-text", night.id, night.version, written)
    return text


# --- carrying an unfinished pot into the next night --------------------------------------

#: What the next night's name adds to the night its pot comes from.
CONTINUED = " (continued)"


@dataclass(frozen=True)
class NextNight:
    """What "Start the next night with this pot" starts: the rest is the same as the night it continues."""

    name: str
    first_dealer: str
    carried_in: dict[str, int]  # each contributor's chips in the carried pot, in seat order
    game: GameSetup  # the game the pot was left in, which the next night's first game continues

    @property
    def pot(self) -> int:
        return sum(self.carried_in.values())


def continuation_of(night: Night) -> Night | None:
    """The night ``night``'s unfinished pot was carried into, if any (at most one: a unique column)."""
    if not carries_over(night):
        return None  # only a night with a game set to carry its pot can be continued: no query
    return db.session.scalar(select(Night).where(Night.carried_from == night.id))


def carries_over(night: Night) -> bool:
    """Whether any game of ``night`` is set to carry an unfinished pot to the next night.

    Only a cheap test before looking for a continuation, from the rows alone (it is asked while
    an event is being written, when the fold must not be read): a game taken back counts here,
    which costs one query and changes nothing, since :func:`next_night_of` counts only the games
    played.
    """
    return any(GAMES[g.kind].carries_over(GAMES[g.kind].rules_from_dict(g.rules)) for g in night.games)


def carried_from_of(night: Night) -> Night | None:
    """The night whose unfinished pot ``night`` started with, if it was started that way."""
    return db.session.get(Night, night.carried_from) if night.carried_from is not None else None


def refuse_on_a_carried_night(night: Night) -> None:
    """IllegalAction when ``night``'s pot was carried into the next night: its table is closed.

    Asked by every command at the table with the night's row locked (the unit of work's
    :meth:`~companion.service.uow.UnitOfWork.night`), as :func:`carry_pot` locks it too: an
    action and the carry at the same moment never both count.
    """
    continued = continuation_of(night)
    if continued is not None:
        raise IllegalAction(
            f"this night's pot was carried into \u201c{continued.name}\u201d: "
            "its table is closed (settle-up payments can still be marked)"
        )


def next_night_of(night: Night, play: NightPlay | None = None) -> NextNight:
    """The night that would carry ``night``'s pot on; IllegalAction says why there is none.

    The same players in the same seats, money settings, and the game the pot was
    left in with the same rules; the deal passes to the left of that game's last
    dealer (its ``next_dealer``); the first game's pot is the whole carried pot,
    each contributor keeping their share (summed over the night's games that
    carried chips).
    """
    play = play if play is not None else play_for(night)
    if not any(p.game.carries_over(p.rules) for p in play.played()):
        raise IllegalAction(
            "this night's setting for an unfinished pot is not \u201ccarry it to the next night\u201d: "
            "there is no pot to carry"
        )
    closings = play.closings()
    carried = play.carried(closings)
    if not carried:
        raise IllegalAction(
            "no game was left unfinished with chips to carry to the next night: there is nothing to carry"
        )
    source = [p for p, c in zip(play.games, closings) if c.carried][-1]
    first_dealer = source.game.next_dealer(source.state)
    name = night.name if night.name.endswith(CONTINUED) else night.name[: MAX_NIGHT_NAME - len(CONTINUED)].rstrip() + CONTINUED
    return NextNight(name=name, first_dealer=first_dealer, carried_in=carried, game=source.setup)


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
    night_id = night.id
    with UnitOfWork() as uow:

        def carried_already() -> Night | None:
            # the night's row locked (PostgreSQL; SQLite serialises every writer at BEGIN): an action
            # being recorded on it finishes first, and one that comes after finds it carried
            return continuation_of(uow.night(night_id))

        def make() -> Night:
            old = uow.night(night_id)
            if expected_version != old.version:
                raise StaleTable(old.version)
            plan = next_night_of(old)
            first = {
                "kind": plan.game.kind, "players": list(plan.game.players), "first_dealer": plan.first_dealer,
                "rules": dict(plan.game.rules), "carried_in": plan.carried_in,
            }
            new = new_night(plan.name, list(old.players), money_of(old), first)
            new.carried_from = night_id
            return new

        # another phone carrying it at the same moment meets carried_from's unique constraint
        return uow.add_night(request_key, digest("carry", night_id), make, carried_already)


def night_stamps(night_ids: Collection[int]) -> dict[int, tuple[int, str, str, str | None, tuple[str, ...]]]:
    """(version, players' link, scorekeeper link, display link or None, the other keeper phones' links) of each of
    ``night_ids``' nights that exists, in two statements.

    What the live pages' push (web/plumbing/live_push.py) reads after each commit it hears of, for every night a
    phone watches at once: a night whose version moved has news; one whose link is no longer the link a
    phone came by (replaced, or a keeper phone's taken back), or that is gone, ends that phone's stream.
    It ends its read at once: a watcher holds no transaction open between commits."""
    if not night_ids:
        return {}
    try:
        rows = db.session.execute(
            select(Night.id, Night.version, Night.viewer_key, Night.keeper_key, DisplayLink.key)
            .outerjoin(DisplayLink, DisplayLink.night_id == Night.id).where(Night.id.in_(list(night_ids)))
        ).all()
        phones: dict[int, list[str]] = {}
        for night_id, key in db.session.execute(
            select(KeeperLink.night_id, KeeperLink.key)
            .where(KeeperLink.night_id.in_(list(night_ids)), KeeperLink.key.is_not(None))
        ):
            phones.setdefault(night_id, []).append(key)
        return {row[0]: (row[1], row[2], row[3], row[4], tuple(phones.get(row[0], ()))) for row in rows}
    finally:
        end_reads()


#: what a page kept per version needs of a night, found by one of its links: (id, version, the link's own
#: scorekeeper key, players' key, the night its pot went on to, and the group it is kept in as
#: (id, version, nights_changed, the sum of its nights' versions), or None, and the night its pot came from)
NightStamp = tuple[int, int, str, str, "int | None", "tuple[int, int, int, int] | None", "int | None"]


def _stamp_statement(link_key: Any, where: Any, phone: bool = False) -> Any:
    """The statement :func:`night_stamp_by_link` runs, made once (a statement made per call, with its aliases, costs
    SQLAlchemy tens of milliseconds to adapt and compile; one made once is compiled once and cached)."""
    following, other, member = aliased(Night), aliased(Night), aliased(GroupNight)
    versions = (
        select(func.coalesce(func.sum(other.version), 0))
        .select_from(member).join(other, other.id == member.night_id)
        .where(member.group_id == Group.id).scalar_subquery()
    )
    statement = select(Night.id, Night.version, link_key, Night.viewer_key, following.id,
                       Group.id, Group.version, Group.nights_changed, versions, Night.carried_from).select_from(Night)
    if phone:
        statement = statement.join(KeeperLink, KeeperLink.night_id == Night.id)
    return (statement.outerjoin(following, following.carried_from == Night.id)
            .outerjoin(GroupNight, GroupNight.night_id == Night.id)
            .outerjoin(Group, Group.id == GroupNight.group_id).where(where))


_KEY = bindparam("key")
_BY_KEEPER = _stamp_statement(Night.keeper_key, Night.keeper_key == _KEY)
_BY_VIEWER = _stamp_statement(Night.keeper_key, Night.viewer_key == _KEY)
_BY_PHONE = _stamp_statement(KeeperLink.key, (KeeperLink.key == _KEY) & KeeperLink.taken_back_at.is_(None), phone=True)


def night_stamp_by_link(key: str, keeper: bool) -> NightStamp | None:
    """What a kept page of a night needs (:data:`NightStamp`), found by its scorekeeper link (the first, or a keeper
    phone's own not taken back: its key then stands in the first's place) or by its players' link; None: no such
    night (the web layer decides the 403 or 404 by the ORM's path).

    One statement for the night's own link (two for a keeper phone's), so that a repeat request for a page kept at
    the night's version loads nothing else; the key is compared again in constant time by the caller."""
    def read(connection: Connection) -> Any:
        if not keeper:
            return connection.execute(_BY_VIEWER, {"key": key}).first()
        # two lookups, each whole on its own: the night's first link, else a keeper phone's
        return connection.execute(_BY_KEEPER, {"key": key}).first() or connection.execute(_BY_PHONE, {"key": key}).first()

    row = read_once(read)  # a read of its own, no ORM session nor transaction (issue 37)
    if row is None or row[2] is None:
        return None
    group = (row[5], row[6], row[7], int(row[8])) if row[5] is not None else None
    return row[0], row[1], row[2], row[3], row[4], group, row[9]


_FOLLOWING = aliased(Night)
_LISTED = (
    select(Night.id, Night.keeper_key, Night.name, Night.created_at, Night.players, Night.version, _FOLLOWING.id,
           KeeperLink.key)
    .outerjoin(_FOLLOWING, _FOLLOWING.carried_from == Night.id)
    # each keeper phone's own link not taken back (a row taken back has no key left): one row per phone
    .outerjoin(KeeperLink, (KeeperLink.night_id == Night.id) & KeeperLink.key.is_not(None)
               & KeeperLink.taken_back_at.is_(None))
    .where(Night.id.in_(bindparam("ids", expanding=True)))
    .order_by(Night.id, KeeperLink.id)
)


def listed_nights(night_ids: Collection[int]) -> list[tuple[Any, ...]]:
    """What the home page lists of each of ``night_ids``' nights, in one statement: (id, scorekeeper link, name,
    created_at, players, version, the night its pot went on to, the other keeper phones' own links).

    The caller keeps those whose link it holds: the first link, or a keeper phone's own (issue 39: a second
    phone lists the night it opened by its own link, docs/keepers.md); a link taken back is none of them."""
    if not night_ids:
        return []
    ids = list(night_ids)
    rows = read_once(lambda connection: connection.execute(_LISTED, {"ids": ids}).all())  # no ORM session nor transaction
    listed: dict[int, tuple[tuple[Any, ...], list[str]]] = {}
    for row in rows:
        night, phones = listed.setdefault(row[0], (tuple(row[:7]), []))
        if row[7] is not None:
            phones.append(row[7])
    return [(*night, tuple(phones)) for night, phones in listed.values()]


def nights_by_id(night_ids: Collection[int]) -> list[Night]:
    """The nights of ``night_ids`` that exist, loaded whole (a page that reads their reports: *Past nights*)."""
    if not night_ids:
        return []
    return list(db.session.scalars(select(Night).where(Night.id.in_(list(night_ids)))).all())


def viewer_keys_of(night_ids: Collection[int]) -> dict[int, str]:
    """Each of ``night_ids``' nights' players' link, by night, in one statement: a group's pages link its nights by
    it (never by the scorekeeper's link, which the members' page must not hand out)."""
    if not night_ids:
        return {}
    rows = db.session.execute(select(Night.id, Night.viewer_key).where(Night.id.in_(list(night_ids))))
    return {night_id: key for night_id, key in rows}
