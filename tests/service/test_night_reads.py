"""How a page finds a night's row through the service (companion/service/night_reads.py, and a keeper phone's
link in companion/service/keepers.py): the web layer queries nothing of its own (issue 37).

Each value below follows from the night opened here: its links as stored, one keeper phone, one record.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal


from companion import service as services
from companion.extensions import db
from companion.games.napalm import Declare
from companion.night.file import Money

from service.night_support import NAPALM, PLAYERS, night_id  # noqa: F401 (night_id: the fixture)


def test_a_night_is_found_by_its_own_links_each_in_its_column(app, night_id):
    with app.app_context():
        night = services.night_by_id(night_id)
        assert night is not None and night.name == "Friday"
        assert services.night_by_link(night.keeper_key, "keeper") is night
        assert services.night_by_link(night.viewer_key, "viewer") is night
        # a link is looked up in its own column only: the players' link is no scorekeeper link, and back
        assert services.night_by_link(night.viewer_key, "keeper") is None
        assert services.night_by_link(night.keeper_key, "viewer") is None
        assert services.night_by_link("no-such-link", "keeper") is None
        assert services.night_by_id(night_id + 1) is None


def test_the_display_link_is_found_while_it_stands(app, night_id):
    with app.app_context():
        assert services.display_link_of("no-such-link") is None
        key = services.new_display_link(night_id)
        assert services.display_link_of(key) == (key, night_id)
        assert services.take_back_display_link(night_id)
        assert services.display_link_of(key) is None


def test_a_keeper_phone_link_is_found_until_it_is_taken_back(app, night_id):
    with app.app_context():
        ben = services.make_keeper_link(night_id, "Ben's phone", None)
        assert services.phone_link_of(ben.key) == services.PhoneLink(ben.id, night_id, ben.key, "Ben's phone")
        assert services.phone_link_of("no-such-link") is None
        services.take_back_keeper_link(night_id, ben.id)
        assert services.phone_link_of(ben.key) is None


def test_a_night_read_again_shows_what_the_database_holds_now(app, night_id):
    with app.app_context():
        night = services.night_by_id(night_id)
        assert night is not None and night.name == "Friday"
        # a write this session's row does not know of (as another phone's, before a refused write's answer)
        db.session.execute(db.text("UPDATE night SET name = 'Saturday' WHERE id = :id"), {"id": night_id})
        assert services.night_by_id(night_id) is night and night.name == "Friday"  # the row as first read
        again = services.night_again(night_id)
        assert again is night and again.name == "Saturday"
        db.session.rollback()


def test_the_time_since_the_last_record_is_none_before_any(app, night_id):
    with app.app_context():
        assert services.since_last_record(night_id) is None
        services.record(night_id, Declare(()), 0, recorded_by=services.FIRST_PHONE)
        since = services.since_last_record(night_id)
        assert since is not None and timedelta(0) <= since < timedelta(minutes=1)


def test_the_warm_up_reads_the_links_of_the_nights_that_exist_in_their_order(app, night_id):
    with app.app_context():
        other = services.open_night("Saturday", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id
        first, second = services.night_by_id(night_id), services.night_by_id(other)
        assert first is not None and second is not None
        expected = [(second.keeper_key, second.viewer_key), (first.keeper_key, first.viewer_key)]
        assert services.links_for_warm_up([other, other + 1, night_id]) == expected
