"""Fixed-stake pot games as a fold over actions: one engine, many presets.

RULES-POKER.md, "A fixed-stake deal": every chip that moves is recorded.  The
engine is shaped like Napalm's :class:`~companion.games.napalm.table.Table`:
``verify(action)`` raises :class:`IllegalAction` with a sentence for the
scorekeeper or returns an :class:`Outcome`; ``is_legal`` asks; ``push`` acts
and appends a frozen :class:`Record` (its transfers and a summary such as
"pot B, 6: Ann and Ben split, 3 each"); a :class:`Void` undoes the latest live
action *by appending* a record that reverses it.

The games differ only in their :class:`Rules` (see :mod:`.presets`): one pot
with an ante, or several named pots with a fixed stake each (Tips to the Fat
One's A–E); whether a pot may be carried to the next deal (High Card,
Mountain); whether it may be split high-low and whether NASDAQ's bid, sales and
unsold cards are recorded.  No code branches on a preset's name.

A deal's antes are taken with its first action, in that action's record, so
the usual deal is one tap: the winner.  A deal ends once every pot has ended
(won, split, split high-low, or carried); the deal passes to the dealer's left.

Chips move between accounts: a player's name, or a pot (``payer``/``payee``
:data:`POT`, the pot named by ``Transfer.pot``).  Each transfer has one payer
and one payee, so the players' net chips plus the chips in the pots always sum
to zero.  Each pot also remembers who paid what into it since it was last won
(``in_pot``), so a pot still carried at the end goes back to exactly those who
paid it in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Union

from ..protocol import IllegalAction, and_, seat_of, seats_named, validate_names
from ..fold import BaseOutcome, BaseRecord, FoldTable, Transfer, Void

#: A pot as one side of a :class:`Transfer` (which pot: ``Transfer.pot``).
POT = None

MIN_PLAYERS = 2
MAX_PLAYERS = 10
#: The most chips one stake, ante, bet or price may be (far beyond a home game).
MAX_CHIPS = 1_000_000
#: The most pots a deal may have (A–J).
MAX_POTS = 10
STAKE_RULES = ("free", "fat_one")
INTO_POT_REASONS = ("bet", "bid", "unsold")
#: the single pot of a one-pot game is called this in actions and files
SINGLE_POT = "pot"


def fat_one_stakes(a: int, b: int) -> tuple[int, int, int, int, int]:
    """Tips to the Fat One's five stakes from A and B: C = A + B − 1, D = B + C − 1, E = C + D − 1."""
    c = a + b - 1
    d = b + c - 1
    e = c + d - 1
    return (a, b, c, d, e)


def _whole(name: str, value: object, low: int, high: int = MAX_CHIPS) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalAction(f"{name} must be a whole number")
    if not low <= value <= high:
        raise IllegalAction(f"{name} must be between {low} and {high:,}")


