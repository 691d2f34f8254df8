"""What Nap's table screen shows (the pure view), worked out by hand from RULES-NAP.md.

Seats Ann, Ben, Cat, Dan (Eve, Fay); the deal passes one seat left after every deal.
"""

from __future__ import annotations

from companion.games.nap.table import Rules, Table
from companion.games.nap.view import view

FOUR = ["Ann", "Ben", "Cat", "Dan"]


def pays(v) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {b.title: b.pays for b in v.bids}


def test_plain_nap_four_players_asks_who_won_the_bid_with_the_default_bids() -> None:
    v = view(Table(FOUR, "Dan", Rules()))
    assert v.prompt == "Deal 1: Dan deals. Who won the bid?"
    assert v.dealer == "Dan" and v.deal == 1 and v.title == "Plain Nap"
    # one round of bidding from the dealer's left: Ann first, the dealer last (he holds cards with 4)
    assert v.bidders == ("Ann", "Ben", "Cat", "Dan")
    assert v.sitting_out is None and not v.can_throw_in
    assert v.holders == ("Ann", "Ben", "Cat", "Dan")
    # the default rules: Misère on (between 3 and 4), Wellington and Blücher off
    assert [b.value for b in v.bids] == ["1", "2", "3", "misere", "4", "nap"]
    # the bid table at stake 1: made / failed, each
    assert pays(v) == {
        "1": "+1 / \u22121 each",
        "2": "+2 / \u22122 each",
        "3": "+3 / \u22123 each",
        "Misère": "+3 / \u22123 each",
        "4": "+4 / \u22124 each",
        "Nap": "+10 / \u22125 each",
    }
    assert [b.five for b in v.bids] == [False] * 5 + [True]
    assert not v.pooled and v.pool == 0 and v.ante == () and v.ante_text == "" and v.pool_pays == ""
    assert not v.can_undo


def test_the_stake_multiplies_what_every_bid_shows_and_the_optional_bids_follow_the_rules() -> None:
    v = view(Table(FOUR, "Ann", Rules(misere=False, wellington=True, blucher=True, stake=2)))
    assert [b.title for b in v.bids] == ["1", "2", "3", "4", "Nap", "Wellington", "Blücher"]
    # stake 2: 1 → 2/2, 4 → 8/8, Nap 10/5 → 20/10, Wellington 10/10 → 20/20, Blücher 10/20 → 20/40
    assert pays(v)["1"] == "+2 / \u22122 each"
    assert pays(v)["4"] == "+8 / \u22128 each"
    assert pays(v)["Nap"] == "+20 / \u221210 each"
    assert pays(v)["Wellington"] == "+20 / \u221220 each"
    assert pays(v)["Blücher"] == "+20 / \u221240 each"
    # a lead out of turn pays the bidder 3 × 2
    assert v.lead_chips == 6
    assert v.bidders == ("Ben", "Cat", "Dan", "Ann")


def test_five_players_the_dealer_sits_out_and_a_deal_may_be_thrown_in() -> None:
    t = Table(FOUR + ["Eve"], "Ann", Rules())
    v = view(t)
    assert v.prompt == "Deal 1: Ann deals. Who won the bid?"  # the status says Ann sits out
    assert v.sitting_out == "Ann" and v.can_throw_in
    assert v.bidders == ("Ben", "Cat", "Dan", "Eve")  # not the dealer: no cards
    assert v.holders == ("Ben", "Cat", "Dan", "Eve")
    t.deal(None)  # thrown in: the deal passes to Ben
    v = view(t)
    assert v.prompt == "Deal 2: Ben deals. Who won the bid?"
    assert v.bidders == ("Cat", "Dan", "Eve", "Ann") and v.holders == ("Ann", "Cat", "Dan", "Eve")
    assert v.can_undo and v.deals_recorded == 1


def test_with_six_players_the_dealer_sits_out_and_with_four_nobody_does() -> None:
    assert view(Table(FOUR + ["Eve", "Fay"], "Fay", Rules())).sitting_out == "Fay"
    assert view(Table(FOUR, "Dan", Rules())).sitting_out is None


def test_pool_nap_shows_the_pool_its_ante_and_what_it_pays_deal_by_deal() -> None:
    t = Table(FOUR, "Dan", Rules(variant="pool"))
    v = view(t)
    # a new pool: 2 from each of 4 before deal 1
    assert v.pooled and v.title == "Pool Nap"
    assert v.pool == 0 and v.ante == (("Ann", 2), ("Ben", 2), ("Cat", 2), ("Dan", 2)) and v.pool_at_deal == 8
    assert v.ante_text == "A new pool: 2 from everyone before this deal."
    assert v.pool_pays == (
        "A made Nap takes the pool: 8 chips, plus this deal's penalty chips; a failed one pays in as much as it then holds."
    )

    t.deal("Cat", 2, True)  # deal 1 (Dan deals): pool 8; Cat +6 from the 2s
    v = view(t)
    assert v.pool == 8 and v.dealer == "Ann"
    assert v.ante == (("Ann", 2),) and v.ante_text == "Ann adds 2 to the pool (dealer)."
    assert v.pool_at_deal == 10
    assert v.in_pool == (("Ann", 2), ("Ben", 2), ("Cat", 2), ("Dan", 2))

    t.deal("Ben", "nap", False)  # deal 2 (Ann deals, +2: pool 10): Ben pays 5 each and 10 in: pool 20
    v = view(t)
    assert v.pool == 20 and v.dealer == "Ben" and v.pool_at_deal == 22
    assert dict(v.in_pool) == {"Ann": 4, "Ben": 12, "Cat": 2, "Dan": 2}
    assert v.in_pool_of("Ben") == 12 and v.in_pool_of("Zed") == 0

    t.deal("Cat", "nap", True)  # deal 3 (Ben deals, +2: pool 22): Cat takes it; the next deal starts anew
    v = view(t)
    assert v.pool == 0 and v.pool_at_deal == 8 and v.ante_text.startswith("A new pool")
    assert dict(v.in_pool) == {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}


def test_what_the_pool_pays_names_every_five_trick_bid_played() -> None:
    v = view(Table(FOUR, "Dan", Rules(variant="peep", wellington=True, blucher=True, stake=3)))
    # stake 3: the new pool is 2 × 3 from each of 4 = 24
    assert v.pool_at_deal == 24
    assert v.pool_pays.startswith("A made Nap, Wellington or Blücher takes the pool: 24 chips")
    assert v.peek_chips == 3 and v.title == "Peep Nap"
    v = view(Table(FOUR, "Dan", Rules(variant="purchase", wellington=True)))
    assert v.pool_pays.startswith("A made Nap or Wellington takes the pool: 8 chips")
    assert v.card_chips == 1 and v.max_exchange == 5


def test_widow_nap_shows_the_widow_nap_amounts() -> None:
    v = view(Table(FOUR, "Dan", Rules(variant="widow", stake=3)))
    # Nap with the widow: 10 each made, 10 each failed; stake 3
    assert (v.widow_made_each, v.widow_failed_each) == (30, 30)
    assert not v.pooled and v.title == "Widow Nap"
