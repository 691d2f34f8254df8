"""The night's own ledger beside its games: the chip bank and the Bonus Round (issue 13).

Neither is a game of the night: their events are night ledger events (``game_id``
None, like a settle-up payment), written through the one write path
(:func:`companion.service.commands._append`: the table's version and the form's request key,
so a doubled or stale submit records nothing twice), folded here from the log.

* **What the night settles on**: chip counts (the bank: counts − chips bought) from the
  first buy-in or the first game of Poker with real betting, else the app's tally (the
  games' balances plus the Bonus Round's payments): :func:`night_ledger.basis`.  A night
  recorded chip by chip may choose the tally anyway (a ``settle_on`` event, so the history
  says when it changed); it cannot change once a settle-up payment is marked.
* **The bank** (:mod:`companion.night.bank`): buy-in, rebuy, everyone buys in,
  cash-out with the counted chips, and a cancel that takes one back (a correction is a
  new event; nothing is edited).  The bank's events are numbered as the night's log
  numbers them, so "#7" is the same line in the bank and in the history.
* **The Bonus Round** (:mod:`companion.night.bonus`): the grid (a new grid is a new
  event; the latest counts for the rolls after it), the app's rolls with ``secrets``
  and the lucky numbers, each payment recorded with the roll that made it.

What the report uses: :func:`extra_net_chips` (what to add to each
player's balance from the games) and :func:`settle_block` (why the night cannot be
settled yet, or None).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from companion.extensions import db
from companion.games import IllegalAction
from companion.night.bonus import roll as roll_dice
from companion.night.bank import BankCheck
from companion.money.settle import Payment, settle_up
from companion.db.models import Event, Night
from companion.night.ledger import (
    BANK,
    BANK_KINDS,
    BONUS_KINDS,
    KINDS,
    MODE_KIND,
    SETTLE_ON,
    SETTLING_KINDS,
    TALLY,
    NightLedger,
    cashed_out,
    describe,
    moves_cashed_out,
    settle_on_counts,
)

#: re-exported for the views and services: the pure fold lives in companion.night.ledger


def _events(night: Night) -> list[Event]:
    return list(
        db.session.scalars(
            select(Event)
            .where(Event.night_id == night.id, Event.game_id.is_(None), Event.kind.in_(KINDS + ("paid",)))
            .where(Event.seq <= night.version)
            .order_by(Event.seq)
        )
    )


def ledger_of(night: Night) -> NightLedger:
    """The night's setting, bank and Bonus Round at ``night.version`` (kept per version)."""
    from companion.service import commands as services

    kept = services.derived("night-ledger", night.id, night.version)
    if kept is not None:
        return kept
    ledger = NightLedger(
        tuple(night.players), Decimal(night.chip_value or 0), night.currency or "", records_chip_by_chip(night)
    )
    for event in _events(night):
        if event.kind in KINDS:
            ledger.apply(event.seq, event.kind, event.payload)
    services.keep_derived("night-ledger", night.id, night.version, ledger)
    return ledger


def paid_payments(night: Night) -> tuple[Payment, ...]:
    """The settle-up payments marked paid at ``night.version``, in the order recorded."""
    payloads = db.session.scalars(
        select(Event.payload)
        .where(Event.night_id == night.id, Event.kind == "paid", Event.seq <= night.version)
        .order_by(Event.seq)
    )
    return tuple(Payment(p["payer"], p["payee"], p["chips"]) for p in payloads)


def marked_paid(night: Night) -> bool:
    """Whether a settle-up payment is marked paid (then the night's setting can no longer change)."""
    return (
        db.session.scalar(
            select(Event.id).where(Event.night_id == night.id, Event.kind == "paid", Event.seq <= night.version).limit(1)
        )
        is not None
    )


def verify(night: Night, kind: str, payload: dict[str, Any]) -> str:
    """services' hook: the summary of a night ledger event, or IllegalAction (nothing is written)."""
    if kind == "paid":
        block = settle_block(night)
        if block is not None:
            raise IllegalAction(f"the night settles on chip counts: {block}")
        return ""
    ledger = ledger_of(night)
    if kind == "bonus_roll" and isinstance(payload, dict) and payload.get("left_out", []) != list(cashed_out(ledger)):
        raise IllegalAction("who has cashed out changed since this roll was made: roll again")
    return ledger.verify(kind, payload, paid=kind == MODE_KIND and marked_paid(night))


