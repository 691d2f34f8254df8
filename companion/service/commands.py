"""The service layer: the one place that commits to the database.

Views translate a request into a call here and the result into a page; rule
errors come back as :class:`~companion.games.base.IllegalAction`, stale or doubled
submits as :class:`StaleTable` / :class:`KeyConflict`, and nothing is written
unless the whole action is legal and the table is still at the version the
scorekeeper saw.

A night's :class:`~companion.night.play.NightPlay` (its games, each the fold of
its own events) is the fold of its events.  Each
process keeps the fold of the nights it has served, keyed by the night's
version, and catches up from the database when another process (or phone) has
written since, so recording stays constant-time on a long night without
trusting anything but the event log.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from companion.values import limits as storable
from companion.db.engine import write_transaction
from companion.extensions import db
from companion.night import file as nightfile
from companion.games import GAMES, IllegalAction, game_kind, title_of
from companion.service.lru import LRU
from companion.db.models import Event, Game, Night
from companion.night.play import GameSetup, NightPlay, set_up_game, validate_seating
# the night's own event kinds, which no game may use: the start and the taking back of a game (a
# night event, ``{"position": n, "kind": its kind}``; docs/night-file.md), settle-up payments and
# the bank's (companion.games.night_kinds)
from companion.games.night_kinds import GAME_STARTED, GAME_TAKEN_BACK, LEDGER_KINDS
from companion.money.amounts import chips_text

#: 32 random bytes: 43 URL-safe characters, 256 bits, far beyond guessing.
KEY_BYTES = 32
Action = Any  # a game's action: whatever its GameKind encodes

#: What a night's row can hold: one set of checks for the form, /import and replay (companion.values.limits).
MAX_NIGHT_NAME = storable.MAX_NIGHT_NAME
MAX_CHIP_VALUE = storable.MAX_CHIP_VALUE


def check_storable(value: Any, what: str) -> None:
    """Raise IllegalAction if ``value`` holds text that cannot be stored (NUL, lone surrogates)."""
    if storable.unstorable(value):
        raise IllegalAction(storable.unstorable_message(what))


def _check_night_fields(name: str, players: list[str], money: nightfile.Money) -> None:
    problem = storable.night_fields_problem(name, players, money.currency, money.chip_value)
    if problem is not None:
        raise IllegalAction(problem)


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

#: nights whose fold one process keeps (least recently used beyond that is forgotten and,
#: when asked for again, rebuilt from the log): config FOLD_CACHE_SIZE, see configure_cache
FOLD_CACHE_SIZE = 256
#: events the kept folds may hold in all, whatever the number of nights: config
#: FOLD_CACHE_EVENTS.  What a fold (and what is derived from it) takes grows with its
#: events, so this, not the count of nights, bounds the memory (issue 21, item 2).
FOLD_CACHE_EVENTS = 100_000
#: what a night's derived values (standings, live parts) take in _derived, per cached fold
DERIVED_PER_NIGHT = 8


def events_in(kept: tuple[int, Any]) -> int:
    """The weight of a kept ``(version, value)``: the events it was made from (one at least)."""
    return 1 + kept[0]


_cache: LRU[int, tuple[int, NightPlay]] = LRU(FOLD_CACHE_SIZE, events_in, FOLD_CACHE_EVENTS)
#: one lock per stripe of night ids, a fixed number: bounded, and never dropped while held
#: (a lock forgotten while a thread holds it would let a second thread into the same fold)
_LOCK_STRIPES = 256
_locks = tuple(threading.Lock() for _ in range(_LOCK_STRIPES))


def _lock_for(night_id: int) -> threading.Lock:
    return _locks[night_id % _LOCK_STRIPES]


def configure_cache(size: int, events: int = FOLD_CACHE_EVENTS) -> None:
    """Keep the folds of at most ``size`` nights and ``events`` events, and their derived values, in this process."""
    _cache.resize(size, events)
    _derived.resize(size * DERIVED_PER_NIGHT, events * DERIVED_PER_NIGHT)


def clear_cache() -> None:
    """Forget every cached fold (tests use this to prove the log alone suffices)."""
    _cache.clear()
    _derived.clear()


def cache_weight() -> tuple[int, int]:
    """The events behind what this process keeps: (in its folds, in their derived values)."""
    return _cache.weight, _derived.weight


#: (what, night id) -> (version, value): what this process last derived from each night,
#: weighed like the folds (a value derived from a night grows with its events at most)
_derived: LRU[tuple[str, int], tuple[int, Any]] = LRU(
    FOLD_CACHE_SIZE * DERIVED_PER_NIGHT, events_in, FOLD_CACHE_EVENTS * DERIVED_PER_NIGHT
)


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
        _derived[(what, night_id)] = (version, value)  # bounded: least recently used beyond the cap goes


def setup_of(game: Game) -> GameSetup:
    return GameSetup(game.kind, tuple(game.players), game.first_dealer, dict(game.rules), game.carried_in or None)


def money_of(night: Night) -> nightfile.Money:
    """The night's money: what one chip is worth, and in which currency (the night's, for every game)."""
    return nightfile.Money(Decimal(night.chip_value or 0), night.currency or "")


def played_games(night: Night) -> list[Game]:
    """The rows of ``night``'s games that were played: a game taken back (started by mistake) was
    not, and counts nowhere but in the history and the night file that record it (issue 20)."""
    return [night.games[p.number - 1] for p in play_for(night).played()]


def _games_of(night_id: int) -> list[Game]:
    return list(db.session.scalars(select(Game).where(Game.night_id == night_id).order_by(Game.position)))


def _apply(play: NightPlay, event: Event, positions: Mapping[int, int]) -> None:
    if event.kind == GAME_STARTED:
        play.start(_setup_from_payload(event.payload))
    elif event.kind == GAME_TAKEN_BACK:
        play.take_back(event.payload["position"])
    elif event.game_id is not None:
        play.push(positions[event.game_id], event.kind, event.payload, event.seq)


def play_for(night: Night) -> NightPlay:
    """The fold of ``night``'s events at ``night.version`` (cached; rebuilt from the log when needed).

    The cache is trusted only once play has started (version > 0): before that the
    setup screen may still change game 1, here or in another process.
    """
    with _lock_for(night.id):
        cached = _cache.get(night.id)
        play: NightPlay | None = None
        version = 0
        if cached is not None and 0 < cached[0] <= night.version:
            version, play = cached
        if play is None or version < night.version:
            games = _games_of(night.id)
            if play is None:
                play = NightPlay.begin(night.players, setup_of(games[0]))
            positions = {game.id: game.position for game in games}
            events = db.session.scalars(
                select(Event)
                .where(Event.night_id == night.id, Event.seq > version, Event.seq <= night.version)
                .order_by(Event.seq)
            ).all()
            for event in events:
                _apply(play, event, positions)
            version = night.version
            if version > 0:
                _cache[night.id] = (version, play)
        return play.snapshot()


#: nights folded before a server takes its first request (see warm_up)
WARM_NIGHTS = 8


def warm_up(nights: int = WARM_NIGHTS) -> list[int]:
    """Fold the most recently started nights in play into this process's cache, before it serves (issue 22).

    A worker restarted in the middle of a night would otherwise rebuild that night from
    its event log on the first request (a 2,000-stage night: a quarter of a second);
    the nights being played are the newest.  Returns the ids folded.  Bounded like the
    cache itself: the least recently used go first.
    """
    ids = list(db.session.scalars(select(Night.id).where(Night.version > 0).order_by(Night.id.desc()).limit(nights)))
    for night_id in reversed(ids):  # the newest last: the most recently used in the cache
        night = db.session.get(Night, night_id)
        if night is not None:
            play_for(night)
    db.session.rollback()
    return ids


def table_for(night: Night) -> Any:
    """The state of the game at the table (the night's last game), at ``night.version``."""
    return play_for(night).current.state


def events_of(night: Night) -> list[Event]:
    return list(db.session.scalars(select(Event).where(Event.night_id == night.id).order_by(Event.seq)))


# --- nights ----------------------------------------------------------------------


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
    digest = _digest("create", name, players, str(money.chip_value), money.currency, dict(first))
    return _add_night(request_key, digest, lambda: _new_night(name, players, money, first))[0]


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


def _check_money(name: str, players: Sequence[str], money: nightfile.Money) -> None:
    _check_night_fields(name, list(players), money)


def _new_night(name: str, players: list[str], money: nightfile.Money, first: Mapping[str, Any]) -> Night:
    _check_money(name, players, money)
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
        games=[_game_row(1, setup)],
    )


