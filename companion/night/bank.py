"""The chip bank for games with real betting (RULES-POKER.md, "The bank").

When the chips on the table settle each pot, the app cannot keep every chip;
it keeps the bank instead: who took how many chips from it (a buy-in, a rebuy)
and how many each handed back, counted (a cash-out, at the end or on leaving
early).  The night then settles on the counts: a player's result is chips
cashed out − chips bought, and it cannot be settled until every player who
bought in has cashed out and the bank balances (chips bought = chips cashed out).

The log is append-only like every ledger of the app: each event is frozen, and
a correction is a new :class:`Cancel` event naming the one it takes back (then
the right event is recorded again).  :meth:`Bank.everyone_buys_in` is the quick
entry for the common start: every seated player buys in the same amount, one event.

When every game of the night was one the app records chip by chip (Napalm, Nap,
fixed-stake pots), :meth:`Bank.check` is given the app's tally: each count must
then equal chips bought + the tally, and a difference is shown per player.

A pot carried from one night to the next sits in the middle, in nobody's stack: the
chips a night carries out are not in its counts, and the chips it was given by the
night before are in them without having been bought.  :meth:`Bank.check` takes them as
``in_pot`` (per player: chips of theirs left in the pot for the next night, less chips
of theirs that were in the pot carried in), so that such a night balances too and each
player's result still counts their own chips in that pot as theirs, as the tally does.

Pure: no Flask, no database.  Chips are int, money Decimal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Union

from companion.games.protocol import and_
from companion.money.amounts import chips_text, format_money, to_money

#: The most chips one event may move (far beyond any home game).
MAX_CHIPS = 10**9


class BankError(ValueError):
    """The bank refuses an event, or refuses to settle; the message says why and what to check.

    A ValueError like the games' IllegalAction, so the ledger stays independent of the games."""


@dataclass(frozen=True)
class BuyIn:
    """A player's first chips from the bank tonight."""

    player: str
    chips: int


@dataclass(frozen=True)
class Rebuy:
    """More chips from the bank for a player who has bought in."""

    player: str
    chips: int


@dataclass(frozen=True)
class EveryoneBuysIn:
    """Quick entry: every seated player buys in ``chips`` (one event, one tap)."""

    chips: int


@dataclass(frozen=True)
class CashOut:
    """The chips a player hands back, counted (0 when they lost them all), at the end or leaving early."""

    player: str
    chips: int


@dataclass(frozen=True)
class Cancel:
    """A correction: event ``seq`` no longer counts (it stays in the log, marked)."""

    seq: int


BankAction = Union[BuyIn, Rebuy, EveryoneBuysIn, CashOut, Cancel]


@dataclass(frozen=True)
class BankEvent:
    """One line of the bank's log."""

    seq: int
    action: BankAction
    summary: str


@dataclass(frozen=True)
class Holdings:
    """What the live events add up to: chips bought and chips cashed out, per player."""

    bought: dict[str, int]
    cashed_out: dict[str, int]  # only players who have cashed out


@dataclass(frozen=True)
class BankCheck:
    """Whether the night can be settled on the counts, and if not, what to check.

    ``difference`` is chips cashed out − chips bought (positive: more came back than
    went out).  ``tally_differences`` (only when a tally was given): per player,
    count − (bought + tally), non-zero entries only.  ``to_check``: whose count to
    check first.  ``message``: one sentence for the scorekeeper ("" when it balances).
    """

    bought: dict[str, int]
    cashed_out: dict[str, int]
    still_in: tuple[str, ...]
    difference: int
    tally_differences: dict[str, int]
    to_check: tuple[str, ...]
    message: str
    #: the carried pot's change to each player's stack (``in_pot`` as checked; non-zero entries only)
    in_pot: dict[str, int] = field(default_factory=dict)
    #: players who never bought in, though the tally moved their chips (their chips came from somewhere)
    not_bought: tuple[str, ...] = ()

    @property
    def left_in_pot(self) -> int:
        """Chips left in the middle for the next night, less the chips the night found there."""
        return sum(self.in_pot.values())

    def expected(self, name: str, tally: Mapping[str, int]) -> int:
        """The count that matches ``name``'s chips bought + tally, less their chips in a carried pot."""
        return self.bought.get(name, 0) + tally.get(name, 0) - self.in_pot.get(name, 0)

    @property
    def balanced(self) -> bool:
        return not self.still_in and self.difference == 0 and not self.tally_differences and not self.not_bought


