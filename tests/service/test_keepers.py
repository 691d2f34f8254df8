"""The night's keeper phones (companion/service/keepers.py, issue 39): links made, named and taken back.

Each value below follows from the rules written in docs/keepers.md: every keeper phone is equal; a doubled
"Make a keeper link" makes one link; a link taken back opens nothing and edits no record; the last keeper
phone cannot leave.
"""

from __future__ import annotations


import pytest
from sqlalchemy import select

from companion import service as services
from companion.db.models import Event, KeeperLink, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.games.napalm import Declare
from companion.night.file import Money

from service.night_support import NAPALM, PLAYERS, night_id  # noqa: F401 (night_id: the fixture)


def test_a_new_night_is_kept_by_its_first_phone_alone(app, night_id):
    with app.app_context():
        keepers = services.keepers_of(night_id)
        assert (keepers.first_phone, keepers.others, keepers.names) == (True, (), ("the first phone",))


def test_a_phone_is_named_by_the_one_name_reader_and_made_once_per_request_key(app, night_id):
    with app.app_context():
        ben = services.make_keeper_link(night_id, "  Ben's   phone ", "k" * 20)
        again = services.make_keeper_link(night_id, "Ben's phone", "k" * 20)
        assert ben == again and ben.name == "Ben's phone" and ben.key and len(ben.key) == 43
        assert services.keepers_of(night_id).names == ("the first phone", "Ben's phone")
        for name in ("", "Ben\u200f", "x" * 31, "Scorekeeper", "the first phone", "BEN'S PHONE"):
            with pytest.raises(IllegalAction):
                services.make_keeper_link(night_id, name, None)
        assert db.session.scalar(select(db.func.count()).select_from(KeeperLink)) == 1


def test_taking_a_link_back_edits_no_record_and_forgets_its_secret(app, night_id):
    with app.app_context():
        ben = services.make_keeper_link(night_id, "Ben's phone", None)
        services.record(night_id, Declare(()), 0, recorded_by="Ben's phone")
        before = [(e.seq, e.kind, e.payload, e.recorded_by) for e in db.session.scalars(select(Event))]
        assert services.take_back_keeper_link(night_id, ben.id) == services.keepers.TakenBack("Ben's phone")
        assert services.take_back_keeper_link(night_id, ben.id).already  # a doubled tap: nothing more
        after = [(e.seq, e.kind, e.payload, e.recorded_by) for e in db.session.scalars(select(Event))]
        assert after == before == [(1, "declare", {"yes": []}, "Ben's phone")]
        assert db.session.scalar(select(KeeperLink.key).where(KeeperLink.id == ben.id)) is None
        assert db.session.get(Night, night_id).version == 1  # a link is not a record: the version stays


def test_the_first_phone_leaves_only_while_another_keeps_score(app, night_id):
    with app.app_context():
        first_key = db.session.get(Night, night_id).keeper_key
        with pytest.raises(IllegalAction, match="only phone keeping score"):
            services.take_back_keeper_link(night_id, None)
        ben = services.make_keeper_link(night_id, "Ben's phone", None)
        services.take_back_keeper_link(night_id, None)
        db.session.expire_all()
        assert db.session.get(Night, night_id).keeper_key != first_key  # the first link opens nothing
        keepers = services.keepers_of(night_id)
        assert (keepers.first_phone, keepers.names) == (False, ("Ben's phone",))
        with pytest.raises(IllegalAction, match="only phone keeping score"):
            services.take_back_keeper_link(night_id, ben.id)


def test_a_phone_of_another_night_cannot_be_taken_back_here(app, night_id):
    with app.app_context():
        other = services.open_night("Saturday", PLAYERS, Money(), NAPALM).id
        ben = services.make_keeper_link(other, "Ben's phone", None)
        with pytest.raises(IllegalAction, match="no such keeper phone"):
            services.take_back_keeper_link(night_id, ben.id)


def test_who_recorded_a_record_in_words():
    assert services.recorded_by_words("scorekeeper") == "the first phone"
    assert services.recorded_by_words("Ben's phone") == "Ben's phone"
    assert services.recorded_by_words("import") == "the import of a night file"
