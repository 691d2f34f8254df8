"""The Nap engine against RULES-NAP.md, plain Nap: bids, penalties, seating, undo.

Every expected number is worked out by hand from RULES-NAP.md (the arithmetic is
in the comments), never copied from the engine's output.  Net chips are written
in seat order (Ann, Ben, Cat, Dan, ...).
"""

from __future__ import annotations

import pytest

from companion.games.nap.table import (
    POOL,
    Deal,
    DealError,
    IllegalAction,
    LedgerBroken,
    Outcome,
    Penalty,
    Position,
    Rules,
    Table,
    Transfer,
    Void,
    check_invariants,
    make_deal,
)

FOUR = "Ann Ben Cat Dan"
ALL_BIDS = Rules(wellington=True, blucher=True)


def table(players: str = FOUR, dealer: str | None = "Dan", **rules: object) -> Table:
    return Table(players.split(), dealer, Rules(**rules))  # type: ignore[arg-type]


def net(t: Table) -> tuple[int, ...]:
    return tuple(t.net_chips.values())


def assert_refused(t: Table, action: Deal | Void, field: str | None, match: str) -> None:
    """``action`` is illegal: verify, is_legal and push all say so (naming ``field``), and nothing changes."""
    before = (t.position, t.log)
    assert not t.is_legal(action)
    with pytest.raises(IllegalAction, match=match) as caught:
        t.push(action)
    if field is not None:
        assert isinstance(caught.value, DealError) and caught.value.field == field
    assert (t.position, t.log) == before


# --- the bid table ---------------------------------------------------------------------

# (bid, made: each other player pays the bidder, failed: the bidder pays each other player)
BID_TABLE = [
    (1, 1, 1),
    (2, 2, 2),
    (3, 3, 3),
    (4, 4, 4),
    ("misere", 3, 3),
    ("nap", 10, 5),
    ("wellington", 10, 10),
    ("blucher", 10, 20),
]


@pytest.mark.parametrize(("bid", "made_each", "failed_each"), BID_TABLE)
def test_every_row_of_the_bid_table_made_is_paid_by_each_other_player(bid, made_each, failed_each) -> None:
    # Cat bids among four: the three others each pay the made amount, Cat gets three times it.
    t = Table(FOUR.split(), "Dan", ALL_BIDS)
    t.deal("Cat", bid, True)
    assert net(t) == (-made_each, -made_each, 3 * made_each, -made_each)


@pytest.mark.parametrize(("bid", "made_each", "failed_each"), BID_TABLE)
def test_every_row_of_the_bid_table_failed_pays_each_other_player(bid, made_each, failed_each) -> None:
    t = Table(FOUR.split(), "Dan", ALL_BIDS)
    t.deal("Cat", bid, False)
    assert net(t) == (failed_each, failed_each, -3 * failed_each, failed_each)


def test_the_bid_table_by_hand_for_nap_among_four() -> None:
    # Nap made: 10 from each of Ann, Ben, Dan = +30; Nap failed: 5 to each = -15.
    t = table()
    t.deal("Ben", "nap", True)
    assert net(t) == (-10, 30, -10, -10)
    t.deal("Ben", "nap", False)
    assert net(t) == (-10 + 5, 30 - 15, -10 + 5, -10 + 5)


def test_extra_tricks_earn_nothing_a_made_one_is_one_each_among_three() -> None:
    t = table("Ann Ben Cat", "Cat")
    t.deal("Ann", 1, True)
    assert net(t) == (2, -1, -1)


def test_two_players_pay_each_other_only() -> None:
    # Misère made between two: Ben pays Ann 3.
    t = table("Ann Ben", "Ben")
    t.deal("Ann", "misere", True)
    assert net(t) == (3, -3)


def test_a_plain_deal_reads_as_a_sentence() -> None:
    t = table()
    assert t.deal("Cat", 2, True).summary == "Cat made 2: +6; Ann, Ben, Dan \u22122 each"
    assert t.deal("Dan", "nap", False).summary == "Dan failed Nap: \u221215; Ann, Ben, Cat +5 each"


