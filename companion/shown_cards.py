"""The cards each player already showed earlier in the hand being played (issue 14, item 5).

A player's cards only grow through a hand: the two of stage 1 are among the five of
stage 2, which are among the seven of stage 3.  So the card fields of a showdown
start with what each player showed at an earlier showdown of the same hand, and the
scorekeeper adds only the new cards.  Pure: the table's log in, text out.
"""

from __future__ import annotations

from .games.napalm import Showdown, Table
from .games.napalm.cards import format_cards, parse_cards


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