@dataclass(frozen=True)
class Rules:
    """What a group agreed for a fixed-stake pot game (a preset fills these in).

    ``ante``: each player's chips into the one pot per deal.  ``stakes``: several
    pots instead (A, B, C …), each player's stake into each per deal (``ante`` is
    then 0).  ``stake_rule`` "fat_one": the stakes are Tips to the Fat One's,
    worked out from A and B (give the two, or all five to be checked).
    ``carry``: a pot may be carried to the next deal.  ``high_low``: a pot may be
    split high-low.  ``sales``: NASDAQ's bid, sales and unsold cards are recorded;
    ``sale_limit``: above it half of a sale's excess goes to the pot.
    """

    preset: str = "fixed"
    ante: int = 1
    stakes: tuple[int, ...] = ()
    stake_rule: str = "free"
    carry: bool = False
    high_low: bool = False
    sales: bool = False
    sale_limit: int | None = None
    min_players: int = MIN_PLAYERS
    max_players: int = MAX_PLAYERS

    def __post_init__(self) -> None:
        if not isinstance(self.preset, str) or not 1 <= len(self.preset) <= 40:
            raise IllegalAction("the preset must be a short name")
        _whole("the ante", self.ante, 0)
        if not isinstance(self.stakes, tuple):
            raise IllegalAction("the stakes must be a list of whole numbers")
        if self.stake_rule not in STAKE_RULES:
            raise IllegalAction(f"the stake rule is one of {', '.join(STAKE_RULES)}")
        for index, stake in enumerate(self.stakes):
            _whole(f"the stake of pot {chr(65 + index)}", stake, 1)
        if self.stake_rule == "fat_one":
            if len(self.stakes) == 2:
                object.__setattr__(self, "stakes", fat_one_stakes(*self.stakes))
            if len(self.stakes) != 5:
                raise IllegalAction("Tips to the Fat One needs the stakes of pots A and B")
            a, b = self.stakes[:2]
            if not a < b:
                raise IllegalAction(f"pot A's stake must be less than pot B's (A {a}, B {b})")
            if self.stakes != fat_one_stakes(a, b):
                want = ", ".join(map(str, fat_one_stakes(a, b)))
                raise IllegalAction(
                    f"with A {a} and B {b} the stakes are {want} (C = A + B − 1, D = B + C − 1, E = C + D − 1)"
                )
            for index, stake in enumerate(self.stakes):
                _whole(f"the stake of pot {'ABCDE'[index]}", stake, 1)
        if len(self.stakes) == 1 or len(self.stakes) > MAX_POTS:
            raise IllegalAction(f"several pots means 2 to {MAX_POTS} stakes; one pot is set by the ante")
        if self.stakes and self.ante:
            raise IllegalAction("with several pots each pot's stake is its ante: set the ante to 0")
        for name in ("carry", "high_low", "sales"):
            if not isinstance(getattr(self, name), bool):
                raise IllegalAction(f"{name.replace('_', ' ')} must be true or false")
        if self.sale_limit is not None:
            _whole("the sale limit", self.sale_limit, 0)
            if not self.sales:
                raise IllegalAction("a sale limit needs sales")
        _whole("the fewest players", self.min_players, MIN_PLAYERS, MAX_PLAYERS)
        _whole("the most players", self.max_players, MIN_PLAYERS, MAX_PLAYERS)
        if self.min_players > self.max_players:
            raise IllegalAction("the fewest players is more than the most players")

    @property
    def pot_names(self) -> tuple[str, ...]:
        if not self.stakes:
            return (SINGLE_POT,)
        return tuple(chr(65 + i) for i in range(len(self.stakes)))

    @property
    def pot_stakes(self) -> tuple[int, ...]:
        """Each player's chips into each pot when a deal starts."""
        return self.stakes or (self.ante,)


# --- actions -------------------------------------------------------------------


@dataclass(frozen=True)
class IntoPot:
    """One player's chips into a pot: a fixed ``bet``, NASDAQ's ``bid`` for the first sale, or
    the asking price of an ``unsold`` card.  ``pot`` is None for a one-pot game."""

    player: str
    chips: int
    reason: str = "bet"
    pot: str | None = None


@dataclass(frozen=True)
class Sale:
    """NASDAQ: ``buyer`` pays ``seller`` the ``price`` (above the limit, half the excess to the pot)."""

    seller: str
    buyer: str
    price: int
    pot: str | None = None


@dataclass(frozen=True)
class Win:
    """A pot ends with one winner, or split equally among several."""

    winners: tuple[str, ...]
    pot: str | None = None


@dataclass(frozen=True)
class HighLow:
    """A pot ends split between the best high hand(s) and the best low hand(s)."""

    high: tuple[str, ...]
    low: tuple[str, ...]
    pot: str | None = None


@dataclass(frozen=True)
class Carry:
    """A pot ends this deal unwon: carried to the next deal, which antes into it again."""

    pot: str | None = None


Action = Union[IntoPot, Sale, Win, HighLow, Carry, Void]


@dataclass(frozen=True)
class Position:
    """Everything the rules need to go on (O(players × pots)), nothing that grows with the night."""

    deal: int  # 1-based
    dealer: int  # seat of this deal's dealer
    anted: bool  # this deal's antes are in
    bid: bool  # this deal's bid for the first sale is recorded
    pots: tuple[int, ...]  # chips in each pot
    decided: tuple[bool, ...]  # each pot has ended this deal
    carried: tuple[int, ...]  # deals each pot has been carried over in a row
    #: per pot, per seat: chips paid into it since it was last won
    in_pot: tuple[tuple[int, ...], ...]
    net: tuple[int, ...]  # per seat