@pytest.mark.parametrize(
    ("rules", "bid", "match"),
    [
        (Rules(), "wellington", "Wellington is not played"),
        (Rules(wellington=True), "blucher", "Blücher is not played"),
        (Rules(misere=False), "misere", "Misère is not played"),
        (Rules(), 5, "is not a bid"),
        (Rules(), 0, "is not a bid"),
        (Rules(), True, "is not a bid"),
        (Rules(), "Nap", "is not a bid"),
    ],
)
def test_a_bid_the_rules_do_not_allow_is_refused(rules: Rules, bid: object, match: str) -> None:
    t = Table(FOUR.split(), "Dan", rules)
    assert_refused(t, make_deal("Cat", bid, True), "bid", match)  # type: ignore[arg-type]


def test_the_allowed_bids_follow_the_settings_lowest_first() -> None:
    assert Rules().allowed_bids() == (1, 2, 3, "misere", 4, "nap")
    assert Rules(misere=False, wellington=True, blucher=True).allowed_bids() == (
        1, 2, 3, 4, "nap", "wellington", "blucher",
    )


def test_a_deal_needs_a_bid_and_a_result() -> None:
    t = table()
    assert_refused(t, make_deal("Cat", None, True), "bid", "what did Cat bid")
    assert_refused(t, make_deal("Cat", 2), "made", "did Cat make 2")
    assert_refused(t, make_deal("Zed", 2, True), "bidder", "'Zed' is not a player")


def test_names_are_matched_ignoring_case_and_recorded_as_seated() -> None:
    t = table()
    record = t.deal("cat", 2, True)
    assert record.action.bidder == "Cat"
    assert net(t) == (-2, -2, 6, -2)


# --- rules settings ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"variant": "chinese"}, "variant is one of"),
        ({"blucher": True}, "only played together with Wellington"),
        ({"stake": 0}, "between 1 and"),
        ({"stake": 1.5}, "whole number"),
        ({"stake": True}, "whole number"),
        ({"misere": "yes"}, "true or false"),
    ],
)
def test_rules_outside_the_settings_are_refused(kwargs: dict, match: str) -> None:
    with pytest.raises(IllegalAction, match=match):
        Rules(**kwargs)


def test_a_game_seats_two_to_six_distinct_players() -> None:
    with pytest.raises(IllegalAction, match="2 to 6 players, not 1"):
        Table(["Ann"])
    with pytest.raises(IllegalAction, match="2 to 6 players, not 7"):
        Table("A B C D E F G".split())
    with pytest.raises(IllegalAction, match="two players are called"):
        Table(["Ann", "ann"])
    with pytest.raises(IllegalAction, match="first dealer 'Zed'"):
        Table(["Ann", "Ben"], "Zed")


# --- the dealer -------------------------------------------------------------------------


def test_the_deal_passes_left_after_every_record_and_back_on_undo() -> None:
    t = table(dealer="Cat")
    assert t.dealer == "Cat"
    t.deal("Ann", 1, True)
    assert t.dealer == "Dan"
    t.deal("Ann", 1, True)
    assert t.dealer == "Ann"
    t.void()
    assert t.dealer == "Dan"


def test_with_two_to_four_players_the_dealer_holds_cards_and_may_bid() -> None:
    t = table()  # Dan deals
    assert t.sitting_out is None
    assert t.bidders() == ("Ann", "Ben", "Cat", "Dan")
    t.deal("Dan", 1, True)
    assert net(t) == (-1, -1, -1, 3)


def test_with_two_to_four_players_nobody_bidding_is_refused_the_dealer_must_bid() -> None:
    assert_refused(table(), Deal(bidder=None), "bidder", "the dealer must bid at least 1")


FIVE = "Ann Ben Cat Dan Eve"
SIX = "Ann Ben Cat Dan Eve Fay"


