"""The bank and the Bonus Round as commands: the night's own ledger beside its games (issue 13).

Neither is a game of the night: their events are night ledger events (``game_id`` None,
like a settle-up payment), written through a unit of work like every other command
(:mod:`companion.service.uow`: the table's version and the form's request key, so a doubled
or stale submit records nothing twice) and read back by :mod:`companion.service.night_ledger`,
whose names this module also answers to (the views ask both of it).

* **The bank** (:mod:`companion.night.bank`): buy-in, rebuy, everyone buys in,
  cash-out with the counted chips, and a cancel that takes one back (a correction is a
  new event; nothing is edited).  The bank's events are numbered as the night's log
  numbers them, so "#7" is the same line in the bank and in the history.
* **The Bonus Round** (:mod:`companion.night.bonus`): the grid (a new grid is a new
  event; the latest counts for the rolls after it), the app's rolls with ``secrets``
  and the lucky numbers, each payment recorded with the roll that made it.  A roll sent
  again is answered with the roll it made (the dice are the app's, never rolled twice).
* **A player cashed out** on a night settled on the counts: nothing at the table may move
  their chips any more (:func:`refuse_moving_cashed_out` and its two kin, which the table's
  commands ask).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from companion.db.models import Night
from companion.games import IllegalAction
from companion.money.settle import Payment, settle_up
from companion.night.bank import BankCheck
from companion.night.bonus import roll as roll_dice
from companion.night.ledger import (
    BANK,
    BANK_KINDS,
    BANK_LINE,
    BONUS_KINDS,
    BONUS_LINE,
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
from companion.night.play import NightPlay
from companion.service.night_ledger import (
    NO_PAYMENTS_YET,
    BankState,
    bank_results,
    bank_state,
    extra_net_chips,
    games_net,
    ledger_of,
    marked_paid,
    night_extra,
    paid_payments,
    records_chip_by_chip,
    settle_block,
    tab_records,
    tally_of,
    unsettled_text,
)
from companion.service.nights import refuse_on_a_carried_night
from companion.service.uow import Command, Decide, Entry, Recorded, UnitOfWork

#: the names the views and the report read here, from the pure ledger (companion.night.ledger) and the
#: service's reading of it (companion.service.night_ledger), beside this module's own commands
__all__ = [
    "BANK", "BANK_KINDS", "BANK_LINE", "BONUS_KINDS", "BONUS_LINE", "KINDS", "MODE_KIND", "NO_PAYMENTS_YET",
    "SETTLE_ON", "SETTLING_KINDS", "TALLY", "BankCheck", "BankState", "NightLedger", "Payment", "bank_results",
    "bank_state", "cashed_out", "describe", "extra_net_chips", "games_net", "ledger_of", "marked_paid",
    "moves_cashed_out", "night_extra", "paid_payments", "record", "records_chip_by_chip",
    "refuse_closing_onto_cashed_out", "refuse_moving_cashed_out", "refuse_reopening_onto_cashed_out", "roll",
    "roll_dice", "roll_lucky", "settle_block", "settle_on_counts", "settle_up", "tab_records", "tally_of", "unsettled_text", "verify",
]

#: what the app fills in when it rolls the grid's dice: a repeat of the roll says only who rolls
ROLLED = ("dice", "faces", "game", "left_out")
#: what the app fills in when it rolls a lucky number: a repeat says only whose
LUCKY_ROLLED = ("faces",)


def verify(night: Night, kind: str, payload: dict[str, Any]) -> str:
    """The summary of a night ledger event, or IllegalAction (nothing is written).  ``"paid"`` (a
    settle-up payment, recorded by :func:`companion.service.recording.mark_paid`) is refused while the
    bank does not balance."""
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


# --- recording ----------------------------------------------------------------------------------


def _entry(night: Night, kind: str, payload: dict[str, Any]) -> Entry:
    """The event a ledger command adds, checked: the Bonus Round plays at the table, closed once the
    night's pot was carried on; the setting and the bank settle up, which a carried night still does."""
    summary = verify(night, kind, payload)
    if kind in BONUS_KINDS:
        refuse_on_a_carried_night(night)
    return Entry(payload, summary)


def record(
    night_id: int, kind: str, payload: dict[str, Any], expected_version: int, request_key: str | None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Record one night ledger event (the setting, the bank's, the Bonus Round's grid), in a unit of work."""
    if kind not in KINDS:
        raise IllegalAction(f"unknown event kind {kind!r}")
    command = Command(night_id, kind, payload, expected_version, request_key, recorded_by)
    with UnitOfWork() as uow:
        return uow.append(command, lambda night, _play: _entry(night, kind, payload))


def _rolled_for(roller: str, rng: Any) -> Decide:
    def decide(night: Night, _play: NightPlay) -> Entry:
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
        return _entry(night, "bonus_roll", rolled.to_dict())

    return decide


def roll(
    night: Night, roller: str, expected_version: int, request_key: str | None, recorded_by: str = "scorekeeper",
    rng: Any = None,
) -> Recorded:
    """The app rolls the grid's dice for ``roller`` (``secrets`` unless a source is given) and records it.

    The same form sent again finds the roll it made (a re-sent roll never rolls again)."""
    command = Command(night.id, "bonus_roll", {"roller": roller}, expected_version, request_key, recorded_by, ROLLED)
    with UnitOfWork() as uow:
        return uow.append(command, _rolled_for(roller, rng))


def _lucky_for(player: str, rng: Any) -> Decide:
    def decide(night: Night, _play: NightPlay) -> Entry:
        grid = ledger_of(night)._bonus().grid
        if player not in night.players:
            raise IllegalAction(f"'{player[:40]}' is not seated tonight")
        faces = list(roll_dice(grid, player, rng).faces)
        return _entry(night, "bonus_lucky", {"player": player, "faces": faces})

    return decide


def roll_lucky(
    night: Night, player: str, expected_version: int, request_key: str | None, recorded_by: str = "scorekeeper",
    rng: Any = None,
) -> Recorded:
    """The app rolls ``player``'s lucky number (the grid's dice) and records it."""
    command = Command(night.id, "bonus_lucky", {"player": player}, expected_version, request_key, recorded_by,
                      LUCKY_ROLLED)
    with UnitOfWork() as uow:
        return uow.append(command, _lucky_for(player, rng))
