"""What the night's history says of each event, and what a submit recorded.

One sentence per event the night records itself (a game started or taken back, a
settle-up payment, the bank's and the Bonus Round's), numbered among the games played;
a game's own events say themselves in its log.  :func:`summary_of` is the answer a
repeated submit gets (the unit of work answers it with what the first one recorded),
and :func:`event_for_key` what a doubled tap's form is rebuilt from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select

from companion.db.models import Event, Game, Night
from companion.extensions import db
from companion.games import IllegalAction, title_of
from companion.games.night_kinds import BANK_KINDS, GAME_STARTED, GAME_TAKEN_BACK, TAB_CLEARED
from companion.money.amounts import chips_text
from companion.night import tab as night_tab
from companion.night.file import Money
from companion.night.ledger import describe
from companion.night.play import NightPlay
from companion.service.night_ledger import ledger_of
from companion.service.store import money_of, play_at, play_for

#: the Bonus Round's events that roll the app's dice: their answer says what the roll paid
ROLLS = ("bonus_roll", "bonus_lucky")


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


def started_summary(payload: Mapping[str, Any], play: NightPlay) -> str:
    """What starting a game says, ``play`` being the night as it stood just before: the game that starts
    and what became of the last one's pot ("… Napalm stops: …")."""
    return f"{describe_game_start(payload, play)} {play.current.stopping()}"


def describe_take_back(payload: Mapping[str, Any], play: NightPlay | None) -> str:
    """What the night says of a game taken back: "Game 2 of the night (Nap) taken back: … Napalm is at the table again, as it was." """
    position = payload.get("position")
    title = title_of(str(payload.get("kind", "")), None)
    games = play.games if play is not None else ()
    before = [g for g in games if isinstance(position, int) and g.number < position and not g.taken_back]
    again = f" {before[-1].title} is at the table again, as it was." if before else ""
    return (f"Game {_shown(payload, play)} of the night ({title}) taken back: started by mistake, nothing recorded "
            f"in it.{again}")


def describe_ledger_event(
    kind: str, payload: dict[str, Any], play: NightPlay | None = None, money: Money | None = None
) -> str:
    """A night ledger event as the history says it; ``play`` (the night's fold) numbers its games, ``money``
    (the night's) says a record of the group's tab in its unit."""
    if kind == TAB_CLEARED:
        return describe_tab_cleared(payload, play, money)
    if kind == "paid":
        return f"{payload['payer']} paid {payload['payee']} {chips_text(payload['chips'])} (settle-up)."
    if kind == GAME_STARTED:
        return describe_game_start(payload, play)
    if kind == GAME_TAKEN_BACK:
        return describe_take_back(payload, play)
    return describe(kind, payload)  # the bank's and the Bonus Round's (companion.night.ledger)


def describe_tab_cleared(payload: Mapping[str, Any], play: NightPlay | None, money: Money | None) -> str:
    """ "Settled through the group's tab: Ann paid off 5.00 EUR of what they owed here, …" (docs/group.md)."""
    money = money or Money()
    seated = play.seated if play is not None else (str(payload.get("player")),) if isinstance(payload, Mapping) else ()
    try:
        record = night_tab.read(payload, seated, money.chip_value > 0)
    except IllegalAction:  # pragma: no cover - stored events were read when appended
        return f"Settled through the group's tab: {payload!r}"
    return night_tab.describe(record, money.currency, money.chip_value > 0)


def summary_of(night: Night, seq: int) -> str:
    """The summary of the record made by event ``seq``, as its first answer said it.

    A game's event: its line in the game's log; a game started or taken back: as said of the
    night as it stood then (rebuilt: a repeated start is rare); the bank's events and the Bonus
    Round's rolls: their lines in the bank's log and the round's (what each moved); the night's
    other events describe themselves.
    """
    event = db.session.scalar(select(Event).where(Event.night_id == night.id, Event.seq == seq))
    if event is None:
        return ""
    if event.kind == GAME_STARTED:
        return started_summary(event.payload, play_at(night, seq - 1))
    if event.kind == GAME_TAKEN_BACK:
        return describe_take_back(event.payload, play_at(night, seq - 1))
    if event.kind in ROLLS:
        made = next((r.summary for at, r in ledger_of(night).bonus_log if at == seq), None)
        return made or describe(event.kind, event.payload)
    if event.kind in BANK_KINDS:
        made = next((e.summary for e in ledger_of(night).bank.log if e.seq == seq), None)
        return made or describe(event.kind, event.payload)
    if event.kind == "bonus_grid":
        return ledger_of(night).verify(event.kind, event.payload)  # said of the grid alone, whatever came after
    if event.game_id is None:
        return describe_ledger_event(event.kind, event.payload, play_for(night), money_of(night))
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


def recorded_since(night: Night, version: int, newest: int = 3) -> tuple[tuple[str, str], ...]:
    """(who recorded it, what the history says of it) of the newest ``newest`` records after ``version``, oldest
    first: what a phone whose screen was made at ``version`` is told another phone recorded meanwhile (issue 39).

    Each said as :func:`summary_of` says it (the history's line, the first answer's words)."""
    if version >= night.version:
        return ()
    rows = db.session.execute(
        select(Event.seq, Event.recorded_by).where(Event.night_id == night.id, Event.seq > version)
        .order_by(Event.seq.desc()).limit(newest)
    ).all()
    return tuple((recorded_by, summary_of(night, seq)) for seq, recorded_by in reversed(rows))