def test_with_five_players_the_dealer_sits_out_but_pays_a_made_bid() -> None:
    # Eve deals and holds no cards; Ann makes 3: Ben, Cat, Dan and Eve pay 3 each, Ann +12.
    t = table(FIVE, "Eve")
    assert t.sitting_out == "Eve"
    assert t.bidders() == ("Ann", "Ben", "Cat", "Dan")
    record = t.deal("Ann", 3, True)
    assert record.sitting_out == "Eve"
    assert net(t) == (12, -3, -3, -3, -3)


def test_with_six_players_the_dealer_sits_out_but_is_paid_on_a_failed_bid() -> None:
    # Fay deals; Ann fails Nap: she pays 5 to each of the five others (Fay included), -25.
    t = table(SIX, "Fay")
    t.deal("Ann", "nap", False)
    assert net(t) == (-25, 5, 5, 5, 5, 5)


def test_the_dealer_who_sits_out_cannot_bid_or_commit_a_penalty() -> None:
    t = table(FIVE, "Eve")
    assert_refused(t, make_deal("Eve", 2, True), "bidder", "Eve deals this time and holds no cards")
    assert_refused(
        t, make_deal("Ann", 2, True, penalties=[("lead_out_of_turn", "Eve")]), "penalties", "holds no cards"
    )
    assert_refused(t, make_deal("Ann", 2, penalties=[("revoke", "Eve")]), "penalties", "holds no cards")
    t.deal("Ann", 2, True)  # now Ann deals and sits out; Eve holds cards again
    t.deal("Eve", 1, True)
    # Ann +8 (2 from four others), -1; Eve -2, +4; Ben/Cat/Dan -2 -1 each.
    assert net(t) == (8 - 1, -3, -3, -3, -2 + 4)


def test_a_deal_thrown_in_with_five_players_pays_nothing_and_passes_the_deal() -> None:
    t = table(FIVE, "Eve")
    record = t.push(Deal(bidder=None))
    assert record.transfers == ()
    assert record.summary == "Thrown in: nobody bid: nothing paid"
    assert net(t) == (0, 0, 0, 0, 0)
    assert t.dealer == "Ann"
    assert t.deal_number == 2


def test_a_thrown_in_deal_has_no_bid_result_or_penalty() -> None:
    t = table(SIX, "Fay")
    assert_refused(t, Deal(bidder=None, bid=2), "bid", "thrown in")
    assert_refused(t, Deal(bidder=None, made=True), "made", "thrown in")
    assert_refused(t, Deal(bidder=None, penalties=(Penalty("revoke", "Ann"),)), "penalties", "thrown in")
    assert_refused(t, Deal(bidder=None, wrong_cards="other"), "wrong_cards", "thrown in")


# --- penalties, plain Nap ----------------------------------------------------------------------


def test_a_lead_out_of_turn_pays_three_to_the_bidder_besides_a_made_bid() -> None:
    # Ben bids 4 and makes it; Ann led out of turn: Ann 3 + 4 = -7, Cat and Dan -4, Ben 3 + 12 = +15.
    t = table()
    record = t.deal("Ben", 4, True, penalties=[("lead_out_of_turn", "Ann")])
    assert net(t) == (-7, 15, -4, -4)
    assert record.summary == "Ben made 4 (Ann led out of turn): +15; Ann \u22127; Cat, Dan \u22124 each"


def test_an_opponent_who_led_out_of_turn_is_not_paid_when_the_bidder_fails() -> None:
    # Ben fails 4: he pays 4 to Cat and Dan only; Ann paid 3 and gets nothing: Ann -3, Ben 3 - 8 = -5.
    t = table()
    t.deal("Ben", 4, False, penalties=[("lead_out_of_turn", "Ann")])
    assert net(t) == (-3, -5, 4, 4)


def test_two_leads_out_of_turn_each_pay_three() -> None:
    # Cat makes 1; Ann twice, Dan once out of turn: Ann -6-1, Dan -3-1, Ben -1, Cat +9+3 = +12.
    t = table()
    t.deal("Cat", 1, True, penalties=[("lead_out_of_turn", "Ann"), ("lead_out_of_turn", "Ann"), ("lead_out_of_turn", "Dan")])
    assert net(t) == (-7, -1, 12, -4)


