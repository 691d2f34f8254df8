"""The running tab over the five nights of five_nights.py: balances, one plan, payments cleared oldest first."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from companion.group.members import UnknownMember
from companion.group.nights import Cleared
from companion.group.tab import Overpayment, TabPayment, Unreconciled, pay, tab, with_cleared
from group.five_nights import MEMBERS, NIGHTS


def test_what_each_night_still_owes() -> None:
    t = tab(NIGHTS, MEMBERS)
    # n1 is settled: nothing of it is open.  n2 (EUR): ann owed Bob 1.00 (paid) and Dan 2.00 (not).
    # n5 (EUR): the whole plan is open: Bob owes 2.00 + 1.00, Cat is owed 1.00 + 0.50, Dan owes 0.50.
    assert [(o.night_id, o.member, o.amount) for o in t.open["EUR"]] == [
        ("n2", "Ann", D("-2.00")),
        ("n2", "Dan", D("2.00")),
        ("n5", "Ann", D("2.00")),
        ("n5", "Bob", D("-3.00")),
        ("n5", "Cat", D("1.50")),
        ("n5", "Dan", D("-0.50")),
    ]
    # n3 (GBP): Ann owes 4.00 + 1.00, Cat 2.00; Bob is owed 1.00 + 2.00, Daniel (Dan) 4.00
    assert [(o.member, o.amount) for o in t.open["GBP"]] == [
        ("Ann", D("-5.00")),
        ("Bob", D("3.00")),
        ("Cat", D("-2.00")),
        ("Dan", D("4.00")),
    ]
    # n4 (chips only): Bob owes 7, Dan 3, Cat is owed 10
    assert [(o.member, o.amount) for o in t.open[None]] == [("Bob", D(-7)), ("Cat", D(10)), ("Dan", D(-3))]


def test_who_owes_whom_right_now_per_currency() -> None:
    t = tab(NIGHTS, MEMBERS)
    # EUR: Ann -2.00 (n2) + 2.00 (n5) = 0 and is left out; Bob -3.00; Cat +1.50; Dan +2.00 - 0.50 = +1.50
    assert dict(t.balances["EUR"]) == {"Bob": D("-3.00"), "Cat": D("1.50"), "Dan": D("1.50")}
    assert dict(t.balances["GBP"]) == {"Ann": D("-5.00"), "Bob": D("3.00"), "Cat": D("-2.00"), "Dan": D("4.00")}
    assert dict(t.balances[None]) == {"Bob": D(-7), "Cat": D(10), "Dan": D(-3)}
    assert t.owes("Dan") == {"EUR": D("1.50"), "GBP": D("4.00"), None: D(-3)}
    assert t.owes("Ann") == {"GBP": D("-5.00")}
    assert not t.settled


def test_one_fewest_payments_plan_per_currency() -> None:
    t = tab(NIGHTS, MEMBERS)
    # EUR: three members with a balance and no smaller group adding up to zero: 3 - 1 = 2 payments,
    # where the nights' own open payments are 4 (n2: ann→Dan 2.00; n5: Bob→Ann 2.00, Bob→Cat 1.00,
    # Dan→Cat 0.50).  Bob's 3.00 goes half to Cat, half to Dan (equal creditors: name order).
    assert t.plan["EUR"] == (TabPayment("Bob", "Cat", "EUR", D("1.50")), TabPayment("Bob", "Dan", "EUR", D("1.50")))
    # GBP: -5, +3, -2, +4: no pair or triple adds up to zero (-5+3, -5+4, -2+3, -2+4, ... none is 0),
    # so 4 - 1 = 3 payments.  Largest debtor pays largest creditor: Ann pays Dan 4.00 (Ann -1.00
    # left); then Cat (-2.00) pays Bob (3.00) 2.00; then Ann pays Bob the last 1.00.
    assert t.plan["GBP"] == (
        TabPayment("Ann", "Bob", "GBP", D("1.00")),
        TabPayment("Ann", "Dan", "GBP", D("4.00")),
        TabPayment("Cat", "Bob", "GBP", D("2.00")),
    )
    # chips: Bob and Dan each pay Cat what they owe
    assert t.plan[None] == (TabPayment("Bob", "Cat", None, D(7)), TabPayment("Dan", "Cat", None, D(3)))


def test_settling_the_euros_clears_each_night_oldest_first_and_offsets_the_rest() -> None:
    records = pay(NIGHTS, MEMBERS, tab(NIGHTS, MEMBERS).plan["EUR"])
    assert records == (
        # Bob pays Cat 1.50: Bob's only debt is on n5 (-3.00), Cat's only credit on n5 (+1.50)
        Cleared("n5", "Bob", D("1.50"), "Bob", "Cat"),
        Cleared("n5", "Cat", D("-1.50"), "Bob", "Cat"),
        # Bob pays Dan 1.50: the rest of Bob's n5 debt; Dan's oldest credit is n2's 2.00 (0.50 left)
        Cleared("n5", "Bob", D("1.50"), "Bob", "Dan"),
        Cleared("n2", "Dan", D("-1.50"), "Bob", "Dan"),
        # offsets, members in the group's order: Ann owed 2.00 on n2 and is owed 2.00 on n5
        Cleared("n2", "Ann", D("2.00"), "Ann", "Ann"),
        Cleared("n5", "Ann", D("-2.00"), "Ann", "Ann"),
        # Dan owes 0.50 on n5 and is owed the 0.50 left on n2
        Cleared("n5", "Dan", D("0.50"), "Dan", "Dan"),
        Cleared("n2", "Dan", D("-0.50"), "Dan", "Dan"),
    )
    assert [r.offset for r in records] == [False] * 4 + [True] * 4
    after = tab(with_cleared(NIGHTS, records), MEMBERS)
    # every euro night is now square: n2 Ann -2.00 + 2.00, Dan 2.00 - 1.50 - 0.50; n5 Ann 2.00 - 2.00,
    # Bob -3.00 + 1.50 + 1.50, Cat 1.50 - 1.50, Dan -0.50 + 0.50
    assert "EUR" not in after.balances and "EUR" not in after.open
    # the pounds and the chips are untouched
    assert after.plan["GBP"] == tab(NIGHTS, MEMBERS).plan["GBP"]
    assert after.plan[None] == tab(NIGHTS, MEMBERS).plan[None]


def test_a_partial_payment_leaves_the_rest_owed_and_a_new_plan() -> None:
    records = pay(NIGHTS, MEMBERS, [TabPayment("ann", "Daniel", "GBP", D("2.50"))])
    # Ann's only GBP debt is n3's 5.00; Dan's only GBP credit n3's 4.00; no one's balances are of both signs
    assert records == (Cleared("n3", "Ann", D("2.50"), "Ann", "Dan"), Cleared("n3", "Dan", D("-2.50"), "Ann", "Dan"))
    after = tab(with_cleared(NIGHTS, records), MEMBERS)
    # Ann -5.00 + 2.50 = -2.50; Dan 4.00 - 2.50 = 1.50
    assert dict(after.balances["GBP"]) == {"Ann": D("-2.50"), "Bob": D("3.00"), "Cat": D("-2.00"), "Dan": D("1.50")}
    # -2.50, +3.00, -2.00, +1.50: no smaller group adds up to zero, 3 payments.  Ann (-2.50) pays
    # Bob (3.00) 2.50; Dan (1.50) is now the larger creditor: Cat pays him 1.50; Cat pays Bob 0.50.
    assert after.plan["GBP"] == (
        TabPayment("Ann", "Bob", "GBP", D("2.50")),
        TabPayment("Cat", "Bob", "GBP", D("0.50")),
        TabPayment("Cat", "Dan", "GBP", D("1.50")),
    )


def test_chips_are_paid_in_whole_chips() -> None:
    records = pay(NIGHTS, MEMBERS, [TabPayment("Dan", "Cat", None, D(3))])
    assert records == (Cleared("n4", "Dan", D(3), "Dan", "Cat"), Cleared("n4", "Cat", D(-3), "Dan", "Cat"))
    assert dict(tab(with_cleared(NIGHTS, records), MEMBERS).balances[None]) == {"Bob": D(-7), "Cat": D(7)}
    with pytest.raises(ValueError, match="whole number"):
        TabPayment("Dan", "Cat", None, D("2.5"))


def test_marking_every_plan_paid_settles_the_whole_tab() -> None:
    t = tab(NIGHTS, MEMBERS)
    records = pay(NIGHTS, MEMBERS, [p for plan in t.plan.values() for p in plan])
    assert tab(with_cleared(NIGHTS, records), MEMBERS).settled


@pytest.mark.parametrize(
    ("payment", "message"),
    [
        # Cat owes 2.00 GBP: 2.01 is more
        (TabPayment("Cat", "Bob", "GBP", D("2.01")), r"Cat owes only 2.00 GBP: less than the 2.01 GBP paid"),
        # Ann owes 5.00 GBP, but Dan is owed only 4.00
        (TabPayment("Ann", "Dan", "GBP", D("4.50")), r"Dan is owed only 4.00 GBP: less than the 4.50 GBP paid"),
        # Ann's euros are square (her balance is 0)
        (TabPayment("Ann", "Cat", "EUR", D("0.01")), r"Ann owes only 0.00 EUR: less than the 0.01 EUR paid"),
        # no one owes dollars
        (TabPayment("Bob", "Cat", "USD", D("1")), r"Bob owes only 0.00 USD: less than the 1.00 USD paid"),
    ],
)
def test_a_payment_larger_than_owed_is_refused(payment: TabPayment, message: str) -> None:
    with pytest.raises(Overpayment, match=message):
        pay(NIGHTS, MEMBERS, [payment])


def test_payments_in_one_batch_count_the_ones_before() -> None:
    # Cat owes 2.00 GBP: 1.50 then 0.60 is 0.10 too much, and nothing of the batch is returned
    with pytest.raises(Overpayment, match="Cat owes only 0.50 GBP: less than the 0.60 GBP paid"):
        pay(NIGHTS, MEMBERS, [TabPayment("Cat", "Bob", "GBP", D("1.50")), TabPayment("Cat", "Bob", "GBP", D("0.60"))])


def test_a_payment_from_an_unknown_member_is_refused() -> None:
    with pytest.raises(UnknownMember, match="'Eve'"):
        pay(NIGHTS, MEMBERS, [TabPayment("Eve", "Bob", "GBP", D(1))])


def test_a_tab_record_against_a_night_its_member_did_not_play_blocks_its_currency_and_nothing_else() -> None:
    # Dan did not play night 1 (EUR): the record is none the tab could have made
    wrong = with_cleared(NIGHTS, [Cleared("n1", "Dan", D("1.00"), "Dan", "Ann")])
    t = tab(wrong, MEMBERS)
    assert dict(t.blocked) == {"EUR": ("n1",)}
    assert t.plan["EUR"] == ()  # no payment offered in EUR: a wrong one is worse than none
    assert t.plan["GBP"] == tab(NIGHTS, MEMBERS).plan["GBP"]  # the other currencies as before
    assert not t.settled
    with pytest.raises(Unreconciled, match="in EUR while a night's records there do not add up"):
        pay(wrong, MEMBERS, [TabPayment("Bob", "Cat", "EUR", D("1.50"))])
    assert pay(wrong, MEMBERS, [TabPayment("Cat", "Bob", "GBP", D("2.00"))])  # GBP is still paid as before


def test_a_one_sided_record_names_every_night_holding_that_pair_and_blocks_only_its_currency() -> None:
    # Bob's 1.50 paid to Cat cleared on n5 (EUR) alone, with no record of Cat receiving it: +1.50 with no -1.50
    one_sided = with_cleared(NIGHTS, [Cleared("n5", "Bob", D("1.50"), "Bob", "Cat")])
    t = tab(one_sided, MEMBERS)
    assert dict(t.blocked) == {"EUR": ("n5",)}
    assert t.plan["EUR"] == () and t.plan["GBP"] and t.plan[None]
    # the same payment as the tab makes it (both sides, adding up to zero) blocks nothing
    both = with_cleared(NIGHTS, pay(NIGHTS, MEMBERS, [TabPayment("Bob", "Cat", "EUR", D("1.50"))]))
    assert dict(tab(both, MEMBERS).blocked) == {}