def refuse_moving_cashed_out(night: Night, state: Any, action: Any) -> None:
    """IllegalAction (with how to go on) when ``action`` at the table would move the chips of a player
    already cashed out on a night settled on the counts: their count would no longer be their chips,
    and the play would vanish from the settle-up.  The action is tried on a copy of the table (only
    when someone has cashed out: most actions pay nothing for this)."""
    ledger = ledger_of(night)
    if not cashed_out(ledger):
        return
    after = copy.deepcopy(state)
    after.push(action)
    why = moves_cashed_out(ledger, state.net_chips, after.net_chips)
    if why is not None:
        raise IllegalAction(why)


def refuse_closing_onto_cashed_out(night: Night, game: Any) -> None:
    """The same for starting the next game: it stops ``game``, the one at the table, and what that
    game's pot or pool gives back (a player's antes, their share of an unwon pool) would reach a
    player counted while it was still in the middle (issue 20, item 2)."""
    ledger = ledger_of(night)
    if not cashed_out(ledger):
        return
    why = moves_cashed_out(ledger, game.state.net_chips, game.close().net)
    if why is not None:
        raise IllegalAction(why)


def refuse_reopening_onto_cashed_out(night: Night, game: Any) -> None:
    """The mirror for taking back a game started by mistake: ``game``, the one before it, is at the
    table again with its pot as it was, so what its closing gave back (a player's ante, their share of
    an unwon pool) goes back into the middle; refused when that would take chips from a player
    counted since (issue 20, item 2)."""
    ledger = ledger_of(night)
    if not cashed_out(ledger):
        return
    why = moves_cashed_out(ledger, game.close().net, game.state.net_chips)
    if why is not None:
        raise IllegalAction(why)


# --- what the report and the bank page read ----------------------------------------------------


def records_chip_by_chip(night: Night) -> bool:
    """Whether every game of the night is one the app records chip by chip (then counts are checked
    against bought + the tally): :meth:`NightPlay.records_chip_by_chip`."""
    from companion.service import commands as services

    return services.play_for(night).records_chip_by_chip()


def games_net(night: Night) -> dict[str, int]:
    """The games' closing balances over the night (each game as it closed)."""
    from companion.service import commands as services

    return services.play_for(night).net()


def tally_of(night: Night, ledger: NightLedger | None = None) -> dict[str, int]:
    """The app's tally: the games' balances plus the Bonus Round's payments."""
    ledger = ledger or ledger_of(night)
    net = games_net(night)
    return {p: net.get(p, 0) + ledger.bonus_net.get(p, 0) for p in night.players}


@dataclass(frozen=True)
class BankState:
    """Everything the bank page and the report read, worked out once per version.

    ``tally`` is None unless every game of the night is recorded chip by chip;
    ``results`` (counts − bought, every seated player) and ``plan`` are None until the
    bank balances; ``block`` says why the night cannot settle on the counts (None on the
    tally, or when it can)."""

    ledger: NightLedger
    games_net: dict[str, int]
    tally: dict[str, int] | None
    check: BankCheck
    results: dict[str, int] | None
    plan: tuple[Payment, ...] | None
    block: str | None


def bank_state(night: Night) -> BankState:
    from companion.service import commands as services

    kept = services.derived("bank-state", night.id, night.version)
    if kept is not None:
        return kept
    ledger = ledger_of(night)
    play = services.play_for(night)
    net = play.net()
    counts = settle_on_counts(ledger, net, records_chip_by_chip(night), play.left_in_pot())
    tally, check, results, block = counts.tally, counts.check, counts.results, counts.block
    plan = settle_up(results) if results is not None else None
    state = BankState(ledger, net, tally, check, results, plan, block)
    services.keep_derived("bank-state", night.id, night.version, state)
    return state


def settle_block(night: Night) -> str | None:
    """Why the night cannot be settled yet (on chip counts), or None when it can."""
    return bank_state(night).block


#: what the report and the players' page say while a night on the counts cannot settle yet
NO_PAYMENTS_YET = "No payments yet, and nothing to mark paid: the bank is not balanced."


def unsettled_text(night: Night) -> str:
    """Why a night on the counts has no payments yet, as the report says it ("" when it can settle, or
    settles on the tally)."""
    block = settle_block(night)
    return f"{NO_PAYMENTS_YET} Not settled yet: {block}" if block is not None else ""


def extra_net_chips(night: Night) -> dict[str, int]:
    """What the report adds to each player's balance from the games, so that the night's balances are:

    * on the app's tally: the games + the Bonus Round's payments;
    * on chip counts: counts − chips bought (the bank's results; a player who never
      bought in: 0), i.e. those results − the games' balances.  Only meaningful when
      :func:`settle_block` is None (the report shows that message instead of a plan).
    """
    state = bank_state(night)
    if state.ledger.settle_on != BANK:
        return _bonus(state, night.players)
    return _counted_less_games(state, night.players)


