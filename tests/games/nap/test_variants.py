"""The variants against RULES-NAP.md: Widow, Pool, Peep and Purchase Nap, and the stake.

Every expected number is worked out by hand from RULES-NAP.md (the arithmetic is
in the comments), never copied from the engine's output.  Net chips are in seat
order (Ann, Ben, Cat, Dan, ...); the first dealer is the last seat, so Ann is
first to bid and the deal passes Dan → Ann → Ben → Cat → Dan.
"""

from __future__ import annotations

import pytest

from companion.games.nap.game import NAP
from companion.games.nap.table import POOL, Deal, DealError, IllegalAction, Rules, Table, Transfer, make_deal


def table(players: str = "Ann Ben Cat Dan", dealer: str | None = None, **rules: object) -> Table:
    names = players.split()
    return Table(names, dealer or names[-1], Rules(**rules))  # type: ignore[arg-type]


def net(t: Table) -> tuple[int, ...]:
    return tuple(t.net_chips.values())


def conserved(t: Table) -> bool:
    return sum(t.net_chips.values()) + t.pool == 0 and sum(t.in_pool.values()) == t.pool


def assert_refused(t: Table, deal: Deal, field: str, match: str) -> None:
    before = (t.position, t.log)
    with pytest.raises(DealError, match=match) as caught:
        t.push(deal)
    assert caught.value.field == field
    assert (t.position, t.log) == before


# --- Widow Nap -------------------------------------------------------------------------------


def test_a_widow_nap_made_collects_ten_from_each_player() -> None:
    t = table(variant="widow")
    record = t.deal("Dan", "nap", True, widow=True)
    assert net(t) == (-10, -10, -10, 30)
    assert record.summary == "Dan made Nap with the widow: +30; Ann, Ben, Cat \u221210 each"


def test_a_widow_nap_failed_costs_ten_to_each_player_not_five() -> None:
    t = table(variant="widow")
    t.deal("Dan", "nap", False, widow=True)
    assert net(t) == (10, 10, 10, -30)


def test_in_widow_nap_a_nap_without_the_widow_pays_the_usual_ten_and_five() -> None:
    t = table(variant="widow")
    t.deal("Dan", "nap", False, widow=False)
    assert net(t) == (5, 5, 5, -15)


def test_taking_the_widow_commits_to_nap_and_keeps_no_pool() -> None:
    t = table(variant="widow", wellington=True)
    assert_refused(t, make_deal("Dan", 4, True, widow=True), "widow", "commits to Nap, not 4")
    assert_refused(t, make_deal("Dan", "wellington", True, widow=True), "widow", "commits to Nap")
    t.deal("Dan", "nap", True, widow=True)
    assert t.pool == 0 and t.next_pool_ante() == {}


# --- Pool Nap: the pool won, doubled, started again and returned ------------------------------


