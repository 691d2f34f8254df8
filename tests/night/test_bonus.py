"""The Bonus Round: the grid, the rolls, and the bonus payments (RULES-POKER.md), worked by hand."""

from __future__ import annotations

import random
import secrets

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.night import bonus as bonus_module
from companion.games.protocol import IllegalAction, RecordError
from companion.night.bonus import (
    Bonus,
    BonusGrid,
    BonusRound,
    Roll,
    SetLucky,
    dealer_pays_everyone,
    everyone_pays_dealer,
    lucky_payments,
    net_of,
    payments_for_roll,
    roll,
)
from companion.games.pots.engine import Transfer

PLAYERS = ("Ann", "Ben", "Cat", "Dan")


class Dice:
    """A fake random source: the faces to return, in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)
        self.asked: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        self.asked.append((a, b))
        return self.faces.pop(0)


def grid_2d6(**bonuses: Bonus) -> BonusGrid:
    cells = tuple(f"Game {r}-{c}" for r in range(1, 7) for c in range(1, 7))
    return BonusGrid("2d6", cells, {int(k[1:]): v for k, v in bonuses.items()})


def test_two_dice_are_read_in_order_so_2_5_is_not_5_2() -> None:
    grid = grid_2d6()
    # row = first die, column = second: 2-5 is cell (2−1)×6 + (5−1) = 10; 5-2 is (5−1)×6 + (2−1) = 25
    assert grid.cells[10] == "Game 2-5" and grid.cells[25] == "Game 5-2"
    first = roll(grid, "Ann", Dice(2, 5))
    second = roll(grid, "Ann", Dice(5, 2))
    assert (first.game, first.label) == ("Game 2-5", "2-5")
    assert (second.game, second.label) == ("Game 5-2", "5-2")


def test_a_d20_grid_has_twenty_cells_and_one_face() -> None:
    grid = BonusGrid("d20", tuple(["Napalm"] * 19 + ["Tips to the Fat One"]))
    dice = Dice(20)
    result = roll(grid, "Ben", dice)
    assert dice.asked == [(1, 20)]
    assert result == Roll("d20", (20,), "Tips to the Fat One", "Ben")
    assert result.to_dict() == {"dice": "d20", "faces": [20], "game": "Tips to the Fat One", "roller": "Ben"}


def test_a_seeded_source_rolls_the_same_game_twice() -> None:
    grid = grid_2d6()
    assert roll(grid, "Ann", random.Random(7)) == roll(grid, "Ann", random.Random(7))


def test_by_default_the_app_rolls_with_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []

    class Recording(secrets.SystemRandom):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(bonus_module.secrets, "SystemRandom", Recording)
    result = roll(grid_2d6(), "Ann")
    assert len(made) == 1 and all(1 <= f <= 6 for f in result.faces)


def test_a_game_may_fill_several_cells_and_the_grid_round_trips_through_json() -> None:
    grid = grid_2d6(c0=Bonus("everyone_pays_dealer", 2), c35=Bonus("dealer_pays_everyone", 1))
    data = grid.to_dict()
    assert data["cells"][1][4] == "Game 2-5"  # row 2 (index 1), column 5 (index 4)
    assert data["bonuses"] == {"1-1": {"kind": "everyone_pays_dealer", "chips": 2}, "6-6": {"kind": "dealer_pays_everyone", "chips": 1}}
    assert BonusGrid.from_dict(data) == grid


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"dice": "3d6"}, "'dice' must be one of 2d6, d20"),
        ({"cells": [["A"] * 6] * 5}, "'cells' must be 6 rows of 6 games"),
        ({"cells": [["A"] * 6] * 2 + [["A", "A", "A", "A", "", "A"]] + [["A"] * 6] * 3}, r"'cells'\[2\]\[4\] \(3-5\) must be a game's name"),
        ({"bonuses": {"7-1": {"kind": "everyone_pays_dealer", "chips": 1}}}, r"'bonuses'.'7-1': a 2d6 roll is two faces"),
        ({"bonuses": {"1-1": {"kind": "tip", "chips": 1}}}, r"'bonuses'.'1-1': the bonus of cell 1-1 is one of"),
        ({"bonuses": {"1-1": {"kind": "everyone_pays_dealer", "chips": 0}}}, "must be a whole number of chips"),
        ({"colour": "red"}, "unknown key 'colour'"),
    ],
)
def test_a_bad_grid_is_refused_naming_the_cell(change: dict[str, object], message: str) -> None:
    data = {**grid_2d6().to_dict(), **change}
    with pytest.raises(IllegalAction, match=message):
        BonusGrid.from_dict(data)


# --- bonus payments ----------------------------------------------------------------------


def test_everyone_pays_the_dealer() -> None:
    transfers = everyone_pays_dealer(PLAYERS, "Cat", 2)
    assert transfers == (Transfer("Ann", "Cat", 2, "bonus"), Transfer("Ben", "Cat", 2, "bonus"), Transfer("Dan", "Cat", 2, "bonus"))
    # three players pay 2: Cat +6
    assert net_of(transfers) == {"Ann": -2, "Ben": -2, "Cat": 6, "Dan": -2}


def test_the_dealer_pays_everyone() -> None:
    assert net_of(dealer_pays_everyone(PLAYERS, "Ann", 3)) == {"Ann": -9, "Ben": 3, "Cat": 3, "Dan": 3}


def test_whoever_rolls_a_players_lucky_number_pays_that_player() -> None:
    lucky = {"Ann": (3, 4), "Ben": (6, 6)}
    hit = Roll("2d6", (3, 4), "Game 3-4", "Cat")
    assert lucky_payments(PLAYERS, lucky, hit, 1) == (Transfer("Cat", "Ann", 1, "lucky number"),)
    miss = Roll("2d6", (4, 3), "Game 4-3", "Cat")  # read in order: 4-3 is not Ann's 3-4
    assert lucky_payments(PLAYERS, lucky, miss, 1) == ()


def test_a_player_rolling_their_own_lucky_number_is_paid_by_everyone() -> None:
    lucky = {"Ann": (3, 4)}
    own = Roll("2d6", (3, 4), "Game 3-4", "Ann")
    assert net_of(lucky_payments(PLAYERS, lucky, own, 1)) == {"Ann": 3, "Ben": -1, "Cat": -1, "Dan": -1}


def test_two_owners_of_one_number_are_each_paid() -> None:
    lucky = {"Ann": (5,), "Ben": (5,)}
    # Ben rolls 5: Ben is paid 1 by Ann, Cat and Dan; Ben pays Ann 1 for her number → Ann 0, Ben +2
    result = lucky_payments(PLAYERS, lucky, Roll("d20", (5,), "X", "Ben"), 1)
    assert net_of(result) == {"Ann": 0, "Ben": 2, "Cat": -1, "Dan": -1}


def test_a_roll_pays_its_cells_bonus_and_the_lucky_numbers_it_hits() -> None:
    grid = grid_2d6(c0=Bonus("everyone_pays_dealer", 2))
    result = roll(grid, "Dan", Dice(1, 1))
    transfers = payments_for_roll(grid, result, PLAYERS, {"Ben": (1, 1)}, lucky_chips=1)
    # bonus: Ann, Ben, Cat pay Dan 2 each (Dan +6); lucky: Dan rolled Ben's 1-1, pays Ben 1
    assert net_of(transfers) == {"Ann": -2, "Ben": -1, "Cat": -2, "Dan": 5}
    assert sum(net_of(transfers).values()) == 0


def test_bad_payments_are_refused() -> None:
    with pytest.raises(IllegalAction, match="whole number of chips"):
        everyone_pays_dealer(PLAYERS, "Ann", 0)
    with pytest.raises(IllegalAction, match="the dealer 'Zed' is not seated"):
        dealer_pays_everyone(PLAYERS, "Zed", 1)
    grid = grid_2d6()
    with pytest.raises(IllegalAction, match="not one of this grid's cells"):
        payments_for_roll(grid, Roll("2d6", (1, 1), "Napalm", "Ann"), PLAYERS)
    with pytest.raises(IllegalAction, match="a 2d6 roll is two faces"):
        payments_for_roll(grid, roll(grid, "Ann", Dice(1, 2)), PLAYERS, {"Ben": (7, 1)})


@given(
    st.sampled_from(PLAYERS),
    st.dictionaries(st.sampled_from(PLAYERS), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    st.integers(0, 2**32),
    st.integers(1, 5),
    st.integers(0, 35),
)
def test_every_roll_pays_out_in_balance(
    roller: str, lucky: dict[str, tuple[int, int]], seed: int, chips: int, bonus_cell: int
) -> None:
    kind = "everyone_pays_dealer" if bonus_cell % 2 else "dealer_pays_everyone"
    grid = BonusGrid("2d6", grid_2d6().cells, {bonus_cell: Bonus(kind, chips)})
    result = roll(grid, roller, random.Random(seed))
    assert grid.cells[(result.faces[0] - 1) * 6 + result.faces[1] - 1] == result.game
    transfers = payments_for_roll(grid, result, PLAYERS, lucky, chips)
    assert sum(net_of(transfers).values()) == 0
    assert all(t.payer != t.payee for t in transfers)


# --- the Bonus Round's log ------------------------------------------------------------------


def test_the_bonus_round_records_each_roll_with_its_payments() -> None:
    grid = grid_2d6(c0=Bonus("everyone_pays_dealer", 2), c35=Bonus("dealer_pays_everyone", 1))
    night = BonusRound(PLAYERS, grid, lucky_chips=1)
    first = night.roll("Ann", Dice(1, 1))
    # everyone pays Ann 2: Ann +6
    assert first.summary == "Ann rolled 1-1: Game 1-1. Bonus: everyone pays Ann 2."
    night.push(SetLucky("Ann", (3, 4)))
    second = night.roll("Ben", Dice(3, 4))
    assert second.summary == "Ben rolled 3-4: Game 3-4. Ann's lucky number: Ben pays Ann 1."
    third = night.roll("Ann", Dice(3, 4))
    assert third.summary.endswith("Ann rolled their own lucky number: everyone pays Ann 1.")
    night.roll("Cat", Dice(6, 6))  # anti-bonus: Cat pays everyone 1
    # Ann 6 + 1 + 3 + 1 = 11; Ben −2 −1 −1 +1 = −3; Cat −2 −1 −3 = −6; Dan −2 −1 +1 = −2
    assert night.net_chips == {"Ann": 11, "Ben": -3, "Cat": -6, "Dan": -2}
    assert night.to_list()[:2] == [
        {"roller": "Ann", "faces": [1, 1], "game": "Game 1-1"},
        {"lucky": "Ann", "faces": [3, 4]},
    ]
    again = BonusRound(PLAYERS, grid, lucky_chips=1)
    again.read_list(night.to_list())
    assert again.net_chips == night.net_chips and again.lucky == {"Ann": (3, 4)}


@pytest.mark.parametrize(
    ("entries", "index", "message"),
    [
        ("x", None, "'rolls' must be a list"),
        ([{"roller": "Ann", "faces": [1, 2], "game": "Napalm"}], 0, r"rolls\[0\]: 'game': the grid's cell 1-2 is 'Game 1-2', not 'Napalm'"),
        ([{"lucky": "Ann", "faces": [3, 4]}, {"roller": "Ann", "faces": [7, 1], "game": "X"}], 1, r"rolls\[1\]: 'faces': a 2d6 roll"),
        ([{"roller": "Zed", "faces": [1, 2], "game": "Game 1-2"}], 0, "the roller 'Zed' is not seated"),
        ([{"roller": "Ann", "faces": [1, 2], "game": "Game 1-2", "when": 1}], 0, "unknown key 'when'"),
    ],
)
def test_a_bad_roll_in_a_file_is_refused_naming_the_entry_and_field(entries: object, index: int | None, message: str) -> None:
    night = BonusRound(PLAYERS, grid_2d6())
    with pytest.raises(RecordError, match=message) as caught:
        night.read_list(entries)
    assert caught.value.index == index


def test_read_entry_reads_one_file_entry_against_the_grid() -> None:
    from companion.night.bonus import BonusGrid, Roll, SetLucky, read_entry

    grid = BonusGrid("d20", tuple(f"Game {i}" for i in range(1, 21)))
    assert read_entry(grid, {"roller": "Ann", "faces": [7], "game": "Game 7"}) == Roll("d20", (7,), "Game 7", "Ann")
    assert read_entry(grid, {"lucky": "Ben", "faces": [3]}) == SetLucky("Ben", (3,))
    with pytest.raises(IllegalAction, match="'game': the grid's cell 7 is 'Game 7', not 'Napalm'"):
        read_entry(grid, {"roller": "Ann", "faces": [7], "game": "Napalm"})
