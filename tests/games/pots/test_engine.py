"""The fixed-stake pot engine against RULES-POKER.md, every value worked by hand in the comments."""

from __future__ import annotations

import pytest

from companion.games.protocol import IllegalAction
from companion.games.pots.engine import (
    POT,
    Carry,
    HighLow,
    IntoPot,
    PotTable,
    Rules,
    Sale,
    Transfer,
    Win,
    close_table,
    fat_one_stakes,
    sale_split,
)
from companion.games.pots.game import POTS


def preset(name: str, **overrides: object) -> Rules:
    return POTS.rules_from_dict({"preset": name, **overrides})


def conserved(table: PotTable) -> bool:
    return sum(table.net_chips.values()) + table.pot == 0


# --- Tips to the Fat One ---------------------------------------------------------------


def test_tips_works_out_c_d_e_from_a_and_b_as_in_the_seeds_example() -> None:
    # C = 2 + 3 − 1 = 4; D = 3 + 4 − 1 = 6; E = 4 + 6 − 1 = 9
    assert preset("tips_to_the_fat_one").stakes == (2, 3, 4, 6, 9)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1, 2, (1, 2, 2, 3, 4)),  # C = 1+2−1 = 2, D = 2+2−1 = 3, E = 2+3−1 = 4
        (5, 10, (5, 10, 14, 23, 36)),  # C = 5+10−1 = 14, D = 10+14−1 = 23, E = 14+23−1 = 36
    ],
)
def test_tips_stakes_follow_the_formula_for_any_a_and_b(a: int, b: int, expected: tuple[int, ...]) -> None:
    assert fat_one_stakes(a, b) == expected
    assert preset("tips_to_the_fat_one", stakes=[a, b]).stakes == expected


def test_tips_refuses_a_not_less_than_b() -> None:
    with pytest.raises(IllegalAction, match="pot A's stake must be less than pot B's"):
        preset("tips_to_the_fat_one", stakes=[3, 3])


def test_tips_refuses_five_stakes_that_break_the_formula() -> None:
    with pytest.raises(IllegalAction, match="the stakes are 2, 3, 4, 6, 9"):
        preset("tips_to_the_fat_one", stakes=[2, 3, 4, 6, 10])
    assert preset("tips_to_the_fat_one", stakes=[2, 3, 4, 6, 9]).stakes == (2, 3, 4, 6, 9)


def test_tips_is_a_two_player_game() -> None:
    with pytest.raises(IllegalAction, match="needs 2 players, not 3"):
        PotTable(["Ann", "Ben", "Cat"], rules=preset("tips_to_the_fat_one"))


def test_a_whole_tips_deal_settles_every_pot() -> None:
    t = PotTable(["Ann", "Ben"], "Ann", preset("tips_to_the_fat_one"))
    first = t.win("Ann", pot="A")
    # each pays 2+3+4+6+9 = 24; pots A 4, B 6, C 8, D 12, E 18; Ann takes A's 4
    assert first.summary == "Stakes A 2, B 3, C 4, D 6, E 9 each. Pot A, 4: Ann takes it."
    assert t.pots == {"A": 0, "B": 6, "C": 8, "D": 12, "E": 18}
    assert t.win("Ann", "Ben", pot="B").summary == "Pot B, 6: Ann and Ben split, 3 each."
    t.win("Ben", pot="C")
    t.win("Ben", pot="D")
    assert t.deal_number == 1
    t.win("Ann", pot="E")
    # Ann: −24 + 4 + 3 + 18 = 1;  Ben: −24 + 3 + 8 + 12 = −1
    assert t.net_chips == {"Ann": 1, "Ben": -1}
    assert t.pot == 0
    assert t.deal_number == 2 and t.dealer == "Ben"


def test_tips_needs_the_pot_named_and_ends_each_pot_once_per_deal() -> None:
    t = PotTable(["Ann", "Ben"], rules=preset("tips_to_the_fat_one"))
    with pytest.raises(IllegalAction, match="say which pot: A, B, C, D, E"):
        t.win("Ann")
    with pytest.raises(IllegalAction, match="there is no pot 'F'"):
        t.win("Ann", pot="F")
    t.win("Ann", pot="b")
    with pytest.raises(IllegalAction, match="pot B has already ended this deal"):
        t.win("Ben", pot="B")


