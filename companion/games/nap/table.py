"""Nap (Napoleon) as a fold over deals: the table state, its legal deals, and its log.

Shaped like Napalm's engine (:mod:`companion.games.napalm.table`):
``verify(action)`` raises :class:`IllegalAction` with a sentence a scorekeeper
understands (or returns an :class:`Outcome`), ``is_legal(action)`` asks,
``push(action)`` acts and appends a frozen :class:`Record` to an append-only log,
and a :class:`Void` undoes the latest live deal *by appending* a record that
reverses it.  The app scores deals; it does not deal or play cards, so the one
action is a whole :class:`Deal` as the scorekeeper taps it after the last trick.

Every rule is ``../shared/RULES-NAP.md``; where that page is silent the choice is
written in ``docs/games/nap.md`` and marked "(choice)" here.

Chips move between accounts: a player's name, or :data:`POOL` (``None``).  Every
record's transfers balance by construction (one payer, one payee each), and after
every push the table checks the invariants of RULES-NAP.md: net chips plus the
pool sum to zero, and the pool equals what each player paid into it since it was
last won.  The position holds only what the rules need (O(players)), so the
1000th deal of a night costs what the first did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from companion.money.amounts import signed

from ..protocol import MAX_NAME_LENGTH, IllegalAction, find_seat, validate_names
from ..fold import BaseOutcome, BaseRecord, FoldTable, Transfer, Void

#: The pool's account in a :class:`Transfer` (player names are never empty).
POOL = None

MIN_PLAYERS = 2
MAX_PLAYERS = 6
#: With this many players or more the dealer takes no cards (sits out the play).
DEALER_SITS_OUT_FROM = 5
#: The highest stake a game accepts (choice: far beyond any real table).
MAX_STAKE = 1_000_000

VARIANTS = ("plain", "widow", "pool", "peep", "purchase")
#: The variants played with a pool (RULES-NAP.md: Peep and Purchase Nap are Pool Nap plus).
POOL_VARIANTS = frozenset({"pool", "peep", "purchase"})
#: Every bid, lowest to highest (Misère ranks above 3 and below 4).
BIDS: tuple[int | str, ...] = (1, 2, 3, "misere", 4, "nap", "wellington", "blucher")
FIVE_TRICK_BIDS = frozenset({"nap", "wellington", "blucher"})
BID_TITLES: dict[int | str, str] = {
    1: "1",
    2: "2",
    3: "3",
    4: "4",
    "misere": "Misère",
    "nap": "Nap",
    "wellington": "Wellington",
    "blucher": "Blücher",
}
PENALTY_KINDS = ("lead_out_of_turn", "revoke")
WRONG_CARDS = ("other", "bidder_over")

#: The pool's antes, in chips before the stake: 2 from every player at a pool's
#: start, then 2 from each following dealer while it is not won.
POOL_ANTE = 2
PEEK_CHIPS = 1
EXCHANGE_CHIPS_PER_CARD = 1
LEAD_OUT_OF_TURN_CHIPS = 3
REVOKE_POOL_CHIPS = 5
MAX_EXCHANGE = 5


class DealError(IllegalAction):
    """An illegal deal; ``field`` is the deal record's field at fault (for a night file's reader)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class LedgerBroken(AssertionError):
    """An invariant of RULES-NAP.md failed after a push: a bug, never the scorekeeper's fault."""


@dataclass(frozen=True)
class Rules:
    """The settings a group agrees on before play (RULES-NAP.md: variant, optional bids, stake)."""

    variant: str = "plain"
    misere: bool = True
    wellington: bool = False
    blucher: bool = False
    stake: int = 1

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise IllegalAction(f"the variant is one of {', '.join(VARIANTS)}, not {str(self.variant)[:20]!r}")
        for name in ("misere", "wellington", "blucher"):
            if not isinstance(getattr(self, name), bool):
                raise IllegalAction(f"'{name}' must be true or false")
        if self.blucher and not self.wellington:
            raise IllegalAction("Blücher is only played together with Wellington")
        if isinstance(self.stake, bool) or not isinstance(self.stake, int):
            raise IllegalAction("the stake must be a whole number")
        if not 1 <= self.stake <= MAX_STAKE:
            raise IllegalAction(f"the stake must be between 1 and {MAX_STAKE:,}")

    @property
    def pooled(self) -> bool:
        """Whether this game keeps a pool (Pool, Peep and Purchase Nap)."""
        return self.variant in POOL_VARIANTS

    def allowed_bids(self) -> tuple[int | str, ...]:
        """The bids these rules allow, lowest to highest."""
        off = set()
        if not self.misere:
            off.add("misere")
        if not self.wellington:
            off.add("wellington")
        if not self.blucher:
            off.add("blucher")
        return tuple(bid for bid in BIDS if bid not in off)


