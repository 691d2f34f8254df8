"""Random valid games of Nap keep every invariant of RULES-NAP.md (Hypothesis).

The :func:`games` strategy seats 2 to 6 players under random rules (every
variant, optional bids, a stake) and plays random valid deals drawn from the
table's state: a bidder among those holding cards (or a throw-in with 5 or 6),
an allowed bid, the variant's extras, leads out of turn and a revoke, wrong
hands, and undos.  After every push the ledger is checked against an
independent fold of the live records' transfers.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.nap.game import NAP
from companion.games.nap.table import FIVE_TRICK_BIDS, POOL, Deal, Penalty, Rules, Table, Void

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")


@st.composite
def rules(draw) -> Rules:
    wellington = draw(st.booleans())
    return Rules(
        variant=draw(st.sampled_from(("plain", "widow", "pool", "peep", "purchase"))),
        misere=draw(st.booleans()),
        wellington=wellington,
        blucher=wellington and draw(st.booleans()),
        stake=draw(st.sampled_from((1, 1, 2, 5))),
    )


@st.composite
def deal(draw, t: Table) -> Deal:
    """A valid deal for the table as it stands."""
    holders = t.bidders()  # everyone holding cards this deal
    variant = t.rules.variant
    peeks: tuple[str, ...] = ()
    exchanged: tuple[tuple[str, int], ...] = ()
    if variant == "peep":
        peeks = tuple(draw(st.lists(st.sampled_from(holders), unique=True, max_size=len(holders))))
    if variant == "purchase":
        who = draw(st.lists(st.sampled_from(holders), unique=True, max_size=len(holders)))
        exchanged = tuple((name, draw(st.integers(1, 5))) for name in who)
    if t.sitting_out and draw(st.integers(0, 5)) == 0:
        return Deal(None, peeks=peeks, exchanged=exchanged)
    bidder = draw(st.sampled_from(holders))
    bid = draw(st.sampled_from(t.allowed_bids()))
    widow = variant == "widow" and bid == "nap" and draw(st.booleans())
    opponents = [name for name in holders if name != bidder]
    penalties = [Penalty("lead_out_of_turn", name) for name in draw(st.lists(st.sampled_from(opponents), max_size=2))]
    revoke = draw(st.integers(0, 4)) == 0
    if revoke:
        penalties.append(Penalty("revoke", draw(st.sampled_from(holders))))
        return Deal(bidder, bid, None, widow, peeks, exchanged, tuple(penalties))
    wrong = draw(st.sampled_from((None, None, None, "other", "bidder_over")))
    return Deal(bidder, bid, draw(st.booleans()), widow, peeks, exchanged, tuple(penalties), wrong)


@st.composite
def games(draw) -> Table:
    n = draw(st.integers(2, 6))
    players = NAMES[:n]
    t = Table(players, draw(st.sampled_from(players)), draw(rules()))
    for _ in range(draw(st.integers(0, 25))):
        if t.can_void() and draw(st.integers(0, 6)) == 0:
            t.push(Void())
        else:
            t.push(draw(deal(t)))
        check_ledger(t)
    return t


def check_ledger(t: Table) -> None:
    """The invariants, from an independent fold of the live records' transfers."""
    net = dict.fromkeys(t.players, 0)
    in_pool = dict.fromkeys(t.players, 0)
    pool = 0
    stake = t.rules.stake
    for record in t.live_records():
        for tr in record.transfers:
            assert tr.chips > 0 and tr.chips % stake == 0
            if tr.reason == "pool doubled":
                # a failed five-trick bid pays exactly what the pool holds
                assert tr.chips == pool and record.action.bid in FIVE_TRICK_BIDS
            if tr.payer is POOL:
                # the pool is only ever taken whole, by a made five-trick bid
                assert tr.reason == "pool won" and tr.chips == pool
                assert record.action.bid in FIVE_TRICK_BIDS and record.action.made
                pool = 0
                in_pool = dict.fromkeys(t.players, 0)
            else:
                net[tr.payer] -= tr.chips
            if tr.payee is POOL:
                pool += tr.chips
                in_pool[tr.payer] += tr.chips
            else:
                net[tr.payee] += tr.chips
        deal = record.action
        if deal.bidder is not None and not deal.penalties:
            # without penalties every other player is paid, or pays, the same as each other
            moves = dict.fromkeys(t.players, 0)
            for tr in record.transfers:
                if tr.payer is not POOL and tr.payee is not POOL:
                    moves[tr.payer] -= tr.chips
                    moves[tr.payee] += tr.chips
            assert len({moves[name] for name in t.players if name != deal.bidder}) == 1
            assert moves[deal.bidder] == -sum(moves[name] for name in t.players if name != deal.bidder)
        if not t.rules.pooled:
            assert all(POOL not in (tr.payer, tr.payee) for tr in record.transfers)
    # conservation: net chips plus the pool sum to zero
    assert sum(t.net_chips.values()) + t.pool == 0
    # the ledger is the fold of its live records
    assert t.net_chips == net
    # the pool equals what was paid in since it was last won, each player's share too
    assert t.pool == pool and t.in_pool == in_pool
    # the deal passes left after every live record
    live = len(t.live_records())
    assert t.dealer == t.players[(t.players.index(t.first_dealer) + live) % len(t.players)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_random_valid_deals_keep_every_invariant(t: Table) -> None:
    check_ledger(t)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_random_games_round_trip_through_their_records_and_close_to_zero(t: Table) -> None:
    again = Table(t.players, t.first_dealer, t.rules)
    NAP.read_records(again, NAP.write_records(t))
    assert again.net_chips == t.net_chips
    assert (again.pool, again.in_pool, again.dealer) == (t.pool, t.in_pool, t.dealer)
    closing = NAP.close(t, t.rules)
    assert sum(closing.net.values()) == 0
    # each player gets back exactly their own chips in an unwon pool
    assert all(closing.net[name] == t.net_chips[name] + t.in_pool[name] for name in t.players)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_undoing_every_deal_returns_every_chip(t: Table) -> None:
    while t.can_void():
        t.push(Void())
    assert set(t.net_chips.values()) == {0} and t.pool == 0
    assert t.dealer == t.first_dealer
