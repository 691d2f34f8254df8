"""Chip values and money: parsed strictly, multiplied exactly, rounded only on screen."""

from __future__ import annotations

import ast
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.money.amounts import MAX_DECIMAL_PLACES, chips_text, format_money, parse_chip_value, signed, to_money

MONEY = Path(__file__).resolve().parents[2] / "companion" / "money"

# Non-negative chip values with at most four decimal places, as parse_chip_value allows.
chip_values = st.integers(min_value=0, max_value=10**8).map(lambda n: Decimal(n).scaleb(-4))


# --- parse_chip_value --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.25", Decimal("0.25")),
        ("0.05", Decimal("0.05")),
        ("1", Decimal("1")),
        ("10", Decimal("10")),
        ("0.0001", Decimal("0.0001")),
        (" 0.5 ", Decimal("0.5")),
        (".5", Decimal("0.5")),
        ("2.", Decimal("2")),
        ("+1.5", Decimal("1.5")),
        ("007", Decimal("7")),
    ],
)
def test_a_plain_decimal_is_read_exactly(text, expected):
    value = parse_chip_value(text)
    assert value == expected
    assert isinstance(value, Decimal)


def test_zero_is_a_valid_chip_value_for_a_friendly_game():
    assert parse_chip_value("0") == 0
    assert parse_chip_value("0.00") == 0


def test_trailing_zeros_do_not_count_as_decimal_places():
    assert parse_chip_value("0.250000") == Decimal("0.25")
    assert str(parse_chip_value("0.250000")) == "0.25"


def test_a_whole_chip_value_is_not_turned_into_scientific_notation():
    assert str(parse_chip_value("10")) == "10"
    assert str(parse_chip_value("100.00")) == "100"


def test_a_negative_chip_value_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="can't be negative"):
        parse_chip_value("-0.25")


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "Infinity", "sNaN"])
def test_nan_and_infinity_are_refused_as_not_ordinary_numbers(text):
    with pytest.raises(ValueError, match="ordinary number"):
        parse_chip_value(text)


def test_more_than_four_decimal_places_is_refused_and_names_the_smallest_step():
    with pytest.raises(ValueError, match=r"at most 4 decimal places.*0\.0001"):
        parse_chip_value("0.00001")


@pytest.mark.parametrize("text", ["abc", "1e-2", "1_000", "0.2.5", "$1", ".", "+", "1 2", "٣"])
def test_anything_that_is_not_a_plain_number_is_refused(text):
    with pytest.raises(ValueError, match="not a number"):
        parse_chip_value(text)


def test_an_empty_chip_value_asks_for_one():
    with pytest.raises(ValueError, match="Enter what one chip is worth"):
        parse_chip_value("   ")


def test_a_decimal_comma_is_refused_with_the_dotted_spelling_as_a_hint():
    with pytest.raises(ValueError, match=r"write 0\.25, not 0,25"):
        parse_chip_value("0,25")


def test_a_chip_value_must_be_given_as_text():
    with pytest.raises(TypeError):
        parse_chip_value(0.25)  # type: ignore[arg-type]


@given(chip_values)
def test_every_allowed_chip_value_survives_being_written_out_and_read_back(value):
    assert parse_chip_value(f"{value:f}") == value


# --- to_money ----------------------------------------------------------------


def test_seven_chips_at_five_cents_are_exactly_thirty_five_cents():
    assert to_money(7, Decimal("0.05")) == Decimal("0.35")


def test_an_odd_number_of_quarter_chips_is_exact():
    assert to_money(13, Decimal("0.25")) == Decimal("3.25")


def test_negative_chips_are_a_negative_amount():
    assert to_money(-3, Decimal("0.25")) == Decimal("-0.75")


def test_chips_in_a_game_for_nothing_are_worth_nothing():
    assert to_money(1234, Decimal("0")) == 0


def test_a_huge_product_is_not_rounded_to_decimals_default_precision():
    chips = 10**40 + 1
    assert to_money(chips, Decimal("0.0001")) == Decimal(f"{10**36}.0001")


