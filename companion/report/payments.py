"""Who pays whom: a night's figures settled up, each player's totals checked against the ledger.

One job: from the figures of a night's games (a :class:`~companion.report.model.GamePart`), the
:class:`~companion.report.model.Report`: each player's totals, checked against the closing
balances, the payments in both views, and which of them the recorded payments have made.  The
game parts (:mod:`companion.report.parts`) say what each player's chips did; this module only
settles the sum, so the same settle-up serves a night of one game and a night of many.

Who pays whom
-------------
* **Fewest payments** (the default): :func:`~companion.money.settle.settle_up`
  over the closing balances.  It matches totals, not bets, so each payment comes
  with an explanation (:mod:`companion.report.why`): both players' balances broken
  down, what passed between the two directly, and how the payer's debt is split.
* **Pair by pair**: every side bet is paid to the player who won it, netted per
  pair; the pot is attributed game by game: the antes a player put into a
  game's pot go to whoever took that pot (in a finished game, each player pays
  the winner the antes they put in; in an unfinished game, its closing
  decides: returned antes or a carried pot move nothing between players, a pot
  shared otherwise (Napalm's split among the token leaders) is paid from the
  others' antes in the fewest payments).  Side bets and pot shares between the same two players are netted
  into one payment, whose parts are kept for the page.

A player's net chips are ``pots + unfinished pot + side bets won - side bets lost - antes``; the
report checks that this equals the closing balance, and the closing balances add up to zero
(less what is carried).  Pure (no Flask, no database).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from companion.money.amounts import to_money, value_text
from companion.money.settle import Payment, pairwise_debts, settle_up
from companion.games.vocabulary import ReportVocabulary
from .model import GameLine, GamePart, LedgerShare, PairLine, PlanLine, PlayerReport, Report, night_words, sum_figures
from .why import why_pair, why_plan

__all__ = ["report_from_part"]


def report_from_part(
    part: GamePart,
    *,
    chip_value: Decimal,
    currency: str = "",
    paid: Iterable[tuple[str, str, int]] = (),
    name: str = "",
    words: ReportVocabulary | None = None,
) -> Report:
    """The report of one part as the whole night: each player's totals, checked, and who pays whom.

    ``words`` are the night's (its game's ``report_vocabulary``); by default those of the
    part's game lines.

    ``paid`` are the settle-up payments recorded so far, ``(payer, payee, chips)``
    in the order recorded.  Each marks the first unpaid matching line of the
    plan and, separately, of the pairwise list; those that mark no line of a
    list (the table changed after they were recorded, or they were marked in
    the other view) are listed by :meth:`Report.unmatched`, and
    :attr:`Report.remaining` settles what is left counting every one of them.
    """
    if words is None:
        words = night_words([g.words for g in part.games if not g.extra])
    return _settle(name, part.players, part, chip_value, currency, paid, words)


def _settle(
    name: str,
    players: Sequence[str],
    part: GamePart,
    chip_value: Decimal,
    currency: str,
    paid: Iterable[tuple[str, str, int]],
    words: ReportVocabulary,
) -> Report:
    """The report of ``part``'s figures: each player's totals, checked against the ledger, and who pays whom.

    ``words`` are the night's; each game line's figures must fit its own words (a game whose
    records hold a figure its words leave out declared them wrong)."""
    closing = part.closing
    games = part.games
    lines = []
    for seat, player in enumerate(players):
        per_game = part.figures[player]
        for line, f in zip(games, per_game):
            missing = None if line.extra else line.words.lacks(f.antes, f.side_won + f.side_lost, f.pots, f.unfinished, f.tokens)
            if missing is not None:
                raise ValueError(f"{line.title or 'a game'}: its report words leave out chips {missing}, which {player} has")
        total = sum_figures(per_game, players)
        net = closing.net[player]
        if total.net != net:  # pragma: no cover - the ledger and the report disagree: a bug
            raise ValueError(f"{player}'s figures add up to {total.net}, but the ledger says {net}")
        money = to_money(net, chip_value)
        lines.append(
            PlayerReport(
                name=player,
                seat=seat + 1,
                games=per_game,
                total=total,
                games_won=part.games_won[player],
                net_chips=net,
                money=money,
                money_text=value_text(net, chip_value, currency),
                stack_change=part.stack_change[player],
            )
        )
    by_name = {p.name: p for p in lines}

    recorded = tuple(Payment(a, b, c) for a, b, c in paid)
    plan = settle_up(closing.net)
    plan_paid = _match(plan, recorded)
    pairs, parts, shares = _pairwise(players, by_name, games, closing.net)
    pairs_paid = _match(pairs, recorded)
    plan_lines = tuple(
        PlanLine(
            payer=p.payer,
            payee=p.payee,
            chips=p.chips,
            money=money,
            money_text=value_text(p.chips, chip_value, currency),
            paid=done,
            why=why_plan(p, plan, by_name, words, games),
        )
        for p, done in zip(plan, plan_paid)
        for money in (to_money(p.chips, chip_value),)
    )
    pair_lines = tuple(
        PairLine(
            payer=p.payer,
            payee=p.payee,
            chips=p.chips,
            money=money,
            money_text=value_text(p.chips, chip_value, currency),
            paid=done,
            side_bets=parts[p.payer, p.payee][0],
            through_pot=parts[p.payer, p.payee][1],
            why=why_pair(p, parts[p.payer, p.payee], by_name, words, games, shares[p.payer, p.payee]),
            ledger=shares[p.payer, p.payee],
        )
        for p, done in zip(pairs, pairs_paid)
        for money in (to_money(p.chips, chip_value),)
    )
    left = dict(closing.net)
    for p in recorded:
        left[p.payer] += p.chips
        left[p.payee] -= p.chips
    return Report(
        name=name,
        players=tuple(lines),
        games=games,
        chip_value=chip_value,
        currency=currency,
        closing=closing,
        choice_text=closing.setting_text,
        plan=plan_lines,
        pairwise=pair_lines,
        recorded=recorded,
        unmatched_plan=_leftover(plan, recorded),
        unmatched_pairwise=_leftover(pairs, recorded),
        remaining=settle_up(left),
        carried_in=tuple(part.carried_in.items()),
        words=words,
    )


def _key(p: Payment) -> tuple[str, str, int]:
    return (p.payer, p.payee, p.chips)


def _leftover(payments: Sequence[Payment], recorded: Sequence[Payment]) -> tuple[Payment, ...]:
    """The recorded payments that mark none of ``payments``, in the order recorded."""
    left = Counter(_key(p) for p in payments)
    out = []
    for p in recorded:
        if left[_key(p)] > 0:
            left[_key(p)] -= 1
        else:
            out.append(p)
    return tuple(out)


def _match(payments: Sequence[Payment], recorded: Sequence[Payment]) -> list[bool]:
    """Which payments a recorded payment marks as paid (each recorded one marks at most one)."""
    left = Counter(_key(p) for p in recorded)
    out = []
    for p in payments:
        k = _key(p)
        out.append(left[k] > 0)
        if left[k] > 0:
            left[k] -= 1
    return out


def _pairwise(
    players: Sequence[str],
    by_name: Mapping[str, PlayerReport],
    games: Sequence[GameLine],
    closing_net: Mapping[str, int],
) -> tuple[tuple[Payment, ...], dict[tuple[str, str], tuple[int, int]], dict[tuple[str, str], tuple[LedgerShare, ...]]]:
    """Pair-by-pair debts; for each (payer, payee) the (side bets, through the pot) parts, and what each line
    of the night's own ledger makes of it (:class:`LedgerShare`)."""
    side: list[tuple[str, str, int]] = []
    for p in players:
        for other, chips in by_name[p].total.lost_to:
            side.append((p, other, chips))
    pot: list[tuple[str, str, int]] = []
    # the night's own lines, each apart under its title: payments made player to player as made (the Bonus
    # Round's), the rest squared in the fewest payments (the bank's counts beyond the games)
    ledger: dict[str, list[tuple[str, str, int]]] = {}
    direct: dict[str, list[tuple[str, str, int]]] = {}
    said: dict[str, str] = {}
    for g, line in enumerate(games):
        # Within one game the pot nets (pots taken and returned minus antes) add
        # up to zero; the fewest payments that square them are, for a finished
        # game, exactly "everyone pays the winner the antes they put in".
        nets = {p: by_name[p].games[g].pot_net + by_name[p].games[g].ledger for p in players}
        if not line.extra:
            pot += [(x.payer, x.payee, x.chips) for x in settle_up(nets)]
            continue
        for payer, payee, chips in line.direct:
            nets[payer] += chips  # made already, player to player: what is left of the line is the rest
            nets[payee] -= chips
            direct.setdefault(line.direct_title, []).append((payer, payee, chips))
            ledger.setdefault(line.direct_title, []).append((payer, payee, chips))
        rest = [(x.payer, x.payee, x.chips) for x in settle_up(nets)]
        if rest:
            ledger.setdefault(line.title, []).extend(rest)
            apart = line.direct and line.direct_title != line.title  # the Bonus Round's payments within the line
            said[line.title] = line.what + (f", less the {line.direct_title}'s payments" if apart else "")
    owed_in_ledger = [debt for debts in ledger.values() for debt in debts]
    pairs = pairwise_debts(side + pot + owed_in_ledger)
    side_by_pair = pairwise_debts(side)
    pot_by_pair = pairwise_debts(pot)
    ledger_by_pair = {title: pairwise_debts(debts) for title, debts in ledger.items()}

    def owed(debts: Iterable[Payment], payer: str, payee: str) -> int:
        for d in debts:
            if (d.payer, d.payee) == (payer, payee):
                return d.chips
            if (d.payer, d.payee) == (payee, payer):
                return -d.chips
        return 0

    parts = {
        (p.payer, p.payee): (owed(side_by_pair, p.payer, p.payee), owed(pot_by_pair, p.payer, p.payee))
        for p in pairs
    }

    def made(title: str, payer: str, payee: str) -> int:
        return sum(c for a, b, c in direct.get(title, ()) if (a, b) == (payer, payee))

    shares = {
        (p.payer, p.payee): tuple(
            LedgerShare(title, chips, title in direct, made(title, p.payer, p.payee), made(title, p.payee, p.payer),
                        said.get(title, ""))
            for title, debts in ledger_by_pair.items()
            for chips in (owed(debts, p.payer, p.payee),)
            if chips or made(title, p.payer, p.payee)
        )
        for p in pairs
    }
    # Every player's pairwise payments add up to their closing balance.
    for name in players:
        flow = sum(p.chips for p in pairs if p.payee == name) - sum(p.chips for p in pairs if p.payer == name)
        if flow != closing_net[name]:  # pragma: no cover - a bug
            raise ValueError(f"the pairwise plan gives {name} {flow}, the ledger says {closing_net[name]}")
    return pairs, parts, shares