def contract(bid: int | str, widow: bool = False) -> tuple[int, int]:
    """(made, failed): what each other player pays the bidder, and the bidder each other player.

    Chips before the stake, from RULES-NAP.md's bid table; a widow Nap is 10/10.
    """
    if isinstance(bid, int):
        return bid, bid
    if bid == "misere":
        return 3, 3
    if bid == "nap":
        return (10, 10) if widow else (10, 5)
    if bid == "wellington":
        return 10, 10
    if bid == "blucher":
        return 10, 20
    raise IllegalAction(f"unknown bid {bid!r}")  # pragma: no cover - bids are checked first


# --- actions ---------------------------------------------------------------


@dataclass(frozen=True)
class Penalty:
    """A penalty the scorekeeper recorded during play: ``kind`` is lead_out_of_turn or revoke."""

    kind: str
    player: str


@dataclass(frozen=True)
class Deal:
    """One deal as scored at the table.

    ``bidder`` None is a deal thrown in (5 or 6 players, nobody bid).  ``made`` is
    None only on a deal with a revoke (abandoned).  ``exchanged`` is (player,
    cards) pairs (Purchase Nap), ``peeks`` the players who peeked (Peep Nap).
    """

    bidder: str | None
    bid: int | str | None = None
    made: bool | None = None
    widow: bool = False
    peeks: tuple[str, ...] = ()
    exchanged: tuple[tuple[str, int], ...] = ()
    penalties: tuple[Penalty, ...] = ()
    wrong_cards: str | None = None


Action = Deal | Void


@dataclass(frozen=True)
class Position:
    """Everything the rules need to go on, and nothing that grows with the night."""

    deal: int  # 1-based number of the next deal
    dealer: int  # seat index of the next deal's dealer
    pool: int
    #: whether a pool is running (the next deal's dealer adds 2); False at the start and once won
    pool_open: bool
    in_pool: tuple[int, ...]  # per seat: chips paid into the pool since it was last won
    net: tuple[int, ...]  # per seat: net chips in this game
    pools_won: int  # how many pools have been won so far


@dataclass(frozen=True)
class Record(BaseRecord):
    """One line of the log: a deal (or an undo), who dealt, and what it did."""

    deal: int
    dealer: str
    sitting_out: str | None
    pool: int  # chips in the pool after this record
    pool_won: int  # chips the bidder took from the pool on this deal (0: none)


@dataclass(frozen=True)
class Outcome(BaseOutcome):
    """What :func:`resolve` returns: the next position, the canonical action and its effects."""

    action: Action
    pool_won: int = 0


# --- seating -----------------------------------------------------------------


def validate_players(players: Sequence[str]) -> tuple[str, ...]:
    """Check a seating: 2 to 6 distinct, non-empty names (case-insensitively distinct)."""
    return validate_names(players, MIN_PLAYERS, MAX_PLAYERS, "Nap")


def start_position(players: Sequence[str], first_dealer: str | None) -> Position:
    n = len(players)
    dealer = 0
    if first_dealer is not None:
        seat = find_seat(players, first_dealer)
        if seat is None:
            raise IllegalAction(f"first dealer '{first_dealer}' is not at this table")
        dealer = seat
    return Position(deal=1, dealer=dealer, pool=0, pool_open=False, in_pool=(0,) * n, net=(0,) * n, pools_won=0)


