"""Random legal pot games, checked after every record (Hypothesis).

Each example picks a preset (with random tweaks: ante, Tips' A and B, a sale
limit, carry and high-low switched on), a seating the preset allows, and plays
random actions: bets, bids, unsold cards, sales, wins, splits, high-low splits,
carries and undos; an action the rules refuse is simply skipped (and must change
nothing).  After every record: net chips + the pots = 0, each pot equals what was
paid into it since it was last won, and the record's own transfers balance.
At the end the file's deals replay to the same table, and the closing sums to 0.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.protocol import IllegalAction
from companion.games.pots.engine import POT, Carry, HighLow, IntoPot, PotTable, Sale, Void, Win
from companion.games.pots.game import POTS
from companion.games.pots.presets import PRESETS

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal")


@st.composite
def games(draw):  # type: ignore[no-untyped-def]
    preset = draw(st.sampled_from(sorted(PRESETS)))
    raw: dict[str, object] = {"preset": preset}
    if preset == "tips_to_the_fat_one":
        a = draw(st.integers(1, 5))
        raw["stakes"] = [a, draw(st.integers(a + 1, 8))]
    else:
        raw["ante"] = draw(st.integers(0, 3))
        raw["carry"] = draw(st.booleans())
        if preset == "nasdaq":
            raw["sale_limit"] = draw(st.none() | st.integers(0, 6))
    rules = POTS.rules_from_dict(raw)
    n = draw(st.integers(rules.min_players, min(rules.max_players, len(NAMES))))
    players = NAMES[:n]
    table = POTS.new_state(players, draw(st.sampled_from(players)), rules, None)
    steps = draw(st.integers(0, 30))
    for _ in range(steps):
        pot = draw(st.sampled_from(rules.pot_names)) if len(rules.pot_names) > 1 else None
        some = st.lists(st.sampled_from(players), min_size=1, max_size=3, unique=True).map(tuple)
        action = draw(
            st.one_of(
                st.builds(Win, some, st.just(pot)),
                st.builds(Win, some, st.just(pot)),
                st.builds(HighLow, some, some, st.just(pot)),
                st.builds(Carry, st.just(pot)),
                st.builds(IntoPot, st.sampled_from(players), st.integers(1, 9), st.sampled_from(("bet", "bid", "unsold")), st.just(pot)),
                st.builds(Sale, st.sampled_from(players), st.sampled_from(players), st.integers(1, 15), st.just(pot)),
                st.just(Void()),
            )
        )
        yield_check(table, action)
    return table


def yield_check(table: PotTable, action: object) -> None:
    before = (table.net_chips, table.pots, table.version)
    try:
        record = table.push(action)  # type: ignore[arg-type]
    except IllegalAction:
        assert (table.net_chips, table.pots, table.version) == before  # a refusal changes nothing
        return
    check(table)
    if isinstance(action, (Win, HighLow)):  # nothing is left over when a pot is won or split
        name = action.pot or table.rules.pot_names[0]
        assert table.pots[name] == 0 and not any(table.in_pot[name].values())
    paid = sum(t.chips for t in record.transfers if t.payer is not POT)
    received = sum(t.chips for t in record.transfers if t.payee is not POT)
    into_pots = sum(t.chips for t in record.transfers if t.payee is POT)
    out_of_pots = sum(t.chips for t in record.transfers if t.payer is POT)
    assert paid - received == into_pots - out_of_pots
    assert all(t.chips > 0 for t in record.transfers)


def check(table: PotTable) -> None:
    assert sum(table.net_chips.values()) + table.pot == 0
    for name, shares in table.in_pot.items():
        assert table.pots[name] == sum(shares.values())
        assert all(v >= 0 for v in shares.values())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_chips_are_conserved_after_every_record_and_the_file_replays_the_same_game(table: PotTable) -> None:
    check(table)
    again = POTS.new_state(table.players, table.first_dealer, table.rules, None)
    POTS.read_records(again, POTS.write_records(table))
    assert again.net_chips == table.net_chips
    assert again.pots == table.pots
    assert again.deal_number == table.deal_number
    assert POTS.write_records(again) == POTS.write_records(table)
    closing = POTS.close(table, table.rules)
    assert sum(closing.net.values()) == 0 and closing.carried == {}
    # each player gets back exactly what they paid into the pots still standing
    for name in table.players:
        paid_in = sum(shares[name] for shares in table.in_pot.values())
        assert closing.net[name] == table.net_chips[name] + paid_in
