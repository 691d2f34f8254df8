"""Issue 3: a whole game played on the scorekeeper's phone (360×740) in Chromium.

Every number checked below was worked out by hand from RULES.md, not read from
the app.  Seats clockwise: Ann, Ben, Cat, Dan, Eve; Ann deals first; ante 1 on
every hand; 3 tokens win.  The button moves one seat left (clockwise) after each
hand, and the dealer speaks last.  Lists are in seat order [Ann, Ben, Cat, Dan, Eve].
"""

from __future__ import annotations

import re

import pytest

from browser.phone import open_audit, start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def test_a_game_played_on_the_scorekeepers_phone(live_server, new_phone, table_screen, shots):
    page = new_phone().new_page()
    start_night(page, live_server.url, NAMES, tokens_to_win=3, shots=shots)
    t = table_screen(page, NAMES)
    t.shot("new night")
    assert "Stage 1" in t.prompt and "who said Yes?" in t.prompt
    assert "takes the ante: 1 from each player" in t.ask
    t.check(pot=0, dealer="Ann", net=[0, 0, 0, 0, 0], tokens=[0, 0, 0, 0, 0])

    # ---- Game 1, hand 1: Ann deals; speaking order Ben, Cat, Dan, Eve, Ann ----
    # Stage 1: Ben and Cat say Yes.  Recording it takes the ante: 5 × 1 = pot 5,
    # everyone -1.
    t.declare("Ben", "Cat")
    assert "Showdown between" in t.prompt
    t.check(pot=5, dealer="Ann", net=[-1, -1, -1, -1, -1], tokens=[0, 0, 0, 0, 0])
    assert "Each losing Yes pays each winner the pot: 5." in t.ask
    # Cards (stage 1, two each, typed): Ben's pair of kings beats Cat's ace-queen
    # (any pair beats any non-pair).  Cat, the loser, pays Ben the pot: 5.
    # Ben -1 + 5 = 4; Cat -1 - 5 = -6.  Sum -5 = minus the pot.
    t.type_cards(Ben="Kh Kd", Cat="As Qd")
    assert "Ben" in t.flash
    t.check(pot=5, dealer="Ann", net=[-1, 4, -6, -1, -1], tokens=[0, 0, 0, 0, 0])
    # Stage 2: nobody says Yes: nothing changes hands.
    assert "Stage 2" in t.prompt
    t.nobody()
    t.check(pot=5, dealer="Ann", net=[-1, 4, -6, -1, -1], tokens=[0, 0, 0, 0, 0])
    # Stage 3: Dan alone says Yes: one token to Dan.  The hand is over; the button
    # moves one seat left, to Ben.
    assert "Stage 3" in t.prompt
    t.declare("Dan")
    t.check(pot=5, dealer="Ben", net=[-1, 4, -6, -1, -1], tokens=[0, 0, 0, 1, 0])

    # ---- Game 1, hand 2: Ben deals; speaking order Cat, Dan, Eve, Ann, Ben ----
    # Stage 1: Ben (the dealer) alone says Yes.  The ante: pot 5 + 5 = 10, everyone
    # one more chip down: [-2, 3, -7, -2, -2].
    assert "takes the ante" in t.ask
    t.declare("Ben")
    assert "Ben (dealer) alone said Yes: who challenges?" in t.prompt
    t.check(pot=10, dealer="Ben", net=[-2, 3, -7, -2, -2], tokens=[0, 0, 0, 1, 0])
    # Nobody challenges: Ben takes a token.
    t.no_challenge()
    t.check(pot=10, dealer="Ben", net=[-2, 3, -7, -2, -2], tokens=[0, 1, 0, 1, 0])
    # Stage 2 (lowest, deuce-to-seven): Ben alone again; Cat and Eve challenge.
    assert "Stage 2" in t.prompt
    t.declare("Ben")
    t.challenge("Cat", "Eve")
    assert "Showdown between" in t.prompt
    for name in ("Ben", "Cat", "Eve"):
        assert name in t.prompt
    t.check(pot=10, dealer="Ben", net=[-2, 3, -7, -2, -2], tokens=[0, 1, 0, 1, 0])
    # Cards (five each, typed): Ben 7-5-4-3-2 (the best low, not one suit) beats
    # Cat's 8-6-4-3-2 and Eve's 9-8-7-6-4.  Cat and Eve each pay Ben the pot, 10:
    # Ben 3 + 20 = 23; Cat -7 - 10 = -17; Eve -2 - 10 = -12.  Sum -10 = minus the pot.
    t.type_cards(Ben="7c 5d 4h 3s 2c", Cat="8h 6d 4c 3d 2h", Eve="9s 8d 7h 6c 4d")
    t.check(pot=10, dealer="Ben", net=[-2, 23, -17, -2, -12], tokens=[0, 1, 0, 1, 0])
    # Stage 3 (seven cards, best high five): Ann, Dan and Eve say Yes.
    assert "Stage 3" in t.prompt
    t.declare("Ann", "Dan", "Eve")
    # One deck per hand: no card may be shown by two players in the same hand, so
    # Eve's seven are her five from stage 2 and two more.  Ann has aces full of
    # kings; Dan a royal flush (typed with "10s"); Eve a nine-high straight.  Dan
    # wins; Ann and Eve each pay him the pot, 10: Ann -2 - 10 = -12;
    # Dan -2 + 20 = 18; Eve -12 - 10 = -22.  Sum -10.  The hand is over: the button
    # moves to Cat.
    t.type_cards(Ann="Ah Ad Ac Kh Kd 2s 3h", Dan="As Ks Qs Js 10s 6h 9c", Eve="9s 8d 7h 6c 4d 5h 2d")
    assert "Dan won; Eve and Ann paid 10 each" in t.flash and "royal flush" in t.flash
    t.check(pot=10, dealer="Cat", net=[-12, 23, -17, 18, -22], tokens=[0, 1, 0, 1, 0])

    # ---- Game 1, hand 3: Cat deals; speaking order Dan, Eve, Ann, Ben, Cat ----
    # Stage 1: Dan, Eve and Ann say Yes.  The ante: pot 15, everyone -1:
    # [-13, 22, -18, 17, -23].
    t.declare("Dan", "Eve", "Ann")
    t.check(pot=15, dealer="Cat", net=[-13, 22, -18, 17, -23], tokens=[0, 1, 0, 1, 0])
    # Dan and Eve tie for best.  The one loser, Ann, pays each winner the pot (15):
    # Ann -13 - 30 = -43; Dan 17 + 15 = 32; Eve -23 + 15 = -8.  Sum -15.
    t.tie("Dan", "Eve")
    t.check(pot=15, dealer="Cat", net=[-43, 22, -18, 32, -8], tokens=[0, 1, 0, 1, 0])
    # Stage 2: Eve alone: a token to Eve.  Stage 3: Ben and Cat say Yes.
    t.declare("Eve")
    t.check(pot=15, dealer="Cat", net=[-43, 22, -18, 32, -8], tokens=[0, 1, 0, 1, 1])
    t.declare("Ben", "Cat")
    assert "Showdown between Ben, Cat" in t.prompt
    # Undo twice: first the stage-3 declaration, then Eve's token.  Back to stage 2's
    # question, with the numbers as they were after the tie.
    t.undo()
    assert "Stage 3" in t.prompt and "who said Yes?" in t.prompt
    t.check(pot=15, dealer="Cat", net=[-43, 22, -18, 32, -8], tokens=[0, 1, 0, 1, 1])
    t.undo()
    assert "Stage 2" in t.prompt and "who said Yes?" in t.prompt
    t.check(pot=15, dealer="Cat", net=[-43, 22, -18, 32, -8], tokens=[0, 1, 0, 1, 0])
    # the undone lines stay in the list, struck through; the undos are listed too
    recent = page.locator(".recent li")
    assert page.locator(".recent li.voided").count() == 2
    assert page.locator(".recent li.undo").count() == 2
    assert page.locator(".recent li.voided").first.evaluate(
        "e => getComputedStyle(e).textDecorationLine"
    ) == "line-through"
    assert recent.count() >= 4
    # Stage 2 again: Ben alone: his second token.
    t.declare("Ben")
    t.check(pot=15, dealer="Cat", net=[-43, 22, -18, 32, -8], tokens=[0, 2, 0, 1, 0])
    # Stage 3: Cat, the dealer, alone; nobody challenges: a token to Cat.  The hand
    # is over: the button moves to Dan.
    t.declare("Cat")
    assert "Cat (dealer) alone said Yes" in t.prompt
    t.no_challenge()
    t.check(pot=15, dealer="Dan", net=[-43, 22, -18, 32, -8], tokens=[0, 2, 1, 1, 0])

    # ---- Game 1, hand 4: Dan deals; speaking order Eve, Ann, Ben, Cat, Dan ----
    # Stage 1: Ben alone.  The ante first: pot 20, everyone -1: [-44, 21, -19, 31, -9].
    # Then Ben's third token reaches the target: he takes the whole pot, 20, at once,
    # and the game is over: Ben 21 + 20 = 41, pot 0.  Sum of nets 0.
    # Game 2 starts with all tokens at 0 and the button one seat left of Dan: Eve.
    t.declare("Ben")
    assert "wins the pot of 20" in t.flash
    t.check(pot=0, dealer="Eve", net=[-44, 41, -19, 31, -9], tokens=[0, 0, 0, 0, 0])
    assert "Game 1: Ben took 20" in page.locator(".games").inner_text()
    assert "Game 2" in page.locator(".status").inner_text()

    # ---- Game 2, hand 1: Eve deals; speaking order Ann, Ben, Cat, Dan, Eve ----
    # Stage 1: Ann and Cat say Yes; the ante: pot 5, [-45, 40, -20, 30, -10].
    assert "takes the ante" in t.ask
    t.declare("Ann", "Cat")
    t.check(pot=5, dealer="Eve", net=[-45, 40, -20, 30, -10], tokens=[0, 0, 0, 0, 0])
    # Cards tapped on the picker: Ann A♠ A♥ (a pair of aces) beats Cat K♠ Q♦.
    # Cat pays Ann the pot, 5: Ann -40, Cat -25.  Sum -5.
    # First, a typed "10c" counts on the picker as T♣, and tapping T♣ takes it back
    # out (it used to add a second ten of clubs).
    t.open_cards()
    ten = page.locator(".picker").get_by_role("button", name="10 of clubs", exact=True)
    t.card_field("Ann").fill("10c")
    assert ten.get_attribute("aria-pressed") == "true"
    ten.click()
    assert t.card_field("Ann").input_value().strip() == ""
    assert ten.get_attribute("aria-pressed") == "false"
    t.pick_cards(Ann=["As", "Ah"], Cat=["Ks", "Qd"])
    t.check(pot=5, dealer="Eve", net=[-40, 40, -25, 30, -10], tokens=[0, 0, 0, 0, 0])
    assert "Stage 2" in t.prompt

    # The report: the same standings, and what happens to the unfinished game's pot
    # of 5 (returned as antes: 1 to each player).  Settled now, the balances are
    # [-40 + 1, 40 + 1, -25 + 1, 30 + 1, -10 + 1] = [-39, 41, -24, 31, -9] (sum 0).
    # Several plans are equally short, so check what the payments add up to: each
    # player pays out or takes in exactly their balance, in at most 4 payments
    # (5 players with non-zero balances and no subgroup that squares on its own).
    page.get_by_role("link", name="Report").click()
    page.wait_for_load_state()
    shots(page, "report")
    open_audit(page)  # "At the table now" and the unfinished pot: one tap away
    rows = {
        r.get_attribute("data-player"): int(r.locator("td.net").inner_text())
        for r in page.locator("table.standings tbody tr").all()
    }
    assert rows == dict(zip(NAMES, [-40, 40, -25, 30, -10]))
    assert "pot of 5 chips" in page.locator("main").inner_text()
    balance = dict.fromkeys(NAMES, 0)
    payments = page.locator("ol.payments > li").all_inner_texts()
    for line in payments:
        found = re.match(r"\s*(\w+) pays (\w+) .*?\((\d+) chips\)", line)
        assert found, f"a payment line reads {line!r}"
        payer, payee, chips = found.group(1), found.group(2), int(found.group(3))
        balance[payer] -= chips
        balance[payee] += chips
    assert balance == dict(zip(NAMES, [-39, 41, -24, 31, -9])), payments
    assert len(payments) <= 4, payments