def test_the_pool_is_won_doubled_started_again_and_returned_at_the_end() -> None:
    t = table(variant="pool")
    assert t.next_pool_ante() == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}
    # Deal 1, Dan deals: a new pool, 2 from each = 8, no dealer's extra.  Cat makes 2: +6, others -2.
    # Ann -2-2 = -4, Ben -4, Cat -2+6 = +4, Dan -4; pool 8.
    t.deal("Cat", 2, True)
    assert net(t) == (-4, -4, 4, -4) and t.pool == 8
    assert t.in_pool == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}
    # Deal 2, Ann deals and adds 2: pool 10.  Ben fails Nap: 5 to each of Ann, Cat, Dan (-15),
    # and pays into the pool as many chips as it holds (10): pool 20.
    # Ann -4-2+5 = -1, Ben -4-15-10 = -29, Cat 4+5 = 9, Dan -4+5 = 1.
    assert t.next_pool_ante() == {"Ann": 2}
    record = t.deal("Ben", "nap", False)
    assert net(t) == (-1, -29, 9, 1) and t.pool == 20
    assert t.in_pool == {"Ann": 4, "Ben": 12, "Cat": 2, "Dan": 2}
    assert Transfer("Ben", POOL, 10, "pool doubled") in record.transfers
    assert record.summary == (
        "Ben failed Nap: \u221215; Ann, Cat, Dan +5 each. Into the pool: Ann 2 (dealer), Ben 10 (doubling it); pool 20"
    )
    # Deal 3, Ben deals and adds 2: pool 22.  Dan makes Nap: 10 from each (+30) and the pool of 22.
    # Ann -1-10 = -11, Ben -29-2-10 = -41, Cat 9-10 = -1, Dan 1+30+22 = 53.
    record = t.deal("Dan", "nap", True)
    assert net(t) == (-11, -41, -1, 53) and t.pool == 0
    assert record.pool_won == 22
    assert record.summary.endswith("Dan takes the pool of 22")
    assert t.in_pool == {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}
    # Deal 4, Cat deals: the pool was won, so a new one, 2 from each = 8 (no dealer's extra).
    # Ann makes 1: Ann -11-2+3 = -10, Ben -41-2-1 = -44, Cat -1-2-1 = -4, Dan 53-2-1 = 50.
    assert t.next_pool_ante() == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}
    t.deal("Ann", 1, True)
    assert net(t) == (-10, -44, -4, 50) and t.pool == 8
    # Deal 5, Dan deals and adds 2: pool 10.  Ben fails 3 (no five-trick bid: the pool does not double).
    # Ann -10+3 = -7, Ben -44-9 = -53, Cat -4+3 = -1, Dan 50-2+3 = 51.
    t.deal("Ben", 3, False)
    assert net(t) == (-7, -53, -1, 51) and t.pool == 10
    assert t.in_pool == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 4}
    assert NAP.replay_extras(t) == {"pool": 10, "dealer": "Ann"}
    # The night ends with the pool unwon: each gets back exactly what they put in since it was won.
    # Ann -7+2 = -5, Ben -53+2 = -51, Cat -1+2 = 1, Dan 51+4 = 55 (sum 0).
    closing = NAP.close(t, t.rules)
    assert closing.net == {"Ann": -5, "Ben": -51, "Cat": 1, "Dan": 55}
    assert closing.carried == {}
    assert closing.note == "Unwon pool of 10 chips returned to those who paid it in (Ann 2, Ben 2, Cat 2, Dan 4)."


def test_closing_a_game_whose_pool_was_just_won_returns_nothing() -> None:
    t = table(variant="pool")
    t.deal("Cat", "nap", True)  # pool 8 won: Cat 30 + 8 - 2 = 36, others -2-10 = -12
    closing = NAP.close(t, t.rules)
    assert closing.net == {"Ann": -12, "Ben": -12, "Cat": 36, "Dan": -12}
    assert closing.note == ""


def test_a_failed_wellington_and_blucher_double_the_pool_too() -> None:
    # Pool 8; Cat fails Wellington: 10 to each (-30) and 8 into the pool (16).
    # Ann deals next and adds 2 (18); Cat fails Blücher: 20 to each (-60) and 18 into the pool (36).
    t = table(variant="pool", wellington=True, blucher=True)
    t.deal("Cat", "wellington", False)
    assert t.pool == 16
    t.deal("Cat", "blucher", False)
    assert t.pool == 36
    # Ann -2+10-2+20 = 26, Ben -2+10+20 = 28, Cat -2-30-8-60-18 = -118, Dan 28.
    assert net(t) == (26, 28, -118, 28)
    assert conserved(t)


def test_a_misere_or_four_made_does_not_take_the_pool() -> None:
    t = table(variant="pool")
    t.deal("Ann", "misere", True)
    t.deal("Ann", 4, True)
    # pool 8, then Ann deals and adds 2: 10; Ann -2+9-2+12 = 17, the others -2-3-4 = -9.
    assert t.pool == 10
    assert net(t) == (17, -9, -9, -9)


# --- penalties in a pool game ---------------------------------------------------------------


def test_in_a_pool_game_a_lead_out_of_turn_also_puts_three_into_the_pool() -> None:
    # Pool 8; Ben makes 4; Ann led out of turn: 3 into the pool (11) and 3 to Ben.
    # Ann -2-3-3-4 = -12, Ben -2+3+12 = 13, Cat -2-4 = -6, Dan -6.
    t = table(variant="pool")
    record = t.deal("Ben", 4, True, penalties=[("lead_out_of_turn", "Ann")])
    assert net(t) == (-12, 13, -6, -6) and t.pool == 11
    assert t.in_pool["Ann"] == 5
    assert record.summary == (
        "Ben made 4 (Ann led out of turn): +15; Ann \u22127; Cat, Dan \u22124 each. "
        "Into the pool: 2 each (a new pool), Ann 3 (lead out of turn); pool 11"
    )


