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
