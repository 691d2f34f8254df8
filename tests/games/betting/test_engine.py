"""Poker with real betting's engine, records and plug-in: deals recorded, no chips moved."""

from __future__ import annotations

import pytest

from companion.games import GAMES, RecordError, title_of
from companion.games.protocol import IllegalAction
from companion.games.betting import BettingTable, Deal, Rules
from companion.games.betting.game import BETTING

PLAYERS = ("Ann", "Ben", "Cat")


def test_registered_and_records_no_chips():
    assert GAMES["betting"] is BETTING
    assert BETTING.title == "Poker with real betting"
    assert BETTING.records_chips is False


def test_the_game_is_called_by_the_variant_the_group_typed():
    # issue 35: a group that plays "Texas hold'em" with real betting calls the game that; with no
    # variant typed, the game's own title
    assert BETTING.title_of(Rules("Texas hold'em")) == "Texas hold'em"
    assert BETTING.title_of(Rules("")) == "Poker with real betting"
    assert title_of("betting", {"variant": "Omaha"}) == "Omaha"
    assert title_of("betting", {}) == "Poker with real betting"


def test_a_deal_passes_left_and_moves_no_chips():
    t = BettingTable(PLAYERS, "Ben", Rules("Texas hold'em"))
    assert t.dealer == "Ben"
    r = t.push(Deal())
    assert r.dealer == "Ben" and r.deal == 1 and "Ben dealt" in r.summary
    assert t.dealer == "Cat"
    t.push(Deal("Cat"))
    assert t.dealer == "Ann"
    assert t.net_chips == {"Ann": 0, "Ben": 0, "Cat": 0}


def test_undo_gives_the_deal_back():
    t = BettingTable(PLAYERS, "Ann")
    t.push(Deal())
    t.void()
    assert t.dealer == "Ann" and t.deals == 0 and len(t.log) == 2
    with pytest.raises(IllegalAction):
        t.void()


def test_refusals():
    t = BettingTable(PLAYERS, "Ann")
    with pytest.raises(IllegalAction, match="Ben is not the dealer: Ann deals now"):
        t.push(Deal("Ben"))
    with pytest.raises(IllegalAction):
        BettingTable(("Ann",), None)
    with pytest.raises(IllegalAction):
        BettingTable(tuple(f"P{i}" for i in range(11)), None)
    with pytest.raises(IllegalAction, match="at most 40"):
        BETTING.rules_from_dict({"variant": "x" * 41})
    with pytest.raises(IllegalAction, match="unknown rule 'ante'"):
        BETTING.rules_from_dict({"ante": 1})


def test_rules_and_records_round_trip():
    rules = BETTING.rules_from_dict({"variant": "Texas hold'em"})
    assert BETTING.rules_to_dict(rules) == {"variant": "Texas hold'em"}
    assert BETTING.rules_from_dict({}) == Rules("")
    t = BETTING.new_state(PLAYERS, "Cat", rules)
    BETTING.read_records(t, [{"dealer": "Cat"}, {"dealer": "Ann"}])
    assert BETTING.write_records(t) == [{"dealer": "Cat"}, {"dealer": "Ann"}]
    assert BETTING.next_dealer(t) == "Ben"
    closing = BETTING.close(t, rules)
    assert closing.net == {"Ann": 0, "Ben": 0, "Cat": 0} and closing.carried == {}
    kind, payload = BETTING.to_event(Deal("Ben"))
    assert BETTING.from_event(kind, payload) == Deal("Ben")
    assert BETTING.live_actions(t) == [Deal("Cat"), Deal("Ann")]
    with pytest.raises(RecordError) as err:
        BETTING.read_records(BETTING.new_state(PLAYERS, "Ann", rules), [{"dealer": "Ann"}, {"dealer": "Cat"}])
    assert err.value.index == 1


@pytest.mark.parametrize("deals, message", [
    # Ann deals deal 1; deal 2 is Ben's (on her left), not Cat's
    ([{"dealer": "Ann"}, {"dealer": "Cat"}], "deals[1] (deal 2): 'dealer': Cat is not the dealer: Ben deals now"),
    ([{"dealer": "Ann"}, {"dealer": "Ben"}, {"dealer": 3}], "deals[2] (deal 3): 'dealer' must be a name"),
    ([{"dealer": "Ann", "pots": []}], 'deals[0] (deal 1): a deal must be {"dealer": name}'),
])
def test_a_refused_deal_names_the_deal_it_is_in(deals, message):
    """As docs/games/poker.md promises and the pot games do (issue 20, item 15)."""
    with pytest.raises(RecordError) as err:
        BETTING.read_records(BETTING.new_state(PLAYERS, "Ann", Rules("")), deals)
    assert str(err.value) == message


def test_a_night_file_names_the_game_and_the_deal_of_a_refused_betting_deal():
    from companion.night import file as nightfile
    from companion.night.file import NightFileError

    text = ('{"format": "companion-night/2", "players": ["Ann", "Ben", "Cat"], "games": [{"game": "betting", '
            '"first_dealer": "Ann", "deals": [{"dealer": "Ann"}, {"dealer": "Cat"}]}]}')
    with pytest.raises(NightFileError) as err:
        nightfile.loads(text)
    assert str(err.value) == "games[0] (betting): deals[1] (deal 2): 'dealer': Cat is not the dealer: Ben deals now"
