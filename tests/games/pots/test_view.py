"""The pots game's screen data (pure), with every number worked out by hand from RULES-POKER.md."""

from __future__ import annotations

from companion.games.pots.game import POTS
from companion.games.pots.view import view


def table(players, preset, **rules):  # type: ignore[no-untyped-def]
    return POTS.new_state(players, players[0], POTS.rules_from_dict({"preset": preset, **rules}), None)


def test_tips_to_the_fat_one_asks_pot_a_then_b_with_the_stakes_worked_out_from_a_and_b():
    t = table(["Ann", "Ben"], "tips_to_the_fat_one", stakes=[2, 3])
    v = view(t)
    assert v.title == "Tips to the Fat One" and v.several
    assert v.prompt == "Deal 1: Ann deals. Who won pot A?"
    # C = 2 + 3 − 1 = 4, D = 3 + 4 − 1 = 6, E = 4 + 6 − 1 = 9
    assert v.antes_note == "Recording this deal's first action takes the stakes: A 2, B 3, C 4, D 6, E 9 from each player."
    assert [(p.name, p.stake, p.chips) for p in v.pots] == [("A", 2, 0), ("B", 3, 0), ("C", 4, 0), ("D", 6, 0), ("E", 9, 0)]
    t.win("Ben", pot="A")  # both stake 2+3+4+6+9 = 24; Ben takes pot A, 4
    v = view(t)
    assert v.antes_note == "" and v.current.name == "B"
    assert v.prompt == "Deal 1: Ann deals. Who won pot B?"
    assert [(p.name, p.chips, p.open) for p in v.pots] == [
        ("A", 0, False), ("B", 6, True), ("C", 8, True), ("D", 12, True), ("E", 18, True)
    ]
    assert v.total == 44 and t.net_chips == {"Ann": -24, "Ben": -20}
    assert dict(v.current.paid) == {"Ann": 3, "Ben": 3}


def test_high_card_carried_pot_says_what_the_next_ante_makes_it():
    t = table(["Ann", "Ben", "Cat"], "high_card")
    assert view(t).antes_note.endswith("1 from each player (the pot will be 3).")
    assert view(t).prompt == "Deal 1: Ann deals. Who won the pot?"
    t.carry()
    v = view(t)
    assert (v.deal, v.dealer, v.total) == (2, "Ben", 3)
    assert v.pots[0].carried == 1 and v.pots[0].paid_text == "Ann 1, Ben 1, Cat 1"
    assert v.antes_note.endswith("(the pot will be 6).")
    assert v.can_carry and not v.sales and not v.high_low and not v.several
    assert v.into_reasons == (("bet", "a bet"),)


def test_nasdaq_offers_the_bid_once_a_deal_and_states_the_limit_rule_worked_out():
    t = table(["Ann", "Ben", "Cat", "Dan"], "nasdaq", sale_limit=5)
    v = view(t)
    assert v.high_low and v.sales and not v.can_carry
    assert [r for r, _ in v.into_reasons] == ["bet", "bid", "unsold"]
    # limit 5, a sale at 12: excess 7, 4 to the pot (the odd chip), 8 to the seller
    assert "a sale at 12: 8 to the seller, 4 to the pot" in v.limit_text
    t.into_pot("Cat", 2, "bid")
    assert [r for r, _ in view(t).into_reasons] == ["bet", "unsold"]
    assert view(t).total == 4 + 2
    assert view(table(["Ann", "Ben"], "nasdaq")).limit_text == "The buyer pays the seller the whole price."


def test_fixed_with_no_ante_says_so():
    v = view(table(["Ann", "Ben"], "fixed", ante=0))
    assert v.antes_note == "No ante." and v.title == "Fixed-stake pot"