@dataclass(frozen=True)
class Record(BaseRecord):
    """One line of the log: an action, in which deal, and what it did."""

    deal: int
    dealer: str


#: a pot game's outcome holds nothing beyond every game's: the position, the transfers, the summary
Outcome = BaseOutcome


# --- seating ---------------------------------------------------------------------


def validate_players(players: Sequence[str], rules: Rules) -> tuple[str, ...]:
    """A seating the rules accept: as many distinct (ignoring case), non-empty, short names as they allow."""
    return validate_names(players, rules.min_players, rules.max_players, "this game")


def start_position(
    players: tuple[str, ...], rules: Rules, first_dealer: str | None, carried_in: Mapping[str, int] | None
) -> Position:
    """The position before the first deal; a pot carried in from the previous night starts the first pot."""
    n, k = len(players), len(rules.pot_names)
    dealer = 0 if first_dealer is None else seat_of(players, first_dealer, "the first dealer")
    shares = [0] * n
    if carried_in:
        if not isinstance(carried_in, Mapping):
            raise IllegalAction("the carried pot must list each contributor's chips, e.g. {'Ann': 2}")
        for name, chips in carried_in.items():
            if isinstance(chips, bool) or not isinstance(chips, int) or not 1 <= chips <= 10**12:
                raise IllegalAction(f"{name}'s share of the carried pot must be a whole number of chips, 1 or more")
            seat = seat_of(players, name, "a contributor to the carried pot")
            if shares[seat]:
                raise IllegalAction(f"{players[seat]} is listed twice in the carried pot")
            shares[seat] = chips
    in_pot = [tuple(shares)] + [(0,) * n] * (k - 1)
    return Position(
        deal=1,
        dealer=dealer,
        anted=False,
        bid=False,
        pots=(sum(shares),) + (0,) * (k - 1),
        decided=(False,) * k,
        carried=(0,) * k,
        in_pot=tuple(in_pot),
        net=tuple(-s for s in shares),
    )


# --- the table -------------------------------------------------------------------


class PotTable(FoldTable["Position", "Record"]):
    """One fixed-stake pot game: seating, rules, position and an append-only log."""


    def __init__(
        self,
        players: Sequence[str],
        first_dealer: str | None = None,
        rules: Rules | None = None,
        carried_in: Mapping[str, int] | None = None,
    ) -> None:
        self.rules: Rules = rules if rules is not None else Rules()
        self.players: tuple[str, ...] = validate_players(players, self.rules)
        self._begin(start_position(self.players, self.rules, first_dealer, carried_in))
        self.first_dealer: str = self.players[self._position.dealer]
        self._carried_in = {n: c for n, c in zip(self.players, self._position.in_pot[0]) if c}

    # --- reading ---------------------------------------------------------------------

    @property
    def deal_number(self) -> int:
        return self._position.deal

    @property
    def pots(self) -> dict[str, int]:
        """Chips in each pot, by name ("pot" for a one-pot game, else "A", "B" …)."""
        return dict(zip(self.rules.pot_names, self._position.pots))

    @property
    def pot(self) -> int:
        """All the chips in all the pots."""
        return sum(self._position.pots)

    @property
    def open_pots(self) -> tuple[str, ...]:
        """The pots still to end in this deal."""
        return tuple(n for n, done in zip(self.rules.pot_names, self._position.decided) if not done)

    @property
    def net_chips(self) -> dict[str, int]:
        return dict(zip(self.players, self._position.net))

    @property
    def in_pot(self) -> dict[str, dict[str, int]]:
        """Per pot, what each player paid into it since it was last won."""
        return {
            name: dict(zip(self.players, shares))
            for name, shares in zip(self.rules.pot_names, self._position.in_pot)
        }

    @property
    def carried_in(self) -> dict[str, int]:
        return dict(self._carried_in)

    def dealers_left(self) -> tuple[str, ...]:
        """Seat order from the dealer's left, the dealer last (who gets odd chips first)."""
        n, d = len(self.players), self._position.dealer
        return tuple(self.players[(d + i) % n] for i in range(1, n + 1))

    def prompt(self) -> str:
        """What the table waits for, in one sentence."""
        names = self.open_pots
        label = _label(self.rules, names[0])
        return f"Deal {self.deal_number} ({self.dealer} deals): who won {label}?"

    # --- verify / ask / act ----------------------------------------------------------

    def _resolve(self, action: Action) -> Outcome:
        return resolve(self.players, self.rules, self._position, action)

    def _record(self, seq: int, action: Action, before: Position, outcome: Outcome, voids: int | None) -> Record:
        at = before if voids is None else outcome.position  # an undo: the deal of the record it undoes
        return Record(
            seq=seq,
            action=action,
            deal=at.deal,
            dealer=self.players[at.dealer],
            transfers=outcome.transfers,
            summary=outcome.summary,
            voids=voids,
        )

    # the named verbs, for readable callers and tests

    def win(self, *winners: str, pot: str | None = None) -> Record:
        return self.push(Win(tuple(winners), pot))

    def high_low(self, high: Iterable[str], low: Iterable[str], pot: str | None = None) -> Record:
        return self.push(HighLow(tuple(high), tuple(low), pot))

    def carry(self, pot: str | None = None) -> Record:
        return self.push(Carry(pot))

    def into_pot(self, player: str, chips: int, reason: str = "bet", pot: str | None = None) -> Record:
        return self.push(IntoPot(player, chips, reason, pot))

    def sell(self, seller: str, buyer: str, price: int, pot: str | None = None) -> Record:
        return self.push(Sale(seller, buyer, price, pot))



