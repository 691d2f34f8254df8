"""The night's own ledger beside its games: the chip bank and the Bonus Round (issue 13).

Neither is a game of the night: their events are night ledger events (``game_id``
None, like a settle-up payment), written through the one write path
(:func:`companion.services._append`: the table's version and the form's request key,
so a doubled or stale submit records nothing twice), folded here from the log.

* **The setting** ``settle_on``: the night settles on the app's tally (the default:
  the games' balances plus the Bonus Round's payments) or on chip counts (the bank:
  counts − chips bought).  It is an event too, so the history says when it changed; it
  cannot change once a settle-up payment is marked.
* **The bank** (:mod:`companion.ledger.bank`): buy-in, rebuy, everyone buys in,
  cash-out with the counted chips, and a cancel that takes one back (a correction is a
  new event; nothing is edited).  The bank's events are numbered as the night's log
  numbers them, so "#7" is the same line in the bank and in the history.
* **The Bonus Round** (:mod:`companion.games.bonus`): the grid (a new grid is a new
  event; the latest counts for the rolls after it), the app's rolls with ``secrets``
  and the lucky numbers, each payment recorded with the roll that made it.

What the report needs (the lead adds it): :func:`extra_net_chips` (what to add to each
player's balance from the games) and :func:`settle_block` (why the night cannot be
settled yet, or None).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from .extensions import db
from .games import IllegalAction
from .games.bonus import BonusGrid, BonusRecord, BonusRound, Roll, SetLucky, check_faces, roll as roll_dice
from .ledger.bank import Bank, BankAction, BankCheck, BankError, BuyIn, Cancel, CashOut, EveryoneBuysIn, Rebuy
from .ledger.settle import Payment, settle_up
from .models import Event, Night

TALLY, BANK = "tally", "bank"
SETTLE_ON = {TALLY: "the app's tally", BANK: "chip counts (the bank)"}

MODE_KIND = "settle_on"
BANK_KINDS = ("buy_in", "rebuy", "all_buy_in", "cash_out", "bank_cancel")
BONUS_KINDS = ("bonus_grid", "bonus_roll", "bonus_lucky")
#: the kinds that settle the night: still recorded once its pot went on to the next night
SETTLING_KINDS = (MODE_KIND, *BANK_KINDS)
KINDS = SETTLING_KINDS + BONUS_KINDS
MAX_LUCKY_CHIPS = 1_000_000


# --- the fold -------------------------------------------------------------------------------


@dataclass
class NightLedger:
    """The night's setting, bank and Bonus Round at one version of its log."""

    players: tuple[str, ...]
    chip_value: Decimal
    currency: str = ""
    settle_on: str = TALLY
    bank: Bank = field(init=False)
    grid: BonusGrid | None = None
    lucky_chips: int = 1
    lucky: dict[str, tuple[int, ...]] = field(default_factory=dict)
    bonus_net: dict[str, int] = field(default_factory=dict)
    #: (night seq, record) of every roll and lucky number, in order
    bonus_log: list[tuple[int, BonusRecord]] = field(default_factory=list)
    _round: BonusRound | None = None

    def __post_init__(self) -> None:
        self.bank = Bank(self.players, self.chip_value, self.currency)
        self.bonus_net = {p: 0 for p in self.players}

    # reading and verifying ---------------------------------------------------------------

    def verify(self, kind: str, payload: Mapping[str, Any], paid: bool = False) -> str:
        """The summary of event ``kind``/``payload`` if it can be recorded now; IllegalAction says why not."""
        if not isinstance(payload, Mapping):
            raise IllegalAction("that could not be understood")
        if kind == MODE_KIND:
            on = payload.get("on")
            if on not in SETTLE_ON:
                raise IllegalAction("settle the night on the app's tally or on chip counts")
            if on == self.settle_on:
                raise IllegalAction(f"the night already settles on {SETTLE_ON[on]}")
            if paid:
                raise IllegalAction("settle-up payments are already marked: the night's setting can no longer change")
            return describe(kind, payload)
        if kind in BANK_KINDS:
            action = bank_action(kind, payload)
            try:
                return self.bank.verify(action)[1]
            except BankError as error:
                raise IllegalAction(str(error)) from None
        if kind == "bonus_grid":
            grid, lucky_chips = grid_of(payload)
            return f"The Bonus Round's grid: {grid.dice}, lucky numbers pay {lucky_chips}."
        if kind in ("bonus_roll", "bonus_lucky"):
            bonus = self._bonus()
            return bonus.verify(bonus_action(bonus.grid, kind, payload))[1]
        raise IllegalAction(f"unknown event kind {kind!r}")

    def _bonus(self) -> BonusRound:
        if self._round is None:
            raise IllegalAction("fill in the Bonus Round's grid first")
        return self._round

    def apply(self, seq: int, kind: str, payload: Mapping[str, Any]) -> None:
        """Fold one stored event (verified when it was recorded)."""
        if kind == MODE_KIND:
            self.settle_on = payload["on"]
        elif kind in BANK_KINDS:
            self.bank.push(bank_action(kind, payload), seq=seq)
        elif kind == "bonus_grid":
            self.grid, self.lucky_chips = grid_of(payload)
            self._round = BonusRound(self.players, self.grid, self.lucky_chips)
            for owner, faces in self.lucky.items():  # the lucky numbers stay; a d20's cannot be a pair
                if self.grid.dice == ("2d6" if len(faces) == 2 else "d20"):
                    self._round.push(SetLucky(owner, faces))
        elif kind in ("bonus_roll", "bonus_lucky"):
            bonus = self._bonus()
            record = bonus.push(bonus_action(bonus.grid, kind, payload))
            if isinstance(record.action, SetLucky):
                self.lucky[record.action.player] = tuple(record.action.faces)
            for t in record.transfers:
                assert t.payer is not None and t.payee is not None
                self.bonus_net[t.payer] -= t.chips
                self.bonus_net[t.payee] += t.chips
            self.bonus_log.append((seq, record))

    @property
    def rolls(self) -> list[tuple[int, BonusRecord]]:
        return [(seq, r) for seq, r in self.bonus_log if isinstance(r.action, Roll)]

    @property
    def last_roll(self) -> tuple[int, BonusRecord] | None:
        rolls = self.rolls
        return rolls[-1] if rolls else None


