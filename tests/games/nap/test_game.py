"""``Nap()`` is a game of the night: it satisfies the GameKind protocol and round-trips its records."""

from __future__ import annotations

import inspect

import pytest

from companion.games.protocol import GameClosing, GameKind, GameState, IllegalAction, RecordError
from companion.games.nap.game import NAP, Nap
from companion.games.nap.table import Deal, Rules, Table, Void, make_deal


def test_nap_has_every_attribute_and_method_of_the_game_kind_protocol_with_its_signature() -> None:
    game = Nap()
    assert (game.kind, game.title, game.records_key) == ("nap", "Nap", "deals")
    assert game.event_kinds == frozenset({"deal", "void"})
    assert (game.min_players, game.max_players) == (2, 6)
    for name, member in inspect.getmembers(GameKind, inspect.isfunction):
        if name.startswith("_"):
            continue
        ours = getattr(game, name)
        assert callable(ours), name
        wanted = list(inspect.signature(member).parameters)[1:]
        assert list(inspect.signature(ours).parameters) == wanted, name
    for name in GameKind.__annotations__:
        assert hasattr(game, name), name


def test_a_new_state_is_a_game_state() -> None:
    state = NAP.new_state(["Ann", "Ben", "Cat"], "Cat", Rules(), None)
    assert isinstance(state, GameState)
    assert state.players == ("Ann", "Ben", "Cat") and state.first_dealer == "Cat"
    assert state.version == 0 and not state.can_void()


def test_a_new_state_refuses_a_bad_seating_and_a_carried_pot() -> None:
    with pytest.raises(IllegalAction, match="2 to 6 players"):
        NAP.new_state(["A", "B", "C", "D", "E", "F", "G"], None, Rules(), None)
    with pytest.raises(IllegalAction, match="cannot start with a pot carried in"):
        NAP.new_state(["Ann", "Ben"], None, Rules(), {"Ann": 2})
    assert NAP.new_state(["Ann", "Ben"], None, Rules(), {}).players == ("Ann", "Ben")


def test_rules_from_a_dict_fill_in_the_defaults_and_write_back_every_key() -> None:
    rules = NAP.rules_from_dict({})
    assert rules == Rules(variant="plain", misere=True, wellington=False, blucher=False, stake=1)
    assert NAP.rules_to_dict(rules) == {"variant": "plain", "misere": True, "wellington": False, "blucher": False, "stake": 1}
    raw = {"variant": "pool", "misere": False, "wellington": True, "blucher": True, "stake": 5}
    assert NAP.rules_to_dict(NAP.rules_from_dict(raw)) == raw


@pytest.mark.parametrize(
    ("raw", "match"),
    [
        ([], "'rules' must be an object"),
        ({"ante": 2}, "unknown rule 'ante'"),
        ({"variant": 1}, "'variant' must be one of"),
        ({"variant": "sir garnet"}, "variant is one of"),
        ({"misere": 1}, "'misere' must be true or false"),
        ({"wellington": "no"}, "'wellington' must be true or false"),
        ({"blucher": True}, "only played together with Wellington"),
        ({"stake": "2"}, "'stake' must be a whole number"),
        ({"stake": True}, "'stake' must be a whole number"),
        ({"stake": 0}, "stake must be between 1"),
    ],
)
def test_rules_from_a_dict_refuse_what_is_not_a_setting_naming_it(raw: object, match: str) -> None:
    with pytest.raises(IllegalAction, match=match):
        NAP.rules_from_dict(raw)  # type: ignore[arg-type]


def play_pool_night() -> Table:
    state = NAP.new_state(["Ann", "Ben", "Cat", "Dan", "Eve"], "Eve", NAP.rules_from_dict({"variant": "peep", "stake": 2}), None)
    state.push(make_deal("Cat", 2, True, peeks=["Ann"]))
    state.push(make_deal(None))
    state.push(make_deal("Dan", "nap", False, penalties=[("lead_out_of_turn", "Cat")]))
    state.push(make_deal("Eve", 3, penalties=[("revoke", "Ann")]))
    state.push(make_deal("Ann", 1, True))
    state.push(Void())
    return state


