"""Napalm as a fold over actions: the table state, its legal moves, and its log.

The engine is deliberately shaped like pokerkit's ``State`` and python-chess's
``Board``: ``verify(action)`` raises :class:`IllegalAction` with a sentence a
scorekeeper understands, ``is_legal(action)`` asks, ``push(action)`` acts and
appends a frozen :class:`Record` to an append-only log, and ``void()`` (the
``pop`` of python-chess) undoes the latest live action *by appending* a
:class:`Void` record, so the history keeps every line.

Every action is resolved by the pure function :func:`resolve`, which maps a
small frozen :class:`Position` and an action to the next position and the chip
transfers and tokens it causes.  A position holds only what the rules need to
go on (O(players)); the growing history lives in the log, so recording the
1000th action of a night costs what recording the first did.

Chips move between accounts: a player's name, or :data:`POT`.  Every record's
transfers balance by construction (a transfer has one payer and one payee), so
the sum of all players' net chips plus the pot is always zero.

A night may start with a pot *carried in* from the previous night's unfinished
game (``Table(..., carried_in={"Ann": 2, "Ben": 2})``): the first game's pot
starts at the sum of those antes and each contributor's net chips start at minus
their share.  It is part of the starting position, not an action, so no undo
removes it; whoever wins the first game takes it with the rest of the pot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum

from ..protocol import MAX_NAME_LENGTH, IllegalAction, and_, find_seat, seat_of, seats_named, validate_names
from ..fold import BaseOutcome, BaseRecord, FoldTable, Transfer, Void
from .cards import Card, CardError, format_cards, parse_cards
from .rankings import CARDS_PER_STAGE, best_hands, hand_strength

#: The pot's account in a :class:`Transfer`.  Player names are never empty, so
#: ``None`` cannot be mistaken for a player.
POT = None

MAX_PLAYERS = 7
UNFINISHED_POT_CHOICES = ("return_antes", "split_leaders", "carry")
MIN_PLAYERS = 2
#: The most chips one player can have in a carried-in pot (far beyond any real night).
MAX_CARRIED_SHARE = 10**12


class Stage(IntEnum):
    """The three stages of a hand, named for how claims are compared."""

    TWO_CARD_HIGH = 1
    DEUCE_TO_SEVEN_LOW = 2
    SEVEN_CARD_HIGH = 3

    @property
    def title(self) -> str:
        return STAGE_TITLES[self]


STAGE_TITLES = {
    Stage.TWO_CARD_HIGH: "best two-card high hand",
    Stage.DEUCE_TO_SEVEN_LOW: "lowest five-card hand (deuce to seven)",
    Stage.SEVEN_CARD_HIGH: "best five of seven, high",
}


class Phase(str, Enum):
    """What the table waits for within a stage."""

    DECLARE = "declare"  # everyone says Yes or No, dealer last
    CHALLENGE = "challenge"  # the dealer alone said Yes: who changes No to Yes?
    SHOWDOWN = "showdown"  # two or more Yes: who has the best hand?


@dataclass(frozen=True)
class Rules:
    """The settings a group agrees on before play (RULES.md, "Left to the group")."""

    ante: int = 1
    ante_every: int = 1
    tokens_to_win: int = 5
    #: where the pot of a game left unfinished goes (see :mod:`.closing`): a setting of the
    #: game, applied when the night ends or the next game of the night starts
    unfinished_pot: str = "return_antes"

    def __post_init__(self) -> None:
        if self.unfinished_pot not in UNFINISHED_POT_CHOICES:
            raise IllegalAction(f"the unfinished pot is one of {', '.join(UNFINISHED_POT_CHOICES)}")
        for name in ("ante", "ante_every", "tokens_to_win"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise IllegalAction(f"{name.replace('_', ' ')} must be a whole number")
        if not 0 <= self.ante <= 1_000_000:
            raise IllegalAction("the ante must be between 0 and 1,000,000 chips")
        if self.ante_every not in (1, 2):
            raise IllegalAction("the ante is paid on every hand (1) or every other hand (2)")
        if not 1 <= self.tokens_to_win <= 99:
            raise IllegalAction("tokens to win must be between 1 and 99")

    def antes_on_hand(self, hand: int) -> bool:
        """Whether the ``hand``-th hand of a game (1-based) antes: 1st, 3rd, 5th… when every other."""
        return (hand - 1) % self.ante_every == 0


# --- actions ---------------------------------------------------------------


@dataclass(frozen=True)
class Declare:
    """The first round of a stage: the players who said Yes (everyone else said No)."""

    yes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Challenge:
    """After the dealer alone said Yes: the players who changed their No to Yes."""

    challengers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Showdown:
    """The result of a contest between two or more Yes players.

    ``winners`` are the tapped winners (several on a tie); ``cards`` maps each Yes
    player to the cards shown.  Either decides; when both are given they must agree.
    """

    winners: tuple[str, ...] | None = None
    cards: tuple[tuple[str, str], ...] | None = None

    def cards_by_player(self) -> dict[str, str] | None:
        return None if self.cards is None else dict(self.cards)


Action = Declare | Challenge | Showdown | Void


@dataclass(frozen=True)
class GameResult:
    """A finished game: who reached the target and the pot they took."""

    number: int
    winner: str
    pot: int
    hands: int


@dataclass(frozen=True)
class Position:
    """Everything the rules need to go on, and nothing that grows with the night."""

    game: int  # 1-based game number within the night
    hand: int  # 1-based hand number within the game
    dealer: int  # seat index of the dealer of the hand in progress (or next)
    stage: Stage
    phase: Phase
    yes: tuple[str, ...]  # the stage's Yes players so far, in declaration order
    pot: int
    tokens: tuple[int, ...]  # per seat, in the game in progress
    net: tuple[int, ...]  # per seat, net chips over the night
    shown: tuple[tuple[str, tuple[Card, ...]], ...]  # cards shown so far in this hand
    games: tuple[GameResult, ...]  # finished games, in order
    ante_paid: bool  # whether this hand's ante (if any) has been taken
    #: per seat, the chips each player has in the pot of the game in progress: their antes
    #: in it, and in the first game their share of a pot carried in from the previous night
    in_pot: tuple[int, ...]


@dataclass(frozen=True)
class Record(BaseRecord):
    """One line of the log: an action, where it happened, and what it did (its ``game`` and
    ``tokens``, every record's, are given by every Napalm record)."""

    hand: int
    stage: Stage
    dealer: str
    winners: tuple[str, ...]  # showdown winners, when decided
    game_won: GameResult | None


@dataclass(frozen=True)
class Outcome(BaseOutcome):
    """What :func:`resolve` returns: the next position and the effects of the action."""

    tokens: tuple[tuple[str, int], ...] = ()
    winners: tuple[str, ...] = ()
    game_won: GameResult | None = None


# --- the table ---------------------------------------------------------------


#: how Napalm says a name is not at its table ("the Yes players 'Zed' is not at this table")
NOT_HERE = "is not at this table"


def validate_players(players: Sequence[str]) -> tuple[str, ...]:
    """Check a seating: 2 to 7 distinct, non-empty names (case-insensitively distinct)."""
    return validate_names(players, MIN_PLAYERS, MAX_PLAYERS, "Napalm")


def validate_carried_in(players: Sequence[str], carried_in: Mapping[str, int] | None) -> tuple[int, ...]:
    """Each seat's share of a pot carried in from the previous night (0 for most), or IllegalAction.

    ``carried_in`` maps a contributor's name (matched as everywhere: exactly, else
    ignoring upper/lower case) to the chips they anted into the previous night's
    unfinished pot: a whole number, 1 or more.  Every contributor must be seated.
    """
    shares = [0] * len(players)
    if carried_in is None:
        return tuple(shares)
    if not isinstance(carried_in, Mapping):
        raise IllegalAction("the carried pot must list each contributor's chips, e.g. {'Ann': 2}")
    for name, chips in carried_in.items():
        if not isinstance(name, str) or not name.strip():
            raise IllegalAction("every share of the carried pot needs a player's name")
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 1:
            raise IllegalAction(
                f"{name}'s share of the carried pot must be a whole number of chips, 1 or more, not {chips!r}"
            )
        if chips > MAX_CARRIED_SHARE:
            raise IllegalAction(f"{name}'s share of the carried pot is more than {MAX_CARRIED_SHARE:,} chips")
        seat = find_seat(players, name)
        if seat is None:
            raise IllegalAction(
                f"the carried pot holds {chips} chip{'' if chips == 1 else 's'} of {' '.join(name.split())}, "
                "who is not seated tonight"
            )
        if shares[seat]:
            raise IllegalAction(f"{players[seat]} is listed twice in the carried pot")
        shares[seat] = chips
    return tuple(shares)


def start_position(
    players: Sequence[str], first_dealer: str | None, carried_in: Mapping[str, int] | None = None
) -> Position:
    n = len(players)
    dealer = 0 if first_dealer is None else seat_of(players, first_dealer, "first dealer", NOT_HERE)
    shares = validate_carried_in(players, carried_in)
    return Position(
        game=1,
        hand=1,
        dealer=dealer,
        stage=Stage.TWO_CARD_HIGH,
        phase=Phase.DECLARE,
        yes=(),
        pot=sum(shares),
        tokens=(0,) * n,
        net=tuple(-share for share in shares),
        shown=(),
        games=(),
        ante_paid=False,
        in_pot=shares,
    )


class Table(FoldTable[Position, Record]):
    """A night of Napalm at one table: seating, rules, position and log."""

    outcome_type = Outcome

    def __init__(
        self,
        players: Sequence[str],
        first_dealer: str | None = None,
        rules: Rules | None = None,
        carried_in: Mapping[str, int] | None = None,
    ) -> None:
        self.players: tuple[str, ...] = validate_players(players)
        self.rules: Rules = rules if rules is not None else Rules()
        self._begin(start_position(self.players, first_dealer, carried_in))
        self.first_dealer: str = self.players[self._position.dealer]
        #: the pot carried in from the previous night: (contributor, chips), in seat order
        self._carried_in: tuple[tuple[str, int], ...] = tuple(
            (name, chips) for name, chips in zip(self.players, self._position.in_pot) if chips
        )

    # --- reading the state ---------------------------------------------------

    @property
    def stage(self) -> Stage:
        return self._position.stage

    @property
    def phase(self) -> Phase:
        return self._position.phase

    @property
    def pot(self) -> int:
        return self._position.pot

    @property
    def game_number(self) -> int:
        return self._position.game

    @property
    def hand_number(self) -> int:
        return self._position.hand

    @property
    def yes(self) -> tuple[str, ...]:
        return self._position.yes

    @property
    def tokens(self) -> dict[str, int]:
        return dict(zip(self.players, self._position.tokens))

    @property
    def net_chips(self) -> dict[str, int]:
        return dict(zip(self.players, self._position.net))

    @property
    def games(self) -> tuple[GameResult, ...]:
        return self._position.games

    @property
    def carried_in(self) -> dict[str, int]:
        """The pot carried in from the previous night, by contributor in seat order ({} for none)."""
        return dict(self._carried_in)

    @property
    def in_pot(self) -> dict[str, int]:
        """Each player's chips in the pot of the game in progress (antes, and a carried-in share in game 1)."""
        return dict(zip(self.players, self._position.in_pot))

    def declaration_order(self) -> tuple[str, ...]:
        """Who speaks, in order: from the dealer's left, clockwise, the dealer last."""
        n = len(self.players)
        d = self._position.dealer
        return tuple(self.players[(d + i) % n] for i in range(1, n + 1))

    def antes_this_hand(self) -> bool:
        return self.rules.antes_on_hand(self._position.hand)

    def prompt(self) -> str:
        """What the table is waiting for, in one sentence."""
        p = self._position
        if p.phase is Phase.DECLARE:
            return f"Stage {int(p.stage)} · {p.stage.title}: who said Yes?"
        if p.phase is Phase.CHALLENGE:
            return f"{self.dealer} (dealer) alone said Yes: who challenges?"
        return f"Showdown between {', '.join(p.yes)}: who won?"

    # --- verify / ask / act ---------------------------------------------------

    def _resolve(self, action: Action) -> Outcome:
        return resolve(self.players, self.rules, self._position, action)

    def _record(self, seq: int, action: Action, before: Position, outcome: Outcome, voids: int | None) -> Record:
        # an undo is shown where the record it undoes was (the position it goes back to), not
        # where the table had moved on to: "Undid #10" at G1 H2 S3, not H3 S1 (issue 20, item 11)
        at = before if voids is None else outcome.position
        return Record(
            seq=seq,
            action=action,
            game=at.game,
            hand=at.hand,
            stage=at.stage,
            dealer=self.players[at.dealer],
            transfers=outcome.transfers,
            tokens=outcome.tokens,
            winners=outcome.winners,
            game_won=outcome.game_won,
            summary=outcome.summary,
            voids=voids,
        )

    # the named verbs, for readable callers and tests

    def declare(self, yes: Iterable[str] = ()) -> Record:
        return self.push(Declare(tuple(yes)))

    def can_declare(self, yes: Iterable[str] = ()) -> bool:
        return self.is_legal(Declare(tuple(yes)))

    def challenge(self, challengers: Iterable[str] = ()) -> Record:
        return self.push(Challenge(tuple(challengers)))

    def can_challenge(self, challengers: Iterable[str] = ()) -> bool:
        return self.is_legal(Challenge(tuple(challengers)))

    def showdown(
        self,
        winners: Iterable[str] | None = None,
        cards: Mapping[str, str] | None = None,
    ) -> Record:
        return self.push(make_showdown(winners, cards))

    def can_showdown(
        self,
        winners: Iterable[str] | None = None,
        cards: Mapping[str, str] | None = None,
    ) -> bool:
        return self.is_legal(make_showdown(winners, cards))


def make_showdown(winners: Iterable[str] | None = None, cards: Mapping[str, str] | None = None) -> Showdown:
    return Showdown(
        winners=None if winners is None else tuple(winners),
        cards=None if cards is None else tuple(cards.items()),
    )


# --- the rules, as one pure function -----------------------------------------------


def resolve(players: tuple[str, ...], rules: Rules, p: Position, action: Action) -> Outcome:
    """The next position and the effects of ``action`` at position ``p``.

    Raises :class:`IllegalAction` (and so changes nothing) when the rules forbid it.
    """
    if isinstance(action, Declare):
        return _declare(players, rules, p, action)
    if isinstance(action, Challenge):
        return _challenge(players, rules, p, action)
    if isinstance(action, Showdown):
        return _showdown(players, rules, p, action)
    raise IllegalAction(f"unknown action {action!r}")


def _in_declaration_order(players: tuple[str, ...], dealer: int, names: Iterable[str]) -> tuple[str, ...]:
    n = len(players)
    rank = {players[(dealer + i) % n]: i for i in range(1, n + 1)}
    return tuple(sorted(names, key=rank.__getitem__))


def _declare(players: tuple[str, ...], rules: Rules, p: Position, action: Declare) -> Outcome:
    if p.phase is Phase.CHALLENGE:
        raise IllegalAction("the dealer alone said Yes: record who challenges first")
    if p.phase is Phase.SHOWDOWN:
        raise IllegalAction(f"the declarations are in: record who won between {', '.join(p.yes)} first")
    yes = _in_declaration_order(players, p.dealer, seats_named(players, action.yes, "the Yes players", NOT_HERE))
    transfers: list[Transfer] = []
    pot = p.pot
    net = list(p.net)
    in_pot = list(p.in_pot)
    ante_paid = p.ante_paid
    if p.stage is Stage.TWO_CARD_HIGH and not p.ante_paid:
        ante_paid = True
        if rules.antes_on_hand(p.hand) and rules.ante:
            for seat, name in enumerate(players):
                transfers.append(Transfer(name, POT, rules.ante, "ante"))
                net[seat] -= rules.ante
                in_pot[seat] += rules.ante
                pot += rules.ante
    p = replace(p, pot=pot, net=tuple(net), in_pot=tuple(in_pot), ante_paid=ante_paid)
    ante_note = f"Ante {rules.ante} each, pot {pot}. " if transfers else ""
    dealer = players[p.dealer]
    if not yes:
        outcome = _next_stage(players, p)
        return replace(outcome, transfers=tuple(transfers), summary=ante_note + "Nobody said Yes.")
    if len(yes) == 1 and yes[0] == dealer and len(players) > 1:
        return Outcome(
            position=replace(p, phase=Phase.CHALLENGE, yes=yes),
            transfers=tuple(transfers),
            summary=ante_note + f"{dealer} (dealer) alone said Yes.",
        )
    if len(yes) == 1:
        outcome = _award_token(players, rules, p, yes[0])
        return replace(outcome, transfers=tuple(transfers) + outcome.transfers, summary=ante_note + outcome.summary)
    return Outcome(
        position=replace(p, phase=Phase.SHOWDOWN, yes=yes),
        transfers=tuple(transfers),
        summary=ante_note + f"Yes: {', '.join(yes)}.",
    )


def _challenge(players: tuple[str, ...], rules: Rules, p: Position, action: Challenge) -> Outcome:
    if p.phase is not Phase.CHALLENGE:
        raise IllegalAction("a challenge is only allowed when every other player said No and the dealer alone said Yes")
    dealer = players[p.dealer]
    challengers = seats_named(players, action.challengers, "the challengers", NOT_HERE)
    if dealer in challengers:
        raise IllegalAction(f"{dealer} is the dealer and cannot challenge his own Yes")
    if not challengers:
        outcome = _award_token(players, rules, p, dealer)
        return replace(outcome, summary="No challenge. " + outcome.summary)
    yes = _in_declaration_order(players, p.dealer, (dealer, *challengers))
    return Outcome(
        position=replace(p, phase=Phase.SHOWDOWN, yes=yes),
        summary=f"Challenged by {', '.join(_in_declaration_order(players, p.dealer, challengers))}.",
    )


def _showdown(players: tuple[str, ...], rules: Rules, p: Position, action: Showdown) -> Outcome:
    if p.phase is not Phase.SHOWDOWN:
        if p.phase is Phase.CHALLENGE:
            raise IllegalAction("the dealer alone said Yes: record who challenges first")
        raise IllegalAction("there is no showdown yet: record who said Yes first")
    if action.winners is None and action.cards is None:
        raise IllegalAction("tap the winner(s) or enter the cards shown")
    winners: tuple[str, ...] | None = None
    if action.winners is not None:
        winners = seats_named(players, action.winners, "the winners", NOT_HERE)
        if not winners:
            raise IllegalAction("tap at least one winner")
        for name in winners:
            if name not in p.yes:
                raise IllegalAction(f"{name} did not say Yes and cannot win this showdown")
    shown = p.shown
    labels: dict[str, str] = {}
    if action.cards is not None:
        hands, shown = _check_cards(players, p, action.cards)
        by_cards = best_hands(int(p.stage), hands)
        by_cards = tuple(n for n in p.yes if n in by_cards)
        labels = {name: hand_strength(int(p.stage), cards).label for name, cards in hands.items()}
        if winners is not None and set(winners) != set(by_cards):
            raise IllegalAction(
                f"the cards say {and_(by_cards)} won, not {and_(winners)}: check the winners or the cards"
            )
        winners = by_cards
    assert winners is not None
    winners = tuple(n for n in p.yes if n in winners)
    losers = tuple(n for n in p.yes if n not in winners)
    transfers = tuple(
        Transfer(loser, winner, p.pot, "side bet") for loser in losers for winner in winners if p.pot
    )
    net = list(p.net)
    for t in transfers:
        net[players.index(t.payer)] -= t.chips
        net[players.index(t.payee)] += t.chips
    p = replace(p, net=tuple(net), shown=shown)
    outcome = _next_stage(players, p)
    shown_note = ""
    if labels:
        shown_note = " (" + "; ".join(f"{n}: {labels[n]}" for n in p.yes) + ")"
    if not losers:
        summary = f"{and_(winners)} tied: nothing changes hands."
    elif len(winners) == 1:
        # "each" only for more than one payer: "Ben won; Eve paid 10" (issue 20, item 14)
        summary = f"{winners[0]} won; {and_(losers)} paid {p.pot}{' each' if len(losers) > 1 else ''}."
    else:
        summary = f"{and_(winners)} tied for best; {and_(losers)} paid {p.pot} to each winner."
    return replace(outcome, transfers=transfers, winners=winners, summary=summary + shown_note)


def _check_cards(
    players: tuple[str, ...], p: Position, cards: Iterable[tuple[str, str]]
) -> tuple[dict[str, tuple[Card, ...]], tuple[tuple[str, tuple[Card, ...]], ...]]:
    """Parse the shown cards: every Yes player, the stage's count, no card twice in the hand."""
    needed = CARDS_PER_STAGE[int(p.stage)]
    hands: dict[str, tuple[Card, ...]] = {}
    for name, text in cards:
        canonical = players[seat_of(players, name, "card holder", NOT_HERE)]
        if canonical not in p.yes:
            raise IllegalAction(f"{canonical} did not say Yes, so has no cards to show")
        if canonical in hands:
            raise IllegalAction(f"cards for {canonical} are entered twice")
        try:
            parsed = parse_cards(text)
        except CardError as error:
            raise IllegalAction(f"{canonical}'s cards: {error}") from None
        if len(parsed) != needed:
            raise IllegalAction(
                f"stage {int(p.stage)} needs {needed} cards for {canonical}, got {len(parsed)}"
            )
        hands[canonical] = parsed
    missing = [n for n in p.yes if n not in hands]
    if missing:
        raise IllegalAction(f"enter the cards of every Yes player: {and_(missing)} missing")
    earlier = dict(p.shown)
    owner: dict[Card, str] = {}
    for name, held in list(earlier.items()) + list(hands.items()):
        for card in held:
            if owner.get(card, name) != name:
                raise IllegalAction(f"{card} is shown twice in this hand ({owner[card]} and {name})")
            owner[card] = name
    for name, held in hands.items():
        before = earlier.get(name, ())
        lost = [c for c in before if c not in held]
        if lost:
            raise IllegalAction(
                f"{name} showed {format_cards(before)} earlier in this hand; "
                f"the cards at stage {int(p.stage)} must include them"
            )
        earlier[name] = held
    return hands, tuple(earlier.items())


def _award_token(players: tuple[str, ...], rules: Rules, p: Position, name: str) -> Outcome:
    seat = players.index(name)
    tokens = list(p.tokens)
    tokens[seat] += 1
    if tokens[seat] >= rules.tokens_to_win:
        result = GameResult(number=p.game, winner=name, pot=p.pot, hands=p.hand)
        net = list(p.net)
        net[seat] += p.pot
        transfers = (Transfer(POT, name, p.pot, "pot"),) if p.pot else ()
        n = len(players)
        position = replace(
            p,
            game=p.game + 1,
            hand=1,
            dealer=(p.dealer + 1) % n,
            stage=Stage.TWO_CARD_HIGH,
            phase=Phase.DECLARE,
            yes=(),
            pot=0,
            tokens=(0,) * n,
            net=tuple(net),
            shown=(),
            games=p.games + (result,),
            ante_paid=False,
            in_pot=(0,) * n,
        )
        return Outcome(
            position=position,
            transfers=transfers,
            tokens=((name, 1),),
            game_won=result,
            summary=f"{name} took a token, reached {rules.tokens_to_win} and wins the pot of {p.pot}: game {p.game} over.",
        )
    outcome = _next_stage(players, replace(p, tokens=tuple(tokens)))
    return replace(outcome, tokens=((name, 1),), summary=f"{name} took a token ({tokens[seat]}).")


def _next_stage(players: tuple[str, ...], p: Position) -> Outcome:
    if p.stage is not Stage.SEVEN_CARD_HIGH:
        return Outcome(position=replace(p, stage=Stage(p.stage + 1), phase=Phase.DECLARE, yes=()))
    return Outcome(
        position=replace(
            p,
            hand=p.hand + 1,
            dealer=(p.dealer + 1) % len(players),
            stage=Stage.TWO_CARD_HIGH,
            phase=Phase.DECLARE,
            yes=(),
            shown=(),
            ante_paid=False,
        )
    )
