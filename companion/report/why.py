"""Why each payment of the settle-up is what it is, in sentences a player can check.

One job: the "Why?" under each payment.  The fewest-payments plan matches totals, not bets, so a
payment between two players who never bet against each other needs its reasons: both players'
balances broken down, what passed between the two directly, and how the payer's debt is split.
A pair-by-pair payment says which of its chips are side bets and which went through the pot.
Kept apart from the settle-up (:mod:`companion.report.payments`), which only decides the
payments: the wording changes without the sums.

Every sentence is in the night's words (:class:`~companion.games.vocabulary.ReportVocabulary`).
Pure (no Flask, no database).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.money.amounts import chips_text
from companion.money.settle import Payment
from companion.games.vocabulary import ReportVocabulary
from .model import PlayerReport

__all__ = ["why_pair", "why_plan"]

def _balance(p: PlayerReport, words: ReportVocabulary) -> str:
    """"Ann ends the night 3 chips up (antes −8, side bets +6 from Dan, …)": the balance, broken down."""
    n = p.net_chips
    where = f"{chips_text(n)} up" if n > 0 else (f"{chips_text(-n)} down" if n < 0 else "square")
    parts = p.total.parts(words)
    return f"{p.name} ends the night {where}" + (f" ({', '.join(parts)})" if parts else "")


def _split(name: str, role: str, payments: Sequence[Payment]) -> str | None:
    """How a debt (``role`` "pays") or a credit is shared among several payments; None for one payment."""
    mine = [p for p in payments if (p.payer if role == "pays" else p.payee) == name]
    if len(mine) < 2:
        return None
    total = sum(p.chips for p in mine)
    if role == "pays":
        parts = ", ".join(f"{p.chips} to {p.payee}" for p in mine)
        return f"{name} owes {chips_text(total)} in all, paid as {parts}."
    parts = ", ".join(f"{p.chips} from {p.payer}" for p in mine)
    return f"{name} is owed {chips_text(total)} in all, received as {parts}."


def why_plan(
    payment: Payment, plan: Sequence[Payment], by_name: Mapping[str, PlayerReport], words: ReportVocabulary
) -> tuple[str, ...]:
    """Why ``payment`` of the fewest-payments ``plan``: both balances, what passed between the two, the split."""
    payer, payee = by_name[payment.payer], by_name[payment.payee]
    won, lost = payer.total.with_opponent(payee.name)
    between = words.between
    if won or lost:
        phrase = between.phrase if between is not None else "chips"
        direct = (
            f"Between the two directly: {payer.name} lost {lost} to {payee.name} in {phrase}"
            f" and won {won} from {payee.name}."
        )
    elif between is not None:
        direct = f"{payer.name} and {payee.name} had no {between.one} against each other."
    else:
        direct = f"No chips passed between {payer.name} and {payee.name} directly."
    out = [_balance(payer, words) + ".", _balance(payee, words) + ".", direct]
    for sentence in (_split(payer.name, "pays", plan), _split(payee.name, "receives", plan)):
        if sentence:
            out.append(sentence)
    out.append(
        "The plan pairs what each player owes in total with what others are owed, in the fewest "
        "payments; it does not follow each bet (the pair-by-pair view does)."
    )
    return tuple(out)


def why_pair(
    payment: Payment, parts: tuple[int, int], by_name: Mapping[str, PlayerReport], words: ReportVocabulary
) -> tuple[str, ...]:
    """Why a pair-by-pair ``payment``: its ``parts`` (side bets, through the pot), each in a sentence."""
    payer, payee = by_name[payment.payer], by_name[payment.payee]
    side, pot = parts
    won, lost = payer.total.with_opponent(payee.name)
    between = (words.between.phrase if words.between is not None else "chips").capitalize()
    word = words.pot or "pot"
    paid_in = words.paid_in.phrase if words.paid_in is not None else "chips"
    out = []
    if won or lost:
        out.append(
            f"{between}: {payer.name} lost {lost} to {payee.name} and won {won} from {payee.name}: "
            f"{payer.name} owes {side}."
            if side >= 0
            else f"{between}: {payer.name} lost {lost} to {payee.name} and won {won} from {payee.name}: "
            f"{payee.name} owes {-side}, netted here."
        )
    if pot > 0:
        out.append(
            f"Through the {word}: {payer.name} owes {payee.name} {pot} ({payer.name}'s {paid_in} in {word}s that "
            f"went to {payee.name})."
        )
    elif pot < 0:
        out.append(
            f"Through the {word}: {payee.name} owes {payer.name} {-pot} ({payee.name}'s {paid_in} in {word}s that "
            f"went to {payer.name}), netted here."
        )
    return tuple(out)
