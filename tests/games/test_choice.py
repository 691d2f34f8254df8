"""Dealer's choice: the last games played are offered first."""

from __future__ import annotations

from companion.games.choice import next_game_offers

GROUP = ("napalm", "high_card", "tips_to_the_fat_one", "nasdaq", "mountain")


def test_the_last_games_played_come_first_most_recent_first_each_once() -> None:
    played = ["napalm", "tips_to_the_fat_one", "napalm", "nasdaq"]
    # from the latest back: nasdaq, napalm, tips (napalm once); then the rest in the group's order
    assert next_game_offers(played, GROUP) == ("nasdaq", "napalm", "tips_to_the_fat_one", "high_card", "mountain")


def test_before_any_game_the_groups_own_order_is_offered() -> None:
    assert next_game_offers([], GROUP) == GROUP


def test_a_game_no_longer_offered_is_left_out() -> None:
    assert next_game_offers(["craps", "mountain"], GROUP)[:2] == ("mountain", "napalm")
    assert "craps" not in next_game_offers(["craps"], GROUP)