class Bank:
    """A night's bank: seated players, the chip value, and an append-only event log."""

    def __init__(self, players: Sequence[str], chip_value: Decimal = Decimal("0"), currency: str = "") -> None:
        if isinstance(players, str) or not players or not all(isinstance(p, str) and p.strip() for p in players):
            raise BankError("the bank needs the seated players' names")
        if len({p.casefold() for p in players}) != len(players):
            raise BankError("two seated players have the same name")
        if not isinstance(chip_value, Decimal) or not chip_value.is_finite() or chip_value < 0:
            raise BankError("the chip value must be a Decimal, 0 or more")
        self.players: tuple[str, ...] = tuple(players)
        self.chip_value = chip_value
        self.currency = currency if isinstance(currency, str) else ""
        self._log: list[BankEvent] = []
        self._by_seq: dict[int, BankEvent] = {}
        self._cancelled: dict[int, int] = {}
        self._holdings = Holdings({}, {})

    # --- reading ----------------------------------------------------------------------

    @property
    def log(self) -> tuple[BankEvent, ...]:
        return tuple(self._log)

    @property
    def version(self) -> int:
        return len(self._log)

    @property
    def cancelled(self) -> Mapping[int, int]:
        """seq of each cancelled event → seq of the Cancel that took it back."""
        return dict(self._cancelled)

    @property
    def bought(self) -> dict[str, int]:
        return dict(self._holdings.bought)

    @property
    def cashed_out(self) -> dict[str, int]:
        return dict(self._holdings.cashed_out)

    @property
    def in_play(self) -> int:
        """Chips out of the bank and not yet handed back, by the bank's books."""
        return sum(self._holdings.bought.values()) - sum(self._holdings.cashed_out.values())

    def live_events(self) -> list[BankEvent]:
        return [e for e in self._log if not isinstance(e.action, Cancel) and e.seq not in self._cancelled]

    # --- acting ------------------------------------------------------------------------

    def verify(self, action: BankAction) -> tuple[Holdings, str]:
        """The holdings after ``action`` and its summary, or BankError (nothing changes)."""
        if isinstance(action, Cancel):
            seq = action.seq
            target = self._by_seq.get(seq) if isinstance(seq, int) and not isinstance(seq, bool) else None
            if target is None:
                raise BankError(f"there is no bank event #{seq}")
            if isinstance(target.action, Cancel):
                raise BankError(f"#{seq} is itself a correction; record the event again instead")
            if seq in self._cancelled:
                raise BankError(f"#{seq} is already cancelled (by #{self._cancelled[seq]})")
            holdings = Holdings({}, {})
            for event in self._log:
                if event.seq == seq or event.seq in self._cancelled or isinstance(event.action, Cancel):
                    continue
                try:
                    holdings = _apply(self.players, holdings, event.action)
                except BankError as error:
                    raise BankError(f"cancelling #{seq} would leave #{event.seq} wrong: {error}") from None
            return holdings, f"Cancelled #{seq}: {target.summary}"
        holdings = _apply(self.players, self._holdings, action)
        return holdings, _summary(self.players, action, self.chip_value, self.currency)

    def is_legal(self, action: BankAction) -> bool:
        try:
            self.verify(action)
        except BankError:
            return False
        return True

    def next_seq(self) -> int:
        return self._log[-1].seq + 1 if self._log else 1

    def push(self, action: BankAction, seq: int | None = None) -> BankEvent:
        """Record ``action``; ``seq`` numbers it (default: the next after the last), so that a night
        whose log holds other events too can number the bank's events as its own log does."""
        if seq is None:
            seq = self.next_seq()
        elif isinstance(seq, bool) or not isinstance(seq, int) or seq < self.next_seq():
            raise BankError(f"bank event #{seq} comes after #{self.next_seq() - 1}")
        holdings, summary = self.verify(action)
        event = BankEvent(seq=seq, action=action, summary=summary)
        if isinstance(action, Cancel):
            self._cancelled[action.seq] = event.seq
        self._log.append(event)
        self._by_seq[seq] = event
        self._holdings = holdings
        return event

    def buy_in(self, player: str, chips: int) -> BankEvent:
        return self.push(BuyIn(player, chips))

    def rebuy(self, player: str, chips: int) -> BankEvent:
        return self.push(Rebuy(player, chips))

    def everyone_buys_in(self, chips: int) -> BankEvent:
        return self.push(EveryoneBuysIn(chips))

    def cash_out(self, player: str, chips: int) -> BankEvent:
        return self.push(CashOut(player, chips))

    def cancel(self, seq: int) -> BankEvent:
        return self.push(Cancel(seq))

    # --- the check and the settle-up ------------------------------------------------------

    def check(self, tally: Mapping[str, int] | None = None, in_pot: Mapping[str, int] | None = None) -> BankCheck:
        """Can the night settle on the counts?  ``tally``: the app's net chips per player, given only
        when every game of the night was recorded chip by chip.  ``in_pot``: per player, the chips
        of theirs a carried pot takes out of the counts (left in the pot for the next night, less
        what the pot carried in held of theirs); the bank must then get back chips bought − the
        pot's change, and each count is checked against bought + tally − in_pot."""
        bought, cashed = self.bought, self.cashed_out
        pot = _pot_shares(self.players, in_pot)
        still_in = tuple(p for p in self.players if p in bought and p not in cashed)
        left_in_pot = sum(pot.values())
        difference = sum(cashed.values()) - sum(bought.values()) + left_in_pot
        tally_differences: dict[str, int] = {}
        not_bought: list[str] = []
        if tally is not None:
            for name in self.players:
                chips = tally.get(name, 0)
                if isinstance(chips, bool) or not isinstance(chips, int):
                    raise BankError(f"the tally of {name} must be a whole number of chips")
                expected = bought.get(name, 0) + chips - pot.get(name, 0)
                if name not in bought:
                    # no count to be off (issue 20, item 3): but their chips came from somewhere
                    if expected and bought:
                        not_bought.append(name)
                    continue
                if name not in cashed:  # only a count that exists can be off
                    continue
                if cashed[name] != expected:
                    tally_differences[name] = cashed[name] - expected
        if still_in:
            to_check = still_in
            message = f"Still to cash out: {and_(still_in)}."
        elif not_bought:
            to_check = tuple(not_bought)
            each = ", ".join(f"{n} {_signed(tally.get(n, 0))}" for n in not_bought)  # type: ignore[union-attr]
            message = (
                f"{and_(not_bought)} never bought in, yet the app's tally moved their chips ({each}): "
                "record their buy-in, then their count."
            )
        elif tally_differences:
            to_check = tuple(tally_differences)
            each = ", ".join(
                f"{n} counted {cashed.get(n, 0)}, expected {cashed.get(n, 0) - d} ({_signed(d)})"
                for n, d in tally_differences.items()
            )
            message = f"The counts do not match bought + the app's tally: {each}. Check those counts."
        elif difference:
            # without a tally the app cannot tell whose count is off: the biggest stacks first
            to_check = tuple(sorted(cashed, key=lambda n: (-cashed[n], self.players.index(n))))
            more = "more" if difference > 0 else "fewer"
            expected_back = f"bought ({sum(bought.values())})"
            if left_in_pot > 0:
                expected_back = f"bought less the pot left for the next night ({sum(bought.values()) - left_in_pot})"
            elif left_in_pot < 0:
                expected_back = f"bought plus the pot carried in ({sum(bought.values()) - left_in_pot})"
            message = (
                f"The bank does not balance: {chips_text(abs(difference))} {more} "
                f"cashed out ({sum(cashed.values())}) than {expected_back}. "
                f"Recount, biggest stacks first: {and_(to_check)}."
            )
        else:
            to_check, message = (), ""
        return BankCheck(bought, cashed, still_in, difference, tally_differences, to_check, message, pot, tuple(not_bought))

    def results(self, tally: Mapping[str, int] | None = None, in_pot: Mapping[str, int] | None = None) -> dict[str, int]:
        """Each player's result in chips (cashed out − bought, + their chips in a carried pot: see
        :meth:`check`); BankError until the bank balances."""
        check = self.check(tally, in_pot)
        if not check.balanced:
            raise BankError(check.message)
        return {
            name: check.cashed_out.get(name, 0) - check.bought.get(name, 0) + check.in_pot.get(name, 0)
            for name in self.players
            if name in check.bought or name in check.in_pot
        }

    def money_results(
        self, tally: Mapping[str, int] | None = None, in_pot: Mapping[str, int] | None = None
    ) -> dict[str, Decimal]:
        """The results in money: chips × the chip value, exact."""
        return {name: to_money(chips, self.chip_value) for name, chips in self.results(tally, in_pot).items()}


