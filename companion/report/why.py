"""Why each payment of the settle-up is what it is, in sentences a player can check.

One job: the "Why?" under each payment.  The fewest-payments plan matches totals, not bets, so a
payment between two players who never bet against each other needs its reasons: both players'
balances broken down, what passed between the two directly, and how the payer's debt is split.
A pair-by-pair payment says which of its chips are side bets and which went through the pot.
Kept apart from the settle-up (:mod:`companion.report.payments`), which only decides the
payments: the wording changes without the sums.

Every sentence is in the night's words (:class:`~companion.games.vocabulary.ReportVocabulary`);
in a night of games with words of their own that differ (Napalm's side bets, a points game's
points), each game's figures are said in its own words, named by the game, rather than in the
neutral words the night's totals use ("stakes", "direct payments").
Pure (no Flask, no database).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from companion.money.amounts import chips_text
from companion.money.settle import Payment
from companion.games.vocabulary import ReportVocabulary
from .model import Figures, GameLine, LedgerShare, PlayerReport, sum_figures

__all__ = ["why_ledger", "why_pair", "why_plan"]

#: one game's words and its figures' places among a player's per-line figures, named by its title
Group = tuple[str, ReportVocabulary, tuple[int, ...]]


def _groups(games: Sequence[GameLine]) -> list[Group]:
    """The night's game lines grouped by their words (each group named by its games' titles), when
    the games' words differ; [] when they are one (the night's words then say everything)."""
    by_words: dict[ReportVocabulary, tuple[list[str], list[int]]] = {}
    for i, line in enumerate(games):
        if line.extra or not line.words.columns:
            continue
        titles, places = by_words.setdefault(line.words, ([], []))
        if line.title and line.title not in titles:
            titles.append(line.title)
        places.append(i)
    if len(by_words) < 2:
        return []
    return [(", ".join(titles), words, tuple(places)) for words, (titles, places) in by_words.items()]


def _of(p: PlayerReport, places: Sequence[int], order: Sequence[str]) -> Figures:
    return sum_figures((p.games[i] for i in places), order)


def _balance(p: PlayerReport, words: ReportVocabulary, groups: Sequence[Group] = (), order: Sequence[str] = ()) -> str:
    """"Ann ends the night 3 chips up (antes −8, side bets +6 from Dan, …)": the balance, broken down
    (each game in its own words when the night's games say theirs differently)."""
    n = p.net_chips
    where = f"{chips_text(n)} up" if n > 0 else (f"{chips_text(-n)} down" if n < 0 else "square")
    if not groups:
        parts = p.total.parts(words)
        return f"{p.name} ends the night {where}" + (f" ({', '.join(parts)})" if parts else "")
    said = []
    grouped = {i for _, _, places in groups for i in places}
    for title, own, places in groups:
        parts = _of(p, places, order).parts(own)
        if parts:
            said.append(f"{title}: {', '.join(parts)}")
    rest = _of(p, [i for i in range(len(p.games)) if i not in grouped], order).parts(words)
    if rest:
        said.append(", ".join(rest))
    return f"{p.name} ends the night {where}" + (f" ({'; '.join(said)})" if said else "")


def _direct(payer: PlayerReport, payee: PlayerReport, words: ReportVocabulary, groups: Sequence[Group], order: Sequence[str]) -> str:
    """What passed between the two directly, in the night's words or, game by game, in each game's."""
    if not groups:
        won, lost = payer.total.with_opponent(payee.name)
        between = words.between
        if won or lost:
            phrase = between.phrase if between is not None else "chips"
            return (
                f"Between the two directly: {payer.name} lost {lost} to {payee.name} in {phrase}"
                f" and won {won} from {payee.name}."
            )
        if between is not None:
            return f"{payer.name} and {payee.name} had no {between.one} against each other."
        return f"No chips passed between {payer.name} and {payee.name} directly."
    said, ones = [], []
    for _, own, places in groups:
        won, lost = _of(payer, places, order).with_opponent(payee.name)
        phrase = own.between.phrase if own.between is not None else "chips"
        if won or lost:
            said.append(f"{payer.name} lost {lost} to {payee.name} in {phrase} and won {won} from {payee.name}")
        elif own.between is not None and own.between.one not in ones:
            ones.append(own.between.one)
    if said:
        return "Between the two directly: " + "; ".join(said) + "."
    if ones:
        return f"{payer.name} and {payee.name} had no {' or '.join(ones)} against each other."
    return f"No chips passed between {payer.name} and {payee.name} directly."


def _made_directly(payer: str, payee: str, games: Sequence[GameLine]) -> list[str]:
    """What the night's own lines paid between the two player to player (the Bonus Round's payments), a sentence
    per line that did: "In the Bonus Round's payments, player to player: Ben paid Ann 2."."""
    out = []
    for line in games:
        paid = sum(c for a, b, c in line.direct if (a, b) == (payer, payee))
        back = sum(c for a, b, c in line.direct if (a, b) == (payee, payer))
        said = " and ".join(s for s in (f"{payer} paid {payee} {paid}" if paid else "",
                                        f"{payee} paid {payer} {back}" if back else "") if s)
        if said:
            out.append(f"In the {line.direct_title}'s payments, player to player: {said}.")
    return out


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
    payment: Payment, plan: Sequence[Payment], by_name: Mapping[str, PlayerReport], words: ReportVocabulary,
    games: Sequence[GameLine] = (),
) -> tuple[str, ...]:
    """Why ``payment`` of the fewest-payments ``plan``: both balances, what passed between the two, the split.

    ``games`` are the report's game lines: when their words differ, each game is said in its own."""
    payer, payee = by_name[payment.payer], by_name[payment.payee]
    groups, order = _groups(games), list(by_name)
    direct = _direct(payer, payee, words, groups, order)
    made = _made_directly(payer.name, payee.name, games)
    if made and direct.startswith("No chips passed"):  # the games moved none between them; the night's own line did
        direct = direct.removesuffix(".") + " in the games."
    out = [_balance(payer, words, groups, order) + ".", _balance(payee, words, groups, order) + ".", direct, *made]
    for sentence in (_split(payer.name, "pays", plan), _split(payee.name, "receives", plan)):
        if sentence:
            out.append(sentence)
    out.append(
        "The plan pairs what each player owes in total with what others are owed, in the fewest "
        "payments; it does not follow each bet (the pair-by-pair view does)."
    )
    return tuple(out)


