"""Random legal nights, checked after every action (Hypothesis).

The :func:`nights` strategy plays a random legal night on a scratch table:
2 to 7 players, random rules, and actions chosen among the legal ones at each
point: declarations (nobody, one player, the dealer alone, several), challenges,
showdowns decided by tapped winners, by cards, or by both, and voids.  Cards come
from one shuffled deck per hand, seven per seat, so a player shows the first 2 of
their seven at stage 1, the first 5 at stage 2 and all 7 at stage 3, and no card is
ever held by two players in one hand.

Some nights start with a pot carried in from the previous night (random shares
of some of the players): the ledger must hold from that starting position too.

The tests then replay the night's actions on a fresh table and check the ledger's
invariants after every single one.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.napalm import hand_history
from companion.games.napalm.cards import RANKS, SUITS, Card, parse_cards
from companion.games.napalm.rankings import CARDS_PER_STAGE, best_hands
from companion.games.napalm.table import (
    POT,
    Action,
    Challenge,
    Declare,
    Phase,
    Position,
    Record,
    Rules,
    Showdown,
    Stage,
    Table,
    Void,
    start_position,
)

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus")
DECK = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)


@dataclass(frozen=True)
class Night:
    players: tuple[str, ...]
    first_dealer: str
    rules: Rules
    actions: tuple[Action, ...]
    carried_in: tuple[tuple[str, int], ...] = ()

    def table(self) -> Table:
        return Table(self.players, self.first_dealer, self.rules, dict(self.carried_in))


def _cards_shown(deal: list[Card], seat: int, stage: Stage) -> str:
    """A player's cards at ``stage``: the first 2, 5 or 7 of the seven dealt to the seat."""
    return "".join(str(card) for card in deal[7 * seat : 7 * seat + CARDS_PER_STAGE[int(stage)]])


def _draw_action(draw, table: Table, deals: dict[tuple[int, int], list[Card]], rnd: random.Random) -> Action:
    players = table.players
    p = table.position
    if table.can_void() and draw(st.integers(0, 7)) == 0:
        return Void()
    if p.phase is Phase.DECLARE:
        kind = draw(st.sampled_from(("nobody", "one", "one", "dealer", "several")))
        if kind == "nobody":
            return Declare(())
        if kind == "one":
            return Declare((draw(st.sampled_from(players)),))
        if kind == "dealer":
            return Declare((table.dealer,))
        return Declare(tuple(draw(st.lists(st.sampled_from(players), min_size=2, unique=True))))
    if p.phase is Phase.CHALLENGE:
        others = [name for name in players if name != table.dealer]
        return Challenge(tuple(draw(st.lists(st.sampled_from(others), unique=True))))
    how = draw(st.sampled_from(("winners", "cards", "both")))
    if how == "winners":
        return Showdown(winners=tuple(draw(st.lists(st.sampled_from(p.yes), min_size=1, unique=True))))
    # One shuffled deck per hand; a hand revisited after a void keeps its deck.
    if (p.game, p.hand) not in deals:
        deals[p.game, p.hand] = rnd.sample(DECK, 7 * len(players))
    deal = deals[p.game, p.hand]
    cards = {name: _cards_shown(deal, players.index(name), p.stage) for name in p.yes}
    if how == "cards":
        return Showdown(cards=tuple(cards.items()))
    winners = best_hands(int(p.stage), {name: parse_cards(text) for name, text in cards.items()})
    return Showdown(winners=tuple(reversed(winners)), cards=tuple(cards.items()))


@st.composite
def nights(draw, max_actions: int = 30) -> Night:
    """A random legal night: every action was accepted by a table when it was drawn."""
    players = NAMES[: draw(st.integers(2, 7))]
    first_dealer = draw(st.sampled_from(players))
    rules = Rules(
        ante=draw(st.integers(0, 3)),
        ante_every=draw(st.sampled_from((1, 2))),
        tokens_to_win=draw(st.integers(1, 4)),  # small, so that games end within a short night
    )
    carried_in = tuple(
        (name, draw(st.integers(1, 5)))
        for name in draw(st.lists(st.sampled_from(players), unique=True, max_size=len(players)))
    )
    rnd = draw(st.randoms(use_true_random=False))
    table = Table(players, first_dealer, rules, dict(carried_in))
    deals: dict[tuple[int, int], list[Card]] = {}
    actions = []
    for _ in range(draw(st.integers(0, max_actions))):
        action = _draw_action(draw, table, deals, rnd)
        table.push(action)  # raises if the strategy ever drew an illegal action
        actions.append(action)
    return Night(players, first_dealer, rules, tuple(actions), carried_in)


# --- the invariants -------------------------------------------------------------------------


