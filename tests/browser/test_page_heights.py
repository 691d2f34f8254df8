"""Pages that fit a phone (issue 35), measured at 360×740 and their folds tapped as a person would.

A group of two nights (tests/service/group_support.py's N1 and N2, played on chip counts), made
through the service: Ann, Ben, Dan in N1, Cat added, N2 kept; Ben given a PayPal.Me name and his own
link.  Before this change, measured the same way: the organiser's page was 7,112 px tall (nearly ten
screens), the members' page had its tab 1,758 px down, and the home page's *Make a group* button
stood 2,006 px down.  The bounds below are layout, with a margin: the organiser's page folded fits in
two screens, the members' tab heading and the home page's *Make a group* in the first.

N1 (0.25 € a chip): Ann 58, Ben 50, Dan 42 of 50 bought: Ann +8, Dan −8 chips (+2.00 €, −2.00 €).
N2 (0.10 € a chip): Ann 50, Ben 80, Cat 40, Dan 30: Ben +30, Cat −10, Dan −20 (+3.00, −1.00, −2.00 €).
The season's table, all time: Ann +2.00 €, Ben +3.00 €, Dan −4.00 €, Cat −1.00 € (worked by hand).
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest

from browser.phone import Phone, opens
from browser.test_accessibility import Axe

pytestmark = pytest.mark.browser

SCREEN = 740
MINUS = "\u2212"


@pytest.fixture
def group_of_two(live_server: Any) -> dict[str, str]:
    """The group "Fridays" of N1 and N2: its organiser's, members' and Ben's own link."""
    from companion import service
    from companion.db.models import Group
    from companion.extensions import db
    from service.group_support import EUR10, EUR25, played_night

    with live_server.app.app_context():
        n1 = played_night("N1", {"Ann": 58, "Ben": 50, "Dan": 42}, EUR25, datetime.date(2025, 1, 10))
        n2 = played_night("N2", {"Ann": 50, "Ben": 80, "Cat": 40, "Dan": 30}, EUR10, datetime.date(2025, 2, 14))
        group = service.open_group("Fridays", from_night=n1)
        service.add_member(group.id, "Cat", 4, None)
        service.keep_night(group.id, n2.id, 5, None)
        service.set_handle(group.id, "Ben", "paypal", {"username": "benpays"}, 6, None)
        service.make_member_link(group.id, "Ben", 7, None)
        group = db.session.get(Group, group.id)
        own = service.member_links(group)["Ben"]
        return {"organiser": f"{live_server.url}/g/{group.organiser_key}",
                "members": f"{live_server.url}/m/{group.member_key}", "own": f"{live_server.url}/y/{own}"}