def test_a_bidder_who_leads_out_of_turn_takes_the_card_back_and_nothing_is_recorded() -> None:
    t = table()
    assert_refused(t, make_deal("Ben", 2, True, penalties=[("lead_out_of_turn", "Ben")]), "penalties", "takes the card back")


def test_a_bidder_who_revokes_pays_everyone_as_if_failed() -> None:
    # Ben bids Nap and revokes: 5 to each of Ann, Cat, Dan = -15.
    t = table()
    record = t.deal("Ben", "nap", penalties=[("revoke", "Ben")])
    assert net(t) == (5, -15, 5, 5)
    assert record.summary == "Ben revoked, bidding Nap: \u221215; Ann, Cat, Dan +5 each"


def test_an_opponent_who_revokes_pays_the_made_amount_to_the_bidder_and_each_other_opponent() -> None:
    # Ben bids 3; Cat revokes: Cat pays 3 to Ben, 3 to Ann, 3 to Dan = -9; Ann and Dan are paid, not paying.
    t = table()
    record = t.deal("Ben", 3, penalties=[("revoke", "Cat")])
    assert net(t) == (3, 3, -9, 3)
    assert record.summary == "Cat revoked against Ben's 3: \u22129; Ann, Ben, Dan +3 each"


def test_an_opponent_revoking_against_nap_pays_the_made_ten_to_everyone() -> None:
    # Nap's made amount is 10: Cat pays 10 to each of three = -30.
    t = table()
    t.deal("Ben", "nap", penalties=[("revoke", "Cat")])
    assert net(t) == (10, 10, -30, 10)


def test_a_revoke_with_five_players_reaches_the_dealer_who_sat_out() -> None:
    # Eve deals; Ben bids 2, Cat revokes: Cat pays 2 to Ben, Ann, Dan and Eve = -8.
    t = table(FIVE, "Eve")
    t.deal("Ben", 2, penalties=[("revoke", "Cat")])
    assert net(t) == (2, 2, -8, 2, 2)


def test_a_revoke_has_no_result_and_there_is_at_most_one() -> None:
    t = table()
    assert_refused(t, make_deal("Ben", 3, True, penalties=[("revoke", "Cat")]), "made", "neither made nor failed")
    assert_refused(
        t, make_deal("Ben", 3, penalties=[("revoke", "Cat"), ("revoke", "Ann")]), "penalties", "at most one"
    )
    assert_refused(t, make_deal("Ben", 3, penalties=[("renege", "Cat")]), "penalties", "is not a penalty")
    assert_refused(
        t, make_deal("Ben", 3, penalties=[("revoke", "Cat")], wrong_cards="other"), "wrong_cards", "revoke abandons"
    )


def test_a_lead_out_of_turn_then_the_bidder_revokes_the_leader_is_not_paid() -> None:
    # (choice) a bidder's revoke pays "as if failed", so the leader out of turn is not paid:
    # Ann pays Ben 3; Ben pays 2 to Cat and Dan only: Ann -3, Ben 3 - 4 = -1.
    t = table()
    t.deal("Ben", 2, penalties=[("lead_out_of_turn", "Ann"), ("revoke", "Ben")])
    assert net(t) == (-3, -1, 2, 2)


def test_a_wrong_hand_elsewhere_the_bidder_is_paid_if_made() -> None:
    t = table()
    t.deal("Ann", 3, True, wrong_cards="other")
    assert net(t) == (9, -3, -3, -3)


def test_a_wrong_hand_elsewhere_the_bidder_pays_nothing_if_failed() -> None:
    t = table()
    record = t.deal("Ann", 3, False, wrong_cards="other")
    assert net(t) == (0, 0, 0, 0)
    assert record.transfers == ()
    assert "nothing paid" in record.summary