def test_tips_pots_are_neither_carried_nor_split_high_low() -> None:
    t = PotTable(["Ann", "Ben"], rules=preset("tips_to_the_fat_one"))
    with pytest.raises(IllegalAction, match="not carried over"):
        t.carry(pot="A")
    with pytest.raises(IllegalAction, match="not split high-low"):
        t.high_low(["Ann"], ["Ben"], pot="A")
    assert t.version == 0 and t.pot == 0  # a refusal changes nothing, antes included


# --- High Card and Mountain: one winner, a split, or the pot carried --------------------------


def test_high_card_one_winner_takes_the_antes() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("high_card"))
    record = t.win("Cat")
    # ante 1 each: pot 3, Cat takes it: Cat −1 + 3 = 2
    assert record.summary == "Ante 1 each, pot 3. The pot, 3: Cat takes it."
    assert t.net_chips == {"Ann": -1, "Ben": -1, "Cat": 2}
    assert record.transfers[:3] == tuple(Transfer(n, POT, 1, "ante", "pot") for n in ("Ann", "Ben", "Cat"))
    assert record.transfers[3] == Transfer(POT, "Cat", 3, "pot", "pot")


def test_high_card_is_for_three_to_eight_players() -> None:
    with pytest.raises(IllegalAction, match="needs 3 to 8 players, not 2"):
        PotTable(["Ann", "Ben"], rules=preset("high_card"))
    with pytest.raises(IllegalAction, match="not 9"):
        PotTable([f"P{i}" for i in range(9)], rules=preset("high_card"))


def test_a_carried_pot_gets_a_new_ante_from_everyone() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("high_card"))
    assert t.carry().summary == "Ante 1 each, pot 3. The pot, 3: carried to the next deal."
    assert t.deal_number == 2 and t.dealer == "Ben" and t.pot == 3
    t.win("Ben")
    # deal 2 antes 1 more each: pot 6; Ben: −2 + 6 = 4; Ann and Cat −2 each
    assert t.net_chips == {"Ann": -2, "Ben": 4, "Cat": -2}
    assert t.pot == 0


def test_mountain_carries_the_pot_over_several_deals() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("mountain", ante=2))
    t.carry()  # pot 6
    t.carry()  # pot 6 + 6 = 12
    assert t.pot == 12 and t.position.carried == (2,)
    t.win("Cat")  # pot 12 + 6 = 18; Cat −6 + 18 = 12
    assert t.net_chips == {"Ann": -6, "Ben": -6, "Cat": 12}


def test_a_split_gives_odd_chips_one_each_from_the_dealers_left() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("high_card"))
    record = t.win("Ann", "Cat")
    # pot 3 split two ways: 1 each and 1 odd chip; from Ann's (the dealer's) left: Ben, Cat, Ann → Cat
    assert t.net_chips == {"Ann": 0, "Ben": -1, "Cat": 1}
    assert record.summary.endswith("The pot, 3: Ann and Cat split, Ann 1, Cat 2 (odd chip from the dealer's left).")


def test_two_odd_chips_go_to_the_first_two_winners_from_the_dealers_left() -> None:
    t = PotTable(["Ann", "Ben", "Cat", "Dan"], "Cat", preset("mountain"))
    t.carry()  # pot 4, next dealer Dan
    t.carry()  # pot 8, next dealer Ann
    t.win("Ann", "Ben", "Cat")
    # deal 3 antes 4 more → pot 12, split 3 ways: 4 each, no odd chip; Ann −3 + 4 = 1
    assert t.net_chips == {"Ann": 1, "Ben": 1, "Cat": 1, "Dan": -3}
    t.win("Ann", "Ben", "Dan")
    # deal 4, dealer Ben: pot 4, 3 ways: 1 each, 1 odd; from Ben's left: Cat, Dan, Ann → Dan
    assert t.net_chips == {"Ann": 1, "Ben": 1, "Cat": 0, "Dan": -2}
    t2 = PotTable(["Ann", "Ben", "Cat", "Dan", "Eve"], "Dan", preset("fixed"))
    t2.win("Ann", "Ben", "Cat")
    # pot 5, 3 ways: 1 each, 2 odd; from Dan's left: Eve, Ann, Ben, Cat, Dan → Ann and Ben
    assert t2.net_chips == {"Ann": 1, "Ben": 1, "Cat": 0, "Dan": -1, "Eve": -1}