def test_records_written_and_read_back_give_the_same_chips_pool_and_dealer() -> None:
    state = play_pool_night()
    records = NAP.write_records(state)
    assert len(records) == 4
    again = NAP.new_state(state.players, state.first_dealer, state.rules, None)
    NAP.read_records(again, records)
    assert again.net_chips == state.net_chips
    assert NAP.replay_extras(again) == NAP.replay_extras(state)
    assert NAP.close(again, again.rules) == NAP.close(state, state.rules)
    assert [r.summary for r in again.live_records()] == [r.summary for r in state.live_records()]


def test_events_round_trip_every_action_of_a_night() -> None:
    state = play_pool_night()
    replayed = NAP.new_state(state.players, state.first_dealer, state.rules, None)
    for record in state.log:
        kind, payload = NAP.to_event(record.action)
        assert kind in NAP.event_kinds
        replayed.push(NAP.from_event(kind, payload))
    assert replayed.net_chips == state.net_chips and replayed.pool == state.pool


def test_the_replay_extras_are_the_pool_before_it_is_returned_and_the_next_dealer() -> None:
    # Peep Nap, stake 2, five players, Eve deals first:
    # deal 1 (Eve): antes 4 each = 20, Ann peeks 2 (22); Cat makes 2: 4 from each of four.
    # deal 2 (Ann): Ann adds 4 (26); thrown in.
    # deal 3 (Ben): Ben adds 4 (30); Cat leads out of turn: 6 in (36), 6 to Dan; Dan fails Nap:
    #   10 to Ann, Ben, Eve (not Cat), 36 into the pool (72).
    # deal 4 (Cat): Cat adds 4 (76); Eve bids 3, Ann revokes: 10 in (86), 6 to Eve, Ben, Cat, Dan.
    # deal 5 undone: Dan deals next.
    state = play_pool_night()
    assert NAP.replay_extras(state) == {"pool": 86, "dealer": "Dan"}
    # Net: Ann -4-2-4 (deal 1) -4 (dealer) +10 (Dan's failure) -10-24 (revoke) = -38;
    # Ben -4-4 -4 (dealer) +10 +6 = 4; Cat -4+16 -6-6 (lead out of turn) -4 (dealer) +6 = 2;
    # Dan -4-4 +6 -30-36 +6 = -62; Eve -4-4 +10 +6 = 8.  Sum -86, the pool 86.
    net = state.net_chips
    assert sum(net.values()) + state.pool == 0
    assert net == {"Ann": -38, "Ben": 4, "Cat": 2, "Dan": -62, "Eve": 8}


def test_closing_returns_an_unwon_pool_to_who_paid_it_in() -> None:
    state = play_pool_night()
    # Paid in since the start (never won): Ann 4+2+4+10 = 20, Ben 4+4 = 8, Cat 4+6+4 = 14,
    # Dan 4+36 = 40, Eve 4; 86 in all.
    assert state.in_pool == {"Ann": 20, "Ben": 8, "Cat": 14, "Dan": 40, "Eve": 4}
    closing = NAP.close(state, state.rules)
    assert isinstance(closing, GameClosing)
    assert closing.net == {"Ann": -18, "Ben": 12, "Cat": 16, "Dan": -22, "Eve": 12}
    assert sum(closing.net.values()) + closing.carried_total == 0


def test_a_bad_record_reaches_the_night_as_a_record_error_with_its_index() -> None:
    state = NAP.new_state(["Ann", "Ben", "Cat"], None, Rules(), None)
    with pytest.raises(RecordError) as caught:
        NAP.read_records(state, [{"bidder": "Ann", "bid": 1, "made": True}, {"bidder": "Ann", "bid": "nap"}])
    assert caught.value.index == 1
    assert str(caught.value) == "deals[1] (deal 2): 'made': did Ann make Nap? (made: true or false)"


def test_a_plain_game_closes_with_nothing_to_return() -> None:
    state = NAP.new_state(["Ann", "Ben"], None, Rules(), None)
    state.push(Deal("Ann", 2, True))
    closing = NAP.close(state, state.rules)
    assert closing == GameClosing(net={"Ann": 2, "Ben": -2})


def test_the_live_actions_leave_out_the_undone_deal_and_the_undo() -> None:
    state = play_pool_night()
    assert [action.bidder for action in NAP.live_actions(state)] == ["Cat", None, "Dan", "Eve"]
    assert NAP.next_dealer(state) == "Dan"
    assert NAP.carries_over(Rules(variant="pool")) is False