# --- the table ---------------------------------------------------------------


class Table(FoldTable["Position", "Record"]):
    """A game of Nap at one table: seating, rules, position and log."""

    def __init__(self, players: Sequence[str], first_dealer: str | None = None, rules: Rules | None = None) -> None:
        self.players: tuple[str, ...] = validate_players(players)
        self.rules: Rules = rules if rules is not None else Rules()
        self._begin(start_position(self.players, first_dealer))
        self.first_dealer: str = self.players[self._position.dealer]

    # --- reading the state ---------------------------------------------------

    @property
    def sitting_out(self) -> str | None:
        """Who holds no cards next deal: the dealer with 5 or 6 players, else nobody."""
        return self.dealer if len(self.players) >= DEALER_SITS_OUT_FROM else None

    @property
    def deal_number(self) -> int:
        """The number of the next deal (1-based; undone deals do not count)."""
        return self._position.deal

    @property
    def pool(self) -> int:
        return self._position.pool

    @property
    def in_pool(self) -> dict[str, int]:
        """Each player's chips in the pool: what they paid in since it was last won."""
        return dict(zip(self.players, self._position.in_pool))

    @property
    def net_chips(self) -> dict[str, int]:
        return dict(zip(self.players, self._position.net))

    def allowed_bids(self) -> tuple[int | str, ...]:
        return self.rules.allowed_bids()

    def bidders(self) -> tuple[str, ...]:
        """Who may bid next deal, from the dealer's left (the dealer last, unless sitting out)."""
        n = len(self.players)
        d = self._position.dealer
        order = tuple(self.players[(d + i) % n] for i in range(1, n + 1))
        return order[:-1] if self.sitting_out else order

    def next_pool_ante(self) -> dict[str, int]:
        """What each player pays into the pool before the next deal ({} without a pool)."""
        if not self.rules.pooled:
            return {}
        chips = POOL_ANTE * self.rules.stake
        if self._position.pool_open:
            return {self.dealer: chips}
        return {name: chips for name in self.players}

    def pool_at_next_deal(self) -> int:
        """The pool once the next deal's ante is in: what a made five-trick bid takes at least,
        and what a failed one pays in at least (peeks, exchanges and penalty chips add to it)."""
        base = 0 if not self._position.pool_open else self._position.pool
        return base + sum(self.next_pool_ante().values())

    # --- verify / ask / act ---------------------------------------------------

    def _resolve(self, action: Action) -> Outcome:
        return resolve(self.players, self.rules, self._position, action)

    def _undo(self, seq: int, before: Position, record: Record) -> Outcome:
        return Outcome(
            position=before,
            action=Void(),
            transfers=tuple(t.reversed() for t in reversed(record.transfers)),
            summary=f"Undid #{self.number_of(seq)}: {record.summary}",
        )

    def _check(self, before: Position, outcome: Outcome) -> None:
        check_invariants(self.players, before, outcome)

    def _record(self, seq: int, action: Action, before: Position, outcome: Outcome, voids: int | None) -> Record:
        # a deal's dealer; for an undo, the dealer of the deal it undoes (who deals again)
        dealer = self.players[before.dealer if voids is None else outcome.position.dealer]
        return Record(
            seq=seq,
            action=outcome.action,
            deal=before.deal if voids is None else outcome.position.deal,
            dealer=dealer,
            sitting_out=dealer if len(self.players) >= DEALER_SITS_OUT_FROM else None,
            transfers=outcome.transfers,
            pool=outcome.position.pool,
            pool_won=outcome.pool_won,
            summary=outcome.summary,
            voids=voids,
        )

    def deal(self, bidder: str | None, bid: int | str | None = None, made: bool | None = None, **extras: object) -> Record:
        """Push a :class:`Deal` built from keyword arguments (for readable callers and tests)."""
        return self.push(make_deal(bidder, bid, made, **extras))



