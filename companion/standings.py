"""What a page shows of a night: the standings, computed from the fold, never stored.

Pure (no Flask, no database): the table page, the players' page and the report
all read the same :class:`Standings`, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .ledger.money import format_money, to_money, value_text
from .ledger.settle import Payment, settle_up
from .napalm import Phase, Record, Table
from .napalm.closing import Closing, close_night


@dataclass(frozen=True)
class PlayerLine:
    name: str
    seat: int
    tokens: int
    net_chips: int
    money: Decimal
    money_text: str
    is_dealer: bool
    says_next: int  # 1-based order of speaking this stage (dealer last)
    in_yes: bool  # among this stage's Yes players


@dataclass(frozen=True)
class Standings:
    version: int
    game: int
    hand: int
    stage: int
    stage_title: str
    phase: str
    prompt: str
    dealer: str
    pot: int
    tokens_to_win: int
    antes_this_hand: bool
    players: tuple[PlayerLine, ...]
    order: tuple[str, ...]  # declaration order, dealer last
    yes: tuple[str, ...]
    games: tuple[tuple[int, str, int], ...]  # (number, winner, pot)
    recent: tuple[Record, ...]  # the last few live records, newest first
    voided: frozenset[int]
    chip_value: Decimal
    currency: str
    closing: Closing
    plan: tuple[Payment, ...]  # who pays whom if the night were settled now
    #: the pot carried in from a previous night, (contributor, chips) in seat order: in the
    #: first game's pot until someone wins it
    carried_in: tuple[tuple[str, int], ...] = ()
    carried_from: str | None = None  # the name of the night it came from, when known
    ante_hand: bool = False  # this hand antes (by the rules), whether or not it is taken yet

    @property
    def carried_total(self) -> int:
        return sum(chips for _, chips in self.carried_in)

    @property
    def carried_text(self) -> str:
        """"6 carried in from “Friday”: Ann 2, Ben 2, Cat 2" while the first game holds it; else ""."""
        if not self.carried_in or self.game != 1:
            return ""
        source = f"\u201c{self.carried_from}\u201d" if self.carried_from else "the previous night"
        shares = ", ".join(f"{name} {chips}" for name, chips in self.carried_in)
        return f"{self.carried_total} carried in from {source}: {shares}"

    def money(self, chips: int) -> str:
        return value_text(chips, self.chip_value, self.currency)

    def line(self, name: str) -> PlayerLine | None:
        return next((p for p in self.players if p.name == name), None)

    def if_settled_now(self, name: str) -> list[tuple[str, str, int]]:
        """("pay" | "receive", other, chips) for ``name`` in the plan that settles now."""
        lines = []
        for p in self.plan:
            if p.payer == name:
                lines.append(("pay", p.payee, p.chips))
            elif p.payee == name:
                lines.append(("receive", p.payer, p.chips))
        return lines


def standings(
    table: Table,
    version: int,
    chip_value: Decimal,
    currency: str,
    unfinished_pot: str,
    recent: int = 6,
    carried_from: str | None = None,
) -> Standings:
    tokens = table.tokens
    net = table.net_chips
    order = table.declaration_order()
    position = table.position
    lines = tuple(
        PlayerLine(
            name=name,
            seat=seat + 1,
            tokens=tokens[name],
            net_chips=net[name],
            money=to_money(net[name], chip_value),
            money_text=value_text(net[name], chip_value, currency),
            is_dealer=seat == position.dealer,
            says_next=order.index(name) + 1,
            in_yes=name in position.yes,
        )
        for seat, name in enumerate(table.players)
    )
    log = table.log
    voided = frozenset(table.voided)
    closing = close_night(table, unfinished_pot)
    return Standings(
        version=version,
        game=position.game,
        hand=position.hand,
        stage=int(position.stage),
        stage_title=position.stage.title,
        phase=position.phase.value,
        prompt=table.prompt(),
        dealer=table.dealer,
        pot=position.pot,
        tokens_to_win=table.rules.tokens_to_win,
        antes_this_hand=table.antes_this_hand() and not position.ante_paid,
        players=lines,
        order=order,
        yes=position.yes,
        games=tuple((g.number, g.winner, g.pot) for g in position.games),
        recent=tuple(reversed(log[-recent:])),
        voided=voided,
        chip_value=chip_value,
        currency=currency,
        closing=closing,
        plan=settle_up(closing.net),
        carried_in=tuple(table.carried_in.items()),
        carried_from=carried_from,
        ante_hand=table.antes_this_hand(),
    )


__all__ = ["PlayerLine", "Standings", "standings", "Phase"]
