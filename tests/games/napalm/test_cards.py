"""Reading and writing cards the way a scorekeeper types them."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.napalm.cards import Card, CardError, format_cards, parse_card, parse_cards

DECK = [Card(rank, suit) for rank in range(2, 15) for suit in "cdhs"]


def test_a_card_is_written_with_a_rank_character_and_a_suit_letter():
    assert str(Card(14, "s")) == "As"
    assert str(Card(10, "d")) == "Td"
    assert str(Card(7, "h")) == "7h"
    assert str(Card(2, "c")) == "2c"


@pytest.mark.parametrize("text", ["As", "as", "AS", "aS", "  As\t", "\nas "])
def test_the_ace_of_spades_reads_in_either_case_and_with_spaces_around(text):
    assert parse_card(text) == Card(14, "s")


@pytest.mark.parametrize("text", ["Td", "td", "TD", "10d", "10D", " 10d "])
def test_a_ten_can_be_written_t_or_10(text):
    assert parse_card(text) == Card(10, "d")


def test_every_face_card_reads_as_its_rank():
    ranks = [parse_card(text).rank for text in ["Jc", "Qc", "Kc", "Ac", "9c", "2c"]]
    assert ranks == [11, 12, 13, 14, 9, 2]


@pytest.mark.parametrize(
    "text", ["1x", "1d", "11d", "0s", "Bs", "Ks2", "", "A", "Kx", "Kss", "Ace of spades"]
)
def test_anything_that_is_not_one_card_is_refused_by_name(text):
    with pytest.raises(CardError) as error:
        parse_card(text)
    assert f"'{text.strip()}' is not a card" in str(error.value)


def test_a_bad_card_message_tells_the_scorekeeper_how_to_write_a_card():
    with pytest.raises(CardError) as error:
        parse_card("1x")
    assert str(error.value) == (
        "'1x' is not a card (use rank 2-9, T or 10, J, Q, K, A and suit c, d, h, s)"
    )


def test_a_card_error_is_a_value_error():
    assert issubclass(CardError, ValueError)


def test_impossible_cards_cannot_be_built_directly():
    for rank, suit in [(1, "s"), (15, "s"), (0, "c"), (14, "x"), (14, "S"), (14, "")]:
        with pytest.raises(CardError):
            Card(rank, suit)


def test_cards_run_together_are_read_in_order():
    assert parse_cards("AsKs2d3c9h9d4s") == (
        Card(14, "s"),
        Card(13, "s"),
        Card(2, "d"),
        Card(3, "c"),
        Card(9, "h"),
        Card(9, "d"),
        Card(4, "s"),
    )


def test_tens_written_10_can_run_together():
    assert parse_cards("10d10s") == (Card(10, "d"), Card(10, "s"))
    assert parse_cards("As10dKh") == (Card(14, "s"), Card(10, "d"), Card(13, "h"))


@pytest.mark.parametrize(
    "text", ["as ks", "As Ks", "AS,KS", "As, Ks", " as,ks ", "asKS", "As  ,\t Ks"]
)
def test_cards_may_be_separated_by_spaces_or_commas_in_any_case(text):
    assert parse_cards(text) == (Card(14, "s"), Card(13, "s"))


def test_a_sequence_of_card_strings_is_read_card_by_card():
    assert parse_cards(["As", "10d", " 7h "]) == (Card(14, "s"), Card(10, "d"), Card(7, "h"))


def test_cards_already_read_pass_through_unchanged():
    cards = (Card(14, "s"), Card(13, "s"))
    assert parse_cards(cards) == cards


@pytest.mark.parametrize("empty", ["", "   ", " , ", [], ()])
def test_no_cards_give_an_empty_tuple(empty):
    assert parse_cards(empty) == ()


@pytest.mark.parametrize(
    ("text", "bad"),
    [("AsKx2d", "Kx"), ("As1x", "1x"), ("As K", "K"), ("As 10x", "10x"), ("AsKs, 2d, Zz", "Zz")],
)
def test_a_bad_card_among_good_ones_is_named(text, bad):
    with pytest.raises(CardError) as error:
        parse_cards(text)
    assert f"'{bad}' is not a card" in str(error.value)


def test_a_bad_card_in_a_sequence_is_named():
    with pytest.raises(CardError) as error:
        parse_cards(["As", "Kx"])
    assert "'Kx' is not a card" in str(error.value)


@pytest.mark.parametrize("text", ["KsAsKs", "ks KS", "Ks, 2d, kS", "Ks Ks"])
def test_a_card_given_twice_is_named(text):
    with pytest.raises(CardError) as error:
        parse_cards(text)
    assert str(error.value) == "Ks is shown twice"


def test_a_ten_given_twice_is_named_the_same_however_it_was_written():
    with pytest.raises(CardError) as error:
        parse_cards("10d Td")
    assert str(error.value) == "Td is shown twice"
    with pytest.raises(CardError):
        parse_cards(["10h", "th"])


def test_cards_are_written_with_spaces_between():
    assert format_cards((Card(14, "s"), Card(13, "s"), Card(2, "d"))) == "As Ks 2d"
    assert format_cards(()) == ""


def test_cards_sort_by_rank_first():
    cards = [Card(14, "c"), Card(2, "s"), Card(10, "h")]
    assert sorted(cards) == [Card(2, "s"), Card(10, "h"), Card(14, "c")]


@given(
    st.lists(st.sampled_from(DECK), unique=True, max_size=20),
    st.sampled_from(["", " ", ", ", ","]),
)
def test_whatever_is_written_reads_back_the_same(cards, separator):
    text = separator.join(str(card) for card in cards)
    assert parse_cards(text) == tuple(cards)
    assert parse_cards(text.lower()) == tuple(cards)
    assert parse_cards(text.upper()) == tuple(cards)
    assert parse_cards(text.replace("T", "10")) == tuple(cards)
    assert parse_cards(format_cards(cards)) == tuple(cards)


def test_cards_typed_as_the_picker_shows_them_are_read():
    """Issue 14, item 5: "A♠" is the ace of spades, as the picker's button reads."""
    assert format_cards(parse_cards("A\u2660 K\u2665 10\u2666 2\u2663")) == "As Kh Td 2c"
    assert format_cards(parse_cards("A\u2660\ufe0fQ\u2661")) == "As Qh"  # an emoji suit, and a white heart
    assert parse_card(" 7\u2663 ") == parse_card("7c")
    with pytest.raises(CardError, match="shown twice"):
        parse_cards("A\u2660 As")
