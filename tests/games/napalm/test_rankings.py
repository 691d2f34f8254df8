"""The three rankings of RULES.md ("Stages"), checked against hands worked out by hand.

Greater strength means the better hand *for that stage*, so at stage 2 the
lowest poker hand has the greatest strength.
"""

from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.napalm.cards import Card, CardError, parse_cards
from companion.games.napalm.rankings import CARDS_PER_STAGE, HandStrength, best_hands, hand_strength

DECK = [Card(rank, suit) for rank in range(2, 15) for suit in "cdhs"]


def strength(stage: int, text: str) -> HandStrength:
    return hand_strength(stage, parse_cards(text))


def one(text: str) -> HandStrength:
    return strength(1, text)


def low(text: str) -> HandStrength:
    return strength(2, text)


def high(text: str) -> HandStrength:
    return strength(3, text)


def test_each_stage_deals_its_number_of_cards():
    assert CARDS_PER_STAGE == {1: 2, 2: 5, 3: 7}


# --- stage 1: two-card high -------------------------------------------------


def test_a_pair_of_aces_is_the_best_two_card_hand():
    aces = one("AsAh")
    for cards in combinations(DECK, 2):
        assert hand_strength(1, cards) <= aces
    assert one("AcAd") == aces


def test_any_pair_beats_ace_king():
    assert one("2c2d") > one("AsKs")
    assert one("3c3d") > one("AsKd")


def test_a_higher_pair_beats_a_lower_pair():
    assert one("9c9d") > one("8h8s")
    assert one("KcKd") > one("QcQd")


def test_without_a_pair_the_higher_top_card_wins():
    assert one("Ac3d") > one("KsQs")


def test_king_queen_beats_king_jack():
    assert one("KdQc") > one("KhJs")


def test_three_two_is_the_worst_two_card_hand():
    worst = one("3h2c")
    for cards in combinations(DECK, 2):
        ranks = sorted(card.rank for card in cards)
        if ranks == [2, 3]:
            assert hand_strength(1, cards) == worst
        else:
            assert hand_strength(1, cards) > worst


def test_suits_do_not_break_a_two_card_tie():
    assert one("AsKd") == one("AhKc")


def test_two_suited_cards_are_no_better_than_offsuit():
    assert one("AsKs") == one("AhKc")
    assert one("7h6h") == one("7c6d")


def test_two_connected_cards_are_no_straight():
    assert one("9h8h") < one("Ts2c")


def test_two_card_labels_name_the_pair_or_the_two_cards():
    assert one("9c9d").label == "pair of nines"
    assert one("6c6d").label == "pair of sixes"
    assert one("KsAd").label == "ace-king high"
    assert one("2c3d").label == "three-two high"


# --- stage 2: deuce-to-seven low ---------------------------------------------


