"""A group file's nights say which keeper phone recorded each record, as a night file does (issue 39).

A group file embeds each night as a night file (docs/group-file.md), ``recorded_by`` included: read with
the night, written back exactly, and a wrong one refused naming the night, the game and the index.
Night 1 is TWO_GAMES (tests/night/test_file.py): its first game's ``stages`` hold two records, 0 and 1.
"""

from __future__ import annotations

import pytest

from companion.group import file as groupfile
from group.three_nights import group_document


def _document(recorded_by: object) -> dict:
    document = group_document()
    document["nights"][0]["night"]["games"][0]["recorded_by"] = recorded_by
    return document


def test_a_nights_recorded_by_is_read_and_written_back_exactly():
    group = groupfile.from_dict(_document({"1": "Ben's phone"}))
    assert group.nights[0].night.recorded_by == ({1: "Ben's phone"}, {})
    assert group.nights[1].night.recorded_by == ()  # a night file without it: names no phone
    written = groupfile.to_dict(group)
    assert written["nights"][0]["night"]["games"][0]["recorded_by"] == {"1": "Ben's phone"}
    assert "recorded_by" not in written["nights"][1]["night"]["games"][0]
    assert groupfile.dumps(groupfile.loads(groupfile.dumps(group))) == groupfile.dumps(group)


def test_a_wrong_recorded_by_is_refused_naming_the_night_the_game_and_the_index():
    with pytest.raises(groupfile.GroupFileError) as refused:
        groupfile.from_dict(_document({"2": "Ben's phone"}))
    assert "nights[0].night: games[0] (napalm): 'recorded_by': '2': 'stages' has no record 2 (its records: 0 to 1)" in str(
        refused.value
    )