def _bonus(state: BankState, players: Sequence[str]) -> dict[str, int]:
    return {p: state.ledger.bonus_net.get(p, 0) for p in players}


def _counted_less_games(state: BankState, players: Sequence[str]) -> dict[str, int]:
    results = state.results or {}
    return {p: results.get(p, 0) - state.games_net.get(p, 0) for p in players}


#: what the night's own ledger adds beside its games, as the report and the players' page name it
BANK_LINE = ("The bank", "each count less the chips bought, less the games above")
BONUS_LINE = ("Bonus Round", "its payments")


def night_extra(night: Night) -> tuple[str, dict[str, int], str] | None:
    """What the night's own ledger adds beside its games (the Bonus Round, the bank's counts), if anything:
    (title, chips per player, what it is).

    While the night settles on chip counts that do not balance yet, the standings are the
    app's tally (the games and the Bonus Round's payments, what each count will be checked
    against) and the report says why it shows no plan (see :func:`settle_block`).
    """
    state = bank_state(night)
    if state.ledger.settle_on == BANK and state.block is None:
        (title, what), chips = BANK_LINE, _counted_less_games(state, night.players)
    else:
        (title, what), chips = BONUS_LINE, _bonus(state, night.players)
    return (title, chips, what) if any(chips.values()) else None


def bank_results(night: Night) -> dict[str, int] | None:
    """Counts − chips bought per seated player, or None while the bank does not balance."""
    return bank_state(night).results


# --- recording ----------------------------------------------------------------------------------


def record(
    night_id: int, kind: str, payload: dict[str, Any], expected_version: int, request_key: str | None,
    recorded_by: str = "scorekeeper",
) -> Any:
    """Record one night ledger event through services' one write path."""
    from companion.service import commands as services

    if kind not in KINDS:
        raise IllegalAction(f"unknown event kind {kind!r}")
    return services._append(night_id, kind, payload, expected_version, request_key, recorded_by)


def _earlier(night_id: int, request_key: str | None, kind: str) -> Any:
    """The answer to a roll sent again: the roll already made with this key (never a second roll)."""
    from companion.service import commands as services

    if request_key is None:
        return None
    event = db.session.scalar(select(Event).where(Event.night_id == night_id, Event.request_key == request_key))
    if event is None:
        return None
    if event.kind != kind:
        raise services.KeyConflict()
    night = db.session.get(Night, night_id)
    assert night is not None
    summary = next((r.summary for seq, r in ledger_of(night).bonus_log if seq == event.seq), None)
    return services.Recorded(seq=event.seq, summary=summary or describe(event.kind, event.payload), repeated=True)


def roll(
    night: Night, roller: str, expected_version: int, request_key: str | None, recorded_by: str = "scorekeeper",
    rng: Any = None,
) -> Any:
    """The app rolls the grid's dice for ``roller`` (``secrets`` unless a source is given) and records it.

    The same form sent again finds the roll it made (a re-sent roll never rolls again)."""
    earlier = _earlier(night.id, request_key, "bonus_roll")
    if earlier is not None:
        return earlier
    ledger = ledger_of(night)
    grid = ledger._bonus().grid
    if roller not in night.players:
        raise IllegalAction(f"'{roller[:40]}' is not seated tonight")
    left_out = cashed_out(ledger)  # their chips are counted: the roll's payments leave them out
    if roller in left_out:
        raise IllegalAction(
            f"{roller} has cashed out, so cannot roll: choose a dealer still at the table, or cancel "
            f"{roller}'s cash-out in the bank's log (Bank page) first"
        )
    rolled = replace(roll_dice(grid, roller, rng), left_out=left_out)
    return record(night.id, "bonus_roll", rolled.to_dict(), expected_version, request_key, recorded_by)


def roll_lucky(
    night: Night, player: str, expected_version: int, request_key: str | None, recorded_by: str = "scorekeeper",
    rng: Any = None,
) -> Any:
    """The app rolls ``player``'s lucky number (the grid's dice) and records it."""
    earlier = _earlier(night.id, request_key, "bonus_lucky")
    if earlier is not None:
        return earlier
    grid = ledger_of(night)._bonus().grid
    if player not in night.players:
        raise IllegalAction(f"'{player[:40]}' is not seated tonight")
    faces = list(roll_dice(grid, player, rng).faces)
    return record(night.id, "bonus_lucky", {"player": player, "faces": faces}, expected_version, request_key, recorded_by)