# --- NASDAQ: the bid, sales with the excess rule, unsold cards, high-low -----------------


def test_the_seeds_sale_example_puts_half_the_excess_in_the_pot() -> None:
    # limit 5 chips (25 cents), bid 12 (60 cents): excess 7 → 4 to the pot (odd chip), 3 + 5 = 8 to the seller
    assert sale_split(12, 5) == (8, 4)
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("nasdaq", sale_limit=5))
    record = t.sell("Cat", "Ann", 12)
    assert record.transfers[-2:] == (Transfer("Ann", "Cat", 8, "sale"), Transfer("Ann", POT, 4, "excess", "pot"))
    # antes 3 + excess 4 = pot 7; Ann −1 −12 = −13; Cat −1 + 8 = 7
    assert t.pot == 7 and t.net_chips == {"Ann": -13, "Ben": -1, "Cat": 7}


@pytest.mark.parametrize(
    ("price", "limit", "to_seller", "to_pot"),
    [
        (5, 5, 5, 0),  # at the limit: no excess
        (6, 5, 5, 1),  # excess 1: the odd chip to the pot
        (11, 5, 8, 3),  # excess 6: 3 and 3
        (12, None, 12, 0),  # no limit: all to the seller
        (3, 0, 1, 2),  # limit 0: excess 3 → 2 to the pot, 1 to the seller
    ],
)
def test_the_excess_rule(price: int, limit: int | None, to_seller: int, to_pot: int) -> None:
    assert sale_split(price, limit) == (to_seller, to_pot)


def test_without_a_limit_the_buyer_pays_the_seller_the_whole_price() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("nasdaq"))
    t.sell("Ben", "Cat", 12)
    assert t.net_chips == {"Ann": -1, "Ben": 11, "Cat": -13} and t.pot == 3


def test_the_bid_for_the_first_sale_goes_into_the_pot_once_a_deal() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("nasdaq"))
    record = t.into_pot("Ben", 3, "bid")
    assert record.summary == "Ante 1 each, pot 3. Ben: bid for the first sale of 3 into the pot (6)."
    with pytest.raises(IllegalAction, match="already recorded"):
        t.into_pot("Cat", 2, "bid")
    t.win("Cat")
    t.into_pot("Cat", 2, "bid")  # a new deal takes a new bid
    assert t.pot == 5


def test_an_unsold_cards_asking_price_goes_into_the_pot() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("nasdaq"))
    t.into_pot("Ann", 2, "unsold")
    t.into_pot("Ben", 2, "unsold")
    # antes 3 + 2 + 2 = 7
    assert t.pot == 7 and t.net_chips == {"Ann": -3, "Ben": -3, "Cat": -1}


def test_the_high_low_split_gives_the_odd_chip_to_high() -> None:
    t = PotTable(["Ann", "Ben", "Cat", "Dan"], "Ann", preset("nasdaq"))
    t.into_pot("Dan", 3, "bid")  # pot 4 + 3 = 7
    record = t.high_low(["Ann"], ["Ben"])
    # 7: high 4 (the odd chip), low 3
    assert record.summary.endswith("The pot, 7: high Ann takes 4; low Ben takes 3.")
    assert t.net_chips == {"Ann": 3, "Ben": 2, "Cat": -1, "Dan": -4}


def test_each_half_is_split_again_among_tied_players() -> None:
    t = PotTable(["Ann", "Ben", "Cat", "Dan"], "Ann", preset("nasdaq"))
    t.into_pot("Ben", 5, "unsold")  # pot 4 + 5 = 9
    t.high_low(["Ann", "Cat"], ["Ben", "Dan"])
    # high 5, low 4.  High 5 two ways: 2 each + 1 odd; from Ann's left Ben, Cat, Dan, Ann → Cat 3, Ann 2.
    # Low 4 two ways: 2 each.  Ann −1 + 2 = 1; Ben −6 + 2 = −4; Cat −1 + 3 = 2; Dan −1 + 2 = 1
    assert t.net_chips == {"Ann": 1, "Ben": -4, "Cat": 2, "Dan": 1}