def bank_action(kind: str, payload: Mapping[str, Any]) -> BankAction:
    """A stored bank event as the bank's action (the bank checks the values)."""
    if not isinstance(payload, Mapping):
        raise IllegalAction("that could not be understood")
    if kind == "all_buy_in":
        return EveryoneBuysIn(payload.get("chips"))  # type: ignore[arg-type]
    if kind == "bank_cancel":
        return Cancel(payload.get("seq"))  # type: ignore[arg-type]
    cls = {"buy_in": BuyIn, "rebuy": Rebuy, "cash_out": CashOut}[kind]
    return cls(payload.get("player"), payload.get("chips"))  # type: ignore[arg-type]


def grid_of(payload: Mapping[str, Any]) -> tuple[BonusGrid, int]:
    grid = BonusGrid.from_dict(payload.get("grid"))
    chips = payload.get("lucky_chips", 1)
    if isinstance(chips, bool) or not isinstance(chips, int) or not 1 <= chips <= MAX_LUCKY_CHIPS:
        raise IllegalAction(f"a lucky number pays a whole number of chips, 1 to {MAX_LUCKY_CHIPS:,}")
    return grid, chips


def bonus_action(grid: BonusGrid, kind: str, payload: Mapping[str, Any]) -> Roll | SetLucky:
    faces = payload.get("faces")
    if not isinstance(faces, list):
        raise IllegalAction("a roll's faces are a list")
    faces_t = check_faces(grid.dice, faces)
    if kind == "bonus_lucky":
        return SetLucky(str(payload.get("player")), faces_t)
    game = payload.get("game")
    if payload.get("dice") != grid.dice or game != grid.game_at(faces_t):
        raise IllegalAction("that roll is not one of the grid's cells")
    return Roll(grid.dice, faces_t, str(game), str(payload.get("roller")))


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
    from . import services

    kept = services.derived("night-ledger", night.id, night.version)
    if kept is not None:
        return kept
    ledger = NightLedger(tuple(night.players), Decimal(night.chip_value or 0), night.currency or "")
    for event in _events(night):
        if event.kind in KINDS:
            ledger.apply(event.seq, event.kind, event.payload)
    services.keep_derived("night-ledger", night.id, night.version, ledger)
    return ledger


def _marked_paid(night: Night) -> bool:
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
    return ledger.verify(kind, payload, paid=kind == MODE_KIND and _marked_paid(night))