# --- the rules, as one pure function ---------------------------------------------------


def resolve(players: tuple[str, ...], rules: Rules, p: Position, action: Action) -> Outcome:
    """The next position and the transfers of ``action`` at ``p``; IllegalAction when forbidden."""
    if not isinstance(action, (IntoPot, Sale, Win, HighLow, Carry)):
        raise IllegalAction(f"unknown action {action!r}")
    index = _pot_index(rules, p, action.pot)
    ledger = _Ledger(players, rules, p)
    notes: list[str] = []
    if not p.anted:
        notes.append(ledger.take_antes())
    if isinstance(action, IntoPot):
        notes.append(_into_pot(ledger, index, action))
    elif isinstance(action, Sale):
        notes.append(_sale(ledger, index, action))
    elif isinstance(action, Win):
        winners = seats_named(players, action.winners, "the winners")
        if not winners:
            raise IllegalAction("tap at least one winner")
        notes.append(ledger.pay_out(index, [(winners, ledger.pots[index], "pot")]))
    elif isinstance(action, HighLow):
        if not rules.high_low:
            raise IllegalAction("this game's pots are not split high-low: tap the winner(s)")
        high = seats_named(players, action.high, "the high hand")
        low = seats_named(players, action.low, "the low hand")
        if not high or not low:
            raise IllegalAction("tap the best high hand and the best low hand")
        chips = ledger.pots[index]
        # RULES-POKER.md: the odd chip to high
        notes.append(ledger.pay_out(index, [(high, chips - chips // 2, "high"), (low, chips // 2, "low")]))
    else:  # Carry
        if not rules.carry:
            raise IllegalAction("in this game a pot is not carried over: tap the winner(s)")
        notes.append(ledger.carry(index))
    return ledger.outcome(" ".join(n for n in notes if n))


def _pot_index(rules: Rules, p: Position, pot: object) -> int:
    names = rules.pot_names
    if pot is None:
        if len(names) > 1:
            raise IllegalAction(f"say which pot: {', '.join(names)}")
        index = 0
    elif isinstance(pot, str) and pot.strip().upper() in [n.upper() for n in names]:
        index = [n.upper() for n in names].index(pot.strip().upper())
    else:
        raise IllegalAction(f"there is no pot '{str(pot)[:20]}' in this game (pots: {', '.join(names)})")
    if p.decided[index]:
        raise IllegalAction(f"{_label(rules, names[index])} has already ended this deal")
    return index


def _label(rules: Rules, name: str) -> str:
    return "the pot" if name == SINGLE_POT else f"pot {name}"


def _chips(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_CHIPS:
        raise IllegalAction(f"{what} must be a whole number of chips, 1 to {MAX_CHIPS:,}")
    return value


class _Ledger:
    """The mutable scratch copy of a position while one action is resolved."""

    def __init__(self, players: tuple[str, ...], rules: Rules, p: Position) -> None:
        self.players, self.rules, self.p = players, rules, p
        self.pots = list(p.pots)
        self.in_pot = [list(shares) for shares in p.in_pot]
        self.net = list(p.net)
        self.decided = list(p.decided)
        self.carried = list(p.carried)
        self.anted = p.anted
        self.bid = p.bid
        self.transfers: list[Transfer] = []

    def name(self, index: int) -> str:
        return self.rules.pot_names[index]

    def to_pot(self, player: str, index: int, chips: int, reason: str) -> None:
        seat = self.players.index(player)
        self.net[seat] -= chips
        self.pots[index] += chips
        self.in_pot[index][seat] += chips
        self.transfers.append(Transfer(player, POT, chips, reason, self.name(index)))

    def from_pot(self, player: str, index: int, chips: int, reason: str) -> None:
        self.net[self.players.index(player)] += chips
        self.pots[index] -= chips
        self.transfers.append(Transfer(POT, player, chips, reason, self.name(index)))

    def between(self, payer: str, payee: str, chips: int, reason: str) -> None:
        self.net[self.players.index(payer)] -= chips
        self.net[self.players.index(payee)] += chips
        self.transfers.append(Transfer(payer, payee, chips, reason))

    def take_antes(self) -> str:
        self.anted = True
        stakes = self.rules.pot_stakes
        for index, stake in enumerate(stakes):
            if stake:
                for player in self.players:
                    self.to_pot(player, index, stake, "ante")
        if not any(stakes):
            return ""
        if len(stakes) == 1:
            return f"Ante {stakes[0]} each, pot {self.pots[0]}."
        each = ", ".join(f"{n} {s}" for n, s in zip(self.rules.pot_names, stakes))
        return f"Stakes {each} each."

    def dealers_left(self, names: Iterable[str]) -> list[str]:
        n, d = len(self.players), self.p.dealer
        rank = {self.players[(d + i) % n]: i for i in range(1, n + 1)}
        return sorted(names, key=rank.__getitem__)

    def pay_out(self, index: int, shares: list[tuple[tuple[str, ...], int, str]]) -> str:
        """Empty pot ``index`` to ``shares`` (who, chips, reason); equal splits, odd chips from the dealer's left."""
        total = self.pots[index]
        label = _label(self.rules, self.name(index))
        parts: list[str] = []
        for winners, chips, reason in shares:
            order = self.dealers_left(winners)
            base, odd = divmod(chips, len(order))
            got = {name: base + (1 if i < odd else 0) for i, name in enumerate(order)}
            for name in order:
                if got[name]:
                    self.from_pot(name, index, got[name], reason)
            parts.append(_share_text(list(winners), got, chips, reason))
        self.in_pot[index] = [0] * len(self.players)
        self.carried[index] = 0
        self.end(index)
        return f"{label[0].upper()}{label[1:]}, {total}: " + "; ".join(parts) + "."

    def carry(self, index: int) -> str:
        self.carried[index] += 1
        self.end(index)
        label = _label(self.rules, self.name(index))
        return f"{label[0].upper()}{label[1:]}, {self.pots[index]}: carried to the next deal."

    def end(self, index: int) -> None:
        self.decided[index] = True

    def outcome(self, summary: str) -> Outcome:
        deal, dealer, decided, anted, bid = self.p.deal, self.p.dealer, self.decided, self.anted, self.bid
        if all(decided):
            deal, dealer = deal + 1, (dealer + 1) % len(self.players)
            decided, anted, bid = [False] * len(decided), False, False
        position = Position(
            deal=deal,
            dealer=dealer,
            anted=anted,
            bid=bid,
            pots=tuple(self.pots),
            decided=tuple(decided),
            carried=tuple(self.carried),
            in_pot=tuple(tuple(s) for s in self.in_pot),
            net=tuple(self.net),
        )
        return Outcome(position=position, transfers=tuple(self.transfers), summary=summary)


def _share_text(order: list[str], got: dict[str, int], chips: int, reason: str) -> str:
    """One share of a pot in words; ``order`` is seat order, amounts name the odd chips' owners."""
    who = "high " if reason == "high" else "low " if reason == "low" else ""
    if len(order) == 1:
        verb = "takes it" if not who else f"takes {chips}"
        return f"{who}{order[0]} {verb}"
    if len(set(got.values())) == 1:
        return f"{who}{and_(order)} split, {got[order[0]]} each"
    each = ", ".join(f"{n} {got[n]}" for n in order)
    return f"{who}{and_(order)} split, {each} (odd chip{'s' if chips % len(order) > 1 else ''} from the dealer's left)"


def _into_pot(ledger: _Ledger, index: int, action: IntoPot) -> str:
    rules, players = ledger.rules, ledger.players
    if action.reason not in INTO_POT_REASONS:
        raise IllegalAction(f"chips go into a pot as one of {', '.join(INTO_POT_REASONS)}")
    if action.reason != "bet" and not rules.sales:
        raise IllegalAction("this game has no bids or card sales")
    player = players[seat_of(players, action.player)]
    chips = _chips(action.chips, f"{player}'s {action.reason}")
    if action.reason == "bid":
        if ledger.bid:
            raise IllegalAction("the bid for the first sale is already recorded in this deal")
        ledger.bid = True
    ledger.to_pot(player, index, chips, action.reason)
    label = _label(rules, ledger.name(index))
    what = {"bet": "bet", "bid": "bid for the first sale", "unsold": "paid the asking price of an unsold card"}
    if action.reason == "unsold":
        return f"{player} {what['unsold']}, {chips}, into {label} ({ledger.pots[index]})."
    return f"{player}: {what[action.reason]} of {chips} into {label} ({ledger.pots[index]})."


def sale_split(price: int, limit: int | None) -> tuple[int, int]:
    """(to the seller, to the pot) for a sale at ``price``: above ``limit`` half the excess goes to
    the pot, the odd chip to the pot (RULES-POKER.md: limit 5, price 12 → 8 and 4)."""
    if limit is None or price <= limit:
        return price, 0
    excess = price - limit
    to_pot = excess - excess // 2
    return price - to_pot, to_pot


def _sale(ledger: _Ledger, index: int, action: Sale) -> str:
    rules, players = ledger.rules, ledger.players
    if not rules.sales:
        raise IllegalAction("this game has no card sales")
    seller = players[seat_of(players, action.seller, "the seller")]
    buyer = players[seat_of(players, action.buyer, "the buyer")]
    if seller == buyer:
        raise IllegalAction(f"{seller} cannot buy their own card")
    price = _chips(action.price, "the price")
    to_seller, to_pot = sale_split(price, rules.sale_limit)
    if to_seller:  # limit 0, price 1: the excess is 1 and its odd chip goes to the pot, nothing to the seller
        ledger.between(buyer, seller, to_seller, "sale")
    summary = f"{buyer} bought {seller}'s card for {price}"
    if to_pot:
        ledger.to_pot(buyer, index, to_pot, "excess")
        label = _label(rules, ledger.name(index))
        summary += f": {to_seller} to {seller}, {to_pot} to {label} (half the excess over {rules.sale_limit})"
    return summary + "."


@dataclass(frozen=True)
class Closing:
    """The game as the settle-up counts it: every chip still in a pot back to who paid it in."""

    net: dict[str, int]
    returned: dict[str, int]
    note: str


def close_table(table: PotTable) -> Closing:
    """RULES-POKER.md: a pot still carried when the game or the night ends goes back to those who
    paid into it since it was last won, each getting back exactly what they put in.  A pot of a
    deal left unfinished (antes in, no winner yet) is treated the same way."""
    net = table.net_chips
    returned = {name: 0 for name in table.players}
    notes: list[str] = []
    for name, shares in table.in_pot.items():
        chips = table.pots[name]
        if not chips:
            continue
        for player, paid in shares.items():
            returned[player] += paid
            net[player] += paid
        given = ", ".join(f"{p} {c}" for p, c in shares.items() if c)
        label = _label(table.rules, name)
        notes.append(f"{label[0].upper()}{label[1:]}, {chips}: returned to who paid it in ({given}).")
    return Closing(net=net, returned=returned, note=" ".join(notes))
