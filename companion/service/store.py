"""A night as the service reads it: the fold of its event log, kept per process, and what is derived from it.

One place loads a night's :class:`~companion.night.play.NightPlay` (its games, each the fold of
its own events): :func:`play_for`.  Each process keeps the fold of the nights it has served,
keyed by the night's version, and catches up from the database when another process (or
phone) has written since, so recording stays constant-time on a long night without trusting
anything but the event log.  Beside the folds, the same bounded memory keeps what pages
derive from a night at a version (:func:`derived`, :func:`keep_derived`): a night's first
``version`` events never change, so neither does anything computed from them.

The unit of work (:mod:`companion.service.uow`) moves a kept fold on after each commit
(:func:`advance`); nothing else writes here.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from companion.db.models import Event, Game, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.games.night_kinds import GAME_STARTED, GAME_TAKEN_BACK
from companion.night import file as nightfile
from companion.night.play import GameSetup, NightPlay
from companion.service.lru import LRU

#: nights whose fold one process keeps (least recently used beyond that is forgotten and,
#: when asked for again, rebuilt from the log): config FOLD_CACHE_SIZE, see configure_cache
FOLD_CACHE_SIZE = 256
#: events the kept folds may hold in all, whatever the number of nights: config
#: FOLD_CACHE_EVENTS.  What a fold (and what is derived from it) takes grows with its
#: events, so this, not the count of nights, bounds the memory (issue 21, item 2).
FOLD_CACHE_EVENTS = 100_000
#: what a night's derived values (standings, live parts) take in _derived, per cached fold
DERIVED_PER_NIGHT = 8
#: the events behind what _derived keeps may be this many times FOLD_CACHE_EVENTS.  A night's derived values
#: are a dozen to thirty-odd values (its pages, downloads, standings, history lines), each weighed by the
#: night's events, so at 8 (what it was until issue 37) they kept the derived values of a dozen nights of
#: 2,000 stages, half a million objects a full collection walks and most of a process's memory; at 2 they
#: keep those of the few nights in play (bench/README.md, "Memory and the collector's pauses").
DERIVED_EVENTS_PER_EVENT = 2


def events_in(kept: tuple[int, Any]) -> int:
    """The weight of a kept ``(version, value)``: the events it was made from (one at least)."""
    return 1 + kept[0]


_cache: LRU[int, tuple[int, NightPlay]] = LRU(FOLD_CACHE_SIZE, events_in, FOLD_CACHE_EVENTS)
#: (what, night id) -> (version, value): what this process last derived from each night,
#: weighed like the folds (a value derived from a night grows with its events at most)
_derived: LRU[tuple[str, int], tuple[int, Any]] = LRU(
    FOLD_CACHE_SIZE * DERIVED_PER_NIGHT, events_in, FOLD_CACHE_EVENTS * DERIVED_EVENTS_PER_EVENT
)
#: one lock per stripe of night ids, a fixed number: bounded, and never dropped while held
#: (a lock forgotten while a thread holds it would let a second thread into the same fold)
_LOCK_STRIPES = 256
_locks = tuple(threading.Lock() for _ in range(_LOCK_STRIPES))


def _lock_for(night_id: int) -> threading.Lock:
    return _locks[night_id % _LOCK_STRIPES]


def configure_cache(size: int, events: int = FOLD_CACHE_EVENTS) -> None:
    """Keep the folds of at most ``size`` nights and ``events`` events, and their derived values, in this process."""
    _cache.resize(size, events)
    _derived.resize(size * DERIVED_PER_NIGHT, events * DERIVED_EVENTS_PER_EVENT)


def clear_cache() -> None:
    """Forget every cached fold (tests use this to prove the log alone suffices)."""
    _cache.clear()
    _derived.clear()


def cache_weight() -> tuple[int, int]:
    """The events behind what this process keeps: (in its folds, in their derived values)."""
    return _cache.weight, _derived.weight


def derived(what: str, night_id: int, version: int) -> Any | None:
    """The value kept by :func:`keep_derived` for this night at this version, if any.

    Once play has started (version > 0) a night's seating, rules and settings can no
    longer change, and its first ``version`` events never do: anything computed from
    them is a function of the night's id and version, valid in any process.
    """
    kept = _derived.get((what, night_id))
    return kept[1] if kept is not None and kept[0] == version and version > 0 else None


def derived_before(what: str, night_id: int, version: int) -> tuple[int, Any] | None:
    """``(kept version, value)`` of what :func:`keep_derived` kept of this night at an earlier version, if any.

    A night's ledger is append-only (an event is never edited or deleted; a correction is a
    new event), so what was derived from its first ``kept`` events can be extended with the
    events after ``kept`` (:func:`events_after`) instead of remade from the whole night
    (issue 22): the work per action then follows what the action added.  Another process
    may have written since, so the caller reads every event after ``kept``, not one.
    """
    kept = _derived.get((what, night_id))
    return kept if kept is not None and 0 < kept[0] < version else None


def keep_derived(what: str, night_id: int, version: int, value: Any) -> None:
    """Keep ``value`` as ``what`` of this night at this version (never before play starts)."""
    if version > 0:
        _derived[(what, night_id)] = (version, value)  # bounded: least recently used beyond the cap goes


# --- a night's rows ----------------------------------------------------------------------------


def setup_of(game: Game) -> GameSetup:
    return GameSetup(game.kind, tuple(game.players), game.first_dealer, dict(game.rules), game.carried_in or None)


def setup_from_payload(payload: Mapping[str, Any]) -> GameSetup:
    """The setup a ``game`` event (the start of a night's next game) starts its game with."""
    return GameSetup(
        kind=payload["kind"],
        players=tuple(payload["players"]),
        first_dealer=payload["first_dealer"],
        rules=dict(payload["rules"]),
        carried_in=payload.get("carried_in") or None,
    )


def money_of(night: Night) -> nightfile.Money:
    """The night's money: what one chip is worth, and in which currency (the night's, for every game)."""
    return nightfile.Money(Decimal(night.chip_value or 0), night.currency or "")


def played_games(night: Night) -> list[Game]:
    """The rows of ``night``'s games that were played: a game taken back (started by mistake) was
    not, and counts nowhere but in the history and the night file that record it (issue 20)."""
    return [night.games[p.number - 1] for p in play_for(night).played()]


def games_of_the_night(night: Night) -> list[Game]:
    """The rows of ``night``'s games as its report counts them: those played with something recorded in them
    (:meth:`~companion.night.play.NightPlay.of_the_night`: a game started and left with nothing in it is no
    game of the night, issue 35); the night's history and file still hold every game started."""
    return [night.games[p.number - 1] for p in play_for(night).of_the_night()]


def events_of(night: Night) -> list[Event]:
    return list(db.session.scalars(select(Event).where(Event.night_id == night.id).order_by(Event.seq)))


def events_after(night: Night, since: int) -> list[Any]:
    """``night``'s events after seq ``since`` up to ``night.version``, in order, as plain rows (no ORM objects).

    Each row has the event's ``seq``, ``kind``, ``payload``, ``created_at``, ``recorded_by`` and
    ``game_id``; ``since`` 0 reads the whole night at its version.
    """
    return list(db.session.execute(
        select(Event.seq, Event.kind, Event.payload, Event.created_at, Event.recorded_by, Event.game_id)
        .where(Event.night_id == night.id, Event.seq > since, Event.seq <= night.version)
        .order_by(Event.seq)
    ))


def _games_of(night_id: int) -> list[Game]:
    return list(db.session.scalars(select(Game).where(Game.night_id == night_id).order_by(Game.position)))


# --- the fold ----------------------------------------------------------------------------------


def fold_in(play: NightPlay, kind: str, payload: Mapping[str, Any], seq: int, position: int | None) -> None:
    """Fold one stored event into ``play``: a game's event into its game (at ``position``), the start
    or the taking back of a game into the night; the night's ledger events are not the games' (they
    are folded by :mod:`companion.service.night_ledger`)."""
    if kind == GAME_STARTED:
        play.start(setup_from_payload(payload))
    elif kind == GAME_TAKEN_BACK:
        play.take_back(payload["position"])
    elif position is not None:
        play.push(position, kind, payload, seq)


def play_for(night: Night) -> NightPlay:
    """The fold of ``night``'s events at ``night.version`` (cached; rebuilt from the log when needed).

    The cache is trusted only once play has started (version > 0): before that the
    setup screen may still change game 1, here or in another process.
    """
    with _lock_for(night.id):
        cached = _cache.get(night.id)
        if cached is not None and 0 < cached[0] == night.version:
            return cached[1].snapshot()
        if cached is not None and 0 < cached[0] < night.version:
            play = cached[1]
            _catch_up(night, play, cached[0], night.version)
        else:
            play = _fold(night, night.version)
        if night.version > 0:
            _cache[night.id] = (night.version, play)
        return play.snapshot()


def play_at(night: Night, version: int) -> NightPlay:
    """The fold of ``night``'s first ``version`` events, rebuilt from the log and not kept: how the
    night stood when an earlier event was checked (what a repeated submit is answered with)."""
    return _fold(night, version)


def _fold(night: Night, version: int) -> NightPlay:
    games = _games_of(night.id)
    play = NightPlay.begin(night.players, setup_of(games[0]))
    _catch_up(night, play, 0, version, games)
    return play


def _catch_up(night: Night, play: NightPlay, since: int, until: int, games: list[Game] | None = None) -> None:
    """Fold ``night``'s events after ``since`` up to ``until`` into ``play``."""
    if until <= since:
        return
    positions = {game.id: game.position for game in (games if games is not None else _games_of(night.id))}
    events = db.session.scalars(
        select(Event).where(Event.night_id == night.id, Event.seq > since, Event.seq <= until).order_by(Event.seq)
    ).all()
    for event in events:
        position = positions[event.game_id] if event.game_id is not None else None
        fold_in(play, event.kind, event.payload, event.seq, position)


def table_for(night: Night) -> Any:
    """The state of the game at the table (the night's last game), at ``night.version``."""
    return play_for(night).current.state


def advance(night_id: int, version: int, kind: str, payload: Mapping[str, Any], seq: int, position: int | None) -> None:
    """Move the kept fold of a night on by the event just committed as ``seq``, if it is the fold at
    ``version`` the event was checked against (else the next :func:`play_for` catches up from the log)."""
    with _lock_for(night_id):
        cached = _cache.get(night_id)
        if cached is None or cached[0] != version:
            return
        try:
            fold_in(cached[1], kind, payload, seq, position)
            _cache[night_id] = (seq, cached[1])
        except IllegalAction:  # pragma: no cover - the same fold as the checked copy: rebuilt from the log instead
            _cache.pop(night_id, None)


def forget(night_id: int) -> None:
    """Drop the kept fold of a night whose setup changed (before play starts): rebuilt when next asked for."""
    _cache.pop(night_id, None)


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
    db.session.rollback()  # a read only: end it, so that the server's workers start with no transaction open
    return ids
