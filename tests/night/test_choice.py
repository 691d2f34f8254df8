"""Dealer's choice: the last games played are offered first."""

from __future__ import annotations

from companion.night.choice import next_game_offers

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


# --- offers by name: (kind, what players call it) ----------------------------------------------

from companion.night.choice import as_offered  # noqa: E402

NAMED = (
    ("napalm", "Napalm"), ("nap", "Nap"), ("pots", "Tips to the Fat One"), ("pots", "High Card"),
    ("pots", "NASDAQ"), ("betting", "Poker with real betting"),
)


def test_games_of_one_kind_are_ordered_by_the_name_they_were_played_under() -> None:
    # tonight: Napalm, Tips, Poker, NASDAQ, Tips again: from the latest back Tips, NASDAQ, Poker,
    # Napalm; High Card (same kind as Tips) is not moved up; then Nap and High Card in order
    played = [("napalm", "Napalm"), ("pots", "Tips to the Fat One"), ("betting", "Poker with real betting"),
              ("pots", "NASDAQ"), ("pots", "Tips to the Fat One")]
    assert next_game_offers(as_offered(played, NAMED), NAMED) == (
        ("pots", "Tips to the Fat One"), ("pots", "NASDAQ"), ("betting", "Poker with real betting"),
        ("napalm", "Napalm"), ("nap", "Nap"), ("pots", "High Card"),
    )


def test_a_game_played_under_a_name_not_offered_is_offered_by_its_kind() -> None:
    # "Pool Nap" is a Nap game offered once as "Nap"; a game of a kind not offered is left out
    assert as_offered([("nap", "Pool Nap"), ("craps", "Craps")], NAMED) == [("nap", "Nap")]
    assert next_game_offers(as_offered([("nap", "Pool Nap")], NAMED), NAMED)[:2] == (("nap", "Nap"), ("napalm", "Napalm"))


from companion.night.choice import with_names_played  # noqa: E402


def test_a_game_offered_by_its_title_is_offered_under_each_name_it_was_played_under() -> None:
    # betting and nap are offered once by their titles (any name goes); pots by its presets' names.
    # Tonight: Texas hold'em, Pool Nap, Omaha, Texas hold'em again, and a pot game under a name no
    # preset has.  The names played are added after the offers, in the order first played, each once;
    # the pot game's stays out (as_offered gives it its kind's first offer, Tips)
    played = [("betting", "Texas hold'em"), ("nap", "Pool Nap"), ("betting", "Omaha"),
              ("betting", "Texas hold'em"), ("pots", "Odd pot")]
    available = with_names_played(played, NAMED, {"napalm", "nap", "betting"})
    assert available == list(NAMED) + [("betting", "Texas hold'em"), ("nap", "Pool Nap"), ("betting", "Omaha")]
    # from the latest back: the odd pot as Tips, Texas hold'em, Omaha, Pool Nap; then the rest in order,
    # the bare "Poker with real betting" and "Nap" among them (a game under no name of its own yet)
    assert next_game_offers(as_offered(played, available), available) == (
        ("pots", "Tips to the Fat One"), ("betting", "Texas hold'em"), ("betting", "Omaha"), ("nap", "Pool Nap"),
        ("napalm", "Napalm"), ("nap", "Nap"), ("pots", "High Card"), ("pots", "NASDAQ"),
        ("betting", "Poker with real betting"),
    )


def test_a_game_played_under_its_own_title_is_not_offered_twice() -> None:
    assert with_names_played([("betting", "Poker with real betting")], NAMED, {"betting"}) == list(NAMED)