def test_in_a_pool_game_an_opponents_revoke_also_puts_five_into_the_pool() -> None:
    # Pool 8; Ben bids 3, Cat revokes: 5 into the pool (13); 3 to each of Ben, Ann, Dan.
    # Ann -2+3 = 1, Ben 1, Cat -2-5-9 = -16, Dan 1.
    t = table(variant="pool")
    t.deal("Ben", 3, penalties=[("revoke", "Cat")])
    assert net(t) == (1, 1, -16, 1) and t.pool == 13


def test_an_opponents_revoke_against_nap_does_not_win_the_pool() -> None:
    # (choice) the deal is abandoned, so nobody made Nap: Cat 5 into the pool (13) and 10 to each.
    t = table(variant="pool")
    t.deal("Ben", "nap", penalties=[("revoke", "Cat")])
    assert t.pool == 13
    assert net(t) == (8, 8, -37, 8)


def test_a_bidder_who_revokes_on_nap_pays_the_revoke_five_then_doubles_the_pool() -> None:
    # Pool 8; Ben bids Nap and revokes: 5 into the pool (13), 5 to each other player (-15),
    # then as a failed Nap as many chips as the pool holds (13): pool 26.
    # Ann -2+5 = 3, Ben -2-5-15-13 = -35, Cat 3, Dan 3.
    t = table(variant="pool")
    t.deal("Ben", "nap", penalties=[("revoke", "Ben")])
    assert net(t) == (3, -35, 3, 3) and t.pool == 26
    assert t.in_pool == {"Ann": 2, "Ben": 20, "Cat": 2, "Dan": 2}


def test_penalty_chips_go_in_before_the_score_so_the_nap_winner_takes_them() -> None:
    # Pool 8; Ann leads out of turn: 3 into the pool (11), 3 to Cat; Cat makes Nap and takes 11.
    # Ann -2-3-3-10 = -18, Ben -2-10 = -12, Cat -2+3+30+11 = 42, Dan -12.
    t = table(variant="pool")
    record = t.deal("Cat", "nap", True, penalties=[("lead_out_of_turn", "Ann")])
    assert net(t) == (-18, -12, 42, -12) and t.pool == 0
    assert record.pool_won == 11


def test_a_failed_nap_doubles_the_pool_with_the_penalty_chips_in_it() -> None:
    # Pool 8 + Ann's 3 = 11; Cat fails Nap: 5 to Ben and Dan only (Ann led out of turn), 11 into the pool.
    # Ann -2-3-3 = -8, Ben -2+5 = 3, Cat -2+3-10-11 = -20, Dan 3; pool 22.
    t = table(variant="pool")
    t.deal("Cat", "nap", False, penalties=[("lead_out_of_turn", "Ann")])
    assert net(t) == (-8, 3, -20, 3) and t.pool == 22


def test_a_wrong_hand_elsewhere_spares_a_failed_nap_the_doubling_too() -> None:
    # (choice) "pays nothing if failed": not to the players, not into the pool.
    t = table(variant="pool")
    t.deal("Cat", "nap", False, wrong_cards="other")
    assert net(t) == (-2, -2, -2, -2) and t.pool == 8


def test_a_bidder_with_too_many_cards_does_not_win_the_pool_with_a_made_nap() -> None:
    # (choice) "paid nothing if made": no payments, the pool stays (8) and Ann adds 2 next deal.
    t = table(variant="pool")
    t.deal("Cat", "nap", True, wrong_cards="bidder_over")
    assert net(t) == (-2, -2, -2, -2) and t.pool == 8
    assert t.next_pool_ante() == {"Ann": 2}


# --- five and six players in a pool game -------------------------------------------------------------


def test_a_deal_thrown_in_in_a_pool_game_still_takes_the_ante() -> None:
    # Five players, Eve deals: a new pool, 2 from each (10), nobody bids.  Ann deals next and adds 2 (12).
    t = table("Ann Ben Cat Dan Eve", variant="pool")
    record = t.push(Deal(bidder=None))
    assert t.pool == 10 and net(t) == (-2, -2, -2, -2, -2)
    assert record.summary == "Thrown in: nobody bid: nothing paid. Into the pool: 2 each (a new pool); pool 10"
    t.deal("Ben", 1, True)  # Ann sits out but adds her 2 and pays Ben 1 like everyone
    assert t.pool == 12
    assert net(t) == (-5, 2, -3, -3, -3)


