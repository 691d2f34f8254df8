"""The table works with JavaScript turned off: plain forms, real CSRF tokens.

Seats Ann, Ben, Cat; Ann deals; ante 1 on every hand; 5 tokens win.  Expected
numbers are worked out by hand from RULES.md; lists are in seat order [Ann, Ben, Cat].
"""

from __future__ import annotations

import re

import pytest

from browser.phone import start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]


def test_the_table_works_without_javascript(live_server, new_phone, table_screen, shots):
    page = new_phone(javascript=False).new_page()
    start_night(page, live_server.url, NAMES, tokens_to_win=5)
    t = table_screen(page, NAMES)
    t.shot("no javascript")
    t.check(pot=0, dealer="Ann", net=[0, 0, 0], tokens=[0, 0, 0])

    # Hand 1, Ann deals; speaking order Ben, Cat, Ann.
    # Stage 1: Ben alone says Yes.  The ante: pot 3, everyone -1; a token to Ben.
    t.declare("Ben")
    t.check(pot=3, dealer="Ann", net=[-1, -1, -1], tokens=[0, 1, 0])

    # Stage 2: Cat and Ann say Yes.  The cards, typed (the picker needs JavaScript and
    # stays hidden): Cat's 7-5-4-3-2 is the best low and beats Ann's 8-6-4-3-2.
    # Ann pays Cat the pot, 3: Ann -4, Cat 2.  Sum -3.
    t.declare("Cat", "Ann")
    t.open_cards()
    assert page.locator(".picker").is_hidden()
    t.type_cards(Cat="7c 5d 4h 3s 2c", Ann="8h 6d 4c 3d 2h")
    t.check(pot=3, dealer="Ann", net=[-4, -1, 2], tokens=[0, 1, 0])

    # Undo it, and record the result with the one-tap winner button instead:
    # Ann won, so Cat pays Ann 3: Ann -1 + 3 = 2, Cat -1 - 3 = -4.
    t.undo()
    t.check(pot=3, dealer="Ann", net=[-1, -1, -1], tokens=[0, 1, 0])
    t.winner("Ann")
    t.check(pot=3, dealer="Ann", net=[2, -1, -4], tokens=[0, 1, 0])
    assert "Stage 3" in t.prompt

    # CSRF protection is on: a post that carries a fresh version and key but no
    # CSRF token is refused, and records nothing.
    version = page.locator('form[action$="/declare"] input[name="version"]').get_attribute("value")
    response = page.request.post(
        page.url + "/declare", form={"nobody": "1", "version": version, "request_key": "k" * 24}
    )
    assert response.status == 400
    assert re.search(r"expired|not sent by this app", response.text())
    page.reload()
    t.check(pot=3, dealer="Ann", net=[2, -1, -4], tokens=[0, 1, 0])
    assert "Stage 3" in t.prompt
