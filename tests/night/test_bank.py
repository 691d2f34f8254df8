"""The chip bank against RULES-POKER.md ("The bank"), values worked by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from companion.night.bank import Bank, BankError, BuyIn, Cancel, CashOut, EveryoneBuysIn, Rebuy

PLAYERS = ("Ann", "Ben", "Cat")


def test_a_night_settles_on_counts_minus_chips_bought() -> None:
    bank = Bank(PLAYERS, Decimal("0.05"))
    bank.buy_in("Ann", 100)
    bank.buy_in("Ben", 100)
    bank.buy_in("Cat", 100)
    bank.rebuy("Ben", 50)
    bank.cash_out("Ann", 180)
    bank.cash_out("Ben", 40)
    bank.cash_out("Cat", 130)
    # bought 100 + 150 + 100 = 350; cashed 180 + 40 + 130 = 350: balanced
    assert bank.check().balanced
    # Ann 180 − 100 = 80; Ben 40 − 150 = −110; Cat 130 − 100 = 30
    assert bank.results() == {"Ann": 80, "Ben": -110, "Cat": 30}
    # at 0.05 a chip: 4.00, −5.50, 1.50
    assert bank.money_results() == {"Ann": Decimal("4.00"), "Ben": Decimal("-5.50"), "Cat": Decimal("1.50")}


def test_quick_entry_buys_everyone_in_with_one_event() -> None:
    bank = Bank(PLAYERS, Decimal("0.25"))
    event = bank.everyone_buys_in(40)
    assert bank.version == 1
    assert bank.bought == {"Ann": 40, "Ben": 40, "Cat": 40}
    assert event.summary == "Everyone bought in 40 chips (10.00): Ann, Ben and Cat."
    with pytest.raises(BankError, match="Ann, Ben and Cat bought in already"):
        bank.everyone_buys_in(40)


def test_an_early_leaver_cashes_out_and_the_others_play_on() -> None:
    bank = Bank(PLAYERS)
    bank.everyone_buys_in(50)
    bank.cash_out("Cat", 20)  # leaves early, 30 down
    assert bank.in_play == 130  # 150 bought − 20 back
    check = bank.check()
    assert not check.balanced and check.still_in == ("Ann", "Ben")
    assert check.message == "Still to cash out: Ann and Ben."
    with pytest.raises(BankError, match="Still to cash out: Ann and Ben"):
        bank.results()
    with pytest.raises(BankError, match="Cat has cashed out"):
        bank.rebuy("Cat", 10)
    bank.cash_out("Ann", 95)
    bank.cash_out("Ben", 35)
    # 20 + 95 + 35 = 150 = 3 × 50
    assert bank.results() == {"Ann": 45, "Ben": -15, "Cat": -30}


def test_an_unbalanced_bank_shows_the_difference_and_the_counts_to_check() -> None:
    bank = Bank(PLAYERS)
    bank.everyone_buys_in(100)
    bank.cash_out("Ann", 150)
    bank.cash_out("Ben", 90)
    bank.cash_out("Cat", 70)
    # cashed 150 + 90 + 70 = 310, bought 300: 10 too many
    check = bank.check()
    assert check.difference == 10 and not check.balanced
    assert check.to_check == ("Ann", "Ben", "Cat")  # the biggest stacks first
    assert check.message == (
        "The bank does not balance: 10 chips more cashed out (310) than bought (300). "
        "Recount, biggest stacks first: Ann, Ben and Cat."
    )
    with pytest.raises(BankError, match="10 chips more cashed out"):
        bank.results()


def test_a_recount_is_a_cancel_and_a_new_cash_out() -> None:
    bank = Bank(PLAYERS)
    bank.everyone_buys_in(100)
    bank.cash_out("Ann", 150)
    bank.cash_out("Ben", 90)
    wrong = bank.cash_out("Cat", 59)
    assert bank.check().difference == -1  # 299 back of 300
    with pytest.raises(BankError, match="Cat has cashed out"):
        bank.cash_out("Cat", 60)
    bank.cancel(wrong.seq)
    bank.cash_out("Cat", 60)
    assert bank.results() == {"Ann": 50, "Ben": -10, "Cat": -40}
    assert len(bank.log) == 6 and bank.cancelled == {4: 5}  # nothing edited: the wrong count stays in the log


def test_when_every_game_was_recorded_chip_by_chip_each_count_is_checked_against_the_tally() -> None:
    bank = Bank(PLAYERS)
    bank.everyone_buys_in(100)
    bank.cash_out("Ann", 112)
    bank.cash_out("Ben", 95)
    bank.cash_out("Cat", 93)
    tally = {"Ann": 7, "Ben": -5, "Cat": -2}
    # expected: Ann 107, Ben 95, Cat 98.  The bank balances (300), yet Ann +5 and Cat −5
    check = bank.check(tally)
    assert check.difference == 0
    assert check.tally_differences == {"Ann": 5, "Cat": -5}
    assert check.to_check == ("Ann", "Cat")
    assert check.message == (
        "The counts do not match bought + the app's tally: Ann counted 112, expected 107 (+5), "
        "Cat counted 93, expected 98 (-5). Check those counts."
    )
    with pytest.raises(BankError, match="Ann counted 112, expected 107"):
        bank.results(tally)
    assert bank.results() == {"Ann": 12, "Ben": -5, "Cat": -7}  # without the tally: the counts


def test_counts_that_match_the_tally_settle_to_the_tally() -> None:
    bank = Bank(PLAYERS)
    bank.everyone_buys_in(100)
    for name, count in (("Ann", 107), ("Ben", 95), ("Cat", 98)):
        bank.cash_out(name, count)
    assert bank.results({"Ann": 7, "Ben": -5, "Cat": -2}) == {"Ann": 7, "Ben": -5, "Cat": -2}


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (BuyIn("Zed", 10), "'Zed' is not seated tonight"),
        (BuyIn("Ann", 0), "the buy-in must be a whole number of chips, 1 to"),
        (BuyIn("Ann", True), "the buy-in must be a whole number"),
        (Rebuy("Ann", 10), "Ann has not bought in yet: record a buy-in"),
        (CashOut("Ann", 10), "Ann never bought in"),
        (EveryoneBuysIn(-5), "the buy-in must be a whole number"),
        (Cancel(3), "there is no bank event #3"),
    ],
)
def test_the_bank_refuses_bad_events_and_changes_nothing(action: object, message: str) -> None:
    bank = Bank(PLAYERS)
    with pytest.raises(BankError, match=message):
        bank.push(action)  # type: ignore[arg-type]
    assert bank.version == 0 and bank.bought == {}


def test_a_player_buys_in_once_then_rebuys_and_counts_may_be_zero() -> None:
    bank = Bank(PLAYERS)
    bank.buy_in("ann", 20)  # names match ignoring case
    with pytest.raises(BankError, match="Ann bought in already: record a rebuy"):
        bank.buy_in("Ann", 20)
    bank.rebuy("Ann", 20)
    bank.buy_in("Ben", 20)
    bank.cash_out("Ann", 0)  # lost it all
    bank.cash_out("Ben", 60)
    # Ann 0 − 40 = −40; Ben 60 − 20 = 40; Cat never bought in and takes no part
    assert bank.results() == {"Ann": -40, "Ben": 40}


def test_a_cancel_that_would_leave_a_later_event_wrong_is_refused() -> None:
    bank = Bank(PLAYERS)
    first = bank.buy_in("Ann", 20)
    bank.rebuy("Ann", 10)
    with pytest.raises(BankError, match="cancelling #1 would leave #2 wrong: Ann has not bought in yet"):
        bank.cancel(first.seq)
    cancel = bank.cancel(2)
    with pytest.raises(BankError, match="#2 is already cancelled"):
        bank.cancel(2)
    with pytest.raises(BankError, match="is itself a correction"):
        bank.cancel(cancel.seq)
    assert bank.bought == {"Ann": 20}


def test_a_night_numbers_the_bank_events_as_its_own_log_does() -> None:
    # the night's log holds game events too: the bank's events are #3, #7, #8 there
    bank = Bank(["Ann", "Ben"], Decimal("0.5"), "EUR")
    assert bank.push(BuyIn("Ann", 10), seq=3).summary == "Ann bought in 10 chips (5.00 EUR)."
    bank.push(BuyIn("Ben", 10), seq=7)
    cancel = bank.push(Cancel(3), seq=8)
    assert cancel.summary == "Cancelled #3: Ann bought in 10 chips (5.00 EUR)."
    assert bank.cancelled == {3: 8} and bank.bought == {"Ben": 10}
    with pytest.raises(BankError, match="there is no bank event #4"):
        bank.verify(Cancel(4))
    with pytest.raises(BankError, match="bank event #8 comes after #8"):
        bank.push(BuyIn("Ann", 5), seq=8)
    assert bank.push(BuyIn("Ann", 5)).seq == 9  # without a number: the next one


FOUR = ("Ann", "Ben", "Cat", "Dan")


def test_a_pot_left_for_the_next_night_is_in_nobodys_count_and_still_its_contributors() -> None:
    """Friday (tests/web/test_carried_pot.py) played under the bank: everyone buys in 100.

    Ben and Cat say Yes on the ante (pot 4), Cat wins: Ben pays Cat 4; Dan and then Ann
    win tokens alone; hand 2's ante makes the pot 8, 2 of each, and the night ends there
    with the pot carried on.  At the table: Ann 100 − 2 = 98, Ben 100 − 2 − 4 = 94,
    Cat 100 − 2 + 4 = 102, Dan 98: 392 come back, the 8 stay in the middle.
    The tally counts each player's 2 in the pot as still theirs: Ann 0, Ben −4, Cat +4, Dan 0.
    """
    bank = Bank(FOUR)
    bank.everyone_buys_in(100)
    for name, count in (("Ann", 98), ("Ben", 94), ("Cat", 102), ("Dan", 98)):
        bank.cash_out(name, count)
    in_pot = {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}
    tally = {"Ann": 0, "Ben": -4, "Cat": 4, "Dan": 0}
    assert not bank.check().balanced  # 392 of 400 back, unless the pot is counted
    check = bank.check(tally, in_pot)
    assert check.balanced and check.difference == 0 and check.message == ""
    # each result is the count − bought + their 2 in the pot: the tally
    assert bank.results(tally, in_pot) == tally
    assert bank.results(None, in_pot) == tally  # without a tally (a game with real betting): the same


def test_the_night_a_pot_was_carried_into_gets_those_chips_back_without_buying_them() -> None:
    """The next night starts with that pot of 8 (2 of each) in the middle; everyone buys in 100
    and antes 2 more; Dan takes the pot of 16.  At the table: Ann, Ben, Cat 98, Dan 98 + 16 = 114:
    408 come back of 400 bought.  The tally: the others −2 − 2 = −4, Dan −4 + 16 = +12."""
    bank = Bank(FOUR)
    bank.everyone_buys_in(100)
    for name, count in (("Ann", 98), ("Ben", 98), ("Cat", 98), ("Dan", 114)):
        bank.cash_out(name, count)
    in_pot = {"Ann": -2, "Ben": -2, "Cat": -2, "Dan": -2}  # chips in the pot carried in, none left
    tally = {"Ann": -4, "Ben": -4, "Cat": -4, "Dan": 12}
    assert bank.check(tally, in_pot).balanced
    assert bank.results(tally, in_pot) == tally


def test_a_miscount_beside_a_carried_pot_says_what_should_come_back() -> None:
    bank = Bank(FOUR)
    bank.everyone_buys_in(100)
    for name, count in (("Ann", 98), ("Ben", 94), ("Cat", 102), ("Dan", 97)):
        bank.cash_out(name, count)
    check = bank.check(None, {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2})
    # 391 back; 400 bought less the 8 left in the pot is 392
    assert check.difference == -1
    assert check.message == (
        "The bank does not balance: 1 chip fewer cashed out (391) than bought less the pot left for the "
        "next night (392). Recount, biggest stacks first: Cat, Ann, Dan and Ben."
    )
    with pytest.raises(BankError, match="'Zed' has chips in the pot but is not seated"):
        bank.check(None, {"Zed": 2})
