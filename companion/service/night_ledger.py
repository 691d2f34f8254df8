"""The night's own ledger as read from its log: the setting, the bank and the Bonus Round, per version.

Neither the bank nor the Bonus Round is a game of the night: their events are night ledger
events (``game_id`` None, like a settle-up payment), folded here from the log into a
:class:`~companion.night.ledger.NightLedger` and kept per version beside the night's fold
(:func:`companion.service.store.derived`).  What they are worth to the night is worked out
here once per version (:func:`bank_state`), for the report, the bank page and the checks
the commands make (:mod:`companion.service.bank` records them).

* **What the night settles on**: chip counts (the bank: counts − chips bought) from the
  first buy-in or the first game of Poker with real betting, else the app's tally (the
  games' balances plus the Bonus Round's payments): :func:`night_ledger.basis`.  A night
  recorded chip by chip may choose the tally anyway (a ``settle_on`` event, so the history
  says when it changed); it cannot change once a settle-up payment is marked.

What the report uses: :func:`extra_net_chips` (what to add to each player's balance from
the games) and :func:`settle_block` (why the night cannot be settled yet, or None).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select

from companion.db.models import Event, Night
from companion.extensions import db
from companion.money.settle import Payment, settle_up
from companion.night.bank import BankCheck
from companion.night.ledger import BANK, FOLDED, ExtraLine, NightLedger, extra_line, settle_on_counts
from companion.night.tab import TabCleared
from companion.service.store import derived, keep_derived, play_for


def _events(night: Night) -> list[Event]:
    """The night's own ledger events (no game's: its setting, bank, Bonus Round and the group's tab records) at its
    version, in order.

    Ordered by ``seq + 0``, not ``seq``: ordered by the column itself, SQLite walks every event
    of the night in the order of its (night, seq) key to find these few; by the expression, it
    reads them from the (night, kind, seq) index and sorts the handful it found (153 → 8 µs on a
    2,000-stage night, read at each new version: issue 22).  The order is the same.
    """
    return list(
        db.session.scalars(
            select(Event)
            .where(Event.night_id == night.id, Event.game_id.is_(None), Event.kind.in_(FOLDED))
            .where(Event.seq <= night.version)
            .order_by(Event.seq + 0)
        )
    )


def ledger_of(night: Night) -> NightLedger:
    """The night's setting, bank and Bonus Round at ``night.version`` (kept per version)."""
    kept = derived("night-ledger", night.id, night.version)
    if kept is not None:
        return kept
    ledger = NightLedger(
        tuple(night.players), Decimal(night.chip_value or 0), night.currency or "", records_chip_by_chip(night)
    )
    for event in _events(night):
        ledger.apply(event.seq, event.kind, event.payload)
    keep_derived("night-ledger", night.id, night.version, ledger)
    return ledger


def paid_payments(night: Night) -> tuple[Payment, ...]:
    """The settle-up payments marked paid at ``night.version``, in the order recorded."""
    payloads = db.session.scalars(
        select(Event.payload)
        .where(Event.night_id == night.id, Event.kind == "paid", Event.seq <= night.version)
        .order_by(Event.seq)
    )
    return tuple(Payment(p["payer"], p["payee"], p["chips"]) for p in payloads)


def tab_records(night: Night) -> tuple[TabCleared, ...]:
    """What the group's tab settled of ``night`` at its version (``tab_cleared`` events), in the order appended."""
    return ledger_of(night).tab_records


def marked_paid(night: Night) -> bool:
    """Whether a settle-up payment is marked paid (then the night's setting can no longer change)."""
    return (
        db.session.scalar(
            select(Event.id).where(Event.night_id == night.id, Event.kind == "paid", Event.seq <= night.version).limit(1)
        )
        is not None
    )


def records_chip_by_chip(night: Night) -> bool:
    """Whether every game of the night is one the app records chip by chip (then counts are checked
    against bought + the tally): :meth:`NightPlay.records_chip_by_chip`."""
    return play_for(night).records_chip_by_chip()


def games_net(night: Night) -> dict[str, int]:
    """The games' closing balances over the night (each game as it closed)."""
    return play_for(night).net()


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
    kept = derived("bank-state", night.id, night.version)
    if kept is not None:
        return kept
    ledger = ledger_of(night)
    play = play_for(night)
    net = play.net()
    counts = settle_on_counts(ledger, net, records_chip_by_chip(night), play.left_in_pot())
    tally, check, results, block = counts.tally, counts.check, counts.results, counts.block
    plan = settle_up(results) if results is not None else None
    state = BankState(ledger, net, tally, check, results, plan, block)
    keep_derived("bank-state", night.id, night.version, state)
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


def night_extra(night: Night) -> ExtraLine | None:
    """What the night's own ledger adds beside its games (the Bonus Round, the bank's counts), if anything:
    (title, chips per player, what it is, the Bonus Round's payments in it):
    :func:`companion.night.ledger.extra_line` at this version.
    """
    state = bank_state(night)
    return extra_line(state.ledger, state.games_net, state.results, state.block)


def bank_results(night: Night) -> dict[str, int] | None:
    """Counts − chips bought per seated player, or None while the bank does not balance."""
    return bank_state(night).results