def check_ledger(table: Table) -> None:
    """Chips are conserved, and the records' transfers are the whole story of the balances."""
    assert sum(table.net_chips.values()) + table.pot == 0
    # a pot carried in is the opening balance: in the pot, each contributor down their share
    carried = sum(table.carried_in.values())
    balance: Counter = Counter({name: -chips for name, chips in table.carried_in.items()})
    balance[POT] = carried
    for record in table.log:
        for transfer in record.transfers:
            assert transfer.chips > 0
            assert transfer.payer != transfer.payee
            balance[transfer.payer] -= transfer.chips
            balance[transfer.payee] += transfer.chips
    assert {name: balance[name] for name in table.players} == table.net_chips
    assert balance[POT] == table.pot
    # A game's pot is the antes paid in it (and, in the first game, the carried pot),
    # until a winner takes it all; each player's stake in it is their part of that.
    antes = (carried if table.game_number == 1 else 0) + sum(
        t.chips
        for r in table.live_records()
        if r.game == table.game_number
        for t in r.transfers
        if t.reason == "ante"
    )
    assert table.pot == antes
    assert sum(table.in_pot.values()) == table.pot


def check_action(table: Table, before: Position, record: Record) -> None:
    """Tokens, games and side bets of one (non-void) action."""
    rules = table.rules
    after = table.position
    n = len(table.players)
    ante = sum(t.chips for t in record.transfers if t.reason == "ante")
    assert all(0 <= count < rules.tokens_to_win for count in after.tokens)
    if record.tokens:
        # A token only comes from a lone Yes (or the dealer, unchallenged).
        ((name, delta),) = record.tokens
        assert delta == 1
        action = record.action
        assert (isinstance(action, Declare) and len(action.yes) == 1) or action == Challenge(())
        seat = table.players.index(name)
        reached = before.tokens[seat] + 1 == rules.tokens_to_win
        assert (record.game_won is not None) == reached
        if reached:
            # The game ends at once: the winner takes the pot, the next game starts afresh.
            won = record.game_won
            assert (won.winner, won.number, won.pot) == (name, before.game, before.pot + ante)
            assert after.games == before.games + (won,)
            assert (after.game, after.hand, after.stage, after.phase) == (
                before.game + 1,
                1,
                Stage.TWO_CARD_HIGH,
                Phase.DECLARE,
            )
            assert after.dealer == (before.dealer + 1) % n
            assert after.pot == 0 and set(after.tokens) == {0} and set(after.in_pot) == {0}
            assert after.net[seat] == before.net[seat] - (ante and rules.ante) + won.pot
        else:
            assert after.tokens[seat] == before.tokens[seat] + 1
            assert after.game == before.game
    else:
        assert record.game_won is None
        assert after.tokens == before.tokens
        assert after.game == before.game
    side_bets = [t for t in record.transfers if t.reason == "side bet"]
    if isinstance(record.action, Showdown):
        winners = set(record.winners)
        losers = set(before.yes) - winners
        assert winners and winners <= set(before.yes)
        assert sorted((t.payer, t.payee) for t in side_bets) == (
            sorted((loser, winner) for loser in losers for winner in winners) if before.pot else []
        )
        assert all(t.chips == before.pot for t in side_bets)
        assert after.pot == before.pot
    else:
        assert side_bets == []


def replay(table: Table) -> Table:
    """A fresh table fed the live actions of ``table`` (voided ones and voids left out)."""
    fresh = Table(table.players, table.first_dealer, table.rules, table.carried_in)
    for record in table.live_records():
        fresh.push(record.action)
    return fresh


def check_round_trip(table: Table) -> None:
    """Export then import lands on the same position and exports the same document."""
    exported = hand_history.to_dict(table)
    imported = hand_history.loads(hand_history.dumps(table)).table
    assert imported.position == table.position
    assert hand_history.to_dict(imported) == exported


def play_and_check(night: Night, *, every_action: bool) -> Table:
    """Replay ``night`` on a fresh table, checking each action; the ledger, the replay and
    the export round trip after every action too when ``every_action``, else at the end."""
    table = night.table()
    undo: list[Position] = []  # the position before each live action
    # ``replayed`` is, at every step, a fresh table that has been fed exactly the live
    # actions so far and nothing else: after an action it is fed that action; after a
    # void it is rebuilt from scratch.  (Feeding it incrementally is the same replay as
    # starting over each time, without the quadratic cost.)
    replayed = night.table() if every_action else None
    for action in night.actions:
        before = table.position
        record = table.push(action)
        if isinstance(action, Void):
            # Voiding restores exactly the position before the voided action.
            assert table.position == undo.pop()
            if replayed is not None:
                replayed = replay(table)
        else:
            undo.append(before)
            check_action(table, before, record)
            assert table.verify(Void()).position == before
            if replayed is not None:
                replayed.push(action)
        if replayed is not None:
            assert replayed.position == table.position
            check_ledger(table)
            check_round_trip(table)
    assert replay(table).position == table.position
    check_ledger(table)
    check_round_trip(table)
    return table


# --- the properties --------------------------------------------------------------------------


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nights())
def test_every_action_of_a_random_legal_night_keeps_the_ledger_sound(night):
    play_and_check(night, every_action=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nights(max_actions=200))
def test_a_long_random_night_replays_and_round_trips_and_voids_back_to_the_start(night):
    table = play_and_check(night, every_action=False)
    while table.can_void():
        table.void()
        check_ledger(table)
    assert table.position == start_position(night.players, night.first_dealer, dict(night.carried_in))
    assert table.net_chips == {name: -dict(night.carried_in).get(name, 0) for name in night.players}
    assert table.pot == sum(chips for _, chips in night.carried_in)
    assert table.live_records() == []
