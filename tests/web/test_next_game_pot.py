"""The next-game screen says, in numbers, what becomes of the game at the table's pot (issue 20, item 6).

The night (tests/web/test_night_of_games.py): Ann, Ben, Cat, Dan, ante 1, antes returned.
Ben and Cat say Yes (antes: pot 4), Cat wins the showdown, Dan alone says Yes: the pot of 4
is unwon when the next game starts, so each of the four gets their ante of 1 back (RULES.md).
"""

from __future__ import annotations

import html as htmllib
import re

from web.test_night_of_games import next_game_page, play_game_one, second_game, stamp_of

STOPS = ("Napalm stops: Unfinished game: pot of 4 chips; each player's antes in the unfinished game are "
         "returned (1 each).")


def words(page: str) -> str:
    return htmllib.unescape(" ".join(re.sub(r"<[^>]+>", " ", page).split()))


def test_the_next_game_screen_says_what_the_pot_at_the_table_becomes_before_start(start_night, client):
    page = play_game_one(start_night)
    assert STOPS in words(next_game_page(client, page))


def test_the_flash_after_start_says_it_again(start_night, client):
    page = play_game_one(start_night)
    stamp = stamp_of(next_game_page(client, page))
    response = client.post(f"{page.url}/next-game", data={**stamp, **second_game()}, follow_redirects=True)
    flash = re.search(r'<p class="flash"[^>]*>(.*?)</p>', response.get_data(as_text=True), re.S)
    assert flash and words(flash.group(1)) == "Game 2 of the night: Napalm starts, Ben deals. " + STOPS


def test_a_game_with_nothing_in_its_pot_says_so(start_night, client):
    page = start_night()  # nothing recorded: no ante taken yet, nothing in the pot
    assert "Napalm stops with nothing left in its pot." in words(next_game_page(client, page))
