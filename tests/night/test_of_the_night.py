"""Which games count as the night's (issue 35): a game started with nothing recorded in it is none of them.

``nothing_recorded`` is the one definition (companion/night/play.py): no action of the game's own that
counts (an undone one does not, as for taking a game back), no pot carried in, a closing that moves no chip;
a game whose chips the app never sees (poker with real betting) always counts.  The night's report, its list
of games and its group's season read :meth:`NightPlay.of_the_night`.
"""

from __future__ import annotations

from companion.games import GAMES
from companion.games.napalm import Declare, Void
from companion.night.play import GameSetup, NightPlay, nothing_recorded

SEATED = ("Ann", "Ben", "Cat")
NAPALM = GameSetup("napalm", SEATED, "Ann", {"ante": 1, "ante_every": 1, "tokens_to_win": 2, "unfinished_pot": "return_antes"})
POKER = GameSetup("betting", SEATED, "Ann", {"variant": "Texas hold'em"})
HIGH_CARD = GameSetup("pots", SEATED, "Ann", {"preset": "high_card"})


def numbers(play: NightPlay) -> list[int]:
    return [p.number for p in play.of_the_night()]


def test_a_game_left_for_another_before_its_first_record_is_no_game_of_the_night():
    play = NightPlay.begin(SEATED, NAPALM)
    assert numbers(play) == [1]  # nothing recorded anywhere yet: the night is its game at the table
    play.start(POKER)
    assert numbers(play) == [2]  # the Napalm left empty is none; poker counts with no record (its chips unseen)
    play.start(HIGH_CARD)
    assert numbers(play) == [2]  # High Card with nothing in it yet is none either
    play.push(3, "win", {"winners": ["Ben"]})
    # High Card: an ante of 1 from each of three, Ben takes the pot of 3: Ben +2, Ann −1, Cat −1
    assert play.games[2].close().net == {"Ann": -1, "Ben": 2, "Cat": -1}
    assert numbers(play) == [2, 3]
    assert [p.title for p in play.played()] == ["Napalm", "Texas hold'em", "High Card"]  # every start kept


def test_an_undone_record_leaves_nothing_recorded_and_a_record_that_counts_makes_it_a_game():
    play = NightPlay.begin(SEATED, NAPALM)
    game = play.games[0]
    assert nothing_recorded(game.game, game.state, game.close())
    # ante 1 each, Ben alone said Yes: a token to Ben, the pot of 3 stays in play (2 tokens win); stopped now,
    # its antes go back, so its closing moves no chip: a game of the night all the same, for its record
    play.push(1, *game.game.to_event(Declare(("Ben",))))
    assert game.recorded and game.close().net == {"Ann": 0, "Ben": 0, "Cat": 0}
    play.push(1, *game.game.to_event(Void()))  # undone: nothing recorded in it counts
    assert not game.recorded
    play.start(HIGH_CARD)
    assert numbers(play) == [2]  # both empty: the night so far is its game at the table


def test_poker_with_real_betting_counts_without_a_record_of_its_own():
    play = NightPlay.begin(SEATED, POKER)
    poker = play.games[0]
    assert not GAMES["betting"].live_actions(poker.state) and poker.recorded  # its pots are on the table, unseen
    play.start(NAPALM)
    assert numbers(play) == [1]  # the Napalm after it, with nothing in it, is none
