"""One numbering across the night (issue 20, item 11).

*Last actions* and the History numbered each game's records from #1 while the bank's log
and the night's ledger used the night's numbers (#41, "Cancelled #51"); and an undo line
said "#11 G1 H3 S1 · Undid #10" when #10 was at H2 S3.  Every record is now shown by its
number in the night, and an undo sits where the record it undid was.

The night (tests/web/test_night_of_games.py): Ann, Ben, Cat, Dan, ante 1.  #1 Ben and Cat
say Yes (G1 H1 S1), #2 Cat wins the showdown (G1 H1 S1), #3 Dan alone says Yes (G1 H1 S2);
the table is then at stage 3.
"""

from __future__ import annotations

import re

from pages import TablePage
from web.test_night_of_games import next_game_page, play_game_one, second_game, stamp_of


def recent_lines(page: TablePage) -> list[str]:
    """The *Last actions* list, newest first, as the words it shows."""
    found = re.search(r'<ol class="recent">(.*?)</ol>', page.html, re.S)
    assert found
    return [" ".join(re.sub(r"<[^>]+>", " ", li).split()) for li in re.findall(r"<li[^>]*>(.*?)</li>", found.group(1), re.S)]


def test_an_undo_sits_where_the_record_it_undid_was(start_night):
    page = play_game_one(start_night)
    page.undo()  # #4 undoes #3, Dan's Yes at stage 2; the table was at stage 3
    assert recent_lines(page)[0].startswith("#4 G1 H1 S2 · Undid #3: ")


def test_the_second_games_records_go_on_with_the_nights_numbers(start_night, client):
    page = play_game_one(start_night)  # #1 to #3
    stamp = stamp_of(next_game_page(client, page))
    assert client.post(f"{page.url}/next-game", data={**stamp, **second_game()}).status_code == 303  # #4
    page.refresh()
    page.declare("Ann")  # #5: game 2's first record (its own #1)
    page.undo()  # #6: undoes #5
    lines = recent_lines(page)
    assert lines[0].startswith("#6 G1 H1 S1 · Undid #5: "), lines
    assert lines[1].startswith("#5 G1 H1 S1 · "), lines
    history = client.get(f"{page.url}/history").get_data(as_text=True)
    numbers = re.findall(r"<tr[^>]*>\s*<td>(\d+)</td>", history)
    assert numbers == ["6", "5", "3", "2", "1"]  # newest first; #4 started the game (the ledger below)
    assert "(undone by #6)" in history and "Undid #5: " in history
    assert "#4 " in history and "Game 2 of the night: Napalm starts" in history
