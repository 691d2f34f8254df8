"""The pots screens' forms: a posted form into the engine's action, or a refusal in words (no layer needed)."""

from __future__ import annotations

import pytest

from companion.games.protocol import IllegalAction
from companion.games.pots.engine import Carry, HighLow, IntoPot, Sale, Win
from companion.games.pots.game import POTS
from companion.games.pots.web import POTS_SCREENS as S

STAMP = {"version": "0", "request_key": "k" * 20}


def table(players, preset, **rules):  # type: ignore[no-untyped-def]
    return POTS.new_state(players, players[0], POTS.rules_from_dict({"preset": preset, **rules}), None)


def posted(app, name, state, data):  # type: ignore[no-untyped-def]
    with app.test_request_context("/", method="POST", data={**STAMP, **data}):
        form = S.bind(name, state)
        if form is None:
            return None
        assert form.validate(), form.errors
        return S.action(name, form, state)


def test_the_forms_offered_follow_the_rules(app):
    with app.test_request_context("/"):
        assert list(S.forms(table(["Ann", "Ben"], "tips_to_the_fat_one"))) == ["win", "into_pot"]
        assert list(S.forms(table(["Ann", "Ben", "Cat"], "high_card"))) == ["win", "carry_over", "into_pot"]
        assert list(S.forms(table(["Ann", "Ben"], "nasdaq"))) == ["win", "highlow", "into_pot", "sale"]
        forms = S.forms(table(["Ann", "Ben"], "tips_to_the_fat_one"))
        assert forms["win"].pot.data == "A"
        assert [v for v, _ in forms["into_pot"].pot.choices] == ["A", "B", "C", "D", "E"]


def test_each_form_becomes_its_action(app):
    tips = table(["Ann", "Ben"], "tips_to_the_fat_one")
    assert posted(app, "win", tips, {"winner": "Ben", "pot": "A"}) == Win(("Ben",), "A")
    assert posted(app, "win", tips, {"tied": ["Ben", "Ann"], "split": "1", "pot": "a"}) == Win(("Ben", "Ann"), "A")
    assert posted(app, "into_pot", tips, {"chips": "2", "reason": "bet", "pot": "E", "player": "Ann"}) == IntoPot("Ann", 2, "bet", "E")
    card = table(["Ann", "Ben", "Cat"], "high_card")
    assert posted(app, "carry_over", card, {"pot": "pot"}) == Carry(None)
    assert posted(app, "win", card, {"winner": "Cat", "pot": "pot"}) == Win(("Cat",), None)
    nasdaq = table(["Ann", "Ben", "Cat"], "nasdaq", sale_limit=5)
    assert posted(app, "sale", nasdaq, {"seller": "Ben", "buyer": "Cat", "price": "12"}) == Sale("Ben", "Cat", 12, None)
    assert posted(app, "highlow", nasdaq, {"high": ["Ann"], "low": ["Cat", "Ben"]}) == HighLow(("Ann",), ("Cat", "Ben"), None)
    assert posted(app, "into_pot", nasdaq, {"chips": "2", "reason": "bid", "player": "Ben"}) == IntoPot("Ben", 2, "bid", None)


def test_actions_the_game_does_not_have_bind_to_nothing(app):
    card = table(["Ann", "Ben", "Cat"], "high_card")
    assert posted(app, "sale", card, {"seller": "Ann", "buyer": "Ben", "price": "3"}) is None
    assert posted(app, "highlow", card, {"high": ["Ann"], "low": ["Ben"]}) is None
    assert posted(app, "carry_over", table(["Ann", "Ben"], "fixed"), {}) is None
    assert posted(app, "nonsense", card, {}) is None


@pytest.mark.parametrize(
    ("name", "preset", "data", "message"),
    [
        ("win", "fixed", {"winner": "Dan"}, "Dan is not playing this game: the win can only name Ann, Ben and Cat"),
        ("win", "fixed", {}, "tap the winner, or tick who tied and 'Record the split'"),
        ("win", "fixed", {"tied": ["Ann"], "split": "1"}, "a split needs two or more players"),
        ("win", "tips_to_the_fat_one", {"winner": "Ann", "pot": "F"}, "say which pot: A, B, C, D, E"),
        ("into_pot", "fixed", {"chips": "2", "reason": "bid", "player": "Ann"}, "chips go into the pot here as a bet"),
        ("into_pot", "fixed", {"chips": "2", "reason": "bet"}, "tap the button of the player who puts the chips in"),
        ("sale", "nasdaq", {"seller": "Ann", "buyer": "Ann", "price": "3"}, "Ann cannot buy their own card"),
        ("sale", "nasdaq", {"seller": "Ann", "buyer": "Zed", "price": "3"}, "Zed is not playing this game"),
        ("highlow", "nasdaq", {"high": ["Ann"]}, "tick the best high hand and the best low hand"),
    ],
)
def test_refusals_are_sentences(app, name, preset, data, message):
    players = ["Ann", "Ben"] if preset == "tips_to_the_fat_one" else ["Ann", "Ben", "Cat"]
    with pytest.raises(IllegalAction) as refused:
        posted(app, name, table(players, preset), data)
    assert message in str(refused.value)


def test_a_pot_already_ended_is_refused(app):
    tips = table(["Ann", "Ben"], "tips_to_the_fat_one")
    tips.win("Ann", pot="A")
    with pytest.raises(IllegalAction, match="Pot A has already ended this deal"):
        posted(app, "win", tips, {"winner": "Ben", "pot": "A"})
