"""A group file of three short nights, worked out by hand, that the group file's tests share.

The nights are the night files of ``tests/night/test_file.py``, whose figures are worked out there:

==  ==========  ==================================  =====  ====  ==================================
#   date        night (its file's figures)          unit   chip  net chips (money)
==  ==========  ==================================  =====  ====  ==================================
1   2025-03-07  TWO_GAMES: two games of Napalm      EUR    0.25  Ann +4 (+1.00), Ben -6 (-1.50),
                                                                 Cat +2 (+0.50), Dan 0 (0.00)
2   2025-03-14  THREE_KINDS, Dan seated as Daniel   EUR    0.25  Ann -3 (-0.75), Ben -4 (-1.00),
                                                                 Cat +9 (+2.25), Daniel -2 (-0.50)
3   2025-03-21  POKER_ON_COUNTS (the bank)          chips  -     Ann -10, Ben +10, Cat 0
==  ==========  ==================================  =====  ====  ==================================

Members: Ann, Ben, Cat, Dan, Daniel are added; Daniel is merged into Dan; Ben is renamed Benjamin
(his nights, played as "Ben", count for Benjamin).

The plans (each night's fewest payments, tests/night/test_file.py):
night 1: Ben pays Ann 4 chips (1.00) and Cat 2 (0.50): both marked paid at the night, settled;
night 2: Ann pays Cat 3 (0.75), Ben pays Cat 4 (1.00), Daniel pays Cat 2 (0.50): only Ben's is
marked paid (partly paid); then Dan pays Cat 0.50 through the group's tab, so the tab appended
two records against night 2: Dan +0.50 (he paid his debt) and Cat -0.50 (she received it);
night 3: Ann pays Ben 10 chips: unpaid.
"""

from __future__ import annotations

import json
from typing import Any

from night.test_file import POKER_ON_COUNTS, THREE_KINDS, TWO_GAMES


def copy(document: Any) -> Any:
    return json.loads(json.dumps(document))


#: night 2: THREE_KINDS with Dan seated as "Daniel" (every mention of him renamed)
DANIEL_NIGHT = json.loads(json.dumps(THREE_KINDS).replace('"Dan"', '"Daniel"'))

GROUP: dict[str, Any] = {
    "format": "companion-group/1",
    "name": "Friday poker",
    "members": [
        {"added": "Ann"},
        {"added": "Ben"},
        {"added": "Cat"},
        {"added": "Dan"},
        {"added": "Daniel"},
        {"merged": "Daniel", "into": "Dan"},
        {"renamed": "Ben", "to": "Benjamin"},
    ],
    "handles": {
        "Cat": {"paypal_me": "CatLee", "iban": {"iban": "DE89370400440532013000", "holder": "Cat Lee"}},
        "Benjamin": {"venmo": "ben-jamin"},
    },
    "nights": [
        {
            "date": "2025-03-07",
            "night": copy(TWO_GAMES),
            "paid": [{"from": "Ben", "to": "Ann", "chips": 4}, {"from": "Ben", "to": "Cat", "chips": 2}],
        },
        {
            "date": "2025-03-14",
            "night": DANIEL_NIGHT,
            "paid": [{"from": "Ben", "to": "Cat", "chips": 4}],
            "cleared": [
                {"member": "Dan", "amount": "0.50", "from": "Dan", "to": "Cat"},
                {"member": "Cat", "amount": "-0.50", "from": "Dan", "to": "Cat"},
            ],
        },
        {"date": "2025-03-21", "night": copy(POKER_ON_COUNTS)},
    ],
}


def group_document() -> dict[str, Any]:
    """A fresh copy of :data:`GROUP`, to change in a test."""
    return copy(GROUP)