def _game_row(position: int, setup: GameSetup) -> Game:
    return Game(
        position=position,
        kind=setup.kind,
        rules=dict(setup.rules),
        players=list(setup.players),
        first_dealer=setup.first_dealer,
        carried_in=dict(setup.carried_in) if setup.carried_in else None,
    )


def update_setup(
    night: Night,
    name: str,
    players: list[str],
    first_dealer: str | None,
    rules: Mapping[str, Any],
    money: nightfile.Money,
    expected_version: int,
) -> None:
    """Change seating, money and the first game's rules (a JSON object), allowed only before the first action."""
    if night.version != 0 or expected_version != 0:
        raise IllegalAction("play has started: the seating and rules can no longer change")
    _check_money(name, players, money)
    continued = continuation_of(night)
    if continued is not None:
        raise IllegalAction(f"this night's pot was carried into \u201c{continued.name}\u201d: its setup can no longer change")
    game = night.first_game
    seated = validate_seating(players)
    game_rules = dict(rules)
    # a contributor not seated any more takes their share of the carried pot back in the
    # previous night's settle-up; the rest stays in this night's pot (issue 14, item 16)
    folded = {p.casefold() for p in seated}
    carried = {n: c for n, c in (game.carried_in or {}).items() if n.strip().casefold() in folded}
    setup, *_ = set_up_game(seated, game.kind, None, first_dealer, game_rules, carried or None)
    night.name = name.strip() or night.name
    night.players = list(seated)
    night.chip_value = money.chip_value
    night.currency = money.currency
    game.players = list(setup.players)
    game.first_dealer = setup.first_dealer
    game.rules = dict(setup.rules)
    game.carried_in = dict(setup.carried_in) if setup.carried_in else None  # the names as seated now
    result = db.session.execute(
        update(Night).where(Night.id == night.id, Night.version == 0).values(version=0)
    )
    if result.rowcount != 1:  # pragma: no cover - raced with the first action
        db.session.rollback()
        raise StaleTable(night.version)
    db.session.commit()
    _cache.pop(night.id, None)