def make_deal(
    bidder: str | None,
    bid: int | str | None = None,
    made: bool | None = None,
    *,
    widow: bool = False,
    peeks: Iterable[str] = (),
    exchanged: Mapping[str, int] | None = None,
    penalties: Iterable[tuple[str, str]] = (),
    wrong_cards: str | None = None,
) -> Deal:
    """A :class:`Deal` from plain values: ``exchanged`` a mapping, ``penalties`` (kind, player) pairs."""
    return Deal(
        bidder=bidder,
        bid=bid,
        made=made,
        widow=widow,
        peeks=tuple(peeks),
        exchanged=tuple((exchanged or {}).items()),
        penalties=tuple(Penalty(kind, player) for kind, player in penalties),
        wrong_cards=wrong_cards,
    )


# --- the invariants ------------------------------------------------------------------


def check_invariants(players: tuple[str, ...], before: Position, outcome: Outcome) -> None:
    """RULES-NAP.md's invariants on the position after ``outcome``; LedgerBroken if one fails.

    - the transfers take the net chips and the pool from ``before`` to the new position;
    - net chips plus the pool sum to zero;
    - the pool equals what each player paid into it since it was last won
      (``in_pool``), and a pool that is taken is taken whole.
    """
    after = outcome.position
    net = list(before.net)
    in_pool = list(before.in_pool)
    pool = before.pool
    index = {name: seat for seat, name in enumerate(players)}
    for t in outcome.transfers:
        if t.chips <= 0 or t.payer == t.payee:
            raise LedgerBroken(f"a transfer of {t.chips} from {t.payer} to {t.payee}")
        if t.payer is POOL:
            if t.reason in ("pool won", "undo") and t.chips == pool:
                pool, in_pool = 0, [0] * len(players)
            elif t.reason == "undo":  # undoing a payment into the pool
                pool -= t.chips
            else:
                raise LedgerBroken(f"the pool paid {t.chips} of its {pool} chips")
        else:
            net[index[t.payer]] -= t.chips
        if t.payee is POOL:
            pool += t.chips
            in_pool[index[t.payer]] += t.chips  # type: ignore[index]
        else:
            net[index[t.payee]] += t.chips
    if tuple(net) != after.net or pool != after.pool:
        raise LedgerBroken("the transfers do not add up to the new balances")
    if sum(after.net) + after.pool != 0:
        raise LedgerBroken(f"net chips sum to {sum(after.net)} with {after.pool} in the pool")
    if sum(after.in_pool) != after.pool or min(after.in_pool) < 0:
        raise LedgerBroken(f"the pool holds {after.pool} but {sum(after.in_pool)} was paid in since it was won")
    if isinstance(outcome.action, Deal) and tuple(in_pool) != after.in_pool:
        raise LedgerBroken("the chips paid into the pool do not match each player's share")


# --- the rules, as one pure function -----------------------------------------------


def resolve(players: tuple[str, ...], rules: Rules, p: Position, action: Action) -> Outcome:
    """The next position and the effects of ``action`` at position ``p``.

    Raises :class:`IllegalAction` (a :class:`DealError` naming the field) and so changes
    nothing when the rules forbid it.
    """
    if not isinstance(action, Deal):
        raise IllegalAction(f"unknown action {action!r}")
    deal = canonical_deal(players, rules, p, action)
    return _score(players, rules, p, deal)


def _name(players: tuple[str, ...], name: object, field_name: str) -> str:
    seat = find_seat(players, name)
    if seat is None:
        shown = name[:MAX_NAME_LENGTH] if isinstance(name, str) else repr(name)[:MAX_NAME_LENGTH]
        raise DealError(field_name, f"'{shown}' is not a player of this game")
    return players[seat]


