"""Issue 39, part 2: a second keeper phone at 360×740, made on the share page, and both phones tapping the same
stage at once, double taps included: one record, the other phone told in words what the first recorded.

Two browser contexts are two phones (their own cookies).  The first phone makes Ben's phone a keeper link on
its share page (the name typed, *Make a keeper link*, the QR code's link opened on the second phone); both
phones show the first stage; each thumb double-taps *Nobody said Yes* at the same moment.  By hand: four
players' antes of 1 make a pot of 4 and nobody says Yes, so the stage is one record; whichever phone lost is
refused (409) over the table as it is now, and told "<winner> recorded first: Ante 1 each, pot 4. Nobody said
Yes."; the history then says "recorded by <winner>".
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from browser.phone import HURRIED_TAP_GUARD_MS, Phone, double_tap, start_night, tap_spot

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat", "Dan"]


def events(live_server) -> list[tuple[int, str, str]]:  # type: ignore[no-untyped-def]
    """(seq, kind, recorded_by) of every event the database holds."""
    from companion.db.models import Event
    from companion.extensions import db

    with live_server.app.app_context():
        return [tuple(row) for row in db.session.execute(select(Event.seq, Event.kind, Event.recorded_by).order_by(Event.seq))]


def test_two_keeper_phones_tap_the_same_stage_at_once_and_one_is_told_what_the_other_recorded(
    live_server, new_phone, shots, problems
):
    first_page = new_phone().new_page()
    start_night(first_page, live_server.url, NAMES, tokens_to_win=5, shots=shots)
    first = Phone(first_page, shots)
    table_url = first_page.url

    # the share page: Ben's phone is given a keeper link of its own, its QR code shown open
    first.link("Players' link · phones")
    first_page.get_by_label("Give another phone a keeper link: its name").fill("Ben's phone")
    first.button("Make a keeper link", "Ben's phone's keeper link")
    shown = first_page.locator("details.phone-link[open]")
    assert shown.locator("img.qr").is_visible()
    ben_url = shown.locator("p.link a").get_attribute("href")
    assert ben_url and ben_url.split("/k/")[1] != table_url.split("/k/")[1]
    assert "Ben's phone" in first.main() and "The first phone (this phone)" in first.main()

    second_page = new_phone().new_page()
    second = Phone(second_page, shots)
    # the tap guard on, as served to people (the tests' robots tap faster): a thumb's second tap that lands on
    # the next screen records nothing there (docs/table-choices.md); both screens read before the taps
    live_server.app.config["TAP_GUARD_MS"] = HURRIED_TAP_GUARD_MS
    second_page.goto(ben_url)
    first_page.goto(table_url)
    first_page.wait_for_timeout(HURRIED_TAP_GUARD_MS + 100)
    assert table_url.split("/k/")[1] not in second_page.content()  # Ben's phone never sees the first link

    # both thumbs double-tap "Nobody said Yes" at the same moment
    buttons = [page.get_by_role("button", name="Nobody said Yes") for page in (first_page, second_page)]
    spots = []
    for button in buttons:
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        assert box is not None
        spots.append((box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))
    # the first taps land together on two settled screens: touchscreen.tap sends each at once (tap_spot's extra
    # round trips let the first phone's record reach Ben's screen by push first, moving its button down); the
    # second taps land as the screens change, where only tap_spot is bounded (phone.py)
    for page, (x, y) in zip((first_page, second_page), spots):
        page.touchscreen.tap(x, y)
    first_page.wait_for_timeout(150)
    for page, (x, y) in zip((first_page, second_page), spots):
        tap_spot(page, x, y)
    first_page.wait_for_timeout(150)
    for page in (first_page, second_page):
        page.wait_for_timeout(600)
        page.wait_for_load_state("load")
    live_server.app.config["TAP_GUARD_MS"] = 0
    first_page.wait_for_timeout(HURRIED_TAP_GUARD_MS + 100)  # the screens shown now were served with the guard on
    shots(first_page, "the first phone after the double taps")
    shots(second_page, "Ben's phone after the double taps")

    recorded = events(live_server)
    assert [kind for _, kind, _ in recorded] == ["declare"], recorded  # one record, whoever won
    winner = {"scorekeeper": "The first phone", "Ben's phone": "Ben's phone"}[recorded[0][2]]
    loser_page = second_page if winner == "The first phone" else first_page
    warned = " ".join(loser_page.locator(".flash.warn").all_inner_texts())
    # by hand: antes 1 × 4 players = pot 4, nobody said Yes; told over the table as it is now
    assert f"{winner} recorded first: Ante 1 each, pot 4. Nobody said Yes." in warned, warned
    assert "Nothing from this screen was recorded" in warned
    assert loser_page.get_by_role("button", name="Nobody said Yes").is_visible()  # the next stage's screen

    # the history says which phone recorded it, on both phones
    for phone in (first, second):
        phone.link("History")
        said = {"The first phone": "the first phone", "Ben's phone": "Ben's phone"}[winner]  # a name keeps its capital
        assert f"recorded by {said}" in phone.main(), phone.main()
    # the refused phone's table answered 409, as a refusal does (Chromium logs it): that one, and nothing else
    refused = [p for p in problems.seen if "status of 409" in p]
    assert len(refused) == 1 and "?refused=" in refused[0], problems.seen
    problems.seen[:] = [p for p in problems.seen if p not in refused]
def keeper_link(phone: Phone, name: str) -> str:
    """On the share page: a keeper link made for ``name`` (typed, *Make a keeper link*), the link its QR code opens."""
    phone.page.get_by_label("Give another phone a keeper link: its name").fill(name)
    phone.button("Make a keeper link", f"{name}'s keeper link")
    url = phone.page.locator("details.phone-link[open] p.link a").get_attribute("href")
    assert url and "/k/" in url
    return url


def test_a_lost_phones_link_is_taken_back_then_the_first_phone_hands_over_and_leaves_and_nothing_is_lost(
    live_server, new_phone, shots
):
    """The first phone gives Ben's and Cat's phones keeper links; Cat's phone is lost, so the first phone takes its
    link back (asked once more in words, the confirm double-tapped); then it hands the table over to Ben's phone and
    leaves.  Each link taken back opens nothing (404); Ben's phone keeps score, and the stage it records is the
    night's one record, recorded by Ben's phone."""
    first_page = new_phone().new_page()
    start_night(first_page, live_server.url, NAMES, tokens_to_win=5, shots=shots)
    first = Phone(first_page, shots)
    table_url = first_page.url
    first.link("Players' link · phones")
    ben_url = keeper_link(first, "Ben's phone")
    cat_url = keeper_link(first, "Cat's phone")
    assert first_page.request.get(cat_url).status == 200

    # Cat's phone is lost: its row's *Take back its link*, the question in words, the answer tapped twice
    cat_row = first_page.locator("li", has=first_page.get_by_text("Cat's phone", exact=True))
    question = first.ask(cat_row.get_by_role("button", name="Take back its link"), "take back Cat's phone's link")
    assert question.startswith("Confirm: take back Cat's phone's link? It opens nothing from then on;"), question
    double_tap(first_page, first_page.get_by_role("button", name="Yes, take back Cat's phone's link"), 120)
    assert "Cat's phone's link is taken back: it opens nothing now." in first.main(), first.main()
    assert "Cat's phone" not in first_page.locator("ul.phones").inner_text()
    assert first_page.request.get(cat_url).status == 404

    # the first phone hands the table over to Ben's phone and leaves, for the home page
    mine = first_page.locator("#phone-first")
    question = first.ask(mine.get_by_role("button", name="Hand over and leave"), "hand over and leave")
    assert "Ben's phone keeps score" in question, question
    first.button("Yes, hand over and leave", "the home page after leaving")
    assert "This phone handed the table over: its link opens nothing now." in first.main()
    assert first_page.request.get(table_url).status == 404

    # Ben's phone keeps score: the only phone left, offered no way to leave, and its tap is the night's record
    ben = Phone(new_phone().new_page(), shots)
    ben.page.goto(ben_url)
    ben.button("Nobody said Yes", "Ben's phone records a stage")
    ben.link("Players' link · phones")
    assert ben.page.get_by_role("button", name="Hand over and leave").count() == 0
    assert ben.page.get_by_role("button", name="Take back its link").count() == 0
    assert [(kind, by) for _, kind, by in events(live_server)] == [("declare", "Ben's phone")]
