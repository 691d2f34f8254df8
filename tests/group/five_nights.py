"""A season of five nights, worked out by hand, that the group's tests share.

Members: Ann, Bob, Cat, Dan; "Daniel" (who sat at night 3) is merged into Dan, and night 2 seats
"ann" in lower case.  Five nights of different games and chip values, two currencies, one
chips-only; night 1 settled, night 2 partly paid, nights 3 to 5 unpaid.

==========  ==========  ==============  =====  =====  ========================================
night       date        games           unit   chip   net chips (money)
==========  ==========  ==============  =====  =====  ========================================
n1          2025-03-07  Napalm          EUR    0.25   Ann +20 (+5.00), Bob -12 (-3.00), Cat -8 (-2.00)
n2          2025-03-21  Nap, the bank   EUR    0.10   ann -30 (-3.00), Bob +10 (+1.00), Dan +20 (+2.00)
n3          2025-04-04  Pots            GBP    0.50   Ann -10 (-5.00), Bob +6 (+3.00), Cat -4 (-2.00),
                                                      Daniel +8 (+4.00)
n4          2025-04-18  Betting         chips  -      Bob -7, Cat +10, Dan -3
n5          2025-04-25  Napalm, Bonus   EUR    0.05   Ann +40 (+2.00), Bob -60 (-3.00), Cat +30 (+1.50),
                                                      Dan -10 (-0.50)
==========  ==========  ==============  =====  =====  ========================================

Each net is chips x chip value: 20 x 0.25 = 5.00, 30 x 0.10 = 3.00, 10 x 0.50 = 5.00,
40 x 0.05 = 2.00, 60 x 0.05 = 3.00, 30 x 0.05 = 1.50, 10 x 0.05 = 0.50.  Every night's nets add
up to zero (n1: 20 - 12 - 8; n2: -30 + 10 + 20; n3: -10 + 6 - 4 + 8; n4: -7 + 10 - 3;
n5: 40 - 60 + 30 - 10).
"""

from __future__ import annotations

import datetime
from decimal import Decimal as D

from companion.group.members import Added, Merged, members_from
from companion.group.nights import Flow, NightResult, Transfer

MEMBERS = members_from([Added("Ann"), Added("Bob"), Added("Cat"), Added("Dan"), Added("Daniel"), Merged("Dan", "daniel ")])

N1 = NightResult(
    night_id="n1",
    date=datetime.date(2025, 3, 7),
    title="Friday Napalm",
    currency="EUR",
    chip_value=D("0.25"),
    net={"Ann": 20, "Bob": -12, "Cat": -8},
    parts={"Ann": {"Napalm": 20}, "Bob": {"Napalm": -12}, "Cat": {"Napalm": -8}},
    flows=(Flow("Bob", "Ann", 12, ("side bets: Bob lost 12 to Ann",)), Flow("Cat", "Ann", 8, ("the pot of game 2",))),
    # the plan: Bob pays Ann 12 x 0.25 = 3.00, Cat pays Ann 8 x 0.25 = 2.00; both marked paid
    planned=(Transfer("Bob", "Ann", D("3.00")), Transfer("Cat", "Ann", D("2.00"))),
    paid=(Transfer("Bob", "Ann", D("3.00")), Transfer("Cat", "Ann", D("2.00"))),
)

N2 = NightResult(
    night_id="n2",
    date=datetime.date(2025, 3, 21),
    title="Nap and the bank",
    currency="EUR",
    chip_value=D("0.10"),
    net={"ann": -30, "Bob": 10, "Dan": 20},
    # Nap: -20 + 15 + 5 = 0; the bank: -10 - 5 + 15 = 0; each player's parts add up to their net
    parts={"ann": {"Nap": -20, "The bank": -10}, "Bob": {"Nap": 15, "The bank": -5}, "Dan": {"Nap": 5, "The bank": 15}},
    # pair by pair: ann -15 - 15 = -30, Bob +15 - 5 = +10, Dan +15 + 5 = +20
    flows=(
        Flow("ann", "Bob", 15, ("bids: ann's Nap lost to Bob",)),
        Flow("ann", "Dan", 15, ("bids: ann's Misère lost to Dan",)),
        Flow("Bob", "Dan", 5, ("the bank: Bob's buy-in",)),
    ),
    # the plan: ann pays Bob 1.00 and Dan 2.00; only Bob's is marked paid
    planned=(Transfer("ann", "Bob", D("1.00")), Transfer("ann", "Dan", D("2.00"))),
    paid=(Transfer("ann", "Bob", D("1.00")),),
)

