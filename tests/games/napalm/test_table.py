"""The table engine against RULES.md, one rule per test.

Every expected number is worked out by hand from RULES.md (the arithmetic is in
the comments), never copied from the engine's output.  Net chips are written
as Ann/Ben/Cat/... in seat order.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from companion.games.napalm.table import (
    POT,
    Challenge,
    Declare,
    GameResult,
    IllegalAction,
    Phase,
    Rules,
    Showdown,
    Stage,
    Table,
    Transfer,
    Void,
    start_position,
)


def make_table(players: str = "Ann Ben Cat Dan", dealer: str | None = None, **rules: int) -> Table:
    return Table(players.split(), dealer, Rules(**rules))


def snapshot(table: Table) -> tuple:
    """Everything a refused action must leave alone."""
    return table.position, table.log, dict(table.voided)


def assert_refused(table: Table, action, match: str) -> None:
    """``action`` is illegal: verify, is_legal and push all say so, and nothing changes."""
    before = snapshot(table)
    assert not table.is_legal(action)
    with pytest.raises(IllegalAction, match=match):
        table.verify(action)
    with pytest.raises(IllegalAction, match=match):
        table.push(action)
    assert snapshot(table) == before


def assert_conserved(table: Table) -> None:
    """sum(net) + pot == 0, and every record's transfers add up to the ledger.

    A pot carried in from the previous night is the opening balance: its chips in the
    pot, each contributor down their share.
    """
    assert sum(table.net_chips.values()) + table.pot == 0
    balance: Counter = Counter({name: -chips for name, chips in table.carried_in.items()})
    balance[POT] = sum(table.carried_in.values())
    for record in table.log:
        for t in record.transfers:
            balance[t.payer] -= t.chips
            balance[t.payee] += t.chips
    for name in table.players:
        assert balance[name] == table.net_chips[name]
    assert balance[POT] == table.pot


def play_quiet_hand(table: Table) -> None:
    """A hand where nobody ever says Yes: only the ante moves."""
    for _ in range(3):
        table.declare([])


# --- the ante -------------------------------------------------------------------------


def test_the_first_declaration_of_a_hand_puts_every_players_ante_in_the_pot():
    table = make_table("Ann Ben Cat Dan Eve", ante=3)
    assert table.pot == 0
    record = table.declare([])
    # 5 players x 3 chips = 15 in the pot; each player is 3 down.
    assert table.pot == 15
    assert table.net_chips == {"Ann": -3, "Ben": -3, "Cat": -3, "Dan": -3, "Eve": -3}
    assert sorted(record.transfers, key=lambda t: t.payer) == [
        Transfer(name, POT, 3, "ante") for name in ("Ann", "Ben", "Cat", "Dan", "Eve")
    ]
    assert_conserved(table)


def test_the_ante_is_paid_once_per_hand_not_once_per_stage():
    table = make_table()  # 4 players, ante 1
    table.declare([])  # stage 1: ante, pot 4
    table.declare([])  # stage 2: no ante
    assert table.pot == 4
    table.declare([])  # stage 3: no ante
    assert table.pot == 4
    table.declare([])  # hand 2, stage 1: 4 more
    assert table.pot == 8
    assert table.net_chips == dict.fromkeys(["Ann", "Ben", "Cat", "Dan"], -2)


def test_an_ante_of_zero_moves_no_chips():
    table = make_table("Ann Ben", ante=0)
    record = table.declare([])
    assert record.transfers == ()
    assert table.pot == 0


def test_with_ante_every_other_hand_only_hands_1_3_and_5_of_a_game_ante():
    table = make_table("Ann Ben Cat", ante_every=2)
    pots = []
    for _ in range(5):
        play_quiet_hand(table)
        pots.append(table.pot)
    # hand 1 antes (3), hand 2 not (3), hand 3 antes (6), hand 4 not (6), hand 5 antes (9)
    assert pots == [3, 3, 6, 6, 9]
    assert table.net_chips == {"Ann": -3, "Ben": -3, "Cat": -3}


def test_ante_every_other_hand_restarts_its_count_with_each_game():
    # Ann, Ben, Cat; dealer Ann, so Ben speaks first.  One token wins a game.
    table = make_table("Ann Ben Cat", "Ann", ante_every=2, tokens_to_win=1)
    table.declare(["Ben"])  # game 1, hand 1 antes: pot 3, then Ben's token ends the game
    assert table.games == (GameResult(number=1, winner="Ben", pot=3, hands=1),)
    assert (table.game_number, table.hand_number) == (2, 1)
    # This is the night's 2nd hand, but the 1st of game 2, so it antes: pot 0 + 3.
    table.declare([])
    assert table.pot == 3
    table.declare([])
    table.declare([])
    # Game 2, hand 2: no ante.
    table.declare([])
    assert table.pot == 3
    # Ben: -1 +3 -1 = +1; Ann and Cat: -1 -1 = -2.
    assert table.net_chips == {"Ann": -2, "Ben": 1, "Cat": -2}
    assert_conserved(table)


# --- who speaks, who deals ------------------------------------------------------------------


def test_players_declare_from_the_dealers_left_clockwise_with_the_dealer_last():
    table = make_table("Ann Ben Cat Dan", "Cat")
    assert table.declaration_order() == ("Dan", "Ann", "Ben", "Cat")


def test_yes_players_are_kept_in_declaration_order_whatever_order_they_were_entered_in():
    table = make_table("Ann Ben Cat Dan", "Cat")
    table.declare(["Cat", "Ann", "Dan"])
    assert table.yes == ("Dan", "Ann", "Cat")
    assert table.phase is Phase.SHOWDOWN


def test_the_first_dealer_is_the_first_seat_unless_named():
    assert make_table().dealer == "Ann"
    assert make_table(dealer="Dan").dealer == "Dan"


def test_the_dealer_moves_one_seat_left_only_after_stage_3():
    table = make_table("Ann Ben Cat Dan", "Cat")
    table.declare([])
    assert (table.dealer, table.stage) == ("Cat", Stage.DEUCE_TO_SEVEN_LOW)
    table.declare([])
    assert (table.dealer, table.stage) == ("Cat", Stage.SEVEN_CARD_HIGH)
    table.declare([])
    assert (table.dealer, table.stage, table.hand_number) == ("Dan", Stage.TWO_CARD_HIGH, 2)
    play_quiet_hand(table)
    # Dan is the last seat: the button goes round to Ann.
    assert table.dealer == "Ann"
    assert table.declaration_order() == ("Ben", "Cat", "Dan", "Ann")


# --- the three outcomes of a declaration ------------------------------------------------------


def test_when_nobody_says_yes_nothing_changes_hands_and_play_moves_to_the_next_stage():
    table = make_table()
    table.declare([])  # ante: pot 4
    record = table.declare([])
    assert record.transfers == () and record.tokens == ()
    assert table.pot == 4
    assert table.tokens == dict.fromkeys(["Ann", "Ben", "Cat", "Dan"], 0)
    assert table.stage is Stage.SEVEN_CARD_HIGH


def test_a_lone_yes_takes_one_token_and_no_chips():
    table = make_table()
    record = table.declare(["Cat"])
    assert record.tokens == (("Cat", 1),)
    assert table.tokens == {"Ann": 0, "Ben": 0, "Cat": 1, "Dan": 0}
    # only the ante moved: pot 4, each -1
    assert table.pot == 4
    assert table.net_chips == dict.fromkeys(["Ann", "Ben", "Cat", "Dan"], -1)
    assert (table.stage, table.phase) == (Stage.DEUCE_TO_SEVEN_LOW, Phase.DECLARE)


def test_a_lone_yes_from_a_player_other_than_the_dealer_needs_no_challenge_round():
    table = make_table(dealer="Ann")
    table.declare(["Dan"])
    assert table.phase is Phase.DECLARE
    assert_refused(table, Challenge(("Ben",)), "only allowed when")


def test_the_dealer_alone_saying_yes_opens_the_challenge_round():
    table = make_table(dealer="Ben")
    record = table.declare(["Ben"])
    assert record.tokens == ()
    assert table.phase is Phase.CHALLENGE
    assert table.stage is Stage.TWO_CARD_HIGH
    assert "Ben" in table.prompt()


def test_when_nobody_challenges_the_dealer_takes_the_token():
    table = make_table(dealer="Ben")
    table.declare(["Ben"])
    record = table.challenge([])
    assert record.tokens == (("Ben", 1),)
    assert table.tokens["Ben"] == 1
    assert (table.stage, table.phase) == (Stage.DEUCE_TO_SEVEN_LOW, Phase.DECLARE)


def test_challengers_join_the_dealer_in_a_showdown_in_declaration_order():
    table = make_table("Ann Ben Cat Dan", "Ben")  # order: Cat, Dan, Ann, Ben
    table.declare(["Ben"])
    record = table.challenge(["Ann", "Cat"])
    assert record.tokens == () and record.transfers == ()
    assert table.phase is Phase.SHOWDOWN
    assert table.yes == ("Cat", "Ann", "Ben")
    # pot 4; Ann wins: Cat and Ben pay her 4 each.
    table.showdown(["Ann"])
    # Ann -1+8 = 7; Ben -1-4 = -5; Cat -5; Dan -1.
    assert table.net_chips == {"Ann": 7, "Ben": -5, "Cat": -5, "Dan": -1}
    assert table.tokens == dict.fromkeys(["Ann", "Ben", "Cat", "Dan"], 0)
    assert_conserved(table)


def test_the_dealer_can_win_the_showdown_against_challengers():
    table = make_table("Ann Ben Cat", "Ann")
    table.declare(["Ann"])  # pot 3
    table.challenge(["Cat"])
    table.showdown(["Ann"])
    # Cat pays Ann 3: Ann -1+3 = 2, Ben -1, Cat -1-3 = -4
    assert table.net_chips == {"Ann": 2, "Ben": -1, "Cat": -4}


def test_a_heads_up_dealer_alone_saying_yes_can_be_challenged_by_the_other_player():
    table = make_table("Ann Ben", "Ann")
    table.declare(["Ann"])
    assert table.phase is Phase.CHALLENGE
    table.challenge(["Ben"])
    assert table.yes == ("Ben", "Ann")


# --- side bets ---------------------------------------------------------------------------------


def test_each_losing_yes_pays_the_pot_to_the_single_winner():
    table = make_table("Ann Ben Cat Dan", "Dan")
    table.declare(["Ann", "Ben", "Cat"])  # pot 4
    record = table.showdown(["Ben"])
    assert sorted(record.transfers, key=lambda t: t.payer) == [
        Transfer("Ann", "Ben", 4, "side bet"),
        Transfer("Cat", "Ben", 4, "side bet"),
    ]
    # Ben -1+4+4 = 7; Ann, Cat -1-4 = -5; Dan -1.
    assert table.net_chips == {"Ann": -5, "Ben": 7, "Cat": -5, "Dan": -1}
    assert record.winners == ("Ben",)
    assert record.tokens == ()
    assert record.summary == "Ben won; Ann and Cat paid 4 each."


def test_one_losing_yes_is_said_to_pay_the_pot_without_each():
    """"Ben won; Eve paid 10 each" read as if Eve paid several (issue 20, item 14)."""
    table = make_table("Ann Ben Cat Dan", "Dan")
    table.declare(["Ann", "Ben"])  # antes: pot 4
    record = table.showdown(["Ben"])
    assert record.summary == "Ben won; Ann paid 4."


def test_two_winners_and_three_losers_each_loser_pays_twice_the_pot_each_winner_gets_it_three_times():
    table = make_table("Ann Ben Cat Dan Eve", "Eve")
    table.declare(["Ann", "Ben", "Cat", "Dan", "Eve"])  # pot 5 (5 x 1)
    record = table.showdown(["Ann", "Ben"])
    # Each of Cat, Dan, Eve pays 5 to Ann and 5 to Ben: 2 x 5 = 10 each, -1-10 = -11.
    # Ann and Ben each receive 3 x 5 = 15: -1+15 = 14.
    assert table.net_chips == {"Ann": 14, "Ben": 14, "Cat": -11, "Dan": -11, "Eve": -11}
    assert len(record.transfers) == 6
    assert {(t.payer, t.payee) for t in record.transfers} == {
        (loser, winner) for loser in ("Cat", "Dan", "Eve") for winner in ("Ann", "Ben")
    }
    assert all(t.chips == 5 for t in record.transfers)
    # winners pay each other nothing; the pot is untouched and no token is given
    assert not any({t.payer, t.payee} == {"Ann", "Ben"} for t in record.transfers)
    assert table.pot == 5
    assert table.tokens == dict.fromkeys(table.players, 0)
    assert_conserved(table)


def test_when_every_yes_player_ties_nothing_changes_hands():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben", "Cat"])  # pot 3
    record = table.showdown(["Ann", "Ben", "Cat"])
    assert record.transfers == ()
    assert record.tokens == ()
    assert table.net_chips == {"Ann": -1, "Ben": -1, "Cat": -1}
    assert table.pot == 3
    assert table.stage is Stage.DEUCE_TO_SEVEN_LOW


def test_side_bets_are_the_pot_at_that_moment_so_they_grow_with_the_antes():
    table = make_table("Ann Ben", "Ben")
    play_quiet_hand(table)  # pot 2
    table.declare(["Ann", "Ben"])  # hand 2 ante: pot 4
    table.showdown(["Ben"])
    # Ann pays 4: Ann -2-4 = -6, Ben -2+4 = 2
    assert table.net_chips == {"Ann": -6, "Ben": 2}
    assert table.pot == 4


# --- the token that ends a game ------------------------------------------------------------


def test_the_token_that_reaches_the_target_ends_the_game_at_once_in_the_middle_of_a_hand():
    table = make_table("Ann Ben Cat", "Ann", tokens_to_win=2)
    table.declare(["Ben"])  # stage 1: ante, pot 3; Ben 1 token
    record = table.declare(["Ben"])  # stage 2: Ben's 2nd token, the target
    assert record.game_won == GameResult(number=1, winner="Ben", pot=3, hands=1)
    assert record.transfers == (Transfer(POT, "Ben", 3, "pot"),)
    # Ben -1+3 = 2; Ann, Cat -1.  The pot is emptied.
    assert table.net_chips == {"Ann": -1, "Ben": 2, "Cat": -1}
    assert table.pot == 0
    # Stage 3 of that hand is not played: game 2 starts at stage 1, button one seat left.
    assert (table.game_number, table.hand_number, table.stage) == (2, 1, Stage.TWO_CARD_HIGH)
    assert table.dealer == "Ben"
    assert table.tokens == {"Ann": 0, "Ben": 0, "Cat": 0}
    assert table.games == (GameResult(1, "Ben", 3, 1),)
    # The next hand antes afresh: pot 3, everyone one more chip down.
    table.declare([])
    assert table.pot == 3
    assert table.net_chips == {"Ann": -2, "Ben": 1, "Cat": -2}
    assert_conserved(table)


def test_a_dealer_unchallenged_can_win_the_game():
    table = make_table("Ann Ben", "Ann", tokens_to_win=1)
    table.declare(["Ann"])  # pot 2
    record = table.challenge([])
    assert record.game_won == GameResult(1, "Ann", 2, 1)
    # Ann -1+2 = 1, Ben -1
    assert table.net_chips == {"Ann": 1, "Ben": -1}
    assert table.dealer == "Ben"


def test_no_token_count_ever_passes_the_target():
    table = make_table("Ann Ben", "Ann", tokens_to_win=3)
    for _ in range(10):
        table.declare(["Ben"])
        if table.phase is Phase.CHALLENGE:  # Ben deals every other hand
            table.challenge([])
        assert max(table.tokens.values()) < 3
    # 10 tokens at 3 a game: games won at tokens 3, 6, 9; one token into game 4.
    assert [g.winner for g in table.games] == ["Ben", "Ben", "Ben"]
    assert table.tokens == {"Ann": 0, "Ben": 1}


# --- cards decide the showdown ------------------------------------------------------------


def test_at_stage_1_a_pair_beats_ace_king_and_the_higher_pair_wins():
    table = make_table("Ann Ben Cat Dan", "Dan")
    table.declare(["Ann", "Ben", "Cat"])
    record = table.showdown(cards={"Ann": "AhKh", "Ben": "2c2d", "Cat": "3s3h"})
    assert record.winners == ("Cat",)


def test_at_stage_1_the_top_card_then_the_second_card_decide_and_suits_do_not():
    table = make_table("Ann Ben Cat Dan", "Dan")
    table.declare(["Ann", "Ben", "Cat"])
    # A-Q beats A-J and K-Q; the flush and straight in K-Q hearts mean nothing.
    record = table.showdown(cards={"Ann": "AcQd", "Ben": "AdJd", "Cat": "KhQh"})
    assert record.winners == ("Ann",)


def test_at_stage_1_three_two_is_the_worst_hand():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    record = table.showdown(cards={"Ann": "3c2d", "Ben": "4c2h"})
    assert record.winners == ("Ben",)


def test_at_stage_1_the_same_ranks_in_other_suits_tie():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben", "Cat"])  # pot 3
    record = table.showdown(cards={"Ann": "AhKd", "Ben": "AsKc", "Cat": "QhJh"})
    assert record.winners == ("Ann", "Ben")
    # Cat pays 3 to each: Cat -1-6 = -7, Ann and Ben -1+3 = 2
    assert table.net_chips == {"Ann": 2, "Ben": 2, "Cat": -7}


def _to_stage_2(table: Table) -> None:
    table.declare([])


def test_at_stage_2_the_lowest_hand_wins_deuce_to_seven():
    table = make_table("Ann Ben Cat", "Cat")
    _to_stage_2(table)
    table.declare(["Ann", "Ben", "Cat"])
    # 7-5-4-3-2 offsuit is the best low; 8-6-4-3-2 and a pair of twos are worse.
    record = table.showdown(cards={"Ann": "8h6d4c3s2h", "Ben": "7s5d4h3c2d", "Cat": "2s2c4d5h6c"})
    assert record.winners == ("Ben",)


def test_at_stage_2_ace_to_five_is_only_ace_high_and_loses_to_king_high():
    table = make_table("Ann Ben", "Ben")
    _to_stage_2(table)
    table.declare(["Ann", "Ben"])
    record = table.showdown(cards={"Ann": "As2d3c4h5s", "Ben": "Kd9c7h5h3d"})
    assert record.winners == ("Ben",)


def test_at_stage_2_straights_and_flushes_count_against_you():
    table = make_table("Ann Ben Cat", "Cat")
    _to_stage_2(table)
    table.declare(["Ann", "Ben", "Cat"])
    # 6-5-4-3-2 is a straight and 9-7-5-3-2 of hearts a flush: 8-7-5-4-3 mixed is lower than both.
    record = table.showdown(cards={"Ann": "6d5c4h3s2d", "Ben": "9h7h5h3h2h", "Cat": "8c7d5s4c3d"})
    assert record.winners == ("Cat",)


def test_at_stage_3_the_best_five_of_seven_wins_and_ace_to_five_is_a_straight():
    table = make_table("Ann Ben", "Ben")
    table.declare([])
    table.declare([])
    table.declare(["Ann", "Ben"])
    # Ann: A-2-3-4-5 (a straight, with kings to spare); Ben: three queens.
    record = table.showdown(cards={"Ann": "As2d3c4h5sKdKc", "Ben": "QhQdQs9c8d7h2c"})
    assert record.winners == ("Ann",)


def test_at_stage_3_a_flush_beats_a_straight():
    table = make_table("Ann Ben", "Ben")
    table.declare([])
    table.declare([])
    table.declare(["Ann", "Ben"])
    record = table.showdown(cards={"Ann": "9s8d7c6h5sAdAc", "Ben": "2h4h7h8hThKsKd"})
    assert record.winners == ("Ben",)


def test_cards_and_tapped_winners_that_agree_are_accepted():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    record = table.showdown(["Ann"], cards={"Ann": "AhAd", "Ben": "KhKd"})
    assert record.winners == ("Ann",)


def test_cards_and_tapped_winners_that_disagree_are_refused():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    assert_refused(
        table,
        Showdown(winners=("Ben",), cards=(("Ann", "AhAd"), ("Ben", "KhKd"))),
        "the cards say Ann won, not Ben",
    )


def test_a_tie_by_cards_must_be_tapped_as_a_tie():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    cards = (("Ann", "AhKd"), ("Ben", "AsKc"))
    assert_refused(table, Showdown(winners=("Ann",), cards=cards), "the cards say")
    record = table.push(Showdown(winners=("Ann", "Ben"), cards=cards))
    assert record.winners == ("Ann", "Ben")
    assert record.transfers == ()


def test_cards_shown_at_stage_1_may_be_shown_again_by_the_same_player_at_stage_3():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben"])
    table.showdown(cards={"Ann": "AhAd", "Ben": "KhKd"})  # Ann wins 3 from Ben
    table.declare([])
    table.declare(["Ann", "Ben"])
    record = table.showdown(cards={"Ann": "AhAd2c3c4c9c7d", "Ben": "KhKdKcKs2d3d4d"})
    assert record.winners == ("Ben",)  # four kings beat a pair of aces
    # Ann +3-3, Ben -3+3: both back to the ante, -1; Cat -1.
    assert table.net_chips == {"Ann": -1, "Ben": -1, "Cat": -1}


def test_a_new_hand_is_a_new_deck_so_earlier_cards_may_be_shown_by_anyone():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    table.showdown(cards={"Ann": "AhAd", "Ben": "KhKd"})
    table.declare([])
    table.declare([])
    table.declare(["Ann", "Ben"])  # hand 2
    record = table.showdown(cards={"Ann": "KhKd", "Ben": "AhAd"})
    assert record.winners == ("Ben",)


# --- illegal actions change nothing ----------------------------------------------------------


def test_a_challenge_is_refused_while_declarations_are_awaited():
    table = make_table()
    assert_refused(table, Challenge(("Ben",)), "only allowed when")


def test_a_challenge_is_refused_when_someone_besides_the_dealer_said_yes():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Cat"])
    assert_refused(table, Challenge(("Ben",)), "only allowed when")


def test_the_dealer_cannot_challenge_his_own_yes():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Cat"])
    assert_refused(table, Challenge(("Cat",)), "is the dealer")
    assert_refused(table, Challenge(("Ann", "Cat")), "is the dealer")


def test_a_player_listed_twice_is_refused():
    table = make_table("Ann Ben Cat", "Cat")
    assert_refused(table, Declare(("Ann", "Ben", "Ann")), "listed twice")
    table.declare(["Cat"])
    assert_refused(table, Challenge(("Ben", "Ben")), "listed twice")
    table.challenge(["Ben"])
    assert_refused(table, Showdown(winners=("Ben", "Ben")), "listed twice")


def test_an_unknown_player_is_refused():
    table = make_table("Ann Ben Cat", "Cat")
    assert_refused(table, Declare(("Zed",)), "'Zed' is not at this table")
    table.declare(["Cat"])
    assert_refused(table, Challenge(("Zed",)), "not at this table")


def test_a_winner_who_did_not_say_yes_is_refused():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben"])
    assert_refused(table, Showdown(winners=("Cat",)), "Cat did not say Yes")
    assert_refused(table, Showdown(winners=()), "at least one winner")
    assert_refused(table, Showdown(), "tap the winner")


def test_the_wrong_number_of_cards_for_the_stage_is_refused():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    assert_refused(table, Showdown(cards=(("Ann", "AhAdKs"), ("Ben", "KhKd"))), "stage 1 needs 2 cards for Ann, got 3")
    table.showdown(["Ann"])
    table.declare(["Ann", "Ben"])
    assert_refused(table, Showdown(cards=(("Ann", "2c3d4h5s7c"), ("Ben", "2d3h4s5c"))), "stage 2 needs 5 cards")


def test_cards_must_be_entered_for_every_yes_player_and_only_for_them():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben"])
    assert_refused(table, Showdown(cards=(("Ann", "AhAd"),)), "Ben missing")
    assert_refused(
        table, Showdown(cards=(("Ann", "AhAd"), ("Ben", "KhKd"), ("Cat", "QhQd"))), "Cat did not say Yes"
    )
    assert_refused(table, Showdown(cards=(("Ann", "AhXx"), ("Ben", "KhKd"))), "Ann's cards")


def test_a_card_shown_by_two_players_in_one_showdown_is_refused():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    assert_refused(table, Showdown(cards=(("Ann", "AhAd"), ("Ben", "AhKd"))), "Ah is shown twice")


def test_a_card_shown_by_one_player_at_stage_1_cannot_be_shown_by_another_later_in_the_hand():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben"])
    table.showdown(cards={"Ann": "AhAd", "Ben": "KhKd"})
    table.declare(["Ben", "Cat"])
    # Cat cannot hold Ann's ace of hearts: it was shown at stage 1 of this hand.
    assert_refused(
        table,
        Showdown(cards=(("Ben", "KhKd2c3c4c"), ("Cat", "Ah7d5s4s3s"))),
        "Ah is shown twice in this hand",
    )


def test_a_players_later_cards_must_include_the_cards_shown_earlier_in_the_hand():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    table.showdown(cards={"Ann": "AhAd", "Ben": "KhKd"})
    table.declare(["Ann", "Ben"])
    assert_refused(table, Showdown(cards=(("Ann", "7c5d4h3s2c"), ("Ben", "KhKd2d3d4d"))), "must include them")


def test_declaring_during_a_showdown_is_refused():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ann", "Ben"])
    assert_refused(table, Declare(()), "record who won")


def test_declaring_during_the_challenge_round_is_refused():
    table = make_table("Ann Ben", "Ben")
    table.declare(["Ben"])
    assert_refused(table, Declare(()), "record who challenges first")


def test_a_showdown_before_the_declarations_is_refused():
    table = make_table("Ann Ben", "Ben")
    assert_refused(table, Showdown(winners=("Ann",)), "no showdown yet")
    table.declare(["Ben"])
    assert_refused(table, Showdown(winners=("Ben",)), "record who challenges first")


def test_undoing_with_nothing_recorded_is_refused():
    table = make_table()
    assert not table.can_void()
    assert_refused(table, Void(), "nothing to undo")


def test_rules_outside_the_settings_are_refused():
    with pytest.raises(IllegalAction):
        Rules(ante_every=3)
    with pytest.raises(IllegalAction):
        Rules(tokens_to_win=0)
    with pytest.raises(IllegalAction):
        Rules(ante=-1)
    with pytest.raises(IllegalAction):
        Rules(ante=True)


def test_a_table_needs_two_to_seven_distinctly_named_players():
    with pytest.raises(IllegalAction, match="2 to 7 players"):
        Table(["Ann"])
    with pytest.raises(IllegalAction, match="2 to 7 players"):
        Table([f"P{i}" for i in range(8)])
    with pytest.raises(IllegalAction, match="two players are called"):
        Table(["Ann", "ann"])
    with pytest.raises(IllegalAction, match="first dealer"):
        Table(["Ann", "Ben"], "Zed")


# --- void --------------------------------------------------------------------------------------


def test_voiding_the_latest_action_restores_exactly_the_previous_position():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben"])
    before = table.position
    table.showdown(cards={"Ann": "AhAd", "Ben": "KhKd"})
    assert table.position != before
    table.void()
    assert table.position == before
    # The same showdown can be recorded again: the cards are no longer "shown".
    table.showdown(cards={"Ann": "AhAd", "Ben": "KhKd"})


def test_repeated_voids_walk_back_one_action_at_a_time_to_the_start():
    table = make_table("Ann Ben Cat", "Cat")
    positions = [table.position]
    table.declare(["Cat"])
    positions.append(table.position)
    table.challenge(["Ann"])
    positions.append(table.position)
    table.showdown(["Ann"])
    for expected in reversed(positions):
        table.void()
        assert table.position == expected
    assert table.position == start_position(table.players, "Cat")
    assert not table.can_void()
    assert table.net_chips == {"Ann": 0, "Ben": 0, "Cat": 0}


def test_voided_records_stay_in_the_log_and_are_marked():
    table = make_table("Ann Ben", "Ben")
    first = table.declare(["Ann"])  # seq 1
    second = table.declare(["Ann", "Ben"])  # seq 2
    void_of_second = table.void()  # seq 3 undoes 2
    void_of_first = table.void()  # seq 4 undoes 1
    assert [r.seq for r in table.log] == [1, 2, 3, 4]
    assert table.log[0] == first and table.log[1] == second
    assert table.voided == {2: 3, 1: 4}
    assert (void_of_second.voids, void_of_first.voids) == (2, 1)
    assert table.live_records() == []
    again = table.declare([])
    assert again.seq == 5
    assert table.live_records() == [again]


def test_a_void_record_reverses_the_transfers_of_the_voided_one():
    table = make_table("Ann Ben Cat", "Cat")
    table.declare(["Ann", "Ben", "Cat"])  # ante: pot 3
    shown = table.showdown(["Ann"])  # Ben and Cat pay Ann 3 each
    undo = table.void()
    assert undo.transfers == tuple(
        Transfer(t.payee, t.payer, t.chips, "undo") for t in reversed(shown.transfers)
    )
    assert table.net_chips == {"Ann": -1, "Ben": -1, "Cat": -1}
    assert_conserved(table)


def test_voiding_the_game_winning_token_reopens_the_game_and_refills_the_pot():
    table = make_table("Ann Ben", "Ann", tokens_to_win=1)
    table.declare([])  # pot 2
    before = table.position
    won = table.declare(["Ben"])  # Ben's token wins the pot of 2
    assert won.game_won is not None
    undo = table.void()
    assert table.position == before
    assert undo.tokens == (("Ben", -1),)
    assert undo.transfers == (Transfer("Ben", POT, 2, "undo"),)
    assert table.games == ()
    assert table.pot == 2
    assert_conserved(table)


def test_a_second_void_undoes_the_action_before_not_the_first_void():
    table = make_table("Ann Ben")
    table.declare([])
    table.declare([])
    table.void()
    table.void()
    assert table.position == start_position(table.players, None)
    assert_refused(table, Void(), "nothing to undo")


# --- conservation and whole games --------------------------------------------------------------


def test_chips_are_conserved_after_every_action_of_a_busy_hand():
    table = make_table("Ann Ben Cat Dan", "Dan")
    steps = [
        lambda: table.declare(["Ann", "Ben", "Cat", "Dan"]),
        lambda: table.showdown(["Ann", "Cat"]),
        lambda: table.declare(["Dan"]),
        lambda: table.challenge(["Ben"]),
        lambda: table.showdown(["Ben"]),
        lambda: table.void(),
        lambda: table.showdown(["Dan"]),
        lambda: table.declare(["Cat"]),
    ]
    for step in steps:
        step()
        assert_conserved(table)


def test_full_game_three_players_with_a_challenge_and_an_early_finish():
    """Ann, Ben, Cat; dealer Ann; ante 1 every hand; 2 tokens win."""
    table = make_table("Ann Ben Cat", "Ann", tokens_to_win=2)
    # Hand 1, dealer Ann.  Ante: pot 3; Ann -1, Ben -1, Cat -1.
    table.declare(["Ben", "Cat"])
    table.showdown(["Cat"])  # Ben pays Cat 3: Ann -1, Ben -4, Cat 2
    table.declare(["Ann"])  # the dealer alone
    table.challenge([])  # unchallenged: Ann 1 token
    table.declare(["Ben"])  # Ben 1 token
    assert table.net_chips == {"Ann": -1, "Ben": -4, "Cat": 2}
    # Hand 2, dealer Ben.  Ante: pot 6; Ann -2, Ben -5, Cat 1.
    table.declare(["Ann", "Ben", "Cat"])
    table.showdown(["Ann"])  # Ben and Cat pay Ann 6 each: Ann -2+12 = 10, Ben -11, Cat -5
    table.declare([])
    table.declare(["Ben"])  # the dealer alone
    table.challenge(["Cat"])
    table.showdown(["Ben"])  # Cat pays Ben 6: Ben -5, Cat -11
    assert table.net_chips == {"Ann": 10, "Ben": -5, "Cat": -11}
    # Hand 3, dealer Cat.  Ante: pot 9; Ann 9, Ben -6, Cat -12.
    table.declare(["Ann"])  # Ann's 2nd token: she takes the 9: Ann 18
    assert table.net_chips == {"Ann": 18, "Ben": -6, "Cat": -12}
    assert table.pot == 0
    assert table.games == (GameResult(1, "Ann", 9, 3),)
    # Next game: dealer one seat left of Cat, i.e. Ann.
    assert (table.game_number, table.hand_number, table.dealer, table.stage) == (2, 1, "Ann", Stage.TWO_CARD_HIGH)
    assert_conserved(table)


def test_full_game_four_players_ante_every_other_hand_with_cards():
    """Ann, Ben, Cat, Dan; dealer Dan; ante 2 on hands 1, 3, 5...; 3 tokens win."""
    table = make_table("Ann Ben Cat Dan", "Dan", ante=2, ante_every=2, tokens_to_win=3)
    # Hand 1, dealer Dan, antes: pot 4 x 2 = 8; everyone -2.
    table.declare(["Ann", "Ben"])
    table.showdown(cards={"Ann": "QhQd", "Ben": "AsKs"})  # queens beat A-K: Ben pays 8, Ann 6, Ben -10
    table.declare(["Ann"])  # Ann 1 token
    table.declare(["Ben", "Cat", "Dan"])
    table.showdown(["Ben", "Cat"])  # Dan pays 8 to each: Ben -2, Cat 6, Dan -18
    assert table.net_chips == {"Ann": 6, "Ben": -2, "Cat": 6, "Dan": -18}
    # Hand 2, dealer Ann, no ante: pot stays 8.
    table.declare(["Ann"])
    table.challenge(["Ben", "Dan"])
    table.showdown(["Dan"])  # Ann and Ben pay Dan 8 each: Ann -2, Ben -10, Dan -2
    table.declare(["Cat"])  # Cat 1 token
    table.declare(["Ann"])  # Ann deals, so her lone Yes may be challenged
    table.challenge([])  # nobody does: Ann 2 tokens
    assert table.pot == 8
    assert table.net_chips == {"Ann": -2, "Ben": -10, "Cat": 6, "Dan": -2}
    # Hand 3, dealer Ben, antes: pot 16; Ann -4, Ben -12, Cat 4, Dan -4.
    table.declare([])
    table.declare(["Cat", "Ann"])
    table.showdown(cards={"Ann": "7s5h4d3c2s", "Cat": "7d5c4h3h2d"})  # both 7-5-4-3-2: a tie, nothing moves
    table.declare(["Ann"])  # Ann's 3rd token: she takes 16, Ann 12
    assert table.net_chips == {"Ann": 12, "Ben": -12, "Cat": 4, "Dan": -4}
    assert table.games == (GameResult(1, "Ann", 16, 3),)
    # Game 2: dealer Cat (left of Ben); its 1st hand antes again: pot 8.
    assert table.dealer == "Cat" and table.pot == 0
    table.declare([])
    assert table.pot == 8
    assert_conserved(table)


def test_full_night_five_players_two_games_each_ending_mid_hand():
    """Ann, Ben, Cat, Dan, Eve; dealer Ben; ante 1 every hand; 2 tokens win."""
    table = make_table("Ann Ben Cat Dan Eve", "Ben", tokens_to_win=2)
    # Game 1, hand 1, dealer Ben.  Ante: pot 5; everyone -1.
    table.declare(["Cat", "Dan", "Eve", "Ann", "Ben"])
    table.showdown(["Ann", "Ben"])  # Cat, Dan, Eve pay 5 to each: Ann 14, Ben 14, Cat/Dan/Eve -11
    table.declare(["Eve"])  # Eve 1 token
    table.declare([])
    # Hand 2, dealer Cat.  Ante: pot 10; Ann 13, Ben 13, Cat -12, Dan -12, Eve -12.
    table.declare(["Eve"])  # Eve's 2nd token at stage 1: she takes 10, Eve -2
    assert table.net_chips == {"Ann": 13, "Ben": 13, "Cat": -12, "Dan": -12, "Eve": -2}
    assert table.games == (GameResult(1, "Eve", 10, 2),)
    # Game 2, hand 1, dealer Dan (left of Cat).  Ante: pot 5; Ann 12, Ben 12, Cat -13, Dan -13, Eve -3.
    assert table.dealer == "Dan"
    assert table.declaration_order() == ("Eve", "Ann", "Ben", "Cat", "Dan")
    table.declare(["Dan"])
    table.challenge(["Ben", "Eve"])
    assert table.yes == ("Eve", "Ben", "Dan")
    table.showdown(cards={"Eve": "AhAs", "Ben": "AdAc", "Dan": "KhKs"})  # aces tie: Dan pays 5 to each
    # Dan -23, Eve 2, Ben 17
    table.declare(["Cat"])  # Cat 1 token
    table.declare(["Cat", "Ann"])
    # Cat four queens, Ann a jack-high straight flush: Ann wins, Cat pays 5: Cat -18, Ann 17.
    table.showdown(cards={"Cat": "QhQsQdQc2h3h4h", "Ann": "JhTh9h8h7h2c3c"})
    assert table.net_chips == {"Ann": 17, "Ben": 17, "Cat": -18, "Dan": -23, "Eve": 2}
    # Hand 2, dealer Eve.  Ante: pot 10; Ann 16, Ben 16, Cat -19, Dan -24, Eve 1.
    table.declare([])
    table.declare(["Cat"])  # Cat's 2nd token at stage 2: she takes 10, Cat -9
    assert table.net_chips == {"Ann": 16, "Ben": 16, "Cat": -9, "Dan": -24, "Eve": 1}
    assert table.games == (GameResult(1, "Eve", 10, 2), GameResult(2, "Cat", 10, 2))
    # Game 3 would start with Ann dealing (left of Eve), pot 0, no tokens.
    assert (table.game_number, table.dealer, table.pot) == (3, "Ann", 0)
    assert set(table.tokens.values()) == {0}
    assert_conserved(table)


def test_full_game_heads_up_to_five_tokens_with_default_rules():
    """Ann and Ben; dealer Ann; default rules (ante 1 every hand, 5 tokens)."""
    table = make_table("Ann Ben", "Ann")
    # Hand 1 (dealer Ann): pot 2, both -1.  Ben takes stage 1, Ann stage 2 unchallenged.
    table.declare(["Ben"])  # Ben 1
    table.declare(["Ann"])
    table.challenge([])  # Ann 1
    table.declare(["Ann", "Ben"])
    table.showdown(["Ben"])  # Ann pays 2: Ann -3, Ben 1
    # Hand 2 (dealer Ben): pot 4, Ann -4, Ben 0.
    table.declare(["Ben"])
    table.challenge(["Ann"])
    table.showdown(["Ann"])  # Ben pays 4: Ann 0, Ben -4
    table.declare(["Ben"])
    table.challenge([])  # Ben 2
    table.declare(["Ben"])
    table.challenge([])  # Ben 3
    # Hand 3 (dealer Ann): pot 6, Ann -1, Ben -5.
    table.declare([])
    table.declare(["Ben"])  # Ben 4
    table.declare(["Ann", "Ben"])
    table.showdown(["Ann", "Ben"])  # a tie: nothing
    assert table.tokens == {"Ann": 1, "Ben": 4}
    # Hand 4 (dealer Ben): pot 8, Ann -2, Ben -6.
    table.declare(["Ann"])  # Ann 2
    table.declare(["Ben"])
    table.challenge([])  # Ben's 5th token: he takes 8, Ben 2
    assert table.net_chips == {"Ann": -2, "Ben": 2}
    assert table.games == (GameResult(1, "Ben", 8, 4),)
    assert (table.game_number, table.dealer) == (2, "Ann")
    assert_conserved(table)


# --- a pot carried in from the previous night ----------------------------------------------------


def carried_table(**rules: int) -> Table:
    """Ann, Ben, Cat, Dan; Ann deals; Friday's unfinished pot held 2 chips of Ann, Ben and Cat."""
    return Table(["Ann", "Ben", "Cat", "Dan"], "Ann", Rules(**rules), carried_in={"Ann": 2, "Ben": 2, "Cat": 2})