# --- the games of a night ------------------------------------------------------------------


def _setup_from_payload(payload: Mapping[str, Any]) -> GameSetup:
    return GameSetup(
        kind=payload["kind"],
        players=tuple(payload["players"]),
        first_dealer=payload["first_dealer"],
        rules=dict(payload["rules"]),
        carried_in=payload.get("carried_in") or None,
    )


def start_game(
    night_id: int,
    kind: str,
    players: Sequence[str] | None,
    first_dealer: str | None,
    rules: Mapping[str, Any] | None,
    expected_version: int,
    request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Start the night's next game; the game at the table stops (its closing applies from then on).

    Checked against the seating and the game's rules before anything is written;
    once per request key, and only at the version the scorekeeper saw, like every
    action.  The game's row and the ``game`` event that starts it are written together.
    """
    night = db.session.get(Night, night_id)
    if night is None:
        raise IllegalAction("this night does not exist")
    setup, *_ = set_up_game(tuple(night.players), kind, players, first_dealer, rules)
    payload = setup.as_dict()
    payload["position"] = len(night.games) + 1
    if request_key is not None:
        # the same submit again: it asked for the game it started, not one more after it
        earlier = db.session.scalar(
            select(Event).where(Event.night_id == night_id, Event.request_key == request_key)
        )
        if earlier is not None and earlier.kind == GAME_STARTED:
            payload["position"] = earlier.payload.get("position")
    return _append(night_id, GAME_STARTED, payload, expected_version, request_key, recorded_by)


def next_game_defaults(night: Night, kind: str, offer: Mapping[str, Any] | None = None) -> GameSetup:
    """What the next game of ``kind`` starts with unless the scorekeeper changes it.

    The rules of the last game of that kind tonight (else the game's defaults),
    everyone seated (or those the game picks, when its rules limit the players:
    ``default_players``), and the deal where the game at the table would pass it next.
    ``offer`` is one of the game's offers (a pot game's preset: ``{"preset": "nasdaq"}``):
    the last game played with it, else the game's defaults with it.
    """
    game = game_kind(kind)
    offer = dict(offer or {})
    earlier = [
        g for g in played_games(night)
        if g.kind == game.kind and all(g.rules.get(key) == value for key, value in offer.items())
    ]
    rules = dict(earlier[-1].rules) if earlier else game.rules_to_dict(game.rules_from_dict(offer))
    current = play_for(night).current
    seated = tuple(night.players)
    dealer = current.game.next_dealer(current.state)
    players = tuple(game.default_players(seated, dealer, game.rules_from_dict(rules)))
    if dealer not in players and players:
        dealer = players[0]
    return GameSetup(game.kind, players, dealer, rules)


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
    money = money_of(night)
    seated = list(night.players)

    def make() -> Night:
        first = {
            "kind": plan.game.kind, "players": list(plan.game.players), "first_dealer": plan.first_dealer,
            "rules": dict(plan.game.rules), "carried_in": plan.carried_in,
        }
        new = _new_night(plan.name, seated, money, first)
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
    """Record an action of the game at the table, once, if legal and the table is still at ``expected_version``.

    The action is written as the event of the game at the table when the form was
    shown; had another game started since, the version says so (StaleTable).
    """
    night = db.session.get(Night, night_id)
    if night is None:
        raise IllegalAction("this night does not exist")
    game = play_for(night).current.setup.kind  # the game at the table (a game taken back is not)
    kind, payload = GAMES[game].to_event(action)
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
    full = storable.MAX_RECORDS + (storable.RECORDS_FOR_SETTLING if kind in LEDGER_KINDS else 0)
    if night.version >= full:
        db.session.rollback()
        raise IllegalAction(
            f"this night holds {night.version:,} records, the most one night can hold "
            f"({storable.MAX_RECORDS:,}): start a new night to play on"
        )
    play = play_for(night)
    current = play.current
    at_table = kind in current.game.event_kinds
    try:
        if at_table:
            action = current.game.from_event(kind, payload)
            summary = current.state.verify(action).summary
            import companion.service.bank as bank_service  # a player cashed out: nothing may move their chips (issue 20, item 2)

            bank_service.refuse_moving_cashed_out(night, current.state, action)
        elif kind == GAME_STARTED:
            summary = _verify_start(play, payload)
            import companion.service.bank as bank_service  # the stopped game's pot goes back: not to a cashed-out player

            bank_service.refuse_closing_onto_cashed_out(night, current)
        elif kind == GAME_TAKEN_BACK:
            summary = _verify_take_back(play, payload)
            import companion.service.bank as bank_service  # the game before it reopens its pot: not with a cashed-out player's chips

            bank_service.refuse_reopening_onto_cashed_out(night, play.played()[-2])
        else:
            summary = _verify_ledger_event(night, kind, payload)
    except IllegalAction:
        db.session.rollback()
        raise
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
    if kind not in LEDGER_KINDS:
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
    game_id = None
    if at_table:
        game_id = night.games[current.number - 1].id  # loaded with the night (selectin)
    elif kind == GAME_STARTED:
        row = _game_row(payload["position"], _setup_from_payload(payload))
        row.night_id = night.id
        db.session.add(row)
        db.session.flush()
        game_id = row.id
    db.session.add(
        Event(
            night_id=night.id,
            game_id=game_id,
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
                if at_table:
                    cached[1].push(current.number, kind, payload, seq)
                elif kind == GAME_STARTED:
                    cached[1].start(_setup_from_payload(payload))
                elif kind == GAME_TAKEN_BACK:
                    cached[1].take_back(payload["position"])
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


def event_for_key(night: Night, request_key: str) -> tuple[str, dict[str, Any]] | None:
    """(kind, payload) of the event recorded in ``night`` by the submit made with ``request_key``, if any.

    A doubled tap arrives after its first copy changed the table: the game's screens
    rebuild the form as it was shown from what the first copy recorded.
    """
    if not re.fullmatch(r"[A-Za-z0-9_-]{16,64}", request_key or ""):
        return None
    event = db.session.scalar(select(Event).where(Event.night_id == night.id, Event.request_key == request_key))
    if event is None:
        return None
    return event.kind, dict(event.payload)


def summary_of(night: Night, seq: int) -> str:
    """The summary of the record made by event ``seq`` (ledger events describe themselves)."""
    event = db.session.scalar(select(Event).where(Event.night_id == night.id, Event.seq == seq))
    if event is None:
        return ""
    if event.game_id is None or event.kind == GAME_STARTED:
        return describe_ledger_event(event.kind, event.payload, play_for(night))
    # the record's place in its game's log: how many of that game's events came up to it
    index = db.session.scalar(
        select(func.count()).select_from(Event).where(
            Event.night_id == night.id, Event.game_id == event.game_id, Event.seq <= seq,
            Event.kind != GAME_STARTED,  # the event that started the game is not in its log
        )
    )
    position = db.session.scalar(select(Game.position).where(Game.id == event.game_id))
    log = play_for(night).game(position).state.log
    return log[index - 1].summary if 0 < index <= len(log) else ""


def describe_game_start(payload: Mapping[str, Any], play: NightPlay | None = None) -> str:
    """ "Game 2 of the night: Nap starts, Ben deals.", numbered among the games played (``play``:
    the night's fold, else the number it was started with)."""
    title = title_of(str(payload.get("kind", "")), payload.get("rules"))
    return f"Game {_shown(payload, play)} of the night: {title} starts, {payload.get('first_dealer')} deals."


def _shown(payload: Mapping[str, Any], play: NightPlay | None) -> Any:
    """The number the night shows the game of a start or a take-back by (NightPlay.shown_number)."""
    position = payload.get("position")
    if play is None or isinstance(position, bool) or not isinstance(position, int):
        return position
    return play.shown_number(min(position, len(play.games) + 1))


def take_back_game(
    night_id: int, position: int, expected_version: int, request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Take back the game at the table, started by mistake with nothing recorded in it: an event,
    like every correction (its row and its start stay); the game before it is at the table again."""
    night = db.session.get(Night, night_id)
    if night is None:
        raise IllegalAction("this night does not exist")
    game = night.games[position - 1].kind if 0 < position <= len(night.games) else ""
    return _append(night_id, GAME_TAKEN_BACK, {"position": position, "kind": game}, expected_version,
                   request_key, recorded_by)


def describe_take_back(payload: Mapping[str, Any], play: NightPlay | None) -> str:
    """What the night says of a game taken back: "Game 2 of the night (Nap) taken back: … Napalm is at the table again, as it was." """
    position = payload.get("position")
    title = title_of(str(payload.get("kind", "")), None)
    games = play.games if play is not None else ()
    before = [g for g in games if isinstance(position, int) and g.number < position and not g.taken_back]
    again = f" {before[-1].title} is at the table again, as it was." if before else ""
    return (f"Game {_shown(payload, play)} of the night ({title}) taken back: started by mistake, nothing recorded "
            f"in it.{again}")


def _verify_take_back(play: NightPlay, payload: Mapping[str, Any]) -> str:
    position = payload.get("position")
    if isinstance(position, bool) or not isinstance(position, int):
        raise IllegalAction("say which game to take back")
    played = play.verify_take_back(position)
    if payload.get("kind") != played.setup.kind:
        raise IllegalAction("another game is at the table since this screen was shown")
    return describe_take_back(payload, play)


def _verify_start(play: NightPlay, payload: Mapping[str, Any]) -> str:
    if payload.get("position") != len(play.games) + 1:
        raise IllegalAction("another game started since this screen was shown")
    play.verify_start(_setup_from_payload(payload))
    return f"{describe_game_start(payload, play)} {play.current.stopping()}"  # what became of the last game's pot


def _verify_ledger_event(night: Night, kind: str, payload: dict[str, Any]) -> str:
    import companion.service.bank as bank_service  # the bank and the Bonus Round: night ledger events of their own

    if kind in bank_service.KINDS or kind == "paid":
        summary = bank_service.verify(night, kind, payload)  # "paid": refused while the bank does not balance
        if kind != "paid":
            return summary
    if kind != "paid":
        raise IllegalAction(f"unknown event kind {kind!r}")
    payer, payee, chips = payload.get("payer"), payload.get("payee"), payload.get("chips")
    if payer not in night.players or payee not in night.players or payer == payee:
        raise IllegalAction("a payment is between two different players at this table")
    if isinstance(chips, bool) or not isinstance(chips, int) or chips <= 0:
        raise IllegalAction("a payment is a positive whole number of chips")
    return describe_ledger_event(kind, payload)


def describe_ledger_event(kind: str, payload: dict[str, Any], play: NightPlay | None = None) -> str:
    """A night ledger event as the history says it; ``play`` (the night's fold) numbers its games."""
    if kind == "paid":
        return f"{payload['payer']} paid {payload['payee']} {chips_text(payload['chips'])} (settle-up)."
    if kind == GAME_STARTED:
        return describe_game_start(payload, play)
    if kind == GAME_TAKEN_BACK:
        return describe_take_back(payload, play)
    from companion.service import bank as bank_service

    return bank_service.describe(kind, payload)


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
    digest = _digest("import", hashlib.sha256(raw).hexdigest(), name)
    # Read and replay the whole file before the database is asked anything: looking up the
    # request key begins the write transaction (BEGIN IMMEDIATE), and every other table
    # would wait while a large file is parsed under it.
    db.session.rollback()
    parsed = nightfile.loads(text)
    unplayable = [p for p in parsed.play.games if playable is not None and p.setup.kind not in playable]
    if unplayable:
        played = unplayable[0]
        raise IllegalAction(
            f"game {played.number} of this night is {played.title}, which the app cannot show at the table yet "
            "(flask --app companion replay reads the file whole)"
        )
    first = parsed.play.games[0].setup

    def make() -> Night:
        night = _new_night(
            name or parsed.name or "Imported night",
            list(parsed.players),
            parsed.money,
            {"kind": first.kind, "players": list(first.players), "first_dealer": first.first_dealer,
             "rules": dict(first.rules), "carried_in": first.carried_in},
        )
        events: list[Event] = []
        for played in parsed.play.games:
            if played.number == 1:
                game = night.games[0]
            else:
                game = _game_row(played.number, played.setup)
                night.games.append(game)
                events.append(Event(game=game, kind=GAME_STARTED,
                                    payload={**played.setup.as_dict(), "position": played.number}))
                if played.taken_back:  # nothing recorded in it: its start, then its taking back
                    events.append(Event(kind=GAME_TAKEN_BACK,
                                        payload={"position": played.number, "kind": played.setup.kind}))
            for action in played.game.live_actions(played.state):
                kind, payload = played.game.to_event(action)
                events.append(Event(game=game, kind=kind, payload=payload))
        events.extend(Event(kind=kind, payload=payload) for kind, payload in parsed.ledger_events)  # bank, Bonus Round
        for seq, event in enumerate(events, start=1):
            event.seq, event.recorded_by = seq, "import"
        night.version = len(events)
        night.events = events
        return night

    return _add_night(request_key, digest, make)[0]


def export_history(night: Night) -> str:
    """The night as a ``companion-night/2`` file (every game's live records)."""
    from companion.service import bank as bank_service

    return nightfile.dumps(night.name, play_for(night), money_of(night), bank_service.ledger_of(night))
