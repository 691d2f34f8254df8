"""Random bank nights (Hypothesis): refusals change nothing, the books add up, results sum to zero."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.night.bank import Bank, BankError, BuyIn, Cancel, CashOut, EveryoneBuysIn, Rebuy

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve")

events = st.one_of(
    st.builds(BuyIn, st.sampled_from(NAMES), st.integers(0, 200)),
    st.builds(Rebuy, st.sampled_from(NAMES), st.integers(1, 200)),
    st.builds(EveryoneBuysIn, st.integers(1, 200)),
    st.builds(CashOut, st.sampled_from(NAMES), st.integers(0, 400)),
    st.builds(Cancel, st.integers(1, 30)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(events, max_size=30))
def test_the_bank_books_add_up_after_every_event(actions: list[object]) -> None:
    bank = Bank(NAMES)
    for action in actions:
        before = (bank.bought, bank.cashed_out, bank.version)
        try:
            bank.push(action)  # type: ignore[arg-type]
        except BankError:
            assert (bank.bought, bank.cashed_out, bank.version) == before
            continue
        assert bank.in_play == sum(bank.bought.values()) - sum(bank.cashed_out.values())
        assert set(bank.cashed_out) <= set(bank.bought)
    check = bank.check()
    if check.balanced:
        assert sum(bank.results().values()) == 0
    else:
        assert check.message and (check.still_in or check.difference)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 100),
    st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.integers(0, 30)), max_size=20),
    st.sampled_from(NAMES),
    st.integers(-3, 3),
)
def test_honest_counts_settle_to_the_tally_and_a_miscount_names_its_player(
    buy_in: int, pots: list[tuple[str, str, int]], miscounted: str, error: int
) -> None:
    tally = {name: 0 for name in NAMES}
    stacks = {name: buy_in for name in NAMES}
    for payer, payee, chips in pots:  # chips change hands at the table, never below zero
        chips = min(chips, stacks[payer])
        stacks[payer] -= chips
        stacks[payee] += chips
        tally[payer] -= chips
        tally[payee] += chips
    bank = Bank(NAMES)
    bank.everyone_buys_in(buy_in)
    for name in NAMES:
        count = stacks[name] + (error if name == miscounted else 0)
        bank.cash_out(name, max(count, 0))
    real_error = max(stacks[miscounted] + error, 0) - stacks[miscounted]
    check = bank.check(tally)
    if real_error == 0:
        assert check.balanced and bank.results(tally) == tally
    else:
        assert check.difference == real_error
        assert check.tally_differences == {miscounted: real_error}
        assert check.to_check == (miscounted,)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(10, 100),
    st.lists(st.integers(0, 4), min_size=len(NAMES), max_size=len(NAMES)),
    st.lists(st.integers(0, 4), min_size=len(NAMES), max_size=len(NAMES)),
    st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.integers(0, 10)), max_size=10),
    st.one_of(st.none(), st.sampled_from(NAMES)),
)
def test_a_carried_pot_keeps_honest_counts_settling_to_the_tally(
    buy_in: int, carried_in: list[int], antes: list[int], pots: list[tuple[str, str, int]], winner: str | None
) -> None:
    """A night that finds a pot in the middle (``carried_in``, each share its contributor's), antes into
    it, side bets across the table, then either someone takes the pot or it is carried on.

    The tally as the games keep it: a contributor starts at minus their share; a pot carried on
    counts each stake in it as still its player's.  The stacks as the table has them: the shares
    carried in were never in anyone's stack; chips carried on are in nobody's."""
    tally = {name: -share for name, share in zip(NAMES, carried_in)}
    stacks = {name: buy_in - ante for name, ante in zip(NAMES, antes)}
    for name, ante in zip(NAMES, antes):
        tally[name] -= ante
    for payer, payee, chips in pots:
        chips = min(chips, stacks[payer])
        stacks[payer] -= chips
        stacks[payee] += chips
        tally[payer] -= chips
        tally[payee] += chips
    pot = sum(carried_in) + sum(antes)
    if winner is not None:  # the pot taken: nothing is left in the middle
        stacks[winner] += pot
        tally[winner] += pot
        in_pot = {name: -share for name, share in zip(NAMES, carried_in)}
    else:  # carried on: each stake in it (carried in + antes) counted as its player's again
        for name, share, ante in zip(NAMES, carried_in, antes):
            tally[name] += share + ante
        in_pot = {name: ante for name, ante in zip(NAMES, antes)}
    assert sum(tally.values()) == 0
    bank = Bank(NAMES)
    bank.everyone_buys_in(buy_in)
    for name in NAMES:
        bank.cash_out(name, stacks[name])
    check = bank.check(tally, in_pot)
    assert check.balanced, check.message
    assert bank.results(tally, in_pot) == tally
    assert bank.results(None, in_pot) == tally  # the counts alone say the same
