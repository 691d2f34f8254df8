"""One night as the group sees it, made from the night as the app reads it: its file, replayed, and its report.

The season and the tab read a night only through :class:`~companion.group.nights.NightResult`;
this module fills one in from a night file (``companion-night/2``, :mod:`companion.night.file`)
exactly as the night's own report page would show that night, so that the group never disagrees
with the night: the file's games replayed into their fold, the night's own ledger (the bank, the
Bonus Round) folded beside them, and the report built by
:func:`~companion.report.parts.build_night_report` with the payments marked paid at the night.
From that report it takes:

* ``net``: each player's net chips (the report's closing balances);
* ``parts``: each player's chips per game line, by the line's title: the report's game titles
  ("Napalm", "Nap", a pot game's preset) and its ledger line ("The bank", "Bonus Round").  Two
  games of one title add up under it; a player with no figure under a title (who sat that game
  out, whom the bank's line gives nothing) has no part there;
* ``flows``: the pair-by-pair settle-up (:class:`~companion.report.model.PairLine`), with its words;
* ``planned``: the fewest-payments plan; ``paid``: every payment marked paid at the night, in the
  order recorded (matched to the plan or not: the tab counts balances, not lines); both in the
  night's unit: chips x the chip value, or whole chips on a chips-only night.
* ``cleared``: what the group's tab has settled of the night already: its ``tab_cleared`` events
  (:mod:`companion.night.tab`), in the order appended, each as a :class:`Cleared` of the player
  seated (whom :class:`~companion.group.members.Members` maps to their member), then any given.

A night that settles on chip counts whose bank does not balance yet has no payments to owe: it is
refused (:class:`NotSettled`), as its report shows no plan.  Pure: no Flask, no database.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from decimal import Decimal

from companion.money.amounts import to_money
from companion.money.settle import Payment
from companion.night.file import NightFile
from companion.night.ledger import BANK, NightLedger, extra_line, settle_on_counts
from companion.night.tab import TabCleared
from companion.report.model import Figures, Report
from companion.report.parts import build_night_report

from .nights import Cleared, Flow, NightResult, Transfer

__all__ = ["NotSettled", "cleared_of", "night_ledger", "night_report", "night_result", "not_settled", "result_of_report", "tab_cleared"]


class NotSettled(ValueError):
    """A night on chip counts whose bank does not balance yet: it has no payments, so the group cannot count it."""


def night_ledger(night: NightFile) -> NightLedger:
    """The night's own ledger (its setting, bank and Bonus Round) folded from the file's ledger events."""
    ledger = NightLedger(
        night.players, night.money.chip_value, night.money.currency, chip_by_chip=night.play.records_chip_by_chip()
    )
    for seq, (kind, payload) in enumerate(night.ledger_events, start=1):
        ledger.apply(seq, kind, payload)
    return ledger


def night_report(night: NightFile, paid: Iterable[Payment] = ()) -> Report:
    """The night's report, as its report page builds it, with ``paid`` the payments marked paid at the night.

    :class:`NotSettled` when the night settles on chip counts that do not balance yet.
    """
    play = night.play
    closings = play.closings()
    games_net = play.net(closings)
    ledger = night_ledger(night)
    counts = settle_on_counts(ledger, games_net, play.records_chip_by_chip(), play.left_in_pot(closings))
    if ledger.settle_on == BANK and counts.block is not None:
        raise not_settled(counts.block)
    games = [(p.title, p.state, p.rules, p.close(), p.game) for p in play.played()]  # a game taken back: none
    return build_night_report(
        games,
        play.seated,
        chip_value=night.money.chip_value,
        currency=night.money.currency,
        paid=[(p.payer, p.payee, p.chips) for p in paid],
        name=night.name or "",
        extra=extra_line(ledger, games_net, counts.results, counts.block),
    )


def night_result(
    night: NightFile,
    *,
    night_id: str,
    date: datetime.date,
    title: str,
    paid: Sequence[Payment] = (),
    cleared: Sequence[Cleared] = (),
) -> NightResult:
    """``night`` as the group sees it (see the module's doc); ``cleared`` are the tab's records against it
    beyond the night's own ``tab_cleared`` events (which come first).

    A night with no chip value is a chips-only night (its currency, if written, names nothing
    paid); any other counts in its currency as written ("" included: a currency of its own).
    """
    return result_of_report(
        night_report(night, paid),
        night_id=night_id,
        date=date,
        title=title,
        only=night.play.of_the_night()[0].title,
        cleared=(*tab_cleared(night, night_id), *cleared),
    )


def result_of_report(
    report: Report,
    *,
    night_id: str,
    date: datetime.date,
    title: str,
    only: str,
    cleared: Sequence[Cleared] = (),
) -> NightResult:
    """The group's :class:`NightResult` of a night whose report is ``report``: its balances, its lines per game
    title (``only``: the title of the night's first game, for a report of one game whose lines carry none),
    its pair-by-pair lines, its plan and the payments marked paid, in the report's own figures; ``cleared``:
    what the group's tab settled of it.  A stored night's group reads it from the night's own report (the
    service's ``report_of``), so the two cannot differ; a night file, from the report made of the file."""
    money = report.chip_value != 0
    currency = report.currency if money else None
    chip_value = report.chip_value if money else None

    def amount(chips: int) -> Decimal:
        return to_money(chips, report.chip_value) if money else Decimal(chips)

    return NightResult(
        night_id=night_id,
        date=date,
        title=title,
        currency=currency,
        chip_value=chip_value,
        net={p.name: p.net_chips for p in report.players},
        parts={p.name: _parts(report, p.games, only) for p in report.players},
        flows=tuple(Flow(line.payer, line.payee, line.chips, line.why) for line in report.pairwise),
        planned=tuple(
            Transfer(line.payer, line.payee, line.money if money else Decimal(line.chips)) for line in report.plan
        ),
        paid=tuple(Transfer(p.payer, p.payee, amount(p.chips)) for p in report.recorded),
        cleared=tuple(cleared),
    )


def not_settled(block: str) -> NotSettled:
    """Why a night on chip counts whose bank does not balance yet cannot be counted, in the words the group shows."""
    return NotSettled(f"the night settles on chip counts and cannot settle yet: {block}")


def tab_cleared(night: NightFile, night_id: str) -> tuple[Cleared, ...]:
    """The night's ``tab_cleared`` events as the group's :class:`Cleared` records, in the order appended."""
    return cleared_of(night_ledger(night).tab_records, night_id)


def cleared_of(records: Iterable[TabCleared], night_id: str) -> tuple[Cleared, ...]:
    """A night's tab records (:attr:`NightLedger.tab_records`) as the group's :class:`Cleared` records, in order."""
    return tuple(Cleared(night_id, r.player, r.amount, r.payer, r.payee) for r in records)


def _parts(report: Report, figures: Sequence[Figures], only: str) -> dict[str, int]:
    """One player's net chips per title of the report's game lines (only the titles they have a figure under).

    A night of one game that breaks itself down is reported as that game's lines alone, untitled:
    they are ``only``'s, the title of the night's one game."""
    parts: dict[str, int] = {}
    for line, f in zip(report.games, figures):
        if f == Figures(ledger_label=f.ledger_label):  # nothing of theirs in this line
            continue
        title = line.title or only
        parts[title] = parts.get(title, 0) + f.net
    return parts
