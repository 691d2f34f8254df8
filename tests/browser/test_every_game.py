"""Every registered game's pages on a phone: axe-clean at 360×740, no sideways scroll, tap targets of 44 px.

The conformance suite (``tests/games/test_conformance.py``) for the eye: for each game the
registry holds (the installed ones and the tests' own Rummy scores), a night of it is
started and played a few actions from the game's own strategy, then the table, the
players' page, the history and the report are opened as a phone opens them and checked by
axe-core (``test_accessibility.Axe``: no serious or critical violation, no text below
4.5:1, no page wider than the screen, no tap target under 44×44).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from browser.test_accessibility import Axe
from companion import service as services
from companion.extensions import db
from companion.games import GAMES
from companion.games.fold import Void
from companion.db.models import Night
from companion.night.file import Money
from seating import players_for

pytestmark = pytest.mark.browser


def played_night(app: Any, kind: str) -> tuple[str, str]:
    """(keeper key, viewer key) of a night of ``kind`` with six random actions and an undo recorded."""
    game = GAMES[kind]
    players = list(players_for(game))
    with app.app_context():
        night = services.open_night(
            f"Every game: {game.title}"[:40], players, Money(),
            {"kind": kind, "players": None, "first_dealer": players[0], "rules": {}, "carried_in": None},
        )
        rng = random.Random(7)
        for i in range(7):
            night = db.session.get(Night, night.id)
            action = Void() if i == 4 else game.random_action(services.table_for(night), rng)
            if action is None:  # a game over so soon: undo its last action
                action = Void()
            services.record(night.id, action, night.version, services.new_key())
        night = db.session.get(Night, night.id)
        return night.keeper_key, night.viewer_key


def test_every_registered_games_pages_pass_axe_on_a_phone(live_server, new_phone, shots, rummy):
    axe = Axe(shots)
    page = new_phone().new_page()
    kinds = list(GAMES)
    assert "rummy" in kinds and len(kinds) >= 5
    for kind in kinds:
        keeper, viewer = played_night(live_server.app, kind)
        for what, path in (("table", f"/k/{keeper}"), ("players' page", f"/p/{viewer}"),
                           ("history", f"/k/{keeper}/history"), ("report", f"/k/{keeper}/report")):
            response = page.goto(live_server.url + path)
            assert response is not None and response.status == 200, (kind, what)
            axe.check(page, f"{kind}: {what}")
    assert not axe.failures, "\n\n".join(axe.failures)
