"""What the group's service tests share: nights played on chip counts, and a group of three of them.

Imported as ``service.group_support`` (``tests/`` is on the path, as for ``pages``).  Each night is
played on chip counts (a game of Poker with real betting: the night settles on counts − chips
bought), so each player's net is what they cashed out less the 50 they bought in:

* N1, 2025-01-10, EUR at 0.25 a chip: Ann 58, Ben 50, Dan 42 → Ann +8, Ben 0, Dan −8;
  in money Ann +2.00, Dan −2.00; plan: Dan pays Ann 2.00 (8 chips).
* N2, 2025-02-14, EUR at 0.10 a chip: Ann 50, Ben 80, Cat 40, Dan 30 → Ann 0, Ben +30, Cat −10,
  Dan −20; in money Ben +3.00, Cat −1.00, Dan −2.00; plan: Cat pays Ben 1.00 (10 chips), Dan pays
  Ben 2.00 (20 chips).
* N3, 2025-02-21, chips only: Ann 45, Cat 55 → Ann −5, Cat +5; plan: Ann pays Cat 5 chips.

The group "Fridays" is opened from N1 (Ann, Ben, Dan its first members: records 1-3, N1 kept: 4),
Cat added (5), N2 kept (6), N3 kept (7): its version is 7.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from decimal import Decimal as D
from typing import Any

from sqlalchemy import func, select, update

from companion import service
from companion.db.models import Event, Group, GroupNight, GroupRecord, Night
from companion.extensions import db
from companion.night.file import Money
from companion.service import bank

EUR25, EUR10, CHIPS = Money(D("0.25"), "EUR"), Money(D("0.10"), "EUR"), Money(D(0), "")


def poker(first_dealer: str) -> dict[str, Any]:
    return {"kind": "betting", "players": None, "first_dealer": first_dealer, "rules": {"variant": "Texas hold'em"}}


def played_night(name: str, counts: Mapping[str, int], money: Money, day: datetime.date) -> Night:
    """A night on chip counts: everyone buys in 50, then cashes out ``counts`` (a player's net: count − 50)."""
    players = list(counts)
    night = service.open_night(name, players, money, poker(players[0]))
    bank.record(night.id, "all_buy_in", {"chips": 50}, 0, None)
    for version, (player, chips) in enumerate(counts.items(), start=1):
        bank.record(night.id, "cash_out", {"player": player, "chips": chips}, version, None)
    # the day it was played (the service dates a night by the day it was started)
    db.session.execute(update(Night).where(Night.id == night.id).values(created_at=datetime.datetime.combine(day, datetime.time(20))))
    db.session.commit()
    return db.session.get(Night, night.id)


def group_of_three() -> tuple[int, list[int]]:
    """The group "Fridays" opened from N1 (Ann, Ben, Dan its first members), Cat added, N2 and N3 kept."""
    n1 = played_night("N1", {"Ann": 58, "Ben": 50, "Dan": 42}, EUR25, datetime.date(2025, 1, 10))
    n2 = played_night("N2", {"Ann": 50, "Ben": 80, "Cat": 40, "Dan": 30}, EUR10, datetime.date(2025, 2, 14))
    n3 = played_night("N3", {"Ann": 45, "Cat": 55}, CHIPS, datetime.date(2025, 2, 21))
    group = service.open_group("Fridays", from_night=n1)
    assert group.version == 4  # Ann, Ben, Dan added; N1 kept
    service.add_member(group.id, "Cat", 4, None)
    service.keep_night(group.id, n2.id, 5, None)
    service.keep_night(group.id, n3.id, 6, None)
    return group.id, [n1.id, n2.id, n3.id]


def group(group_id: int) -> Group:
    db.session.rollback()
    return db.session.get(Group, group_id)


def versions(night_ids: list[int]) -> list[int]:
    db.session.rollback()
    return [db.session.get(Night, i, populate_existing=True).version for i in night_ids]


def tab_events(night_id: int) -> list[dict[str, Any]]:
    db.session.rollback()
    return list(db.session.scalars(select(Event.payload).where(Event.night_id == night_id, Event.kind == "tab_cleared").order_by(Event.seq)))


def everything() -> dict[str, Any]:
    """What a refused command must leave as it was: every group's and night's version, and every table's rows."""
    db.session.rollback()
    count = lambda model: db.session.scalar(select(func.count()).select_from(model))  # noqa: E731
    return {
        "groups": sorted(db.session.execute(select(Group.id, Group.version, Group.name, Group.organiser_key, Group.member_key)).all()),
        "nights": sorted(db.session.execute(select(Night.id, Night.version)).all()),
        "rows": {m.__name__: count(m) for m in (Group, GroupRecord, GroupNight, Night, Event)},
    }