def _one_hand_per_rank_shape():
    """One hand for each of the 7,462 ways five cards can rank: every multiset of
    ranks, offsuit, plus all one suit when the ranks differ."""
    for ranks in combinations_with_replacement(range(2, 15), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        used: Counter[int] = Counter()
        cards = []
        for rank in ranks:
            cards.append(Card(rank, "cdhs"[used[rank]]))
            used[rank] += 1
        if len({card.suit for card in cards}) == 1:
            cards[0] = Card(cards[0].rank, "d")
        yield tuple(cards)
        if len(set(ranks)) == 5:
            yield tuple(Card(rank, "s") for rank in ranks)


def test_seven_five_four_three_two_not_all_one_suit_is_the_best_low():
    best = low("7s5d4h3c2s")
    for cards in _one_hand_per_rank_shape():
        ranks = sorted(card.rank for card in cards)
        suited = len({card.suit for card in cards}) == 1
        if ranks == [2, 3, 4, 5, 7] and not suited:
            assert hand_strength(2, cards) == best
        else:
            assert hand_strength(2, cards) < best, cards


def test_seven_six_beats_eight_five():
    assert low("7c6d4h3s2c") > low("8c5d4h3s2c")
    assert low("7c6d5h4s2c") > low("8c6d4h3s2c")


def test_a_flush_counts_against_you():
    assert low("7s5s4s3s2s") < low("8c6d4h3s2c")
    assert low("7s5s4s3s2s") < low("KcQdJh9s8c")


def test_a_flush_is_worse_than_a_pair_and_a_straight():
    assert low("7s5s4s3s2s") < low("9s9d4h3c2s")
    assert low("7s5s4s3s2s") < low("6c5d4h3s2c")


def test_ace_two_three_four_five_is_merely_ace_high():
    wheel = low("As2d3h4c5s")
    assert wheel < low("KcQdJh9s8c")
    assert wheel > low("Ac6d4h3s2c")
    assert wheel > low("6c5d4h3s2c")
    assert wheel.label == "A-5-4-3-2"


def test_a_straight_counts_against_you():
    assert low("6c5d4h3s2c") < low("8d7h6c5s3c")
    assert low("6c5d4h3s2c") < low("AcKdQhJs9c")


def test_a_straight_is_worse_than_a_pair_or_three_of_a_kind():
    assert low("6c5d4h3s2c") < low("2c2d3h4s5c")
    assert low("6c5d4h3s2c") < low("3c3d3hKsQc")


def test_a_pair_is_worse_than_no_pair():
    assert low("2s2d3h4c5s") < low("AcKdQhJs9c")
    assert low("2s2d3h4c5s") < low("KcQdJh9s8c")


def test_a_lower_pair_is_the_better_low_pair():
    assert low("2s2d3h4c5s") > low("3s3d2h4c5s")


def test_identical_lows_in_different_suits_tie():
    assert low("7s5d4h3c2s") == low("7h5c4d3s2h")
    assert low("7s5s4s3s2s") == low("7h5h4h3h2h")


def test_low_labels_read_the_ranks_from_the_top_and_say_what_hurts():
    assert low("2s3d4h5c7s").label == "7-5-4-3-2"
    assert low("7s5s4s3s2s").label == "7-5-4-3-2 (flush)"
    assert low("6c5d4h3s2c").label == "6-5-4-3-2 (straight)"
    assert low("9s9d4h3c2s").label == "9-9-4-3-2 (pair of nines)"
    assert low("Td9d4h3c2s").label == "T-9-4-3-2"


# --- stage 3: best five of seven, high ---------------------------------------


def test_the_best_five_of_seven_are_found():
    # A pair of aces is showing, but five hearts make a flush, which is better.
    flush = high("2h7h9hJhKhAsAd")
    assert flush > high("AcAhKdKcQs2d3c")
    assert flush.label == "flush, king high (Kh Jh 9h 7h 2h)"


def test_ace_to_five_is_a_straight_when_playing_high():
    wheel = high("As2c3d4h5sKdKh")
    assert wheel > high("QsQdQh9c7d4s2h")
    assert wheel.label == "straight, five high (5s 4h 3d 2c As)"


def test_ace_to_five_is_the_lowest_straight():
    assert high("As2c3d4h5sKdKh") < high("6c5d4h3s2cKdKs")


def test_identical_best_fives_from_different_sevens_tie():
    assert high("AsKsQdJhTc2c3d") == high("AdKcQhJsTd4c5h")
    assert high("KsKd7h7cAh2s3d") == high("KhKc7s7dAc4s5d")


def test_the_fifth_card_can_break_a_tie():
    assert high("KsKd7h7cAh2s3d") > high("KhKc7s7dQc6s5d")


def test_a_third_pair_only_plays_as_a_kicker():
    assert high("KsKd7h7c4h4d2s") == high("KhKc7s7d4s3c2h")
    assert high("KsKd7h7c4h4d2s") < high("KhKc7s7d5s3c2h")


def test_two_threes_of_a_kind_make_a_full_house():
    assert high("9s9h9d4c4s4h2d").label == "full house, nines over fours (9s 9h 9d 4s 4h)"


def test_suits_never_break_a_tie_even_between_royal_flushes():
    royal = high("AsKsQsJsTs2h3d")
    assert royal == high("AhKhQhJhTh2s3c")
    assert royal.label == "royal flush (As Ks Qs Js Ts)"


def test_the_high_ranking_runs_in_the_usual_order():
    hands = [
        "AsKd9h7c4s3d2c",  # ace high
        "2s2dKh9c7s4d3c",  # pair
        "2s2d3h3c7s5dKc",  # two pair
        "2s2d2hKc7s5d4c",  # three of a kind
        "As2c3d4h5sKdKh",  # straight (the lowest)
        "2h4h6h8hTh3cAd",  # flush
        "2s2d2h3c3sKd4c",  # full house
        "2s2d2h2cKs9d7c",  # four of a kind
        "As2s3s4s5sKdKh",  # straight flush (the lowest)
    ]
    strengths = [high(hand) for hand in hands]
    assert strengths == sorted(strengths)
    assert len(set(strengths)) == len(strengths)


# --- choosing the winners ---------------------------------------------------


def test_the_single_best_hand_wins():
    assert best_hands(1, {"Ann": parse_cards("AsKs"), "Bob": parse_cards("2c2d")}) == ("Bob",)
    flush = {"Ann": parse_cards("8c6d4h3s2c"), "Bob": parse_cards("7s5s4s3s2s")}
    assert best_hands(2, flush) == ("Ann",)


def test_a_two_way_tie_for_best_gives_both_names_in_seat_order():
    hands = {
        "Cat": parse_cards("AdKcQhJsTd4c5h"),
        "Ann": parse_cards("QsQdQh9c7d4s2h"),
        "Bob": parse_cards("AsKsQdJhTc2c3d"),
    }
    assert best_hands(3, hands) == ("Cat", "Bob")


def test_nobody_showing_means_no_winner():
    assert best_hands(3, {}) == ()


def test_the_wrong_number_of_cards_is_refused():
    with pytest.raises(CardError) as error:
        hand_strength(2, parse_cards("7s5d4h3c"))
    assert str(error.value) == "stage 2 needs 5 cards, got 4"
    with pytest.raises(CardError):
        best_hands(1, {"Ann": parse_cards("AsKsQs")})


def test_the_same_card_twice_in_a_hand_is_refused():
    with pytest.raises(CardError):
        hand_strength(1, (Card(14, "s"), Card(14, "s")))


def test_there_are_only_three_stages():
    for stage in (0, 4):
        with pytest.raises(ValueError):
            hand_strength(stage, parse_cards("AsKs"))


def test_strengths_of_different_stages_cannot_be_compared():
    with pytest.raises(TypeError):
        assert one("AsKs") < high("AsKsQdJhTc2c3d")


# --- properties ---------------------------------------------------------------


def hands_of(stage: int, count: int):
    """``count`` hands for ``stage`` dealt from one deck, as at the table."""
    size = CARDS_PER_STAGE[stage]
    return st.permutations(DECK).map(
        lambda deck: [tuple(deck[i * size : (i + 1) * size]) for i in range(count)]
    )


@st.composite
def a_table(draw):
    stage = draw(st.sampled_from([1, 2, 3]))
    count = draw(st.integers(2, 7))
    return stage, draw(hands_of(stage, count))


@given(a_table())
def test_strength_is_a_total_order_consistent_with_sorting(table):
    stage, hands = table
    strengths = [hand_strength(stage, cards) for cards in hands]
    for a in strengths:
        for b in strengths:
            assert [a < b, a == b, a > b].count(True) == 1
            assert (a <= b) == (a < b or a == b)
            if a == b:
                assert hash(a) == hash(b)
            for c in strengths:
                if a <= b <= c:
                    assert a <= c
    ordered = sorted(strengths)
    assert all(x <= y for x, y in zip(ordered, ordered[1:]))
    assert ordered[-1] == max(strengths)
    best = best_hands(stage, {f"p{i}": cards for i, cards in enumerate(hands)})
    assert best == tuple(f"p{i}" for i, s in enumerate(strengths) if s == max(strengths))


@given(
    st.lists(st.sampled_from(DECK), min_size=2, max_size=2, unique=True),
    st.permutations("cdhs"),
)
def test_stage_one_strength_ignores_suits_and_card_order(cards, suits):
    first, second = cards
    # The same two ranks, the other way round, in two different suits picked at random.
    other = (Card(second.rank, suits[0]), Card(first.rank, suits[1]))
    assert hand_strength(1, (first, second)) == hand_strength(1, other)


@given(a_table(), st.permutations("cdhs"), st.randoms())
def test_renaming_suits_or_reordering_cards_never_changes_a_hand(table, suits, rng):
    stage, hands = table
    rename = dict(zip("cdhs", suits))
    for cards in hands:
        shuffled = [Card(card.rank, rename[card.suit]) for card in cards]
        rng.shuffle(shuffled)
        assert hand_strength(stage, shuffled) == hand_strength(stage, cards)


def textbook_high(cards, ace_can_play_low: bool):
    """Standard high poker for five cards, straight from a rule book: category,
    then the ranks that decide within it (bigger groups first)."""
    counts = Counter(card.rank for card in cards)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = [n for _, n in groups]
    ranks = [rank for rank, _ in groups]
    flush = len({card.suit for card in cards}) == 1
    straight = len(counts) == 5 and max(counts) - min(counts) == 4
    if ace_can_play_low and sorted(counts) == [2, 3, 4, 5, 14]:
        straight, ranks = True, [5, 4, 3, 2, 1]
    category = (
        8 if straight and flush
        else 7 if shape == [4, 1]
        else 6 if shape == [3, 2]
        else 5 if flush
        else 4 if straight
        else 3 if shape == [3, 1, 1]
        else 2 if shape == [2, 2, 1]
        else 1 if shape == [2, 1, 1, 1]
        else 0
    )
    return (category, ranks)


@given(hands_of(2, 2))
def test_deuce_to_seven_is_the_rule_book_high_ranking_upside_down_without_the_wheel(hands):
    a, b = hands
    # a is the better low exactly when b is the better high hand, the wheel not counting.
    as_high_a, as_high_b = textbook_high(a, False), textbook_high(b, False)
    assert (hand_strength(2, a) > hand_strength(2, b)) == (as_high_a < as_high_b)
    assert (hand_strength(2, a) == hand_strength(2, b)) == (as_high_a == as_high_b)


@given(hands_of(3, 2))
def test_seven_card_high_is_the_best_rule_book_hand_of_the_21_fives(hands):
    a, b = (max(textbook_high(five, True) for five in combinations(seven, 5)) for seven in hands)
    assert (hand_strength(3, hands[0]) > hand_strength(3, hands[1])) == (a > b)
    assert (hand_strength(3, hands[0]) == hand_strength(3, hands[1])) == (a == b)
