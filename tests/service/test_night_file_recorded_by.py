"""Import and export keep which keeper phone recorded each record (issue 39), through a night and a group file.

TWO_GAMES (tests/night/test_file.py) with its first game's stage 1 (Dan alone says Yes: one tap) named as
Ben's phone's.  Stored, the night's events are, in order: game 1's stage 0 (Ben and Cat say Yes; Cat wins:
two taps), its stage 1 (one tap), the start of game 2, game 2's stage 0 (Ann alone: one tap).  So event 3
alone says Ben's phone; the others say what an import says.
"""

from __future__ import annotations

import copy
import json

from sqlalchemy import select

from companion import service
from companion.db.models import Event, Group, GroupNight
from companion.extensions import db
from group.three_nights import group_document
from night.test_file import TWO_GAMES


def _recorded_by(night_id: int) -> list[str]:
    return list(db.session.scalars(select(Event.recorded_by).where(Event.night_id == night_id).order_by(Event.seq)))


def test_a_night_file_imports_each_record_under_the_phone_it_names_and_exports_it_again(app):
    document = copy.deepcopy(TWO_GAMES)
    document["games"][0]["recorded_by"] = {"1": "Ben's phone"}
    with app.app_context():
        night = service.import_history(json.dumps(document))
        assert _recorded_by(night.id) == ["import", "import", "Ben's phone", "import", "import"]
        exported = json.loads(service.export_history(night))
        assert exported["games"][0]["recorded_by"] == {"1": "Ben's phone"}
        assert "recorded_by" not in exported["games"][1]


def test_a_group_file_keeps_the_phones_of_its_nights_through_import_and_export(app):
    document = group_document()
    document["nights"][0]["night"]["games"][0]["recorded_by"] = {"1": "Ben's phone"}
    with app.app_context():
        imported = service.import_group(json.dumps(document))
        exported = service.export_group(db.session.get(Group, imported.id))
        assert json.loads(exported)["nights"][0]["night"]["games"][0]["recorded_by"] == {"1": "Ben's phone"}
        first = db.session.scalar(
            select(GroupNight.night_id).where(GroupNight.group_id == imported.id).order_by(GroupNight.id)
        )
        # the night's five events as above, then the two payments the group file marks paid at it (docs/group-file.md)
        assert _recorded_by(first) == ["import", "import", "Ben's phone", "import", "import", "import", "import"]
        again = service.import_group(exported)
        assert service.export_group(db.session.get(Group, again.id)) == exported


def test_every_kind_of_game_names_its_records_phones_the_same_way(app):
    """THREE_KINDS: game 1 Napalm (stage 0: two taps; stage 1: one), game 2 Nap (deal 0: one tap, Cat's phone),
    game 3 High Card (deal 0: its ante and its pot, every tap of it Ben's phone).  Stored in order: Napalm's three
    taps, game 2's start, Nap's deal, game 3's start, then High Card's taps."""
    from night.test_file import THREE_KINDS

    document = copy.deepcopy(THREE_KINDS)
    document["games"][1]["recorded_by"] = {"0": "Cat's phone"}
    document["games"][2]["recorded_by"] = {"0": "Ben's phone"}
    with app.app_context():
        night = service.import_history(json.dumps(document))
        stored = _recorded_by(night.id)
        assert stored[:6] == ["import", "import", "import", "import", "Cat's phone", "import"]
        assert len(stored) > 6 and set(stored[6:]) == {"Ben's phone"}
        exported = json.loads(service.export_history(night))
        assert [g.get("recorded_by") for g in exported["games"]] == [None, {"0": "Cat's phone"}, {"0": "Ben's phone"}]
