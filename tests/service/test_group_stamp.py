"""The group's one-row stamp (service.group_stamp): every change its pages show moves it, worked by hand.

The group "Fridays" is service.group_support's: opened from N1, Cat added, N2 and N3 kept (version 7).
Each night is played on chip counts: one buy-in for everyone, then one cash-out per player, so its version
is 1 + its players: N1 (Ann, Ben, Dan) 4, N2 (Ann, Ben, Cat, Dan) 5, N3 (Ann, Cat) 3; the sum is 12.
"""

from __future__ import annotations

from companion import service
from companion.db.models import Group, Night
from companion.extensions import db
from service.group_support import CHIPS, group, group_of_three, played_night, poker


def stamp(group_id: int) -> tuple:  # type: ignore[type-arg]
    db.session.expire_all()
    return service.group_stamp(db.session.get(Group, group_id))


def test_the_stamp_is_the_groups_row_and_its_nights_count_and_versions(app):
    with app.app_context():
        group_id, _ = group_of_three()
        found = group(group_id)
        assert stamp(group_id) == (group_id, 7, "Fridays", found.organiser_key, found.member_key, 0, 3, 4 + 5 + 3)


def test_a_nights_event_moves_the_sum_of_versions_and_nothing_else(app):
    with app.app_context():
        group_id, (n1, _, n3) = group_of_three()
        before = stamp(group_id)
        # N3: Ann pays Cat 2 of her 5 chips at the night itself: one event, N3 at version 4
        service.mark_paid(n3, "Ann", "Cat", 2, expected_version=3)
        after = stamp(group_id)
        assert after[:7] == before[:7] and after[7] == before[7] + 1 == 13


def test_a_nights_new_players_link_or_new_setup_moves_the_nights_changes_not_the_version(app):
    with app.app_context():
        group_id, (n1, _, _) = group_of_three()
        service.rotate_link(db.session.get(Night, n1), "viewer")
        assert stamp(group_id)[1:] == (7, "Fridays", group(group_id).organiser_key, group(group_id).member_key, 1, 3, 12)
        # the scorekeeper's link is on no group page: nothing moves
        service.rotate_link(db.session.get(Night, n1), "keeper")
        assert stamp(group_id)[5] == 1
        # a night started from the group (a record: version 8; a fourth night at version 0), then renamed before play
        night = service.open_night_in_group(group_id, "N4", ["Ann", "Cat"], CHIPS, poker("Ann"))
        assert stamp(group_id)[1] == 8 and stamp(group_id)[5:] == (1, 4, 12)
        service.update_setup(db.session.get(Night, night.id), "Friday N4", ["Ann", "Cat"], "Ann",
                             poker("Ann")["rules"], CHIPS, 0)
        assert db.session.get(Night, night.id).name == "Friday N4"
        assert stamp(group_id)[1] == 8 and stamp(group_id)[5:] == (2, 4, 12)


def test_a_group_record_or_a_rotated_group_link_moves_the_stamp(app):
    with app.app_context():
        group_id, _ = group_of_three()
        service.add_member(group_id, "Eve", 7, None)
        assert stamp(group_id)[1] == 8
        old = stamp(group_id)[4]
        service.rotate_group_link(group(group_id), "members")
        assert stamp(group_id)[4] != old and stamp(group_id)[5:] == (0, 3, 12)


def test_a_night_in_no_group_moves_no_groups_stamp(app):
    import datetime

    with app.app_context():
        group_id, _ = group_of_three()
        before = stamp(group_id)
        alone = played_night("Alone", {"Ann": 50, "Ben": 50}, CHIPS, datetime.date(2025, 3, 1))
        service.rotate_link(alone, "viewer")
        assert stamp(group_id) == before
