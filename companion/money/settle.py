"""Who pays whom at the end of the night, in as few payments as possible.

Each player ends the night with a net chip balance (positive: the table owes
them; negative: they owe the table), and the balances add up to zero.  Any
settlement needs at least ``n - g`` payments, where ``n`` is the number of
players with a non-zero balance and ``g`` the largest number of disjoint
groups the players can be split into so that every group's balances add up to
zero: the payments form a forest over the players, one tree per group that
settles among itself, and a tree on ``k`` players has ``k - 1`` edges.  Every
group can also settle in exactly ``size - 1`` payments, so ``n - g`` is the
minimum.

Finding ``g`` is NP-hard in general (it contains subset-sum), but a home game
is small: up to ``exact_limit`` players with a non-zero balance,
:func:`settle_up` finds the best partition exactly with a dynamic programme
over the ``2**n`` subsets (about 30 ms for 15 players in CPython).  Beyond that
it settles everyone greedily, which is still never more than ``n - 1``
payments.

Everything is deterministic: players are considered in name order, every tie
is broken by name, and payments come out sorted by payer name, then payee name,
so the same balances give the same plan however the mapping was built.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from companion.money.amounts import _check_chip_value, to_money

__all__ = [
    "MAX_EXACT_LIMIT",
    "Payment",
    "pairwise_debts",
    "settle_up",
    "to_money_plan",
]

#: The largest ``exact_limit`` accepted.  The exact search keeps two lists of
#: ``2**n`` entries; at 20 players that is a million each and about a couple of
#: seconds, past which it is no longer worth waiting for.
MAX_EXACT_LIMIT = 20


@dataclass(frozen=True)
class Payment:
    """``payer`` hands ``payee`` this many ``chips`` (always more than zero)."""

    payer: str
    payee: str
    chips: int

    def __post_init__(self) -> None:
        # A payment that breaks these is a bug in whoever built it; failing here
        # keeps it from reaching a screen where someone would act on it.
        for role in ("payer", "payee"):
            name = getattr(self, role)
            if not isinstance(name, str):
                raise TypeError(f"A payment's {role} must be a name, got {name!r}")
        if self.payer == self.payee:
            raise ValueError(f"{self.payer} cannot pay themselves.")
        if isinstance(self.chips, bool) or not isinstance(self.chips, int):
            raise TypeError(f"A payment's chips must be an int, got {self.chips!r}")
        if self.chips <= 0:
            raise ValueError(f"A payment must move at least one chip, not {self.chips}.")


def _payment_order(payment: Payment) -> tuple[str, str]:
    """The documented output order: payer name, then payee name."""
    return (payment.payer, payment.payee)


def settle_up(balances: Mapping[str, int], *, exact_limit: int = 15) -> tuple[Payment, ...]:
    """The fewest payments that bring every balance to zero.

    ``balances`` maps each player's name to their net chips (positive: is
    owed).  They must add up to zero, or the night's count is wrong and any
    plan would be too (:class:`ValueError`).  A balance that is not an ``int``
    (a float, a bool, a Decimal) raises :class:`TypeError`: chips are whole.

    With at most ``exact_limit`` non-zero balances the result is a true
    minimum; with more, the greedy plan (largest debtor pays largest creditor,
    repeat), which uses at most one payment fewer than there are players owing
    or owed.  Players whose balance is zero never appear.  Payments are sorted
    by payer name, then payee name, and no pair of players appears twice.
    """
    if isinstance(exact_limit, bool) or not isinstance(exact_limit, int):
        raise TypeError(f"exact_limit must be an int, got {exact_limit!r}")
    if not 0 <= exact_limit <= MAX_EXACT_LIMIT:
        raise ValueError(
            f"exact_limit must be between 0 and {MAX_EXACT_LIMIT}, not {exact_limit}."
        )
    owed = _checked_balances(balances)
    if len(owed) <= exact_limit:
        names = sorted(owed)
        payments: list[Payment] = []
        for group in _zero_sum_groups([owed[name] for name in names]):
            payments += _greedy({names[i]: owed[names[i]] for i in group})
    else:
        payments = _greedy(owed)
    return tuple(sorted(payments, key=_payment_order))


def _checked_balances(balances: Mapping[str, int]) -> dict[str, int]:
    """The non-zero balances, after checking names, types and the zero sum."""
    if not isinstance(balances, Mapping):
        raise TypeError(
            f"balances must be a mapping of name to chips, got {type(balances).__name__}"
        )
    owed: dict[str, int] = {}
    total = 0
    for name, chips in balances.items():
        if not isinstance(name, str):
            raise TypeError(f"A player's name must be text, got {name!r}")
        if isinstance(chips, bool) or not isinstance(chips, int):
            raise TypeError(
                f"{name}'s balance must be a whole number of chips (int), got {chips!r}"
            )
        total += chips
        if chips:
            owed[name] = chips
    if total:
        raise ValueError(
            f"The balances must add up to zero, but they add up to {total:+d} chips; "
            "someone's count is off."
        )
    return owed


def _zero_sum_groups(values: list[int]) -> list[list[int]]:
    """Split ``values`` (non-zero, summing to 0) into the most zero-sum groups.

    Returns lists of indices into ``values``.  ``best[mask]`` is the longest
    chain of non-empty zero-sum subsets nested inside ``mask``, which equals the
    most zero-sum groups ``mask``'s zero-sum part can be cut into (the
    difference of two nested zero-sum sets is zero-sum).  It is the best over
    dropping one member, plus one if ``mask`` itself sums to zero.

    The work is ``n * 2**(n-1)`` steps of plain int arithmetic on lists: subset
    sums are built a whole half at a time by list comprehension, and the main
    loop walks each mask's bits with ``m & -m`` rather than testing all ``n``
    bits.  Ties in the reconstruction go to the lowest index, i.e. the name
    that sorts first, so the partition is deterministic.
    """
    sums = [0]
    for value in values:
        sums += [s + value for s in sums]  # bit i of a mask <=> values[i]
    full = len(sums) - 1
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        top = 0
        rest = mask
        while rest:
            low = rest & -rest
            found = best[mask ^ low]
            if found > top:
                top = found
            rest ^= low
        best[mask] = top + 1 if sums[mask] == 0 else top

    # Walk back from the full set, dropping one member at a time along an
    # optimal path; every zero-sum mask met closes a group.
    groups: list[int] = []
    mask = upper = full
    while mask:
        target = best[mask] - (sums[mask] == 0)
        rest = mask
        while True:
            low = rest & -rest
            if best[mask ^ low] == target:
                break
            rest ^= low
        mask ^= low
        if sums[mask] == 0:
            groups.append(upper ^ mask)
            upper = mask
    return [[i for i in range(len(values)) if group >> i & 1] for group in groups]


def _greedy(owed: Mapping[str, int]) -> list[Payment]:
    """Largest debtor pays largest creditor, until everyone is square.

    Every payment clears at least one of the two and the last clears both, so
    ``k`` players take at most ``k - 1`` payments; a group with no zero-sum
    part smaller than itself takes exactly that.  Heaps keep it O(k log k)
    for any table size; equal amounts go to the name that sorts first.
    """
    creditors = [(-chips, name) for name, chips in owed.items() if chips > 0]
    debtors = [(chips, name) for name, chips in owed.items() if chips < 0]
    heapq.heapify(creditors)
    heapq.heapify(debtors)
    payments: list[Payment] = []
    while creditors and debtors:
        due, creditor = heapq.heappop(creditors)
        debt, debtor = heapq.heappop(debtors)
        chips = min(-due, -debt)
        payments.append(Payment(debtor, creditor, chips))
        if due + chips:
            heapq.heappush(creditors, (due + chips, creditor))
        if debt + chips:
            heapq.heappush(debtors, (debt + chips, debtor))
    return payments


def pairwise_debts(transfers: Iterable[tuple[str, str, int]]) -> tuple[Payment, ...]:
    """One payment per pair of players, netting what they moved between them.

    For groups who would rather each pay the people they actually lost to than
    accept a simplified plan.  ``transfers`` are raw ``(payer, payee, chips)``
    between players (resolve anything paid to or from the pot first); transfers
    of zero chips are ignored.  Pairs that cancel out are left out, and the
    result is sorted by payer name, then payee name.
    """
    net: dict[tuple[str, str], int] = {}
    for transfer in transfers:
        try:
            payer, payee, chips = transfer
        except (TypeError, ValueError):
            raise TypeError(
                f"A transfer must be (payer, payee, chips), got {transfer!r}"
            ) from None
        if not isinstance(payer, str) or not isinstance(payee, str):
            raise TypeError(f"A transfer's payer and payee must be names, got {transfer!r}")
        if isinstance(chips, bool) or not isinstance(chips, int):
            raise TypeError(f"A transfer's chips must be an int, got {transfer!r}")
        if chips < 0:
            raise ValueError(f"A transfer can't move a negative number of chips: {transfer!r}")
        if payer == payee:
            raise ValueError(f"{payer} cannot pay themselves: {transfer!r}")
        if payer < payee:
            net[payer, payee] = net.get((payer, payee), 0) + chips
        else:
            net[payee, payer] = net.get((payee, payer), 0) - chips
    payments = [
        Payment(first, second, chips) if chips > 0 else Payment(second, first, -chips)
        for (first, second), chips in net.items()
        if chips
    ]
    return tuple(sorted(payments, key=_payment_order))


def to_money_plan(
    payments: Iterable[Payment], chip_value: Decimal
) -> list[tuple[Payment, Decimal]]:
    """Each payment with its exact money value, in the order given.

    The amounts are exact Decimals (chips times ``chip_value``, no rounding),
    so what the plan says each player pays or receives adds up to exactly what
    their chips are worth; rounding belongs to display only.
    """
    _check_chip_value(chip_value)
    plan: list[tuple[Payment, Decimal]] = []
    for payment in payments:
        if not isinstance(payment, Payment):
            raise TypeError(f"Expected a Payment, got {payment!r}")
        plan.append((payment, to_money(payment.chips, chip_value)))
    return plan
