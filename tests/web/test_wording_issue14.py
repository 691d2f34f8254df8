"""Issue 14, item 8: the screens say what the table needs to hear.

Seats Ann, Ben, Cat; Ann deals first; ante 1 on every other hand (hands 1, 3, 5…
of a game); 5 tokens win; an unfinished game's pot returns the antes.
"""

from __future__ import annotations


def _ante_note(html: str) -> str:
    start = html.find('class="muted ante-note">')
    assert start >= 0, "no ante note on the screen"
    return html[start + len('class="muted ante-note">'): html.find("</p>", start)]


def test_the_ante_note_follows_the_hand_and_the_report_explains_the_returned_antes(start_night):
    t = start_night(seat_4="", ante_every="2", chip_value="")
    assert _ante_note(t.html) == "Recording this stage takes the ante: 1 from each player."
    # Hand 1, stage 1: Ben and Cat say Yes: the ante, pot 3, everyone -1.
    t.declare("Ben", "Cat")
    assert _ante_note(t.html) == "This hand's ante is in the pot: 1 from each player."
    # Ben wins the showdown: Cat pays him the pot, 3.  Ann -1, Ben +2, Cat -4.
    t.winner("Ben")
    assert "Stage 2" in t.html
    assert _ante_note(t.html) == "This hand's ante is in the pot: 1 from each player."
    t.declare()
    t.declare()  # stage 3: nobody; hand 2 (Ben deals) does not ante
    assert "Game 1 · Hand 2" in t.html
    assert _ante_note(t.html) == "No ante this hand."
    assert (t.net("Ann"), t.net("Ben"), t.net("Cat"), t.pot()) == (-1, 2, -4, 3)

    # The report, with hand 2 not started: the pot of 3 goes back as antes, 1 each:
    # nets Ann 0, Ben 3, Cat -3; the table's standings (-1, 2, -4) are reconciled in words.
    report = t.client.get(t.url + "/report").get_data(as_text=True)
    assert "unfinished after 1 hand, pot 3" in report and "unfinished at hand 2" not in report
    assert "each net above adds that player's share of it back: Ann +1, Ben +1, Cat +1." in report
    # Once a stage of hand 2 is recorded, hand 2 has started.
    t.declare()
    report = t.client.get(t.url + "/report").get_data(as_text=True)
    assert "unfinished at hand 2, pot 3" in report