def canonical_deal(players: tuple[str, ...], rules: Rules, p: Position, deal: Deal) -> Deal:
    """``deal`` with every name as seated, or DealError naming the first field the rules refuse."""
    n = len(players)
    out = players[p.dealer] if n >= DEALER_SITS_OUT_FROM else None

    def holder(name: object, field_name: str, doing: str) -> str:
        canonical = _name(players, name, field_name)
        if canonical == out:
            raise DealError(field_name, f"{canonical} deals this time and holds no cards, so cannot {doing}")
        return canonical

    peeks: list[str] = []
    if deal.peeks:
        if rules.variant != "peep":
            raise DealError("peeks", "peeking at the widow is only for Peep Nap")
        for name in deal.peeks:
            canonical = holder(name, "peeks", "peek")
            if canonical in peeks:
                raise DealError("peeks", f"{canonical} may peek only once a deal")
            peeks.append(canonical)
    exchanged: list[tuple[str, int]] = []
    if deal.exchanged:
        if rules.variant != "purchase":
            raise DealError("exchanged", "exchanging cards is only for Purchase Nap")
        for name, cards in deal.exchanged:
            canonical = holder(name, "exchanged", "exchange cards")
            if any(canonical == other for other, _ in exchanged):
                raise DealError("exchanged", f"{canonical} exchanges once a deal")
            if isinstance(cards, bool) or not isinstance(cards, int) or not 1 <= cards <= MAX_EXCHANGE:
                raise DealError("exchanged", f"{canonical} exchanges 1 to {MAX_EXCHANGE} cards, not {cards!r}")
            exchanged.append((canonical, cards))

    if deal.bidder is None:
        if out is None:
            raise DealError("bidder", "nobody bid: with 2 to 4 players the dealer must bid at least 1")
        for name, given in (
            ("bid", deal.bid is not None),
            ("made", deal.made is not None),
            ("widow", deal.widow),
            ("penalties", bool(deal.penalties)),
            ("wrong_cards", deal.wrong_cards is not None),
        ):
            if given:
                raise DealError(name, "a deal thrown in (nobody bid) has no bid, result, widow, penalties or wrong hands")
        return Deal(bidder=None, peeks=tuple(peeks), exchanged=tuple(exchanged))

    bidder = holder(deal.bidder, "bidder", "bid")
    bid = deal.bid
    if bid is None:
        raise DealError("bid", f"what did {bidder} bid?")
    if isinstance(bid, bool) or not isinstance(bid, (int, str)) or bid not in BIDS:
        raise DealError("bid", f"{str(bid)[:20]!r} is not a bid (1, 2, 3, 4, misere, nap, wellington, blucher)")
    if bid not in rules.allowed_bids():
        raise DealError("bid", f"{BID_TITLES[bid]} is not played in this game (see the rules)")
    if deal.widow:
        if rules.variant != "widow":
            raise DealError("widow", "taking the widow is only for Widow Nap")
        if bid != "nap":
            raise DealError("widow", f"taking the widow commits to Nap, not {BID_TITLES[bid]}")

    penalties: list[Penalty] = []
    for penalty in deal.penalties:
        if penalty.kind not in PENALTY_KINDS:
            raise DealError("penalties", f"{str(penalty.kind)[:20]!r} is not a penalty (lead_out_of_turn, revoke)")
        offender = holder(penalty.player, "penalties", "commit a penalty")
        if penalty.kind == "lead_out_of_turn" and offender == bidder:
            raise DealError(
                "penalties", f"{bidder} is the bidder: a bidder who leads out of turn takes the card back"
            )
        if penalty.kind == "revoke" and any(other.kind == "revoke" for other in penalties):
            raise DealError("penalties", "a revoke abandons the deal: there is at most one")
        penalties.append(Penalty(penalty.kind, offender))
    revoked = any(penalty.kind == "revoke" for penalty in penalties)
    if revoked:
        if deal.made is not None:
            raise DealError("made", "a revoke abandons the deal: it is neither made nor failed")
        if deal.wrong_cards is not None:
            # (choice) a revoke's payments do not depend on the hands held
            raise DealError("wrong_cards", "a revoke abandons the deal: a wrong hand changes none of its payments")
    elif not isinstance(deal.made, bool):
        raise DealError("made", f"did {bidder} make {BID_TITLES[bid]}? (made: true or false)")
    if deal.wrong_cards is not None and deal.wrong_cards not in WRONG_CARDS:
        raise DealError("wrong_cards", f"{str(deal.wrong_cards)[:20]!r} is not one of other, bidder_over")
    return Deal(
        bidder=bidder,
        bid=bid,
        made=deal.made,
        widow=bool(deal.widow),
        peeks=tuple(peeks),
        exchanged=tuple(exchanged),
        penalties=tuple(penalties),
        wrong_cards=deal.wrong_cards,
    )


