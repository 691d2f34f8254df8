"""What Nap's screens show, as plain data: the table screen's question and its choices.

Pure (no Flask): :func:`view` reads a :class:`~.table.Table` and returns a frozen
:class:`NapView` that the templates (``templates/games/nap/``) only lay out.  Every
chip figure is worked out here, with the stake applied, from the same rules the
engine scores by (``../shared/RULES-NAP.md``), so the screen and the score agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.money.amounts import chips_text

from .table import (
    BID_TITLES,
    EXCHANGE_CHIPS_PER_CARD,
    FIVE_TRICK_BIDS,
    LEAD_OUT_OF_TURN_CHIPS,
    MAX_EXCHANGE,
    PEEK_CHIPS,
    Table,
    contract,
)

VARIANT_TITLES = {
    "plain": "Plain Nap",
    "widow": "Widow Nap",
    "pool": "Pool Nap",
    "peep": "Peep Nap",
    "purchase": "Purchase Nap",
}


def minus(chips: int) -> str:
    """``−5`` with a true minus sign (U+2212), as the summaries write it."""
    return f"\u2212{chips}"


@dataclass(frozen=True)
class BidChoice:
    """One bid the rules allow: its form value, its title and what it pays (stake applied)."""

    value: str  # "1" … "4", "misere", "nap", "wellington", "blucher"
    title: str
    made_each: int  # each other player pays the bidder this on a made bid
    failed_each: int  # the bidder pays each other player this on a failed bid
    five: bool  # a five-trick bid (wins or doubles a pool)

    @property
    def pays(self) -> str:
        """``+2 / −2 each``: what each other player pays, made / failed."""
        return f"+{self.made_each} / {minus(self.failed_each)} each"


@dataclass(frozen=True)
class NapView:
    """Everything Nap's table and standings show now (``prompt`` and ``dealer`` are the layer's)."""

    prompt: str
    dealer: str
    deal: int  # the number of the deal to record next
    title: str  # "Pool Nap"
    variant: str
    stake: int
    players: tuple[str, ...]
    #: who holds no cards this deal (the dealer, with 5 or 6 players), else None
    sitting_out: str | None
    #: who may win the bid, from the dealer's left (the dealer last unless sitting out)
    bidders: tuple[str, ...]
    #: who holds cards this deal (may peek, exchange, commit a penalty)
    holders: tuple[str, ...]
    bids: tuple[BidChoice, ...]
    #: a deal may be thrown in (5 or 6 players: nobody bid)
    can_throw_in: bool
    pooled: bool
    pool: int  # chips in the pool now
    #: what each player pays into the pool before this deal ({} without a pool)
    ante: tuple[tuple[str, int], ...]
    #: the pool once this deal's ante is in: what a made five-trick bid takes at least
    pool_at_deal: int
    #: each player's chips in the pool (paid in since it was last won)
    in_pool: tuple[tuple[str, int], ...]
    peek_chips: int  # per peek (Peep Nap), stake applied
    card_chips: int  # per exchanged card (Purchase Nap), stake applied
    max_exchange: int
    widow_made_each: int  # Widow Nap: Nap with the widow, made / failed each
    widow_failed_each: int
    lead_chips: int  # a lead out of turn: to the bidder
    can_undo: bool
    deals_recorded: int

    @property
    def ante_text(self) -> str:
        """Who pays what into the pool before this deal, in one sentence ("" without a pool)."""
        if not self.ante:
            return ""
        amounts = {chips for _, chips in self.ante}
        if len(self.ante) > 1 and len(amounts) == 1:
            return f"A new pool: {self.ante[0][1]} from everyone before this deal."
        return "; ".join(f"{name} adds {chips} to the pool (dealer)" for name, chips in self.ante) + "."

    @property
    def pool_pays(self) -> str:
        """What the pool pays: the five-trick bids that win it, and how much."""
        if not self.pooled:
            return ""
        names = [b.title for b in self.bids if b.five]
        bids = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        extras = {"peep": "peeks and ", "purchase": "exchanged cards and "}.get(self.variant, "")
        return (
            f"A made {bids} takes the pool: {chips_text(self.pool_at_deal)}, plus this deal's {extras}penalty "
            "chips; a failed one pays in as much as it then holds."
        )

    def in_pool_of(self, name: str) -> int:
        return dict(self.in_pool).get(name, 0)


def bid_choices(table: Table) -> tuple[BidChoice, ...]:
    stake = table.rules.stake
    choices = []
    for bid in table.allowed_bids():
        made, failed = contract(bid)
        choices.append(BidChoice(str(bid), BID_TITLES[bid], made * stake, failed * stake, bid in FIVE_TRICK_BIDS))
    return tuple(choices)


def view(table: Table) -> NapView:
    """What the scorekeeper records next, and every figure the Nap screens show."""
    rules = table.rules
    stake = rules.stake
    dealer = table.dealer
    out = table.sitting_out
    deal = table.deal_number
    # that the dealer sits out is said once, in the status above ("… sits this deal out"; issue 20, item 14)
    prompt = f"Deal {deal}: {dealer} deals. Who won the bid?"
    widow_made, widow_failed = contract("nap", widow=True)
    ante = table.next_pool_ante()
    return NapView(
        prompt=prompt,
        dealer=dealer,
        deal=deal,
        title=VARIANT_TITLES[rules.variant],
        variant=rules.variant,
        stake=stake,
        players=table.players,
        sitting_out=out,
        bidders=table.bidders(),
        holders=tuple(name for name in table.players if name != out),
        bids=bid_choices(table),
        can_throw_in=out is not None,
        pooled=rules.pooled,
        pool=table.pool,
        ante=tuple(ante.items()),
        pool_at_deal=table.pool_at_next_deal(),
        in_pool=tuple(table.in_pool.items()),
        peek_chips=PEEK_CHIPS * stake,
        card_chips=EXCHANGE_CHIPS_PER_CARD * stake,
        max_exchange=MAX_EXCHANGE,
        widow_made_each=widow_made * stake,
        widow_failed_each=widow_failed * stake,
        lead_chips=LEAD_OUT_OF_TURN_CHIPS * stake,
        can_undo=table.can_void(),
        deals_recorded=len(table.live_records()),
    )
