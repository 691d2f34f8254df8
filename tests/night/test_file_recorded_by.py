"""A night file's ``recorded_by`` (issue 39): which keeper phone recorded each game's record.

Each game of a ``companion-night/2`` file may say, by the index of a record in its list, which phone
other than the first recorded it: ``{"0": "Ben's phone"}``.  The reader is strict (a wrong index or
name refused naming the game and the index), a file without it reads as before, and the writer
writes back exactly what was read.  The files here are written by hand; each record's index is its
place in the game's ``stages`` list, counted from 0.
"""

from __future__ import annotations

import copy
import json

import pytest

from companion.night import file as nightfile
from companion.night import file_text
from night.test_file import TWO_GAMES


def _with(recorded_by: dict[int, object]) -> dict:
    """TWO_GAMES with a ``recorded_by`` on each game ``recorded_by`` names (by its index in ``games``)."""
    document = copy.deepcopy(TWO_GAMES)
    for index, value in recorded_by.items():
        document["games"][index]["recorded_by"] = value
    return document


def test_a_file_names_the_phone_of_each_record_the_first_phone_did_not_make():
    """Game 1 has two stages (indexes 0 and 1); Ben's phone made the second.  Game 2 has one stage (index 0),
    Cat's phone made it.  Records not named (game 1's stage 0) are left to the importer."""
    read = nightfile.from_dict(_with({0: {"1": "Ben's phone"}, 1: {"0": "Cat's phone"}}))
    assert read.recorded_by == ({1: "Ben's phone"}, {0: "Cat's phone"})


def test_an_old_file_without_it_reads_as_before_and_names_no_phone():
    read = nightfile.from_dict(copy.deepcopy(TWO_GAMES))
    assert read.recorded_by == ()
    assert "recorded_by" not in nightfile.dumps(read.name, read.play, read.money)


def test_what_is_read_is_written_back_exactly():
    """Read, then write with what was read: the same document, key for key (the index keys as decimal text,
    in the order of the records)."""
    document = _with({0: {"1": "Ben's phone", "0": "Cat's phone"}})
    read = nightfile.from_dict(json.loads(json.dumps(document)))
    written = nightfile.to_dict(read.name, read.play, read.money, recorded_by=read.recorded_by)
    assert written["games"][0]["recorded_by"] == {"0": "Cat's phone", "1": "Ben's phone"}
    assert list(written["games"][0]["recorded_by"]) == ["0", "1"]
    assert "recorded_by" not in written["games"][1]
    assert nightfile.from_dict(written).recorded_by == read.recorded_by


def test_a_name_is_read_by_the_one_name_reader():
    """Runs of spaces made one, spaces around dropped: as the share page reads a phone's name."""
    read = nightfile.from_dict(_with({1: {"0": "  Cat's   phone "}}))
    assert read.recorded_by == ({}, {0: "Cat's phone"})


@pytest.mark.parametrize(
    ("recorded_by", "says"),
    [
        (["Ben's phone"], "games[0] (napalm): 'recorded_by' must be an object naming the phone of a record"),
        ({"2": "Ben's phone"}, "games[0] (napalm): 'recorded_by': '2': 'stages' has no record 2 (its records: 0 to 1)"),
        ({"-1": "Ben's phone"}, "games[0] (napalm): 'recorded_by': the key '-1' is no record's index"),
        ({"01": "Ben's phone"}, "games[0] (napalm): 'recorded_by': the key '01' is no record's index"),
        ({"1.0": "Ben's phone"}, "the key '1.0' is no record's index"),
        ({" 1": "Ben's phone"}, "the key ' 1' is no record's index"),
        ({"\u0661": "Ben's phone"}, "is no record's index"),  # an Arabic-Indic one: digits 0-9 only
        ({"first": "Ben's phone"}, "the key 'first' is no record's index"),
        ({"9" * 5000: "Ben's phone"}, "'999999999999\u2026': 'stages' has no record 999999999999\u2026"),  # never read by int()
        ({"1\u202e": "Ben's phone"}, "the key '1\ufffd' is no record's index"),  # quoted with nothing invisible
        ({"1": ""}, "games[0] (napalm): 'recorded_by': '1': name the phone"),
        ({"1": 7}, "games[0] (napalm): 'recorded_by': '1': the phone's name must be text"),
        ({"1": None}, "'recorded_by': '1': the phone's name must be text"),
        ({"1": "x" * 31}, "'recorded_by': '1': the phone's name is at most 30 characters"),
        ({"1": "Ben\u202e"}, "'recorded_by': '1': the phone's name contains a mark that changes the direction of text"),
        ({"1": "Ben\x1b"}, "'recorded_by': '1': the phone's name contains a control character (U+001B)"),
        ({"1": "scorekeeper"}, "'recorded_by': '1': \u201cscorekeeper\u201d names something else in the history"),
        ({"1": "Import"}, "'recorded_by': '1': \u201cImport\u201d names something else"),
        ({"1": "the first phone"}, "names something else in the history"),
    ],
)
def test_a_wrong_index_or_name_is_refused_naming_the_game_and_the_index(recorded_by, says):
    with pytest.raises(nightfile.NightFileError) as refused:
        nightfile.from_dict(_with({0: recorded_by}))
    assert says in str(refused.value)


