"""The three rankings of a Napalm hand, one per stage (RULES.md, "Stages").

=====  =====  ==========================================================
stage  cards  what wins
=====  =====  ==========================================================
1      2      best two-card high hand: any pair beats any non-pair
2      5      lowest hand, deuce-to-seven: aces high, straights and
              flushes count against you, 7-5-4-3-2 offsuit is best
3      7      best five-card high poker hand out of the seven
=====  =====  ==========================================================

Every stage is reduced to a :class:`HandStrength`, a value where *greater
means better for that stage*, so the rest of the app never needs to know that
stage 2 is played for low.  Equal strengths are exact ties: suits never break
a tie.

Stages 2 and 3 are ranked by pokerkit, whose lookups do the job exactly:
``StandardLowHand`` is deuce-to-seven (its straights do not wrap, so A-2-3-4-5
is only ace-high) and the ``StandardLookup`` behind ``StandardHighHand`` counts
A-2-3-4-5 as the lowest straight.  Stage 3 asks the lookup for each of the 21
five-card choices itself instead of calling ``StandardHighHand.from_game``:
the answer is the same, but ``from_game`` builds a ``Hand`` per choice and
looks each one up several times, which is about four times slower.  Two-card
high is not a game any library ranks, so it is a few lines of our own.

pokerkit is imported on the first hand of stage 2 or 3 (:func:`_pokerkit`), not with this
module: building its lookups takes about half a second of CPU, and every process that
imports the app (``flask db``, ``flask replay``, gunicorn's master) paid it whether or not
it ranked a hand.  A served worker loads it while it warms up (:func:`load_lookups`).

Pure Python: no Flask, SQLAlchemy or WTForms here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, total_ordering
from itertools import combinations

from typing import TYPE_CHECKING, Any, NamedTuple

from .cards import RANKS, SUITS, Card, CardError, format_cards, parse_cards

if TYPE_CHECKING:
    from pokerkit import Label

__all__ = ["CARDS_PER_STAGE", "HandStrength", "best_hands", "hand_strength"]

#: How many cards each player holds at each stage.
CARDS_PER_STAGE: dict[int, int] = {1: 2, 2: 5, 3: 7}

_NAMES = {
    2: ("two", "twos"),
    3: ("three", "threes"),
    4: ("four", "fours"),
    5: ("five", "fives"),
    6: ("six", "sixes"),
    7: ("seven", "sevens"),
    8: ("eight", "eights"),
    9: ("nine", "nines"),
    10: ("ten", "tens"),
    11: ("jack", "jacks"),
    12: ("queen", "queens"),
    13: ("king", "kings"),
    14: ("ace", "aces"),
}

_FIVE_OF_SEVEN = tuple(combinations(range(7), 5))


@total_ordering
@dataclass(frozen=True, eq=False)
class HandStrength:
    """How good a hand is at its stage; greater is better, equal is an exact tie.

    ``key`` is what is compared (for stage 1 our own (pair?, top, second); for
    stages 2 and 3 pokerkit's lookup index, negated for the low).  ``label``
    says in a few words what the hand is; ``cards`` are the cards that make
    it, in the order the label reads them (for stage 3 the best five only).
    Strengths of different stages cannot be compared: that would be a bug.
    """

    stage: int
    key: tuple[int, ...]
    label: str
    cards: tuple[Card, ...]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandStrength):
            return NotImplemented
        return self.stage == other.stage and self.key == other.key

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, HandStrength) or self.stage != other.stage:
            return NotImplemented
        return self.key < other.key

    def __hash__(self) -> int:
        return hash((self.stage, self.key))

    def __str__(self) -> str:
        return self.label


def hand_strength(stage: int, cards: Sequence[Card]) -> HandStrength:
    """Rank one player's cards at ``stage`` (1, 2 or 3).

    Raises :class:`ValueError` for a stage that does not exist, and
    :class:`CardError` when the number of cards is not the stage's, or a card
    is given twice (a deck holds each card once, and a duplicate would make
    impossible hands such as five aces).
    """
    stage = _check_stage(stage)
    held = parse_cards(cards)
    needed = CARDS_PER_STAGE[stage]
    if len(held) != needed:
        raise CardError(f"stage {stage} needs {needed} cards, got {len(held)}")
    # The order cards were typed in never matters, so sorting first lets the
    # cache serve the same hand however it was entered.
    return _strength(stage, tuple(sorted(held, reverse=True)))


def best_hands(stage: int, hands: Mapping[str, Sequence[Card]]) -> tuple[str, ...]:
    """The names holding the best hand at ``stage``, in the mapping's order.

    Several names come back when they tie exactly for best; an empty mapping
    gives ``()``.
    """
    stage = _check_stage(stage)
    strengths = {name: hand_strength(stage, cards) for name, cards in hands.items()}
    if not strengths:
        return ()
    best = max(strengths.values())
    return tuple(name for name, strength in strengths.items() if strength == best)


def _check_stage(stage: int) -> int:
    if stage not in CARDS_PER_STAGE:
        raise ValueError(f"there is no stage {stage!r}: the stages are 1, 2 and 3")
    return int(stage)


class _Pokerkit(NamedTuple):
    """What this module uses of pokerkit: our cards as its cards, its two lookups, its hand labels."""

    card: dict[Card, Any]
    low: Any
    high: Any
    label: Any


@lru_cache(maxsize=1)
def _pokerkit() -> _Pokerkit:
    import pokerkit

    cards = {
        Card(rank, suit): pokerkit.Card(pokerkit.Rank(char), pokerkit.Suit(suit))
        for rank, char in RANKS.items()
        for suit in SUITS
    }
    return _Pokerkit(cards, pokerkit.StandardLowHand.lookup, pokerkit.StandardHighHand.lookup, pokerkit.Label)


def load_lookups() -> None:
    """Build pokerkit's lookups now (a server's warm-up), not at the first showdown of stage 2 or 3."""
    _pokerkit()


@lru_cache(maxsize=4096)
def _strength(stage: int, cards: tuple[Card, ...]) -> HandStrength:
    """Rank cards already checked and sorted high to low (cached: showdowns and
    replays of a night's log rank the same hands again)."""
    if stage == 1:
        return _two_card_high(cards)
    if stage == 2:
        return _deuce_to_seven_low(cards)
    return _seven_card_high(cards)


def _two_card_high(cards: tuple[Card, ...]) -> HandStrength:
    """Stage 1: a pair beats any non-pair; then the top card, then the other.

    Suits, straights and flushes mean nothing, so only the two ranks count and
    3-2 (no pair, lowest top card, lowest second card) is the worst hand.
    """
    top, second = cards[0].rank, cards[1].rank
    if top == second:
        return HandStrength(1, (1, top, second), f"pair of {_NAMES[top][1]}", cards)
    return HandStrength(1, (0, top, second), f"{_NAMES[top][0]}-{_NAMES[second][0]} high", cards)


def _deuce_to_seven_low(cards: tuple[Card, ...]) -> HandStrength:
    """Stage 2: pokerkit's deuce-to-seven entry, negated so that lower is greater."""
    kit = _pokerkit()
    entry = kit.low.get_entry(tuple(kit.card[card] for card in cards))
    # Low hands are read from the top card down ("7-5-4-3-2"); the ranks are all
    # there, so a note only names what makes the hand worse than a plain low.
    label = "-".join(RANKS[card.rank] for card in cards)
    if entry.label is kit.label.ONE_PAIR:
        label += f" ({_describe(entry.label, _reading_order(cards, wheel_is_straight=False))})"
    elif entry.label is not kit.label.HIGH_CARD:
        label += f" ({entry.label.value.lower()})"
    return HandStrength(2, (-entry.index,), label, cards)


def _seven_card_high(cards: tuple[Card, ...]) -> HandStrength:
    """Stage 3: the best of the 21 five-card hands in the seven, by pokerkit's lookup."""
    kit = _pokerkit()
    converted = tuple(kit.card[card] for card in cards)
    best_entry = None
    best_choice: tuple[int, ...] = ()
    for choice in _FIVE_OF_SEVEN:
        entry = kit.high.get_entry(tuple(converted[i] for i in choice))
        if best_entry is None or entry > best_entry:
            best_entry, best_choice = entry, choice
    assert best_entry is not None
    ordered = _reading_order(tuple(cards[i] for i in best_choice), wheel_is_straight=True)
    label = f"{_describe(best_entry.label, ordered)} ({format_cards(ordered)})"
    return HandStrength(3, (best_entry.index,), label, ordered)


def _reading_order(cards: tuple[Card, ...], wheel_is_straight: bool) -> tuple[Card, ...]:
    """Five cards as a player reads them: bigger groups first, then higher ranks;
    the wheel of stage 3 as 5-4-3-2-A, since there its ace plays low."""
    counts = Counter(card.rank for card in cards)
    ordered = tuple(sorted(cards, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True))
    if wheel_is_straight and sorted(counts) == [2, 3, 4, 5, 14]:
        ordered = ordered[1:] + ordered[:1]
    return ordered


def _describe(label: Label, ordered: tuple[Card, ...]) -> str:
    """A few words for a five-card hand whose cards are in reading order."""
    Label = _pokerkit().label  # noqa: N806 - pokerkit's enum, by its own name
    one, many = _NAMES[ordered[0].rank]
    if label is Label.HIGH_CARD:
        return f"{one} high"
    if label is Label.ONE_PAIR:
        return f"pair of {many}"
    if label is Label.TWO_PAIR:
        return f"two pair, {many} and {_NAMES[ordered[2].rank][1]}"
    if label is Label.THREE_OF_A_KIND:
        return f"three of a kind, {many}"
    if label is Label.STRAIGHT:
        return f"straight, {one} high"
    if label is Label.FLUSH:
        return f"flush, {one} high"
    if label is Label.FULL_HOUSE:
        return f"full house, {many} over {_NAMES[ordered[3].rank][1]}"
    if label is Label.FOUR_OF_A_KIND:
        return f"four of a kind, {many}"
    if ordered[0].rank == 14:
        return "royal flush"
    return f"straight flush, {one} high"