def test_a_bidder_with_too_many_cards_is_paid_nothing_if_made() -> None:
    t = table()
    t.deal("Ann", 3, True, wrong_cards="bidder_over")
    assert net(t) == (0, 0, 0, 0)


def test_a_bidder_with_too_many_cards_pays_if_failed() -> None:
    t = table()
    t.deal("Ann", 3, False, wrong_cards="bidder_over")
    assert net(t) == (-9, 3, 3, 3)


def test_a_lead_out_of_turn_is_paid_even_when_the_bidder_with_too_many_cards_is_not() -> None:
    # (choice) the 3 are paid "at once", before the result: Ben -3, Ann +3.
    t = table()
    t.deal("Ann", 2, True, wrong_cards="bidder_over", penalties=[("lead_out_of_turn", "Ben")])
    assert net(t) == (3, -3, 0, 0)


def test_an_unknown_wrong_cards_value_is_refused() -> None:
    assert_refused(table(), make_deal("Ann", 2, True, wrong_cards="bidder_under"), "wrong_cards", "not one of")


# --- variant extras outside their variant ---------------------------------------------------------


def test_variant_extras_are_refused_outside_their_variant() -> None:
    t = table()
    assert_refused(t, make_deal("Ann", "nap", True, widow=True), "widow", "only for Widow Nap")
    assert_refused(t, make_deal("Ann", 2, True, peeks=["Ben"]), "peeks", "only for Peep Nap")
    assert_refused(t, make_deal("Ann", 2, True, exchanged={"Ben": 1}), "exchanged", "only for Purchase Nap")


# --- undo ------------------------------------------------------------------------------------


def test_undo_appends_a_record_reversing_the_last_live_deal() -> None:
    t = table()
    t.deal("Cat", 2, True)
    t.deal("Ann", 4, False)
    record = t.void()
    assert record.voids == 2 and record.seq == 3
    assert record.dealer == "Ann" and t.dealer == "Ann"  # Ann dealt deal 2 and deals it again
    assert record.summary.startswith("Undid #2: Ann failed 4")
    assert net(t) == (-2, -2, 6, -2)
    assert [r.seq for r in t.live_records()] == [1]
    assert len(t.log) == 3
    t.void()
    assert net(t) == (0, 0, 0, 0)
    assert_refused(t, Void(), None, "nothing to undo")


def test_a_refused_deal_changes_nothing_and_a_later_one_is_numbered_on() -> None:
    t = table()
    assert_refused(t, make_deal("Zed", 1, True), "bidder", "not a player")
    t.deal("Ann", 1, True)
    assert t.log[0].deal == 1 and t.deal_number == 2


# --- the invariants guard ----------------------------------------------------------------------


def test_the_invariant_check_catches_chips_that_appear_from_nowhere() -> None:
    players = ("Ann", "Ben")
    before = Position(deal=1, dealer=0, pool=0, pool_open=False, in_pool=(0, 0), net=(0, 0), pools_won=0)
    broken = Outcome(
        position=Position(deal=2, dealer=1, pool=0, pool_open=False, in_pool=(0, 0), net=(1, 0), pools_won=0),
        action=make_deal("Ann", 1, True),
        transfers=(Transfer("Ben", "Ann", 1, "made"),),
    )
    with pytest.raises(LedgerBroken):
        check_invariants(players, before, broken)


def test_the_invariant_check_catches_a_pool_taken_only_in_part() -> None:
    players = ("Ann", "Ben")
    before = Position(deal=2, dealer=0, pool=8, pool_open=True, in_pool=(4, 4), net=(-4, -4), pools_won=0)
    broken = Outcome(
        position=Position(deal=3, dealer=1, pool=3, pool_open=True, in_pool=(4, 4), net=(1, -4), pools_won=0),
        action=make_deal("Ann", "nap", True),
        transfers=(Transfer(POOL, "Ann", 5, "pool won"),),
    )
    with pytest.raises(LedgerBroken):
        check_invariants(players, before, broken)