def test_with_six_players_the_dealer_who_sits_out_adds_the_dealers_two_and_shares_the_nap() -> None:
    # Fay deals deal 1: pool 12 (2 from six).  Ann deals deal 2 and sits out: adds 2 (14).
    # Ben makes Nap: 10 from each of five (+50) and the pool of 14.
    t = table("Ann Ben Cat Dan Eve Fay", variant="pool")
    t.deal("Cat", 1, True)  # Cat +5, the others -1: Ann -3, Ben -3, Cat 3, Dan -3, Eve -3, Fay -3
    t.deal("Ben", "nap", True)
    # Ann -3-2-10 = -15, Ben -3+50+14 = 61, Cat 3-10 = -7, Dan, Eve, Fay -3-10 = -13.
    assert net(t) == (-15, 61, -7, -13, -13, -13)
    assert t.pool == 0


# --- Peep Nap -----------------------------------------------------------------------------------


def test_each_peek_puts_one_chip_into_the_pool_the_bidders_too() -> None:
    # Peep Nap: pool 8; Ann, Ben and Cat peek (3): 11.  Cat makes 2: +6.
    # Ann -2-1-2 = -5, Ben -5, Cat -2-1+6 = 3, Dan -2-2 = -4.
    t = table(variant="peep")
    record = t.deal("Cat", 2, True, peeks=["Ann", "Ben", "Cat"])
    assert net(t) == (-5, -5, 3, -4) and t.pool == 11
    assert "Ann 1 (peek), Ben 1 (peek), Cat 1 (peek)" in record.summary


def test_peep_nap_is_pool_nap_a_made_nap_takes_the_peeks_too() -> None:
    # Pool 8 + Dan's peek = 9; Ann makes Nap: +30 and 9.  Ann -2+30+9 = 37, Ben, Cat -12, Dan -2-1-10 = -13.
    t = table(variant="peep")
    t.deal("Ann", "nap", True, peeks=["Dan"])
    assert net(t) == (37, -12, -12, -13)


def test_a_player_peeks_at_most_once_a_deal_and_the_dealer_out_not_at_all() -> None:
    t = table(variant="peep")
    assert_refused(t, make_deal("Cat", 2, True, peeks=["Ann", "ann"]), "peeks", "only once")
    t5 = table("Ann Ben Cat Dan Eve", variant="peep")
    assert_refused(t5, make_deal("Cat", 2, True, peeks=["Eve"]), "peeks", "Eve deals this time")


def test_peeks_on_a_deal_thrown_in_are_paid() -> None:
    # Five players, Peep Nap: pool 10 from the antes, Ann and Ben peeked (12), then nobody bid.
    t = table("Ann Ben Cat Dan Eve", variant="peep")
    t.push(make_deal(None, peeks=["Ann", "Ben"]))
    assert t.pool == 12 and net(t) == (-3, -3, -2, -2, -2)


# --- Purchase Nap -----------------------------------------------------------------------------------


def test_each_exchanged_card_puts_one_chip_into_the_pool() -> None:
    # Purchase Nap: pool 8; Ann exchanges 3, Ben 5, Dan 1: 8 + 9 = 17.  Dan makes Nap: +30 and 17.
    # Ann -2-3-10 = -15, Ben -2-5-10 = -17, Cat -2-10 = -12, Dan -2-1+30+17 = 44.
    t = table(variant="purchase")
    record = t.deal("Dan", "nap", True, exchanged={"Ann": 3, "Ben": 5, "Dan": 1})
    assert net(t) == (-15, -17, -12, 44) and t.pool == 0
    assert "Ann 3 (3 cards), Ben 5 (5 cards), Dan 1 (1 card)" in record.summary