def _joined(phrases: Sequence[str]) -> str:
    phrases = list(dict.fromkeys(phrases))
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def why_pair(
    payment: Payment, parts: tuple[int, int], by_name: Mapping[str, PlayerReport], words: ReportVocabulary,
    games: Sequence[GameLine] = (), ledger: Sequence[LedgerShare] = (),
) -> tuple[str, ...]:
    """Why a pair-by-pair ``payment``: its ``parts`` (side bets, through the pot), each in a sentence, and what
    each line of the night's own ``ledger`` makes of it, in that line's words (:func:`why_ledger`).

    ``games`` are the report's game lines: when their words differ, the chips between the two and
    those paid in are called as the games that hold them call them ("side bets and points")."""
    payer, payee = by_name[payment.payer], by_name[payment.payee]
    side, pot = parts
    won, lost = payer.total.with_opponent(payee.name)
    between = (words.between.phrase if words.between is not None else "chips").capitalize()
    word = words.pot or "pot"
    paid_in = words.paid_in.phrase if words.paid_in is not None else "chips"
    groups, order = _groups(games), list(by_name)
    if groups:
        betweens = [own.between.phrase for _, own, places in groups if own.between is not None
                    and any(_of(payer, places, order).with_opponent(payee.name))]
        paying = [own.paid_in.phrase for _, own, places in groups if own.paid_in is not None
                  and (_of(payer, places, order).antes or _of(payee, places, order).antes)]
        between = _joined(betweens).capitalize() if betweens else between
        paid_in = _joined(paying) if paying else paid_in
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
    out += [why_ledger(share, payer.name, payee.name) for share in ledger]
    return tuple(out)


def why_ledger(share: LedgerShare, payer: str, payee: str) -> str:
    """What one line of the night's own ledger makes ``payer`` owe ``payee``, in the line's own words: the
    Bonus Round's payments as they were made, player to player ("Bonus Round: Ben paid Ann 2 in its payments,
    player to player."); the bank's counts as what they are ("The bank: Ben owes Ann 3 (each count less the
    chips bought, less the games above), squared with the others' in the fewest payments."), never a pot."""
    if share.direct:
        made = f"{payer} paid {payee} {share.paid}" if share.paid else ""
        back = f"{payee} paid {payer} {share.back}" if share.back else ""
        said = " and ".join(s for s in (made, back) if s)
        if share.paid and share.back:
            net = (f"{payer} owes {share.chips}" if share.chips > 0
                   else f"{payee} owes {-share.chips}, netted here" if share.chips < 0 else "square")
            return f"{share.title}: {said} in its payments, player to player: {net}."
        return f"{share.title}: {said} in its payments, player to player" + (", netted here." if share.back else ".")
    owes = f"{payer} owes {payee} {share.chips}" if share.chips > 0 else f"{payee} owes {payer} {-share.chips}"
    what = f" ({share.what})" if share.what else ""
    netted = ", netted here" if share.chips < 0 else ""
    return f"{share.title}: {owes}{what}, squared with the others' in the fewest payments{netted}."