class _Ledger:
    """The transfers of one deal as they happen, and the balances they lead to."""

    def __init__(self, players: tuple[str, ...], p: Position) -> None:
        self.players = players
        self.index = {name: seat for seat, name in enumerate(players)}
        self.net = list(p.net)
        self.in_pool = list(p.in_pool)
        self.pool = p.pool
        self.transfers: list[Transfer] = []

    def pay(self, payer: str | None, payee: str | None, chips: int, reason: str) -> None:
        if chips <= 0:
            return
        self.transfers.append(Transfer(payer, payee, chips, reason))
        if payer is POOL:
            self.pool -= chips
        else:
            self.net[self.index[payer]] -= chips
        if payee is POOL:
            self.pool += chips
            self.in_pool[self.index[payer]] += chips  # type: ignore[index]
        else:
            self.net[self.index[payee]] += chips

    def take_pool(self, winner: str) -> int:
        chips = self.pool
        self.pay(POOL, winner, chips, "pool won")
        self.in_pool = [0] * len(self.players)
        return chips


def _score(players: tuple[str, ...], rules: Rules, p: Position, deal: Deal) -> Outcome:
    """Score a canonical deal: the pool's antes and extras, the penalties, then made or failed."""
    n = len(players)
    dealer = players[p.dealer]
    stake = rules.stake
    ledger = _Ledger(players, p)
    # 1. Before the deal: the pool's ante (2 from everyone at a pool's start, else the dealer's 2).
    if rules.pooled:
        if p.pool_open:
            ledger.pay(dealer, POOL, POOL_ANTE * stake, "dealer's ante")
        else:
            for name in players:
                ledger.pay(name, POOL, POOL_ANTE * stake, "ante")
    # 2. Before and during the bidding: exchanged cards (Purchase Nap) and peeks (Peep Nap).
    for name, cards in deal.exchanged:
        ledger.pay(name, POOL, EXCHANGE_CHIPS_PER_CARD * cards * stake, "exchange")
    for name in deal.peeks:
        ledger.pay(name, POOL, PEEK_CHIPS * stake, "peek")
    pool_won = 0
    if deal.bidder is None:
        headline = "Thrown in: nobody bid"
        notes: list[str] = []
    else:
        bidder, bid = deal.bidder, deal.bid
        assert bid is not None
        others = [name for name in players if name != bidder]
        made_each, failed_each = (chips * stake for chips in contract(bid, deal.widow))
        five = bid in FIVE_TRICK_BIDS
        title = "Nap with the widow" if deal.widow else BID_TITLES[bid]
        # 3. During play: penalty chips into the pool, and a lead out of turn's 3 to the bidder at once.
        leaders = [pen.player for pen in deal.penalties if pen.kind == "lead_out_of_turn"]
        revoker = next((pen.player for pen in deal.penalties if pen.kind == "revoke"), None)
        if rules.pooled:
            for pen in deal.penalties:
                chips = REVOKE_POOL_CHIPS if pen.kind == "revoke" else LEAD_OUT_OF_TURN_CHIPS
                ledger.pay(pen.player, POOL, chips * stake, pen.kind.replace("_", " "))
        for name in leaders:
            ledger.pay(name, bidder, LEAD_OUT_OF_TURN_CHIPS * stake, "lead out of turn")
        notes = [f"{name} led out of turn" for name in leaders]
        # 4. The score.
        if revoker == bidder:
            # pays as if failed: not to a player who led out of turn (choice), and the pool as a failed five-trick bid
            for name in others:
                if name not in leaders:
                    ledger.pay(bidder, name, failed_each, "revoke")
            if rules.pooled and five:
                ledger.pay(bidder, POOL, ledger.pool, "pool doubled")
            headline = f"{bidder} revoked, bidding {title}"
        elif revoker is not None:
            ledger.pay(revoker, bidder, made_each, "revoke")
            for name in others:
                if name != revoker:
                    ledger.pay(revoker, name, made_each, "revoke")
            headline = f"{revoker} revoked against {bidder}'s {title}"
        elif deal.made:
            headline = f"{bidder} made {title}"
            if deal.wrong_cards == "bidder_over":
                notes.append("bidder held too many cards: paid nothing")
            else:
                for name in others:
                    ledger.pay(name, bidder, made_each, "made")
                if rules.pooled and five:
                    pool_won = ledger.take_pool(bidder)
        else:
            headline = f"{bidder} failed {title}"
            if deal.wrong_cards == "bidder_over":
                notes.append("bidder held too many cards")
            if deal.wrong_cards == "other":
                notes.append("another hand was wrong: pays nothing")
            else:
                for name in others:
                    if name not in leaders:
                        ledger.pay(bidder, name, failed_each, "failed")
                if rules.pooled and five:
                    ledger.pay(bidder, POOL, ledger.pool, "pool doubled")
        if deal.wrong_cards == "other" and deal.made:
            notes.append("another hand was wrong")
    position = Position(
        deal=p.deal + 1,
        dealer=(p.dealer + 1) % n,
        pool=ledger.pool,
        pool_open=rules.pooled and not pool_won,
        in_pool=tuple(ledger.in_pool),
        net=tuple(ledger.net),
        pools_won=p.pools_won + (1 if pool_won else 0),
    )
    summary = _summary(players, p, deal, headline, notes, ledger.transfers, position.pool, pool_won)
    return Outcome(position=position, action=deal, transfers=tuple(ledger.transfers), pool_won=pool_won, summary=summary)


