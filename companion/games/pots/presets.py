"""The fixed-stake pot games of the seed (`004_…`), each a set of rules, not code.

A preset is a plain mapping of :class:`~.engine.Rules` fields; choosing one fills
in the rules, and anything the group changes (the ante, Tips to the Fat One's A
and B, NASDAQ's sale limit) is given beside it.  The engine never looks at a
preset's name: it only reads the rules the preset filled in.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

PRESETS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        # RULES-POKER.md: two players, pots A–E, C = A + B − 1, D = B + C − 1, E = C + D − 1;
        # each pot won, or split on a tie.  The seed's example: 2, 3, 4, 6, 9.
        "tips_to_the_fat_one": MappingProxyType(
            {"ante": 0, "stakes": (2, 3), "stake_rule": "fat_one", "min_players": 2, "max_players": 2}
        ),
        # antes; one winner, a split on a tie, or the pot carried to the next deal (3 to 8 players)
        "high_card": MappingProxyType({"ante": 1, "carry": True, "min_players": 3, "max_players": 8}),
        # antes; everyone beaten by the mountain carries the pot, with a new ante from all
        "mountain": MappingProxyType({"ante": 1, "carry": True}),
        # ante, the bid for the first sale, sales (optional limit), unsold cards, high-low split
        "nasdaq": MappingProxyType({"ante": 1, "sales": True, "high_low": True}),
        # Mystery Wheelbarrow for a fixed stake (at most four players)
        "mystery_wheelbarrow": MappingProxyType({"ante": 1, "min_players": 2, "max_players": 4}),
        # anything else played for a fixed stake: antes, fixed bets, one winner or a split
        "fixed": MappingProxyType({"ante": 1}),
    }
)

#: What players call each preset.
TITLES: Mapping[str, str] = MappingProxyType(
    {
        "tips_to_the_fat_one": "Tips to the Fat One",
        "high_card": "High Card",
        "mountain": "Mountain",
        "nasdaq": "NASDAQ",
        "mystery_wheelbarrow": "Mystery Wheelbarrow",
        "fixed": "Fixed-stake pot",
    }
)
