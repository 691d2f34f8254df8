"""Playing cards as the scorekeeper types them, and back.

Cards reach the companion as text typed at the table ("AsKs 2d", "10d10s",
"as, ks"), so parsing is forgiving about case, spacing and the two ways of
writing a ten, and strict about everything else: a card that is not a card, or
a card shown twice, is refused with a sentence that names it, because the
person reading the message is holding the cards, not the code.

Pure Python: no Flask, SQLAlchemy or WTForms here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["RANKS", "SUITS", "Card", "CardError", "format_cards", "parse_card", "parse_cards"]

#: The suits, as written: clubs, diamonds, hearts, spades.
SUITS = "cdhs"

#: Rank number -> the character a card is written with (ten is ``T``).
RANKS: dict[int, str] = {
    **{n: str(n) for n in range(2, 10)},
    10: "T",
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
}
_RANK_OF_CHAR = {char: rank for rank, char in RANKS.items()}
_RANK_OF_CHAR["10"] = 10

_HELP = "use rank 2-9, T or 10, J, Q, K, A and suit c, d, h, s"

# One card at the start of a piece of text: "10" is tried before single characters
# so that "10d" is the ten of diamonds rather than a bad card "1".
_ONE_CARD = re.compile(r"(10|[2-9TJQKA])([CDHS♠♥♦♣♤♡♢♧])", re.IGNORECASE)
#: what the card picker displays ("A♠") is read as typed (issue 14, item 5)
_SUIT_OF_SYMBOL = {
    "♠": "s", "♤": "s", "♥": "h", "♡": "h",
    "♦": "d", "♢": "d", "♣": "c", "♧": "c",
}
#: an emoji suit may carry a variation selector ("♠️"): it changes nothing
_VARIATION = "️"


def _suit(char: str) -> str:
    return _SUIT_OF_SYMBOL.get(char, char.lower())
_SEPARATORS = re.compile(r"[\s,]+")


class CardError(ValueError):
    """Cards that cannot be read or cannot all be in one deck.

    The message is meant for the scorekeeper and names the offending card.
    """


@dataclass(frozen=True, order=True)
class Card:
    """One card of a 52-card deck.

    ``rank`` runs from 2 to 14 (ace high, the only way any stage of Napalm
    counts an ace except the straight A-2-3-4-5 of stage 3, which the rankings
    handle).  Cards order by rank, then suit; the suit order is only there to
    make sorting deterministic and never decides a hand.
    """

    rank: int
    suit: str

    def __post_init__(self) -> None:
        # Refusing impossible cards here means no other code has to wonder.
        if not isinstance(self.rank, int) or self.rank not in RANKS:
            raise CardError(f"{self.rank!r} is not a card rank (use 2 to 14, ace is 14)")
        if self.suit not in tuple(SUITS):
            raise CardError(f"{self.suit!r} is not a suit (use c, d, h or s)")

    def __str__(self) -> str:
        return RANKS[self.rank] + self.suit


def _not_a_card(text: str) -> CardError:
    return CardError(f"'{text}' is not a card ({_HELP})")


def parse_card(text: str) -> Card:
    """Read one card such as ``As``, ``Td``, ``10d`` or ``7h``, in either case.

    Surrounding whitespace is ignored; anything else that is not exactly one
    card raises :class:`CardError` naming what was typed.
    """
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(f"{text!r} is not a card ({_HELP})")
    stripped = text.strip().replace(_VARIATION, "")
    match = _ONE_CARD.fullmatch(stripped)
    if match is None:
        raise _not_a_card(stripped)
    rank, suit = match.groups()
    return Card(_RANK_OF_CHAR[rank.upper()], _suit(suit))


def _split_run(chunk: str) -> Iterable[Card]:
    """Read cards written back to back ("AsKs2d", "10d10s") from one chunk."""
    position = 0
    while position < len(chunk):
        match = _ONE_CARD.match(chunk, position)
        if match is None:
            # Name the piece a person would see as the bad card: two characters,
            # or three when it starts like a ten ("10x").
            width = 3 if chunk.startswith("10", position) else 2
            raise _not_a_card(chunk[position : position + width])
        rank, suit = match.groups()
        yield Card(_RANK_OF_CHAR[rank.upper()], _suit(suit))
        position = match.end()


def parse_cards(text: str | Sequence[str | Card]) -> tuple[Card, ...]:
    """Read several cards, keeping the order they were given in.

    ``text`` is either one string, with cards run together ("AsKs2d3c") or
    separated by spaces and/or commas ("as ks", "As, Ks"), or a sequence of
    single cards (strings or :class:`Card`).  Empty input gives ``()``.  A card
    given twice raises :class:`CardError` naming it, since one deck holds each
    card once.
    """
    if isinstance(text, str):
        chunks = [chunk for chunk in _SEPARATORS.split(text.strip().replace(_VARIATION, "")) if chunk]
        cards = [card for chunk in chunks for card in _split_run(chunk)]
    else:
        cards = [parse_card(item) for item in text]
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(f"{card} is shown twice")
        seen.add(card)
    return tuple(cards)


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards the way :func:`parse_cards` reads them: ``"As Ks 2d"``."""
    return " ".join(str(card) for card in cards)