def test_the_second_game_is_named_when_it_is_wrong():
    """Game 2 holds one stage: index 1 is past its end."""
    with pytest.raises(nightfile.NightFileError, match=r"games\[1\] \(napalm\): 'recorded_by': '1': 'stages' has no record 1 "
                                                       r"\(its records: 0 to 0\)"):
        nightfile.from_dict(_with({1: {"1": "Ben's phone"}}))


def test_a_game_with_no_records_names_none():
    document = _with({1: {"0": "Ben's phone"}})
    document["games"][1]["stages"] = []
    with pytest.raises(nightfile.NightFileError, match=r"games\[1\] \(napalm\): 'recorded_by': '0': 'stages' has no record 0 "
                                                       r"\(its records: none\)"):
        nightfile.from_dict(document)


def test_an_index_written_twice_is_refused_by_the_reader_of_the_file():
    """A JSON object naming a key twice would keep one unseen: refused where it is."""
    text = json.dumps(TWO_GAMES).replace('"first_dealer": "Ann",', '"recorded_by": {"1": "Ben\'s phone", "1": "Cat"}, '
                                         '"first_dealer": "Ann",', 1)
    with pytest.raises(nightfile.NightFileError, match=r"games\[0\]\.recorded_by: the key '1' is written twice"):
        nightfile.loads(text)


def test_each_tap_of_a_record_takes_its_phone_on_import():
    """Game 1's first stage is two taps (who said Yes: Ben and Cat; who won: Cat), its second one (Dan alone).
    Stage 0 named Ben's phone: both its taps say Ben's phone; stage 1, not named: None (the importer's)."""
    read = nightfile.from_dict(_with({0: {"0": "Ben's phone"}}))
    first = read.play.games[0]
    assert nightfile.action_phones(first, read.recorded_by[0]) == ["Ben's phone", "Ben's phone", None]
    assert nightfile.action_phones(read.play.games[1], {}) == [None]


def test_the_phone_of_a_record_is_that_of_its_first_tap():
    """Numbers as a stored night gives them: game 1's taps are events 1 (Yes: Ben, Cat), 2 (Cat wins), 3 (Dan
    alone).  Event 2 alone by Ben's phone: stage 0 began with event 1 (the first phone's), so it is not
    named; event 3 by Cat's phone: stage 1 is hers."""
    read = nightfile.from_dict(copy.deepcopy(TWO_GAMES))
    phones = {2: "Ben's phone", 3: "Cat's phone"}
    first = read.play.games[0]
    # the file read numbers each record by its place in the game's log: 1, 2, 3 here, as the events would be
    assert [first.state.number_of(r.seq) for r in first.state.live_records()] == [1, 2, 3]
    recorded_by = nightfile.recorded_by_of(read.play, phones)
    assert recorded_by == ({1: "Cat's phone"}, {})
    # the text written by extending an earlier one says the same, byte for byte
    whole = nightfile.dumps(read.name, read.play, read.money, phones=phones)
    extended, _ = file_text.dumps(read.name, read.play, read.money, None, phones=phones)
    assert extended == whole
    assert json.loads(whole)["games"][0]["recorded_by"] == {"1": "Cat's phone"}
