"""The night the keeper phones' and the night reads' tests share: "Friday", Napalm for Ann, Ben, Cat and Dan.

Imported as ``service.night_support`` (``tests/`` is on the path, as for ``service.group_support``).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from companion import service as services
from companion.night.file import Money

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
NAPALM = {"kind": "napalm", "players": None, "first_dealer": "Ann", "rules": {}}


@pytest.fixture
def night_id(app) -> int:  # type: ignore[no-untyped-def]
    """The id of "Friday", a night of Napalm for :data:`PLAYERS` at 0.25 EUR a chip, just opened."""
    with app.app_context():
        return services.open_night("Friday", PLAYERS, Money(Decimal("0.25"), "EUR"), NAPALM).id