def test_a_carried_in_pot_starts_the_first_games_pot_and_its_contributors_owe_their_share():
    t = carried_table()
    # pot 2 + 2 + 2 = 6; Ann/Ben/Cat start at -2, Dan (not there on Friday) at 0: -6 + 6 = 0.
    assert t.pot == 6
    assert t.net_chips == {"Ann": -2, "Ben": -2, "Cat": -2, "Dan": 0}
    assert t.carried_in == {"Ann": 2, "Ben": 2, "Cat": 2}
    assert t.in_pot == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 0}
    assert t.log == () and not t.can_void()  # it is the starting position, not an action
    assert_conserved(t)


def test_the_winner_of_the_first_game_takes_the_carried_pot_with_the_antes():
    t = carried_table(tokens_to_win=2)
    # Hand 1, Ann deals (Ben, Cat, Dan, Ann).  S1: ante 1 each: pot 6 + 4 = 10,
    # nets -3/-3/-3/-1.  Ben alone: a token.
    t.declare(["Ben"])
    assert t.pot == 10 and t.net_chips == {"Ann": -3, "Ben": -3, "Cat": -3, "Dan": -1}
    # S2: Cat and Dan; Dan wins: Cat pays him the pot, 10 (the carried chips count): Cat -13, Dan 9.
    t.declare(["Cat", "Dan"])
    t.showdown(["Dan"])
    assert t.net_chips == {"Ann": -3, "Ben": -3, "Cat": -13, "Dan": 9}
    # S3: Ben alone: his 2nd token; he takes the pot of 10: -3 + 10 = 7.  Sum -3 + 7 - 13 + 9 = 0.
    record = t.declare(["Ben"])
    assert record.game_won == GameResult(number=1, winner="Ben", pot=10, hands=1)
    assert Transfer(POT, "Ben", 10, "pot") in record.transfers
    assert t.net_chips == {"Ann": -3, "Ben": 7, "Cat": -13, "Dan": 9}
    assert t.pot == 0 and t.game_number == 2
    assert t.in_pot == {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}
    assert_conserved(t)
    # Game 2 starts empty: Ben deals, the ante makes 4.
    t.declare([])
    assert t.pot == 4 and t.in_pot == {"Ann": 1, "Ben": 1, "Cat": 1, "Dan": 1}


