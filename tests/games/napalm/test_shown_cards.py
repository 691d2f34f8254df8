"""The cards the showdown's fields start with: shown earlier in the hand, or given back by an undo."""

from __future__ import annotations

from companion.games.napalm import Table
from companion.games.napalm.shown_cards import shown_this_hand, undone_cards


def _stage_one_by_cards() -> Table:
    # Hand 1, Ann deals: the speaking order is Ben, Cat, Dan, Ann.  Ben and Dan say Yes.
    table = Table(["Ann", "Ben", "Cat", "Dan"])
    table.declare(["Ben", "Dan"])
    table.showdown(cards={"Ben": "As Ah", "Dan": "Ks Qd"})
    return table


def test_an_undone_showdown_by_cards_gives_its_cards_back_to_the_same_showdown():
    table = _stage_one_by_cards()
    assert undone_cards(table) == {}  # nothing undone yet
    table.void()
    assert undone_cards(table) == {"Ben": "As Ah", "Dan": "Ks Qd"}
    # they are not "shown": no other field of the hand counts them as taken
    assert shown_this_hand(table) == {}


def test_the_cards_come_back_when_the_same_yes_is_recorded_again():
    table = _stage_one_by_cards()
    table.void()  # the showdown
    table.void()  # the Yes
    assert undone_cards(table) == {}  # no showdown asked now
    table.declare(["Dan", "Ben"])
    assert undone_cards(table) == {"Ben": "As Ah", "Dan": "Ks Qd"}


def test_a_different_yes_gets_no_cards_back():
    table = _stage_one_by_cards()
    table.void()
    table.void()
    table.declare(["Ben", "Cat"])
    assert undone_cards(table) == {}


def test_an_undone_showdown_by_taps_gives_nothing_back():
    table = Table(["Ann", "Ben", "Cat", "Dan"])
    table.declare(["Ben", "Dan"])
    table.showdown(winners=["Ben"])
    table.void()
    assert undone_cards(table) == {}
