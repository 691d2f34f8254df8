"""Issue 14, items 15 and 16: the end-of-night choices the table would dispute, settled as the issue says.

Every number is worked out by hand from RULES.md in the docstrings; lists and dicts
are by seat.  Ann, Ben, Cat sit in that order (clockwise); the button moves one seat
left (Ann → Ben → Cat) after each hand, and the dealer speaks last.
"""

from __future__ import annotations

from companion.games.napalm import Rules, Table
from companion.games.napalm.closing import close_night, order_from_last_dealer

THREE = ("Ann", "Ben", "Cat")


def test_split_leaders_counts_odd_chips_from_the_dealer_of_a_finished_last_hand():
    """Ann deals hand 1, ante 1 every hand, 3 tokens win.

    S1: Ben alone: ante, pot 3, everyone -1; a token to Ben.  S2: Cat alone: a token
    to Cat.  S3: nobody.  Hand 1 is over and the button moves to Ben, but hand 2 is
    never started: the last hand played was Ann's.  Split 3 between Ben and Cat (1
    token each): 1 each, and the odd chip goes to the first leader from Ann's left:
    Ben, Cat, Ann, so Ben.  Ben 2, Cat 1.  Nets: Ann -1, Ben -1 + 2 = 1, Cat -1 + 1 = 0.
    (From Ben's left, the button's seat now, Cat would have had it.)
    """
    t = Table(THREE, "Ann", Rules(ante=1, ante_every=1, tokens_to_win=3))
    t.declare(["Ben"])
    t.declare(["Cat"])
    t.declare([])
    assert t.dealer == "Ben" and t.pot == 3
    assert order_from_last_dealer(t) == ("Ben", "Cat", "Ann")
    c = close_night(t, "split_leaders")
    assert c.shares == {"Ann": 0, "Ben": 2, "Cat": 1}
    assert c.net == {"Ann": -1, "Ben": 1, "Cat": 0}


def test_split_leaders_counts_from_the_dealer_of_a_hand_in_progress():
    """As above, then hand 2 (Ben deals) S1: nobody: the ante, pot 6, everyone -2.

    Hand 2 has started, so Ben dealt the last hand played: from Ben's left Cat, Ann,
    Ben.  6 between Ben and Cat is 3 each, no odd chip: Ann -2, Ben 1, Cat 1.
    """
    t = Table(THREE, "Ann", Rules(ante=1, ante_every=1, tokens_to_win=3))
    t.declare(["Ben"])
    t.declare(["Cat"])
    t.declare([])
    t.declare([])
    assert order_from_last_dealer(t) == ("Cat", "Ann", "Ben")
    c = close_night(t, "split_leaders")
    assert c.shares == {"Ann": 0, "Ben": 3, "Cat": 3}
    assert c.net == {"Ann": -2, "Ben": 1, "Cat": 1}


def test_split_leaders_with_nobody_holding_a_token_returns_each_players_antes():
    """Ann deals, ante 1 every hand.

    Hand 1, S1: Ben and Cat say Yes: ante, pot 3, everyone -1; Ben wins, Cat pays him
    the pot, 3: Ann -1, Ben 2, Cat -4.  S2, S3: nobody.  Hand 2 (Ben deals), S1:
    nobody: ante, pot 6: Ann -2, Ben 1, Cat -5.  Nobody holds a token, so the antes in
    the pot come back, 2 each: Ann 0, Ben 3, Cat -3 (sum 0).
    """
    t = Table(THREE, "Ann", Rules(ante=1, ante_every=1, tokens_to_win=3))
    t.declare(["Ben", "Cat"])
    t.showdown(winners=["Ben"])
    t.declare([])
    t.declare([])
    t.declare([])
    assert t.pot == 6 and t.tokens == {"Ann": 0, "Ben": 0, "Cat": 0}
    c = close_night(t, "split_leaders")
    assert c.shares == {"Ann": 2, "Ben": 2, "Cat": 2}
    assert c.net == {"Ann": 0, "Ben": 3, "Cat": -3}
    assert "nobody holds a token" in c.note


def test_carry_hands_back_the_share_of_a_contributor_the_next_night_left_out():
    """Ann deals, ante 1 every hand.  Hand 1, S1: nobody: the ante, pot 3, everyone -1.

    "carry": the pot stays in the middle for the next night, and tonight's balances
    count each stake as returned: 0 each.  The next night seats Ann and Ben only: Cat's
    1 chip comes back to her tonight, 2 are carried (Ann 1, Ben 1).  Balances: 0 each.
    """
    t = Table(THREE, "Ann", Rules(ante=1, ante_every=1, tokens_to_win=3))
    t.declare([])
    before = close_night(t, "carry")
    assert before.carried == 3 and before.carried_shares == {"Ann": 1, "Ben": 1, "Cat": 1}
    after = close_night(t, "carry", carried_on={"Ann": 1, "Ben": 1})
    assert after.carried == 2
    assert after.shares == {"Ann": 0, "Ben": 0, "Cat": 1}
    assert after.carried_shares == {"Ann": 1, "Ben": 1}
    assert after.net == {"Ann": 0, "Ben": 0, "Cat": 0}
    assert "Cat gets 1 chip back tonight" in after.note