def test_undoing_never_removes_the_carried_pot():
    t = carried_table(tokens_to_win=1)
    t.declare(["Dan"])  # ante (pot 10), and Dan's token wins game 1: Dan -1 + 10 = 9
    assert (t.pot, t.net_chips["Dan"], t.game_number) == (0, 9, 2)
    t.void()  # the game is open again, with the carried chips in its pot
    assert t.pot == 6 and t.net_chips == {"Ann": -2, "Ben": -2, "Cat": -2, "Dan": 0}
    assert t.position == start_position(t.players, "Ann", {"Ann": 2, "Ben": 2, "Cat": 2})
    assert not t.can_void()
    assert_refused(t, Void(), "nothing to undo")
    assert_conserved(t)


def test_every_contributor_to_a_carried_pot_must_be_seated():
    with pytest.raises(IllegalAction) as refused:
        Table(["Ann", "Ben"], "Ann", Rules(), carried_in={"Ann": 2, "Gus": 3})
    assert str(refused.value) == "the carried pot holds 3 chips of Gus, who is not seated tonight"
    with pytest.raises(IllegalAction, match="^the carried pot holds 1 chip of Gus, who"):
        Table(["Ann", "Ben"], "Ann", Rules(), carried_in={"Gus": 1})


@pytest.mark.parametrize(
    ("carried_in", "message"),
    [
        ({"Ann": 0}, "Ann's share of the carried pot must be a whole number of chips, 1 or more, not 0"),
        ({"Ann": -2}, "1 or more, not -2"),
        ({"Ann": 1.5}, "1 or more, not 1.5"),
        ({"Ann": True}, "1 or more, not True"),
        ({"Ann": "2"}, "1 or more, not '2'"),
        ({"Ann": 10**13}, "more than 1,000,000,000,000 chips"),
        ({"Ann": 2, "ann": 1}, "Ann is listed twice in the carried pot"),
        ({"": 2}, "needs a player's name"),
        ([("Ann", 2)], "must list each contributor's chips"),
    ],
)
def test_a_carried_pot_holds_positive_whole_shares_of_known_players(carried_in, message):
    with pytest.raises(IllegalAction, match=re.escape(message)):
        Table(["Ann", "Ben"], "Ann", Rules(), carried_in=carried_in)


def test_carried_names_are_matched_like_every_other_name_and_kept_in_seat_order():
    t = Table(["Ann", "Ben", "Cat"], None, Rules(), carried_in={"cat": 1, " ANN ": 4})
    assert t.carried_in == {"Ann": 4, "Cat": 1}
    assert t.pot == 5 and t.net_chips == {"Ann": -4, "Ben": 0, "Cat": -1}
    assert Table(["Ann", "Ben"], None, Rules(), carried_in={}).pot == 0