N3 = NightResult(
    night_id="n3",
    date=datetime.date(2025, 4, 4),
    title="Pots in London",
    currency="GBP",
    chip_value=D("0.50"),
    net={"Ann": -10, "Bob": 6, "Cat": -4, "Daniel": 8},
    parts={"Ann": {"Pots": -10}, "Bob": {"Pots": 6}, "Cat": {"Pots": -4}, "Daniel": {"Pots": 8}},
    # pair by pair: Ann -6 - 4 = -10, Bob +6, Cat -4, Daniel +4 + 4 = +8
    flows=(
        Flow("Ann", "Bob", 6, ("pot of hand 3",)),
        Flow("Ann", "Daniel", 4, ("pot of hand 5",)),
        Flow("Cat", "Daniel", 4, ("pot of hand 7",)),
    ),
    # the plan (5.00 + 2.00 owed, 3.00 + 4.00 owed): Ann pays Daniel 4.00 and Bob 1.00, Cat pays Bob 2.00
    planned=(Transfer("Ann", "Daniel", D("4.00")), Transfer("Ann", "Bob", D("1.00")), Transfer("Cat", "Bob", D("2.00"))),
)

N4 = NightResult(
    night_id="n4",
    date=datetime.date(2025, 4, 18),
    title="Betting for chips",
    currency=None,
    chip_value=None,
    net={"Bob": -7, "Cat": 10, "Dan": -3},
    parts={"Bob": {"Betting": -7}, "Cat": {"Betting": 10}, "Dan": {"Betting": -3}},
    flows=(Flow("Bob", "Cat", 7, ("side bets: Bob lost 7 to Cat",)), Flow("Dan", "Cat", 3, ("side bets: Dan lost 3 to Cat",))),
    planned=(Transfer("Bob", "Cat", D(7)), Transfer("Dan", "Cat", D(3))),
)

N5 = NightResult(
    night_id="n5",
    date=datetime.date(2025, 4, 25),
    title="Napalm and the Bonus Round",
    currency="EUR",
    chip_value=D("0.05"),
    net={"Ann": 40, "Bob": -60, "Cat": 30, "Dan": -10},
    # Napalm: 30 - 50 + 30 - 10 = 0; the Bonus Round: 10 - 10 = 0
    parts={
        "Ann": {"Napalm": 30, "The Bonus Round": 10},
        "Bob": {"Napalm": -50, "The Bonus Round": -10},
        "Cat": {"Napalm": 30},
        "Dan": {"Napalm": -10},
    },
    # pair by pair: Bob -40 - 20 = -60, Ann +40, Cat +20 + 10 = +30, Dan -10
    flows=(
        Flow("Bob", "Ann", 40, ("tokens: Bob paid Ann's Napalm",)),
        Flow("Bob", "Cat", 20, ("the pot of game 1",)),
        Flow("Dan", "Cat", 10, ("the pot of game 2",)),
    ),
    # the plan: Bob pays Ann 2.00 and Cat 1.00, Dan pays Cat 0.50
    planned=(Transfer("Bob", "Ann", D("2.00")), Transfer("Bob", "Cat", D("1.00")), Transfer("Dan", "Cat", D("0.50"))),
)

# given out of date order: the season and the tab take nights in date order
NIGHTS = (N3, N1, N5, N2, N4)