@pytest.mark.parametrize("chips", [1.0, True, Decimal(3), "3"])
def test_chips_must_be_an_int(chips):
    with pytest.raises(TypeError):
        to_money(chips, Decimal("0.25"))  # type: ignore[arg-type]


def test_a_float_chip_value_is_refused():
    with pytest.raises(TypeError, match="parse_chip_value"):
        to_money(3, 0.25)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [Decimal("-0.25"), Decimal("NaN"), Decimal("Infinity")])
def test_a_negative_or_non_finite_chip_value_is_refused(value):
    with pytest.raises(ValueError):
        to_money(3, value)


@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6), chip_values)
def test_money_adds_up_exactly_like_the_chips_do(a, b, value):
    assert to_money(a, value) + to_money(b, value) == to_money(a + b, value)


@given(st.integers(-10**6, 10**6), chip_values)
def test_money_never_has_more_places_than_the_chip_value(chips, value):
    assert -to_money(chips, value).as_tuple().exponent <= MAX_DECIMAL_PLACES


# --- format_money --------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        ("3.25", "€", "3.25 €"),
        ("-0.05", "$", "-0.05 $"),
        ("3", "EUR", "3.00 EUR"),
        ("2.5", "EUR", "2.50 EUR"),
        ("0.125", "€", "0.125 €"),
        ("0.0001", "€", "0.0001 €"),
        ("-1.2340", "€", "-1.234 €"),
        ("1E+3", "€", "1000.00 €"),
        ("0", "€", "0.00 €"),
        ("-0", "€", "0.00 €"),
    ],
)
def test_money_shows_two_decimals_when_exact_and_up_to_four_when_needed(amount, currency, shown):
    assert format_money(Decimal(amount), currency) == shown


def test_finer_than_four_places_is_rounded_half_to_even_for_display_only():
    assert format_money(Decimal("0.12345"), "€") == "0.1234 €"
    assert format_money(Decimal("0.12355"), "€") == "0.1236 €"


def test_a_negative_amount_that_rounds_to_zero_shows_no_sign():
    assert format_money(Decimal("-0.00001"), "€") == "0.00 €"


def test_an_empty_currency_shows_just_the_number():
    assert format_money(Decimal("1.5"), "") == "1.50"


def test_a_huge_amount_is_shown_in_full_without_an_exponent():
    assert format_money(Decimal("1E+30"), "€") == "1" + "0" * 30 + ".00 €"


@pytest.mark.parametrize("amount", [1.5, 2, True])
def test_format_money_refuses_anything_but_a_decimal(amount):
    with pytest.raises(TypeError):
        format_money(amount, "€")  # type: ignore[arg-type]


def test_format_money_refuses_nan():
    with pytest.raises(ValueError):
        format_money(Decimal("NaN"), "€")


# --- chips in words --------------------------------------------------------------


@pytest.mark.parametrize("chips, text", [(1, "1 chip"), (-1, "-1 chip"), (0, "0 chips"), (12, "12 chips")])
def test_chips_text_says_chip_for_one_and_chips_otherwise(chips, text):
    assert chips_text(chips) == text


@pytest.mark.parametrize("chips, text", [(6, "+6"), (-2, "\u22122"), (0, "0"), (-1_000, "\u22121000")])
def test_signed_marks_a_change_with_a_plus_or_a_true_minus_sign(chips, text):
    """The report's figures and Nap's history lines: "+6", "−2" (U+2212, not a hyphen), "0"."""
    assert signed(chips) == text


# --- purity --------------------------------------------------------------------


@pytest.mark.parametrize("module", sorted(p.name for p in MONEY.glob("*.py")))
def test_the_money_layer_imports_only_the_standard_library_and_the_one_reader(module):
    """Money sits at the bottom of the layers: nothing of the app but itself and companion.values.reading."""
    tree = ast.parse((MONEY / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            root = name.split(".")[0]
            ours = name == "companion.values.reading" or name == "companion.money" or name.startswith("companion.money.")
            assert root in sys.stdlib_module_names or root == "__future__" or ours, (module, name)
