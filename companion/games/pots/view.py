"""What the pots game's screens show, as plain data: pure (no Flask), so it is tested on its own.

:func:`view` reads a :class:`~.engine.PotTable` and says what the scorekeeper records next
(``prompt``), who deals, each pot and what is in it, which pot the winner buttons are for,
what the next tap takes as antes, and which of the rarer actions (a split, high-low, a
carried pot, chips into the pot, a sale) the rules allow.  The templates only lay it out.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import SINGLE_POT, PotTable, sale_split
from .presets import TITLES


@dataclass(frozen=True)
class PotLine:
    """One pot: its name ("pot" or "A" …), what players call it, and what is in it."""

    name: str
    label: str  # "The pot", "Pot A"
    chips: int
    stake: int  # each player's chips into it when a deal starts
    open: bool  # still to end in this deal
    current: bool  # the pot the winner buttons are for
    carried: int  # deals it has been carried over in a row
    paid: tuple[tuple[str, int], ...]  # who paid what into it since it was last won (seat order, > 0)

    @property
    def paid_text(self) -> str:
        return ", ".join(f"{name} {chips}" for name, chips in self.paid)


@dataclass(frozen=True)
class PotsView:
    """The pots game at the table now."""

    title: str  # the preset's name: "Tips to the Fat One"
    deal: int
    dealer: str
    players: tuple[str, ...]  # seat order
    pots: tuple[PotLine, ...]
    current: PotLine  # the pot asked for now (the first one still open)
    anted: bool  # this deal's antes (stakes) are in
    antes_note: str  # what recording the deal's first action takes, or what is in already
    prompt: str
    several: bool  # several named pots (Tips to the Fat One)
    can_carry: bool
    high_low: bool
    sales: bool
    sale_limit: int | None
    bid_taken: bool  # this deal's bid for the first sale is recorded
    into_reasons: tuple[tuple[str, str], ...]  # (reason, words) a player's chips into a pot may be

    @property
    def total(self) -> int:
        """All the chips in all the pots."""
        return sum(p.chips for p in self.pots)

    @property
    def open_pots(self) -> tuple[PotLine, ...]:
        return tuple(p for p in self.pots if p.open)

    @property
    def limit_text(self) -> str:
        """The sale rule in words, with the seed's example worked out at this limit."""
        if self.sale_limit is None:
            return "The buyer pays the seller the whole price."
        price = self.sale_limit + 7
        to_seller, to_pot = sale_split(price, self.sale_limit)
        return (
            f"The buyer pays the seller the price; above {self.sale_limit}, half of the excess goes to "
            f"the pot instead, the odd chip to the pot (a sale at {price}: {to_seller} to the seller, "
            f"{to_pot} to the pot)."
        )


def pot_label(name: str) -> str:
    return "The pot" if name == SINGLE_POT else f"Pot {name}"


def view(table: PotTable) -> PotsView:
    """The pots game's screen data for ``table`` (its position and rules; nothing else)."""
    rules, position = table.rules, table.position
    names = rules.pot_names
    open_names = table.open_pots
    current_name = open_names[0] if open_names else names[0]
    in_pot = table.in_pot
    stakes = rules.pot_stakes
    pots = tuple(
        PotLine(
            name=name,
            label=pot_label(name),
            chips=chips,
            stake=stakes[i],
            open=not position.decided[i],
            current=name == current_name,
            carried=position.carried[i],
            paid=tuple((p, c) for p, c in in_pot[name].items() if c),
        )
        for i, (name, chips) in enumerate(zip(names, position.pots))
    )
    current = next(p for p in pots if p.current)
    dealer = table.dealer
    n = len(table.players)
    if position.anted:
        antes_note = ""
    elif len(stakes) > 1:
        each = ", ".join(f"{name} {stake}" for name, stake in zip(names, stakes))
        antes_note = f"Recording this deal's first action takes the stakes: {each} from each player."
    elif stakes[0]:
        into = position.pots[0] + stakes[0] * n
        antes_note = (
            f"Recording this deal's first action takes the ante: {stakes[0]} from each player "
            f"(the pot will be {into})."
        )
    else:
        antes_note = "No ante."
    what = "the pot" if current.name == SINGLE_POT else f"pot {current.name}"
    prompt = f"Deal {position.deal}: {dealer} deals. Who won {what}?"
    reasons = [("bet", "a bet")]
    if rules.sales:
        if not position.bid:
            reasons.append(("bid", "the bid for the first sale"))
        reasons.append(("unsold", "an unsold card's asking price"))
    return PotsView(
        title=TITLES.get(rules.preset, "Fixed-stake pot"),
        deal=position.deal,
        dealer=dealer,
        players=table.players,
        pots=pots,
        current=current,
        anted=position.anted,
        antes_note=antes_note,
        prompt=prompt,
        several=len(names) > 1,
        can_carry=rules.carry,
        high_low=rules.high_low,
        sales=rules.sales,
        sale_limit=rules.sale_limit,
        bid_taken=position.bid,
        into_reasons=tuple(reasons),
    )


def stakes_text(stakes: tuple[int, ...]) -> str:
    """Tips to the Fat One's stakes in words: "A 2, B 3, C 4, D 6, E 9"."""
    return ", ".join(f"{chr(65 + i)} {s}" for i, s in enumerate(stakes))


__all__ = ["PotLine", "PotsView", "pot_label", "stakes_text", "view"]
