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

from browser.phone import HURRIED_TAP_GUARD_MS, Phone, start_night, tap_spot

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
    for _ in range(2):
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
        assert f"recorded by {winner[0].lower() + winner[1:]}" in phone.main(), phone.main()
    # the refused phone's table answered 409, as a refusal does (Chromium logs it): that one, and nothing else
    refused = [p for p in problems.seen if "status of 409" in p]
    assert len(refused) == 1 and "?refused=" in refused[0], problems.seen
    problems.seen[:] = [p for p in problems.seen if p not in refused]