def _pot_shares(players: tuple[str, ...], in_pot: Mapping[str, int] | None) -> dict[str, int]:
    """``in_pot`` checked: seated players' whole numbers of chips (negative: a pot carried in)."""
    if not in_pot:
        return {}
    shares: dict[str, int] = {}
    for name, chips in in_pot.items():
        if name not in players:
            raise BankError(f"'{str(name)[:40]}' has chips in the pot but is not seated tonight")
        if isinstance(chips, bool) or not isinstance(chips, int) or abs(chips) > MAX_CHIPS:
            raise BankError(f"{name}'s chips in the pot must be a whole number")
        if chips:
            shares[name] = chips
    return shares


def _player(players: tuple[str, ...], name: object) -> str:
    if isinstance(name, str):
        if name in players:
            return name
        folded = " ".join(name.split()).casefold()
        for player in players:
            if player.casefold() == folded:
                return player
    raise BankError(f"'{str(name)[:40]}' is not seated tonight")


def _chips(chips: object, low: int, what: str) -> int:
    if isinstance(chips, bool) or not isinstance(chips, int) or not low <= chips <= MAX_CHIPS:
        raise BankError(f"{what} must be a whole number of chips, {low} to {MAX_CHIPS:,}")
    return chips


def _apply(players: tuple[str, ...], h: Holdings, action: object) -> Holdings:
    """The holdings after one event, or BankError saying what the rules forbid."""
    bought, cashed = dict(h.bought), dict(h.cashed_out)
    if isinstance(action, EveryoneBuysIn):
        chips = _chips(action.chips, 1, "the buy-in")
        already = [p for p in players if p in bought]
        if already:
            raise BankError(f"{and_(already)} bought in already: record a rebuy, or the others one by one")
        return Holdings({p: chips for p in players}, cashed)
    if not isinstance(action, (BuyIn, Rebuy, CashOut)):
        raise BankError(f"unknown bank event {action!r}")
    player = _player(players, action.player)
    if player in cashed:
        raise BankError(f"{player} has cashed out; cancel the cash-out first to buy more chips")
    if isinstance(action, BuyIn):
        chips = _chips(action.chips, 1, "the buy-in")
        if player in bought:
            raise BankError(f"{player} bought in already: record a rebuy")
        bought[player] = chips
    elif isinstance(action, Rebuy):
        chips = _chips(action.chips, 1, "the rebuy")
        if player not in bought:
            raise BankError(f"{player} has not bought in yet: record a buy-in")
        bought[player] += chips
    else:
        chips = _chips(action.chips, 0, "the count")
        if player not in bought:
            raise BankError(f"{player} never bought in, so has nothing to cash out")
        cashed[player] = chips
    return Holdings(bought, cashed)


def _summary(players: tuple[str, ...], action: BankAction, chip_value: Decimal, currency: str = "") -> str:
    def worth(chips: int) -> str:
        return f" ({format_money(to_money(chips, chip_value), currency)})" if chip_value else ""

    if isinstance(action, EveryoneBuysIn):
        return f"Everyone bought in {chips_text(action.chips)}{worth(action.chips)}: {and_(players)}."
    player = _player(players, action.player)  # type: ignore[union-attr]
    if isinstance(action, BuyIn):
        return f"{player} bought in {chips_text(action.chips)}{worth(action.chips)}."
    if isinstance(action, Rebuy):
        return f"{player} rebought {chips_text(action.chips)}{worth(action.chips)}."
    assert isinstance(action, CashOut)
    return f"{player} cashed out {chips_text(action.chips)}, counted{worth(action.chips)}."


def _signed(n: int) -> str:
    """"+3", "-3", "0": a count's difference as the bank's messages say it, with a hyphen (the
    report's figures use :func:`companion.money.amounts.signed`, with a true minus sign)."""
    return f"+{n}" if n > 0 else str(n)