def test_one_to_five_cards_are_exchanged_and_not_by_the_dealer_who_sits_out() -> None:
    t = table(variant="purchase")
    assert_refused(t, make_deal("Dan", 2, True, exchanged={"Ann": 0}), "exchanged", "1 to 5 cards")
    assert_refused(t, make_deal("Dan", 2, True, exchanged={"Ann": 6}), "exchanged", "1 to 5 cards")
    assert_refused(t, make_deal("Dan", 2, True, exchanged={"Ann": 1, "ann": 2}), "exchanged", "once a deal")
    t5 = table("Ann Ben Cat Dan Eve", variant="purchase")
    assert_refused(t5, make_deal("Ann", 2, True, exchanged={"Eve": 2}), "exchanged", "Eve deals this time")


# --- the stake ------------------------------------------------------------------------------------------


def test_a_stake_multiplies_every_payment_of_plain_nap() -> None:
    # stake 3: Cat makes 2, 6 from each: +18; Ann fails Nap, 15 to each: -45;
    # Ben's lead out of turn costs him 9.
    t = table(stake=3)
    t.deal("Cat", 2, True)
    assert net(t) == (-6, -6, 18, -6)
    t.deal("Ann", "nap", False, penalties=[("lead_out_of_turn", "Ben")])
    # Ann -6+9-30 = -27 (15 to Cat and Dan, not Ben), Ben -6-9 = -15, Cat 18+15 = 33, Dan -6+15 = 9.
    assert net(t) == (-27, -15, 33, 9)


def test_a_stake_multiplies_the_pools_antes_and_penalties_and_a_failed_nap_pays_the_pool_exactly() -> None:
    t = table(variant="pool", stake=2)
    # Deal 1, Dan deals: antes 4 each = 16.  Ben makes 2: 4 from each, +12.
    # Ann -8, Ben -4+12 = 8, Cat -8, Dan -8.
    t.deal("Ben", 2, True)
    assert net(t) == (-8, 8, -8, -8) and t.pool == 16
    # Deal 2, Ann deals and adds 4 (20).  Cat leads out of turn: 6 into the pool (26), 6 to Dan.
    # Dan fails Nap: 10 to Ann and Ben (not Cat), and exactly the 26 the pool holds (52), not 52.
    # Ann -8-4+10 = -2, Ben 8+10 = 18, Cat -8-6-6 = -20, Dan -8+6-20-26 = -48.
    t.deal("Dan", "nap", False, penalties=[("lead_out_of_turn", "Cat")])
    assert net(t) == (-2, 18, -20, -48) and t.pool == 52
    assert conserved(t)


def test_a_stake_multiplies_peeks_and_exchanged_cards() -> None:
    # stake 2: a peek is 2, each card 2.  Peep: pool 16 + 2 = 18.  Purchase: pool 16 + 3*2 = 22.
    t = table(variant="peep", stake=2)
    t.deal("Cat", 1, True, peeks=["Ann"])
    assert t.pool == 18
    t = table(variant="purchase", stake=2)
    t.deal("Cat", 1, True, exchanged={"Ben": 3})
    assert t.pool == 22


# --- undo in a pool game ---------------------------------------------------------------------------------


def test_undoing_a_won_pool_puts_it_back_as_it_was() -> None:
    t = table(variant="pool")
    t.deal("Ben", "nap", False)  # pool 8 + Ben's 8 = 16
    before = (t.net_chips, t.pool, t.in_pool, t.dealer)
    t.deal("Cat", "nap", True)
    assert t.pool == 0
    t.void()
    assert (t.net_chips, t.pool, t.in_pool, t.dealer) == before
    # and the next deal adds the dealer's 2, not a fresh ante
    assert t.next_pool_ante() == {"Ann": 2}


def test_the_pool_at_the_next_deal_counts_its_ante_in() -> None:
    # Pool Nap, stake 3: a new pool is 6 from each of four (24); after Cat makes 1 the pool
    # holds 24 and Ann adds 6 (30); once Ann takes it with Nap a new pool is 24 again.
    t = table(variant="pool", stake=3)
    assert t.pool_at_next_deal() == 24
    t.deal("Cat", 1, True)
    assert t.pool_at_next_deal() == 30
    t.deal("Ann", "nap", True)
    assert t.pool == 0 and t.pool_at_next_deal() == 24
    assert table().pool_at_next_deal() == 0


def test_rules_with_an_unknown_variant_are_refused() -> None:
    with pytest.raises(IllegalAction, match="variant is one of"):
        Rules(variant="sir garnet")
