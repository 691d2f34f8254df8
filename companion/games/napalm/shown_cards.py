"""The cards each player already showed, for the card fields of the showdown now asked.

A player's cards only grow through a hand: the two of stage 1 are among the five of
stage 2, which are among the seven of stage 3.  So the card fields of a showdown
start with what each player showed at an earlier showdown of the same hand, and the
scorekeeper adds only the new cards (issue 14, item 5).  A showdown by cards that
was undone gives its cards back to the same showdown, so a correction (say, two
players' cards swapped) is a few taps rather than 14 cards typed again (issue 20,
item 9).  Pure: the table's log in, text out.
"""

from __future__ import annotations

from .cards import format_cards, parse_cards
from .table import Phase, Showdown, Table


def shown_this_hand(table: Table) -> dict[str, str]:
    """For each player, the most cards they showed at a showdown of the current hand (``"As Kd"``)."""
    position = table.position
    shown: dict[str, str] = {}
    for record in table.live_records():
        if (record.game, record.hand) != (position.game, position.hand):
            continue
        action = record.action
        if not isinstance(action, Showdown) or not action.cards:
            continue
        for name, text in action.cards:
            try:
                cards = parse_cards(text)
            except ValueError:  # pragma: no cover - a recorded showdown's cards were checked
                continue
            if len(cards) > len(parse_cards(shown.get(name, ""))):
                shown[name] = format_cards(cards)
    return shown


def undone_cards(table: Table) -> dict[str, str]:
    """The cards of the latest undone showdown by cards of the showdown now asked ({} if none).

    "The showdown now asked" is the same game, hand and stage between the same Yes
    players (also when the Yes was undone too and recorded again the same): the same
    cards are still face up on the table.  A different Yes gets nothing back.
    """
    position = table.position
    if position.phase is not Phase.SHOWDOWN:
        return {}
    undone = table.voided
    for record in reversed(table.log):
        action = record.action
        if (
            record.seq in undone
            and isinstance(action, Showdown)
            and action.cards
            and (record.game, record.hand, record.stage) == (position.game, position.hand, position.stage)
            and sorted(name for name, _ in action.cards) == sorted(position.yes)
        ):
            return dict(action.cards)
    return {}