def height(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollHeight"))


def is_open(page: Any, heading_id: str) -> bool:
    """Whether the fold whose heading is ``#heading_id`` is open."""
    return bool(page.locator(f"#{heading_id}").evaluate("h => h.closest('details').open"))


def on_screen(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= SCREEN


def test_the_organisers_page_folds_to_a_screen_and_each_section_opens_where_it_is_reached(
    live_server, new_phone, group_of_two, shots, problems
):
    axe = Axe(shots)
    page = new_phone().new_page()
    phone = Phone(page, shots)
    page.goto(group_of_two["organiser"])
    shots(page, "organiser's page, folded")
    assert height(page) <= 2 * SCREEN, height(page)  # was 7,112 px
    parts = page.locator("details.part > summary")
    assert parts.all_inner_texts() == ["Season: all time", "Running totals", "The tab: who owes whom now", "Rivalries",
                                       "Nights", "Members", "The members' link"]
    for summary in parts.all():
        box = summary.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 300, box  # a thumb's tap, the phone's width
    assert not page.locator("table.season-table").is_visible() and not page.locator("#add-name").is_visible()
    axe.check(page, "organiser's page, folded")

    # the section bar opens the section it leads to: Tab, then Members (the Tab stays as it was)
    bar = page.locator("nav.sections")
    bar.get_by_role("link", name="Tab").tap()
    page.wait_for_url(group_of_two["organiser"] + "#tab-h")
    assert opens(page, "tab-h")
    assert " ".join(page.locator('li.payment[data-payer="Dan"][data-payee="Ben"] .what').inner_text().split()) == \
        "Dan pays Ben 3.00 EUR"  # N2: Ben +3.00 €, Dan owes 4.00 €
    bar.get_by_role("link", name="Members").tap()
    page.wait_for_url(group_of_two["organiser"] + "#members-h")
    assert opens(page, "members-h") and on_screen(page, page.locator("#members-h"))
    shots(page, "organiser's page, members opened by the bar")
    # the bar's link tapped again after the section was closed by its heading: it opens again (no hashchange)
    page.locator("#members-h").tap()
    assert not is_open(page, "members-h")
    bar.get_by_role("link", name="Members").tap()
    page.wait_for_function("() => document.getElementById('members-h').closest('details').open")

    # a member's form is one more fold: Add a member, opened by its heading, a save returns to it opened
    assert not page.locator("#add-name").is_visible()
    page.locator("#add-h").tap()
    assert opens(page, "add-h")
    page.locator("#add-name").fill("Eve")
    phone.tap(page.get_by_role("button", name="Add", exact=True), "eve added")
    assert page.url.endswith("#add-h")
    assert opens(page, "members-h") and is_open(page, "add-h") and page.locator("#add-name").is_visible()
    assert "Eve" in page.locator("ul.member-list").inner_text()
    axe.check(page, "organiser's page, a member added, the form open for the next")

    # the season, by its heading: the table, and a member's card from their name (the cards fold opens)
    page.goto(group_of_two["organiser"])
    page.locator("#season-h").tap()
    rows = page.locator("table.season-table tbody tr")
    season = {r.get_attribute("data-member"): " ".join(r.locator("[data-net]").inner_text().split()) for r in rows.all()}
    assert season == {"Ann": "+2.00 EUR", "Ben": "+3.00 EUR", "Dan": f"{MINUS}4.00 EUR", "Cat": f"{MINUS}1.00 EUR",
                      "Eve": "0 chips"}, season  # Eve, just added, has played no night
    assert not page.locator("article.member-card").first.is_visible()
    rows.filter(has=page.locator("th", has_text="Ben")).get_by_role("link", name="Ben").tap()
    card = page.locator('article.member-card[data-member="Ben"]')
    card.wait_for(state="visible")
    assert on_screen(page, card.locator("h3"))
    # the period's Show comes back to the season, opened
    page.locator("#period").select_option("2025")
    phone.tap(page.get_by_role("button", name="Show", exact=True), "season 2025")
    assert page.url.endswith("#season-h") and opens(page, "season-h")
    assert page.locator("#season-h").inner_text().startswith("Season: 2025")
    axe.check(page, "organiser's page, the season of 2025")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert not axe.failures, "\n".join(axe.failures)


def test_the_tab_comes_first_on_the_members_pages_and_make_a_group_on_the_first_screen(
    live_server, new_phone, group_of_two, shots, problems
):
    axe = Axe(shots)
    page = new_phone().new_page()
    phone = Phone(page, shots)
    for name in ("members", "own"):
        page.goto(group_of_two[name])
        assert on_screen(page, page.locator("#tab-h")), name  # was 1,758 px down
        assert page.locator("nav.sections").get_by_role("link").all_inner_texts() == ["Tab", "Season", "Nights"]
        # Ben is owed 3.00 € by Dan (N2): on his own page, "I got it" beside it, on the first screens
        if name == "own":
            got = page.get_by_role("button", name="I got it (Ben)")
            assert got.count() == 1 and got.bounding_box()["y"] < 2 * SCREEN  # type: ignore[index]
        axe.check(page, f"{name} page, the tab first")

    page.goto(live_server.url + "/")
    jump = page.get_by_role("link", name="Make a group", exact=True)
    assert on_screen(page, jump), jump.bounding_box()  # the button was 2,006 px down
    jump.tap()
    page.wait_for_url(re.compile(r"#group-h$"))
    field = page.get_by_label("Name of the group")
    assert on_screen(page, field) and on_screen(page, page.get_by_role("button", name="Make a group", exact=True))
    field.fill("Tuesday club")
    phone.tap(page.get_by_role("button", name="Make a group", exact=True), "group made")
    assert page.locator("h1").inner_text().strip() == "Tuesday club"
    axe.check(page, "home, after the jump")
    assert not axe.failures, "\n".join(axe.failures)