def test_one_player_with_both_high_and_low_scoops_the_pot() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("nasdaq"))
    t.high_low(["Ben"], ["Ben"])
    assert t.net_chips == {"Ann": -1, "Ben": 2, "Cat": -1}


def test_sales_are_refused_where_the_rules_have_none() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], rules=preset("high_card"))
    with pytest.raises(IllegalAction, match="no card sales"):
        t.sell("Ann", "Ben", 3)
    with pytest.raises(IllegalAction, match="no bids or card sales"):
        t.into_pot("Ann", 3, "bid")


def test_a_sale_needs_two_players_and_a_price() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], rules=preset("nasdaq"))
    with pytest.raises(IllegalAction, match="cannot buy their own card"):
        t.sell("Ann", "ann", 3)
    with pytest.raises(IllegalAction, match="the price must be a whole number of chips"):
        t.sell("Ann", "Ben", 0)
    with pytest.raises(IllegalAction, match="the buyer 'Zed' is not playing"):
        t.sell("Ann", "Zed", 2)


# --- a plain fixed-stake pot ----------------------------------------------------------


def test_a_fixed_bet_goes_into_the_pot_and_the_winner_takes_all() -> None:
    t = PotTable(["Ann", "Ben", "Cat", "Dan"], "Ann", preset("mystery_wheelbarrow", ante=2))
    t.into_pot("Ann", 2)
    t.into_pot("Ben", 2)
    t.win("Ben")
    # antes 8 + bets 4 = 12; Ben −4 + 12 = 8; Ann −4; Cat and Dan −2
    assert t.net_chips == {"Ann": -4, "Ben": 8, "Cat": -2, "Dan": -2}


def test_mystery_wheelbarrow_seats_at_most_four() -> None:
    with pytest.raises(IllegalAction, match="needs 2 to 4 players, not 5"):
        PotTable(["A", "B", "C", "D", "E"], rules=preset("mystery_wheelbarrow"))


def test_a_winner_must_be_playing_and_named_once() -> None:
    t = PotTable(["Ann", "Ben"], rules=preset("fixed"))
    with pytest.raises(IllegalAction, match="tap at least one winner"):
        t.win()
    with pytest.raises(IllegalAction, match="listed twice"):
        t.win("Ann", "ANN")
    with pytest.raises(IllegalAction, match="'Zed' is not playing"):
        t.win("Zed")


# --- undo by appending --------------------------------------------------------------------


def test_undoing_a_deals_first_action_returns_its_antes() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("nasdaq", sale_limit=5))
    t.sell("Cat", "Ann", 12)
    undo = t.void()
    assert undo.voids == 1 and undo.summary.startswith("Undid #1: Ante 1 each")
    assert t.net_chips == {"Ann": 0, "Ben": 0, "Cat": 0} and t.pot == 0
    assert len(t.log) == 2 and t.live_records() == []
    assert not t.position.anted


def test_undoing_the_deals_last_pot_reopens_the_deal() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("high_card"))
    t.into_pot("Ann", 2)  # antes 3 + Ann's bet 2: pot 5
    t.win("Cat")
    t.void()
    # the win is undone, the deal is open again with its antes and the bet still in
    assert t.deal_number == 1 and t.dealer == "Ann" and t.pot == 5
    assert t.net_chips == {"Ann": -3, "Ben": -1, "Cat": -1}
    t.win("Ben")  # Ben −1 + 5 = 4
    assert t.net_chips == {"Ann": -3, "Ben": 4, "Cat": -1}
    assert [r.seq for r in t.live_records()] == [1, 4]


def test_nothing_to_undo_is_refused() -> None:
    t = PotTable(["Ann", "Ben"])
    with pytest.raises(IllegalAction, match="nothing to undo"):
        t.void()


# --- closing: a carried pot goes back to who paid it in ------------------------------------


