"""The night's settle-up once the group's tab settled part of it: what remains, and what Mark paid offers.

The night (tests/night/test_tab.py's ON_COUNTS, without its tab records): three players on chip
counts at 0.25 EUR a chip; counts less chips bought make Ann -20, Bob -10, Cat +30, so the night's
plan is Ann pays Cat 20 chips (5.00 EUR) and Bob pays Cat 10 chips (2.50 EUR).
"""

from __future__ import annotations

import json
from decimal import Decimal as D

from companion.group.result import night_report
from companion.money.settle import Payment
from companion.night import file as nightfile
from companion.night.tab import TabCleared
from companion.report.model import TabRest
from companion.report.tab import with_tab
from night.test_tab import ON_COUNTS


def report(money: bool = True, paid=()):  # type: ignore[no-untyped-def]
    document = {k: v for k, v in json.loads(json.dumps(ON_COUNTS)).items() if k != "tab_cleared"}
    if not money:
        del document["money"]
    return night_report(nightfile.from_dict(document), paid)


def offers(rep):  # type: ignore[no-untyped-def]
    return [(o.payer, o.payee, o.chips, o.money_text) for o in rep.tab.offers]


ANN_PAYS_CAT = (TabCleared("Ann", D("5.00"), "Ann", "Cat", "TAB-1"), TabCleared("Cat", D("-5.00"), "Ann", "Cat", "TAB-1"))
BOB_PAYS_CAT = (TabCleared("Bob", D("1.10"), "Bob", "Cat", "TAB-2"), TabCleared("Cat", D("-1.10"), "Bob", "Cat", "TAB-2"))


def test_without_a_tab_record_the_report_is_as_it_always_was():
    plain = report()
    assert with_tab(plain, ()) is plain and plain.tab is None
    assert [(p.payer, p.payee, p.chips, p.money_text) for p in plain.plan] == [
        ("Ann", "Cat", 20, "5.00 EUR"), ("Bob", "Cat", 10, "2.50 EUR"),
    ]
    assert plain.find("plan", "Ann", "Cat", 20) is not None and plain.find("pairwise", "Ann", "Cat", 20) is not None


def test_ann_cleared_fully_and_bob_partly_leaves_bob_owing_cat_and_offers_whole_chips_only():
    rep = with_tab(report(), ANN_PAYS_CAT + BOB_PAYS_CAT)
    tab = rep.tab
    # Ann -5.00 + 5.00 = 0; Bob -2.50 + 1.10 = -1.40; Cat +7.50 - 5.00 - 1.10 = +1.40
    assert tab.balances == {"Ann": D("0"), "Bob": D("-1.40"), "Cat": D("1.40")}
    # Bob -> Cat 1.40 EUR is 5.6 chips: Mark paid offers 5 chips (1.25 EUR); 0.15 EUR, less than a chip,
    # settles through the group's tab.  Nothing of Ann's is offered: the tab settled it.
    assert offers(rep) == [("Bob", "Cat", 5, "1.25 EUR")]
    assert tab.rest == (TabRest("Bob", "Cat", D("0.15"), "0.15 EUR"),)
    assert not tab.settled and not rep.settled
    assert [r.text for r in tab.records] == [
        "Ann paid off 5.00 EUR (Ann's payment to Cat, ref TAB-1)",
        "Cat received 5.00 EUR (Ann's payment to Cat, ref TAB-1)",
        "Bob paid off 1.10 EUR (Bob's payment to Cat, ref TAB-2)",
        "Cat received 1.10 EUR (Bob's payment to Cat, ref TAB-2)",
    ]
    # Mark paid finds only the offer, in either view; never the plan's lines the tab settled
    for view in ("plan", "pairwise"):
        assert rep.find(view, "Bob", "Cat", 5) is tab.offers[0]
        assert rep.find(view, "Ann", "Cat", 20) is None and rep.find(view, "Bob", "Cat", 10) is None


def test_marking_the_offer_paid_leaves_only_the_fraction_of_a_chip_then_the_tab_settles_the_night():
    # Bob paid Cat 5 chips (1.25) at the table: Bob -1.40 + 1.25 = -0.15, Cat +0.15
    rep = with_tab(report(paid=[Payment("Bob", "Cat", 5)]), ANN_PAYS_CAT + BOB_PAYS_CAT)
    assert rep.tab.balances == {"Ann": D("0"), "Bob": D("-0.15"), "Cat": D("0.15")}
    assert rep.tab.offers == () and rep.tab.rest == (TabRest("Bob", "Cat", D("0.15"), "0.15 EUR"),)
    last = (TabCleared("Bob", D("0.15"), "Bob", "Cat", "TAB-3"), TabCleared("Cat", D("-0.15"), "Bob", "Cat", "TAB-3"))
    done = with_tab(report(paid=[Payment("Bob", "Cat", 5)]), ANN_PAYS_CAT + BOB_PAYS_CAT + last)
    assert done.tab.balances == {"Ann": D("0"), "Bob": D("0"), "Cat": D("0")}
    assert done.tab.settled and done.settled and done.tab.offers == () and done.tab.rest == ()


def test_a_debtor_cleared_here_whose_creditor_was_paid_on_another_night_leaves_cat_owed_by_the_tab():
    # only Ann's side of her payment is on this night (Cat's credit was cleared on another night):
    # Ann 0, Bob -2.50, Cat +7.50: they add up to +5.00, which nobody seated here owes
    rep = with_tab(report(), ANN_PAYS_CAT[:1])
    assert offers(rep) == [("Bob", "Cat", 10, "2.50 EUR")]
    assert rep.tab.rest == (TabRest(None, "Cat", D("5"), "5.00 EUR"),)
    # an offset sets Bob's debt here against a credit elsewhere: no money moved, still settled here
    offset = with_tab(report(), (TabCleared("Bob", D("2.50"), "Bob", "Bob", "TAB-9"),))
    assert offset.tab.records[0].text == "Bob: 2.50 EUR of what they owed here set against another night (ref TAB-9)"
    # Cat's credit here set against a debt elsewhere: "of what they were owed" (issue 35: it read "they was owed")
    credit = with_tab(report(), (TabCleared("Cat", D("-2.50"), "Cat", "Cat", "TAB-9"),))
    assert credit.tab.records[0].text == "Cat: 2.50 EUR of what they were owed here set against another night (ref TAB-9)"
    assert offers(offset) == [("Ann", "Cat", 20, "5.00 EUR")]
    assert offset.tab.rest == (TabRest(None, "Cat", D("2.5"), "2.50 EUR"),)


def test_on_a_chips_only_night_the_tab_counts_chips_and_every_offer_is_whole():
    chips = (TabCleared("Ann", D(20), "Ann", "Cat", "T1"), TabCleared("Cat", D(-20), "Ann", "Cat", "T1"),
             TabCleared("Bob", D(4), "Bob", "Cat", "T2"), TabCleared("Cat", D(-4), "Bob", "Cat", "T2"))
    rep = with_tab(report(money=False), chips)
    # Ann -20 + 20 = 0; Bob -10 + 4 = -6; Cat +30 - 20 - 4 = +6: Bob pays Cat 6 chips
    assert rep.tab.balances == {"Ann": D(0), "Bob": D(-6), "Cat": D(6)}
    assert offers(rep) == [("Bob", "Cat", 6, "6 chips")] and rep.tab.rest == ()
    assert rep.tab.records[2].text == "Bob paid off 4 chips (Bob's payment to Cat, ref T2)"
    done = with_tab(report(money=False, paid=[Payment("Bob", "Cat", 6)]), chips)
    assert done.tab.settled and done.tab.offers == ()