# --- the summary sentence ------------------------------------------------------------


def _summary(
    players: tuple[str, ...],
    p: Position,
    deal: Deal,
    headline: str,
    notes: list[str],
    transfers: list[Transfer],
    pool_after: int,
    pool_won: int,
) -> str:
    """One line a person reads: "Cat made 2: +6; Ann, Ben, Dan −2 each", then the pool's part."""
    delta = dict.fromkeys(players, 0)
    for t in transfers:
        if t.payer is not POOL and t.payee is not POOL:
            delta[t.payer] -= t.chips
            delta[t.payee] += t.chips
    if notes:
        headline += " (" + "; ".join(notes) + ")"
    subject = None
    if deal.bidder is not None:
        revoker = next((pen.player for pen in deal.penalties if pen.kind == "revoke"), None)
        subject = revoker or deal.bidder
    parts: list[str] = []
    if subject is not None and delta[subject]:
        parts.append(signed(delta[subject]))
    groups: dict[int, list[str]] = {}
    for name in players:
        if name != subject and delta[name]:
            groups.setdefault(delta[name], []).append(name)
    for chips, names in groups.items():
        parts.append(f"{', '.join(names)} {signed(chips)}" + (" each" if len(names) > 1 else ""))
    text = headline + ": " + ("; ".join(parts) if parts else "nothing paid")
    into = _pool_parts(players, p, deal, transfers)
    if into:
        text += ". Into the pool: " + ", ".join(into)
        if not pool_won:
            text += f"; pool {pool_after}"
    if pool_won:
        text += f". {deal.bidder} takes the pool of {pool_won}"
    return text


def _pool_parts(players: tuple[str, ...], p: Position, deal: Deal, transfers: list[Transfer]) -> list[str]:
    parts: list[str] = []
    antes = [t for t in transfers if t.reason == "ante"]
    if antes:
        parts.append(f"{antes[0].chips} each (a new pool)")
    for t in transfers:
        if t.payee is not POOL or t.reason == "ante":
            continue
        label = {
            "dealer's ante": "dealer",
            "peek": "peek",
            "lead out of turn": "lead out of turn",
            "revoke": "revoke",
        }.get(t.reason)
        if t.reason == "exchange":
            cards = dict(deal.exchanged)[t.payer]  # type: ignore[index]
            label = f"{cards} card{'' if cards == 1 else 's'}"
        elif t.reason == "pool doubled":
            label = "doubling it"
        parts.append(f"{t.payer} {t.chips} ({label})")
    return parts
