"""A group's members: names matched ignoring case and spacing, merges and renames as records appended."""

from __future__ import annotations

import datetime

import pytest

from companion.group.members import Added, MemberError, MemberFold, Merged, Renamed, UnknownMember, members_from, name_key
from companion.group.nights import NightResult
from companion.group.season import season, seated_members
from group.five_nights import MEMBERS, N3


def test_a_name_is_matched_ignoring_case_and_the_spaces_around_and_between_words() -> None:
    members = members_from([Added("Ann Lee"), Added("Bob")])
    # "  ANN   lee " → "ANN lee" → casefold "ann lee" = the key of "Ann Lee"
    assert members.member("  ANN   lee ") == "Ann Lee"
    assert members.member("bob") == "Bob"
    # casefold, not lower: "STRASSE" and "Straße" are one name ("ß".casefold() == "ss")
    assert name_key("Straße") == name_key("STRASSE") == "strasse"
    assert "BOB" in members and "Eve" not in members


def test_an_unknown_name_is_refused_with_the_groups_members_named() -> None:
    with pytest.raises(UnknownMember, match=r"'Eve'.*members: Ann, Bob, Cat, Dan"):
        MEMBERS.member("Eve")


def test_two_names_merged_are_one_member_and_keep_every_name() -> None:
    # the records: Ann, Bob, Cat, Dan, Daniel added; then "daniel " merged into Dan
    assert MEMBERS.names == ("Ann", "Bob", "Cat", "Dan")
    assert MEMBERS.member("Daniel") == MEMBERS.member("DAN") == "Dan"
    assert MEMBERS.names_of("Dan") == ("dan", "daniel")
    # night 3 seats Daniel: he is Dan there
    assert seated_members(N3, MEMBERS)["Daniel"] == "Dan"


def test_a_merge_is_a_record_appended_so_the_members_before_it_are_still_what_they_were() -> None:
    records = [Added("Dan"), Added("Daniel")]
    before = members_from(records)
    after = members_from([*records, Merged("Dan", "Daniel")])
    assert before.names == ("Dan", "Daniel") and before.member("daniel") == "Daniel"
    assert after.names == ("Dan",) and after.member("daniel") == "Dan"


def test_a_rename_shows_the_new_name_and_still_matches_the_old() -> None:
    members = members_from([Added("Bobby"), Added("Cat"), Renamed("bobby", "Robert")])
    assert members.names == ("Robert", "Cat")
    assert members.member("Bobby") == members.member("robert") == "Robert"
    # only the case of one's own name: allowed
    assert members_from([Added("cat"), Renamed("cat", "Cat")]).names == ("Cat",)


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([Added("Ann"), Added(" ann ")], r"record 1: 'ann' is already 'Ann'"),
        ([Added("Ann"), Merged("Ann", "Eve")], r"record 1: no member of the group is called 'Eve'"),
        ([Added("Ann"), Merged("ann", "ANN")], r"record 1: 'ANN' is already 'Ann': nothing to merge"),
        ([Added("Ann"), Added("Bob"), Renamed("Bob", "ann")], r"record 2: 'ann' is already 'Ann': merge"),
        ([Added("   ")], r"record 0: a member's name cannot be empty"),
        ([Added("x" * 25)], r"record 0: a member's name is at most 24 characters"),
    ],
)
def test_a_record_that_cannot_apply_is_refused_naming_it(records: list, message: str) -> None:
    with pytest.raises(MemberError, match=message):
        members_from(records)


def test_two_players_of_one_night_cannot_be_one_member() -> None:
    members = members_from([Added("Dan"), Added("Daniel"), Added("Ann"), Merged("Dan", "Daniel")])
    night = NightResult("x", datetime.date(2025, 1, 1), "x", None, None, {"Dan": 1, "Daniel": -1, "Ann": 0})
    with pytest.raises(MemberError, match=r"'Dan' and 'Daniel' both played night 'x'"):
        season([night], members)


def test_a_night_seating_an_unknown_name_is_refused() -> None:
    night = NightResult("x", datetime.date(2025, 1, 1), "x", None, None, {"Ann": 1, "Eve": -1})
    with pytest.raises(UnknownMember, match="'Eve'"):
        season([night], MEMBERS)


def test_the_fold_one_record_at_a_time_says_who_a_name_was_just_before_each_record() -> None:
    """Ann joins, Bob joins, "bob" is renamed Robert, Robert is merged into Ann: before the rename "BOB" is
    Bob, before the merge "robert" is Robert, after it both old names are Ann and Ann is the one member."""
    fold = MemberFold()
    fold.apply(Added("Ann"))
    fold.apply(Added("Bob"))
    assert fold.member("BOB") == "Bob"
    fold.apply(Renamed("bob", "Robert"))
    assert fold.member("robert") == "Robert" and fold.member("Bob") == "Robert"
    kept = fold.members  # a copy: the merge below does not change it
    fold.apply(Merged("Ann", "Robert"))
    assert fold.member("bob") == "Ann" and fold.member("Robert") == "Ann"
    assert fold.members.names == ("Ann",)
    assert kept.names == ("Ann", "Robert") and kept.member("bob") == "Robert"
    assert fold.members == members_from([Added("Ann"), Added("Bob"), Renamed("bob", "Robert"), Merged("Ann", "Robert")])


def test_the_fold_refuses_a_record_naming_its_position_as_members_from_does() -> None:
    """The third record (position 2) merges Cat, whom no record added."""
    fold = MemberFold()
    fold.apply(Added("Ann"))
    fold.apply(Added("Bob"))
    with pytest.raises(MemberError, match="member record 2: .*'Cat'"):
        fold.apply(Merged("Ann", "Cat"))
    with pytest.raises(MemberError, match="member record 2: .*'Cat'"):
        members_from([Added("Ann"), Added("Bob"), Merged("Ann", "Cat")])