def describe(kind: str, payload: Mapping[str, Any]) -> str:
    """One line for the history (no other event needed to say it)."""
    p = payload
    if kind == MODE_KIND:
        return f"The night settles on {SETTLE_ON.get(str(p.get('on')), p.get('on'))}."
    if kind == "buy_in":
        return f"{p.get('player')} bought in {p.get('chips')} chips."
    if kind == "rebuy":
        return f"{p.get('player')} rebought {p.get('chips')} chips."
    if kind == "all_buy_in":
        return f"Everyone bought in {p.get('chips')} chips."
    if kind == "cash_out":
        return f"{p.get('player')} cashed out {p.get('chips')} chips, counted."
    if kind == "bank_cancel":
        return f"Bank correction: #{p.get('seq')} cancelled."
    if kind == "bonus_grid":
        grid = p.get("grid") if isinstance(p.get("grid"), Mapping) else {}
        return f"The Bonus Round's grid ({grid.get('dice')}) was filled in."
    if kind == "bonus_roll":
        faces = "-".join(str(f) for f in p.get("faces") or ())
        return f"Bonus Round: {p.get('roller')} rolled {faces}: {p.get('game')}."
    if kind == "bonus_lucky":
        faces = "-".join(str(f) for f in p.get("faces") or ())
        return f"Bonus Round: {p.get('player')}'s lucky number is {faces}."
    return kind


# --- what the report and the bank page read ----------------------------------------------------


def records_chip_by_chip(night: Night) -> bool:
    """Whether every game of the night is one the app records chip by chip (then counts are checked
    against bought + the tally).  A game kind says otherwise with ``records_chips = False``."""
    from . import services

    return all(getattr(p.game, "records_chips", True) for p in services.play_for(night).games)


def games_net(night: Night) -> dict[str, int]:
    """The games' closing balances over the night (each game as it closed)."""
    from . import services

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
    from . import services

    kept = services.derived("bank-state", night.id, night.version)
    if kept is not None:
        return kept
    ledger = ledger_of(night)
    net = games_net(night)
    tally = (
        {p: net.get(p, 0) + ledger.bonus_net.get(p, 0) for p in night.players} if records_chip_by_chip(night) else None
    )
    check = ledger.bank.check(tally)
    results = None
    if ledger.bank.bought and check.balanced:
        counted = ledger.bank.results(tally)
        results = {p: counted.get(p, 0) for p in night.players}
    block = None
    if ledger.settle_on == BANK:
        if not ledger.bank.bought:
            block = "nobody has bought in yet: record the buy-ins, then each player's count."
        elif not check.balanced:
            block = check.message
    plan = settle_up(results) if results is not None else None
    state = BankState(ledger, net, tally, check, results, plan, block)
    services.keep_derived("bank-state", night.id, night.version, state)
    return state


def settle_block(night: Night) -> str | None:
    """Why the night cannot be settled yet (on chip counts), or None when it can."""
    return bank_state(night).block


def extra_net_chips(night: Night) -> dict[str, int]:
    """What the report adds to each player's balance from the games, so that the night's balances are:

    * on the app's tally: the games + the Bonus Round's payments;
    * on chip counts: counts − chips bought (the bank's results; a player who never
      bought in: 0), i.e. those results − the games' balances.  Only meaningful when
      :func:`settle_block` is None (the report shows that message instead of a plan).
    """
    state = bank_state(night)
    if state.ledger.settle_on != BANK:
        return {p: state.ledger.bonus_net.get(p, 0) for p in night.players}
    results = state.results or {}
    return {p: results.get(p, 0) - state.games_net.get(p, 0) for p in night.players}


def bank_results(night: Night) -> dict[str, int] | None:
    """Counts − chips bought per seated player, or None while the bank does not balance."""
    return bank_state(night).results


# --- recording ----------------------------------------------------------------------------------


def record(
    night_id: int, kind: str, payload: dict[str, Any], expected_version: int, request_key: str | None,
    recorded_by: str = "scorekeeper",
) -> Any:
    """Record one night ledger event through services' one write path."""
    from . import services

    if kind not in KINDS:
        raise IllegalAction(f"unknown event kind {kind!r}")
    return services._append(night_id, kind, payload, expected_version, request_key, recorded_by)


def _earlier(night_id: int, request_key: str | None, kind: str) -> Any:
    """The answer to a roll sent again: the roll already made with this key (never a second roll)."""
    from . import services

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
    rolled = roll_dice(grid, roller, rng)
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