def test_a_pot_carried_at_the_end_goes_back_to_who_paid_it_in() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("mountain"))
    t.win("Ann")  # pot 3: Ann +2, Ben −1, Cat −1
    t.into_pot("Ben", 2)  # deal 2: antes 3 + Ben's bet 2
    t.carry()  # pot 5: Ann 1, Ben 3, Cat 1 in it
    closing = close_table(t)
    # back: Ann 1, Ben 3, Cat 1 → Ann 2, Ben −1, Cat −1, as after deal 1
    assert closing.returned == {"Ann": 1, "Ben": 3, "Cat": 1}
    assert closing.net == {"Ann": 2, "Ben": -1, "Cat": -1}
    assert closing.note == "The pot, 5: returned to who paid it in (Ann 1, Ben 3, Cat 1)."


def test_a_pot_won_is_not_returned() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("mountain"))
    t.carry()
    t.win("Cat")
    closing = close_table(t)
    assert closing.net == {"Ann": -2, "Ben": -2, "Cat": 4} and closing.note == ""


def test_an_unfinished_tips_deal_returns_its_undecided_pots() -> None:
    t = PotTable(["Ann", "Ben"], "Ann", preset("tips_to_the_fat_one"))
    t.win("Ann", pot="E")  # Ann −24 + 18 = −6, Ben −24
    closing = close_table(t)
    # A 4, B 6, C 8, D 12 back, half each: 2 + 3 + 4 + 6 = 15 → Ann 9, Ben −9
    assert closing.net == {"Ann": 9, "Ben": -9}
    assert "Pot A, 4: returned to who paid it in (Ann 2, Ben 2)." in closing.note


def test_a_pot_carried_in_from_the_previous_night_starts_the_first_pot() -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("mountain"), carried_in={"Ann": 2, "Ben": 1})
    assert t.pot == 3 and t.net_chips == {"Ann": -2, "Ben": -1, "Cat": 0}
    t.carry()  # + 3 antes: pot 6
    closing = close_table(t)
    assert closing.returned == {"Ann": 3, "Ben": 2, "Cat": 1}
    assert closing.net == {"Ann": 0, "Ben": 0, "Cat": 0}


@pytest.mark.parametrize(
    "action",
    [Win(("Ann",)), HighLow(("Ann",), ("Ben",)), Carry(), IntoPot("Ann", 2), Sale("Ann", "Ben", 3)],
)
def test_every_action_keeps_the_chips_balanced(action: object) -> None:
    t = PotTable(["Ann", "Ben", "Cat"], "Ann", preset("nasdaq", carry=True, sale_limit=1))
    t.push(action)  # type: ignore[arg-type]
    assert conserved(t)


def test_the_table_says_what_it_waits_for() -> None:
    t = PotTable(["Ann", "Ben"], "Ben", preset("tips_to_the_fat_one"))
    assert t.prompt() == "Deal 1 (Ben deals): who won pot A?"
    t.win("Ann", pot="A")
    assert t.prompt() == "Deal 1 (Ben deals): who won pot B?"
    assert t.open_pots == ("B", "C", "D", "E")
    assert PotTable(["Ann", "Ben"]).prompt() == "Deal 1 (Ann deals): who won the pot?"


def test_a_sale_of_1_over_a_limit_of_0_goes_whole_to_the_pot_with_no_empty_transfer():
    """Limit 0, price 1: the excess is 1, half of it rounded up (the odd chip) to the pot: 1 to the
    pot, 0 to the seller; no transfer of 0 chips is written (Hypothesis found one)."""
    from companion.games.pots.game import POTS

    table = POTS.new_state(["Ann", "Ben"], "Ann", POTS.rules_from_dict({"preset": "nasdaq", "sale_limit": 0}), None)
    record = table.sell("Ann", "Ben", 1)
    assert all(t.chips > 0 for t in record.transfers)
    # antes 1 each (pot 2), then Ben's 1 into the pot: Ann −1, Ben −2, pot 3
    assert table.net_chips == {"Ann": -1, "Ben": -2} and table.pot == 3
    assert record.summary.endswith("Ben bought Ann's card for 1: 0 to Ann, 1 to the pot (half the excess over 0).")
