"""Settling up: the fewest payments, exact money, the same plan every time."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.money.amounts import to_money
from companion.money.settle import (
    MAX_EXACT_LIMIT,
    Payment,
    pairwise_debts,
    settle_up,
    to_money_plan,
)

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy"]


def after(balances, payments):
    """The balances once every payment is made (a payer's debt shrinks)."""
    left = Counter(balances)
    for p in payments:
        left[p.payer] += p.chips
        left[p.payee] -= p.chips
    return {name: chips for name, chips in left.items() if chips}


def nonzero(balances):
    return sum(1 for chips in balances.values() if chips)


def most_zero_sum_groups(values):
    """Reference: the most disjoint zero-sum groups, by trying every partition.

    The first value's group is every choice of companions that sums to zero
    with it; the rest is solved the same way.  Exponential, fine for six.
    """
    if not values:
        return 0
    first, rest = values[0], values[1:]
    best = 0
    for size in range(len(rest) + 1):
        for chosen in combinations(range(len(rest)), size):
            if first + sum(rest[i] for i in chosen) == 0:
                remaining = [v for i, v in enumerate(rest) if i not in chosen]
                best = max(best, 1 + most_zero_sum_groups(remaining))
    return best


@st.composite
def balanced(draw, min_players=2, max_players=9, low=-500, high=500):
    """Net chips for 2..9 players that add up to zero (some may be zero)."""
    count = draw(st.integers(min_players, max_players))
    chips = draw(st.lists(st.integers(low, high), min_size=count - 1, max_size=count - 1))
    chips.append(-sum(chips))
    return dict(zip(NAMES, chips))


# Small amounts make zero-sum subgroups common, which is where minimality bites.
small_or_wide = st.one_of(balanced(max_players=6), balanced(max_players=6, low=-6, high=6))


# --- worked examples -------------------------------------------------------------


def test_two_separate_debts_settle_in_two_payments_not_three():
    plan = settle_up({"A": 10, "B": 5, "C": -10, "D": -5})
    assert plan == (Payment("C", "A", 10), Payment("D", "B", 5))


def test_a_group_with_no_smaller_zero_sum_part_needs_one_payment_fewer_than_its_size():
    # +3 +3 -2 -2 -2: no two or three of these add up to zero, so 5 - 1 = 4.
    plan = settle_up({"A": 3, "B": 3, "C": -2, "D": -2, "E": -2})
    assert plan == (
        Payment("C", "A", 2),
        Payment("D", "B", 2),
        Payment("E", "A", 1),
        Payment("E", "B", 1),
    )


def test_the_exact_plan_beats_greedy_where_greedy_misses_a_matching_pair():
    # B -5 and F +5 settle alone; the other four need 3, so 4 in all.  Greedy
    # starts with A (-6) paying F (+5) and ends up with 5 payments.
    balances = {"A": -6, "B": -5, "C": -2, "D": 4, "E": 4, "F": 5}
    exact = settle_up(balances)
    assert len(exact) == 4
    assert Payment("B", "F", 5) in exact
    assert after(balances, exact) == {}
    assert settle_up(balances, exact_limit=0) == (
        Payment("A", "E", 1),
        Payment("A", "F", 5),
        Payment("B", "D", 4),
        Payment("B", "E", 1),
        Payment("C", "E", 2),
    )


def test_one_winner_is_paid_directly_by_every_loser():
    plan = settle_up({"Ann": 30, "Bob": -10, "Cat": -15, "Dan": -5})
    assert plan == (Payment("Bob", "Ann", 10), Payment("Cat", "Ann", 15), Payment("Dan", "Ann", 5))


def test_players_who_broke_even_pay_nothing_and_receive_nothing():
    plan = settle_up({"Ann": 0, "Bob": 7, "Cat": -7, "Dan": 0})
    assert plan == (Payment("Cat", "Bob", 7),)


def test_a_night_where_everyone_broke_even_needs_no_payments():
    assert settle_up({"Ann": 0, "Bob": 0}) == ()
    assert settle_up({}) == ()


def test_fifteen_players_in_six_pairs_and_a_trio_settle_in_eight_payments():
    # +k/-k for k = 1..6 and +7 -3 -4: at most 7 groups of 15 players.
    balances = {f"p{k}": k for k in range(1, 7)} | {f"m{k}": -k for k in range(1, 7)}
    balances |= {"t7": 7, "t3": -3, "t4": -4}
    plan = settle_up(balances)
    assert len(plan) == 15 - 7
    assert after(balances, plan) == {}


def test_fifteen_players_with_no_zero_sum_part_need_fourteen_payments():
    # Powers of two: only all of them together cancel the big loser.
    balances = {f"w{i:02}": 2**i for i in range(14)} | {"loser": -(2**14 - 1)}
    plan = settle_up(balances)
    assert len(plan) == 14
    assert all(p.payer == "loser" for p in plan)
    assert after(balances, plan) == {}


# --- order and determinism ---------------------------------------------------------


def test_payments_are_sorted_by_payer_then_payee():
    plan = settle_up({"Zed": -9, "Amy": -1, "Bea": 4, "Cy": 6})
    keys = [(p.payer, p.payee) for p in plan]
    assert keys == sorted(keys)


def test_equal_balances_are_matched_by_name_whatever_the_insertion_order():
    first = settle_up({"Ann": 5, "Bob": 5, "Cat": -5, "Dan": -5})
    second = settle_up({"Dan": -5, "Bob": 5, "Cat": -5, "Ann": 5})
    assert first == second == (Payment("Cat", "Ann", 5), Payment("Dan", "Bob", 5))


@given(balanced(), st.randoms(use_true_random=False))
def test_the_plan_does_not_depend_on_the_order_of_the_mapping(balances, rng):
    items = list(balances.items())
    rng.shuffle(items)
    assert settle_up(dict(items)) == settle_up(balances)
    assert settle_up(dict(items), exact_limit=0) == settle_up(balances, exact_limit=0)


# --- properties --------------------------------------------------------------------


@given(balanced())
def test_making_every_payment_brings_every_balance_to_exactly_zero(balances):
    assert after(balances, settle_up(balances)) == {}


@given(balanced())
def test_the_plan_never_needs_more_than_one_payment_fewer_than_the_players_involved(balances):
    assert len(settle_up(balances)) <= max(nonzero(balances) - 1, 0)


@given(balanced())
def test_every_payment_is_between_players_with_a_balance_and_no_pair_pays_twice(balances):
    plan = settle_up(balances)
    for p in plan:
        assert balances[p.payer] < 0 < balances[p.payee]
    pairs = [frozenset((p.payer, p.payee)) for p in plan]
    assert len(pairs) == len(set(pairs))


@settings(max_examples=300)
@given(small_or_wide)
def test_the_plan_is_as_short_as_the_brute_force_partition_says_is_possible(balances):
    values = [chips for chips in balances.values() if chips]
    assert len(settle_up(balances)) == len(values) - most_zero_sum_groups(values)


def test_the_brute_force_reference_agrees_with_the_worked_examples():
    assert most_zero_sum_groups([10, 5, -10, -5]) == 2
    assert most_zero_sum_groups([3, 3, -2, -2, -2]) == 1
    assert most_zero_sum_groups([-6, -5, -2, 4, 4, 5]) == 2
    assert most_zero_sum_groups([1, -1, 1, -1, 2, -2]) == 3


# --- the greedy fallback -----------------------------------------------------------------


@given(balanced())
def test_greedy_also_settles_every_balance_exactly(balances):
    assert after(balances, settle_up(balances, exact_limit=0)) == {}


@given(balanced())
def test_greedy_never_needs_more_than_one_payment_fewer_than_the_players_involved(balances):
    assert len(settle_up(balances, exact_limit=0)) <= max(nonzero(balances) - 1, 0)


@given(balanced())
def test_greedy_is_never_shorter_than_the_exact_plan(balances):
    assert len(settle_up(balances, exact_limit=0)) >= len(settle_up(balances))


def test_more_players_than_the_limit_fall_back_to_greedy():
    balances = {"A": -6, "B": -5, "C": -2, "D": 4, "E": 4, "F": 5}
    assert len(settle_up(balances, exact_limit=5)) == 5
    assert len(settle_up(balances, exact_limit=6)) == 4


def test_greedy_settles_a_big_table_quickly():
    balances = {f"p{i:03}": (i % 7) - 3 for i in range(1, 500)}
    balances["bank"] = -sum(balances.values())
    plan = settle_up(balances)
    assert after(balances, plan) == {}
    assert len(plan) <= nonzero(balances) - 1


# --- refusals -------------------------------------------------------------------------


def test_balances_that_do_not_add_up_to_zero_are_refused():
    with pytest.raises(ValueError, match=r"add up to \+3 chips"):
        settle_up({"Ann": 10, "Bob": -7})


@pytest.mark.parametrize("bad", [2.0, True, Decimal(2), "2", None])
def test_a_balance_that_is_not_an_int_is_refused(bad):
    with pytest.raises(TypeError, match="Ann"):
        settle_up({"Ann": bad, "Bob": -2})


def test_a_player_name_must_be_text():
    with pytest.raises(TypeError):
        settle_up({1: 2, "Bob": -2})  # type: ignore[dict-item]


@pytest.mark.parametrize("limit", [-1, MAX_EXACT_LIMIT + 1])
def test_an_exact_limit_outside_the_sensible_range_is_refused(limit):
    with pytest.raises(ValueError):
        settle_up({"Ann": 1, "Bob": -1}, exact_limit=limit)


def test_an_exact_limit_must_be_an_int():
    with pytest.raises(TypeError):
        settle_up({"Ann": 1, "Bob": -1}, exact_limit=1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("payer", "payee", "chips", "error"),
    [
        ("Ann", "Bob", 0, ValueError),
        ("Ann", "Bob", -3, ValueError),
        ("Ann", "Ann", 3, ValueError),
        ("Ann", "Bob", 3.0, TypeError),
        ("Ann", "Bob", True, TypeError),
        (None, "Bob", 3, TypeError),
    ],
)
def test_a_payment_moves_a_positive_whole_number_of_chips_between_two_players(
    payer, payee, chips, error
):
    with pytest.raises(error):
        Payment(payer, payee, chips)


# --- pairwise debts -----------------------------------------------------------------------


def test_transfers_between_two_players_are_netted_into_one_payment():
    assert pairwise_debts([("Ann", "Bob", 5), ("Bob", "Ann", 3)]) == (Payment("Ann", "Bob", 2),)


def test_the_net_payment_goes_whichever_way_the_chips_went():
    assert pairwise_debts([("Bob", "Ann", 5), ("Ann", "Bob", 3)]) == (Payment("Bob", "Ann", 2),)


def test_a_pair_that_cancels_out_owes_nothing():
    assert pairwise_debts([("Ann", "Bob", 4), ("Bob", "Ann", 4), ("Cat", "Ann", 1)]) == (
        Payment("Cat", "Ann", 1),
    )


def test_pairwise_keeps_one_payment_per_pair_even_when_a_shortcut_exists():
    # Ann -> Bob -> Cat would simplify to Ann -> Cat; pairwise does not.
    assert pairwise_debts([("Ann", "Bob", 5), ("Bob", "Cat", 5)]) == (
        Payment("Ann", "Bob", 5),
        Payment("Bob", "Cat", 5),
    )


def test_pairwise_payments_are_sorted_by_payer_then_payee():
    plan = pairwise_debts([("Zed", "Amy", 1), ("Bea", "Amy", 2), ("Bea", "Zed", 3), ("Amy", "Cy", 4)])
    assert plan == (
        Payment("Amy", "Cy", 4),
        Payment("Bea", "Amy", 2),
        Payment("Bea", "Zed", 3),
        Payment("Zed", "Amy", 1),
    )


def test_zero_chip_transfers_are_ignored():
    assert pairwise_debts([("Ann", "Bob", 0)]) == ()
    assert pairwise_debts([]) == ()


@pytest.mark.parametrize(
    ("transfer", "error"),
    [
        (("Ann", "Bob", -1), ValueError),
        (("Ann", "Ann", 1), ValueError),
        (("Ann", None, 1), TypeError),
        (("Ann", "Bob", 1.0), TypeError),
        (("Ann", "Bob"), TypeError),
    ],
)
def test_a_malformed_transfer_is_refused(transfer, error):
    with pytest.raises(error):
        pairwise_debts([transfer])


transfers = st.lists(
    st.tuples(st.sampled_from(NAMES[:5]), st.sampled_from(NAMES[:5]), st.integers(0, 50)).filter(
        lambda t: t[0] != t[1]
    ),
    max_size=30,
)


@given(transfers, st.randoms(use_true_random=False))
def test_pairwise_debts_leave_everyone_where_the_transfers_did_in_any_order(moves, rng):
    net = Counter()
    for payer, payee, chips in moves:
        net[payer] -= chips
        net[payee] += chips
    plan = pairwise_debts(moves)
    assert after(net, plan) == {}
    pairs = [frozenset((p.payer, p.payee)) for p in plan]
    assert len(pairs) == len(set(pairs))
    shuffled = list(moves)
    rng.shuffle(shuffled)
    assert pairwise_debts(shuffled) == plan


# --- money plan ---------------------------------------------------------------------------


def test_the_money_plan_prices_each_payment_exactly():
    plan = settle_up({"Ann": 7, "Bob": 3, "Cat": -10})
    assert to_money_plan(plan, Decimal("0.05")) == [
        (Payment("Cat", "Ann", 7), Decimal("0.35")),
        (Payment("Cat", "Bob", 3), Decimal("0.15")),
    ]


def test_a_money_plan_for_a_game_for_nothing_is_all_zeros():
    plan = settle_up({"Ann": 7, "Cat": -7})
    assert to_money_plan(plan, Decimal("0")) == [(Payment("Cat", "Ann", 7), Decimal("0"))]


def test_a_money_plan_refuses_a_float_chip_value_even_with_nothing_to_pay():
    with pytest.raises(TypeError):
        to_money_plan((), 0.05)  # type: ignore[arg-type]


@given(balanced(), st.integers(0, 10**6).map(lambda n: Decimal(n).scaleb(-4)))
def test_the_money_plan_pays_each_player_exactly_what_their_chips_are_worth(balances, value):
    received = Counter()
    for payment, amount in to_money_plan(settle_up(balances), value):
        received[payment.payee] += amount
        received[payment.payer] -= amount
    for name, chips in balances.items():
        assert received[name] == to_money(chips, value)
