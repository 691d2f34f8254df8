"""The group pages' other controls on a 360×740 phone, each tapped as a person would.

test_group.py taps keeping a night in a new group, New night, Mark paid, Settle everything, I got it
and setting pay handles; this test taps the rest: "Make a group" and "Import the group" on the home
page (and a refused import), keeping a night in an existing group by its pasted organiser link (the
names no member goes by asked about: a new member, or a member they already are), Add, Rename and
Merge a member, Remove a way to pay, the period filter, the rivalries, taking a night out of the group
and putting it back (asked first), and replacing both links.
Axe, the 360-px width and the 44-px tap targets are checked on every new screen.

Worked by hand (RULES-POKER.md, "Fixed-stake pots": each deal everyone antes 1 and the winner takes
the pot of 4; a chip is 0.25 €):

**Night 1** (dated 13 June 2025), seats Ann, Ben, Cat, Dan, Ann deals first: Cat, Cat, Dan win.
Ann −3, Ben −3, Cat −3 + 8 = +5, Dan −3 + 4 = +1 chips: −0.75, −0.75, +1.25, +0.25 €.
Kept in "Tuesday club", made empty on the home page, Ann added by hand: Ben, Cat and Dan are asked
about, each a new member.

**Night 2** (dated 20 March 2026), seats Anne, Ben, Cat, Dave, Anne deals first: Anne, Anne win.
Anne +6, the others −2 each: +1.50 € and −0.50 €.  Kept by the pasted link: "Anne" is Ann (the
member offered), "Dave" a new member; Dave is then merged into Dan, and Cat renamed Kat.

**The season**, all time: Ann 2 nights, −0.75 + 1.50 = +0.75 €, −3 + 6 = +3 chips; Ben −0.75 − 0.50 =
−1.25 €, −5; Kat +1.25 − 0.50 = +0.75 €, +3; Dan (with Dave's night) +0.25 − 0.50 = −0.25 €, −1.
Year 2025: night 1 alone.  March 2026: night 2 alone.  From 2025-06-14 to 2026-03-20: night 2 alone
(night 1, the 13th, is the day before).  From 2025-06-13 to 2026-03-19: night 1 alone.

**Rivalry Ann against Ben**: in night 1 neither paid the other (each paid only the pots' winners,
Cat and Dan); in night 2 Ben's ante went to Ann's pot twice: Ben paid Ann 1 chip each deal, 2 chips
(0.50 €).  So Ann's side: +0.50 € (+2 chips), one night listed.

**The tab** (nothing paid): Ann +0.75, Ben −1.25, Kat +0.75, Dan −0.25: Kat is owed, so a payment
to her is in the plan and her PayPal.Me shows a Pay link beside it until the handle is removed.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

import pytest

from browser.phone import Phone, guarded_double_tap, open_fold, opens
from browser.test_accessibility import Axe
from browser.test_group import MINUS, flash, play_high_card, season_of

pytestmark = pytest.mark.browser


def refused(page: Any, control: Any, problems: Any) -> int:
    """Tap ``control``, a form the app refuses, and wait for the page it leads to; the status that page
    answered (the browser's console error for that one 4xx page is expected, not a fault)."""
    control.scroll_into_view_if_needed()
    with page.expect_navigation(wait_until="load") as navigation:
        control.tap()
    response = navigation.value
    assert response is not None and 400 <= response.status < 500, response and response.status
    problems.seen[:] = [p for p in problems.seen if not (response.url in p and f"status of {response.status}" in p)]
    return response.status


def app_records(app: Any) -> list[str]:
    """The kinds of every group record stored, in order."""
    from companion.db.models import GroupRecord
    from companion.extensions import db

    with app.app_context():
        return [r.kind for r in db.session.query(GroupRecord).order_by(GroupRecord.id)]


def start_night(phone: Phone, url: str, names: list[str], title: str) -> str:
    """A High Card night on the home page, ante 1, a chip 0.25 €, seat 1 deals first; its keeper URL."""
    page = phone.page
    page.goto(url + "/")
    page.get_by_label("First game").select_option(label="Fixed-stake pots")
    phone.tap(page.get_by_role("button", name="Show its rules"), f"home, {title}'s rules")
    form = page.locator("form.night")
    form.get_by_label("Which pot game").select_option(label="High Card")
    form.get_by_label("Name of the night").fill(title)
    for seat, player in enumerate(names, start=1):
        form.get_by_label(f"Seat {seat}", exact=True).fill(player)
    form.get_by_label("Ante (chips from each player every deal)").fill("1")
    form.get_by_label("Value of one chip").fill("0.25")
    phone.tap(form.get_by_role("button", name="Start the night"), f"{title} started")
    assert phone.prompt() == f"Deal 1: {names[0]} deals. Who won the pot?"
    return page.url


def date_night(app: Any, keeper_url: str, day: datetime.date) -> None:
    """Date the night ``day``: the service dates a night by the day it was started (created_at), and
    the test cannot wait a year between two nights, so it is set by a direct SQL UPDATE (as
    tests/service/group_support.py does), before the night is kept in a group or any group page shows it."""
    from sqlalchemy import update

    from companion.db.models import Night
    from companion.extensions import db

    key = keeper_url.rstrip("/").rsplit("/", 1)[1]
    with app.app_context():
        db.session.execute(update(Night).where(Night.keeper_key == key)
                           .values(created_at=datetime.datetime.combine(day, datetime.time(20))))
        db.session.commit()


def keep_by_link(phone: Phone, organiser_url: str, axe: Axe, screen: str, problems: Any) -> None:
    """From the night's report: Keep this night in a group, the organiser link pasted, Keep it in that group."""
    page = phone.page
    phone.link("Report")
    phone.tap(page.get_by_role("link", name="Keep this night in a group"), f"{screen}: keep in a group")
    page.get_by_label("Organiser link of the group").fill(organiser_url)
    # the page asks about the names no member goes by: a refusal (422) that shows the question
    assert refused(page, page.get_by_role("button", name="Keep it in that group"), problems) == 422
    assert "Some players are not members of the group yet" in flash(page) + " ".join(page.locator(".errors").all_inner_texts())
    axe.check(page, f"{screen}: who are these players")


def asked(page: Any) -> dict[str, list[str]]:
    """Each name asked about and the choices its list offers."""
    return {
        re.split(r"\s+is\s", label.inner_text(), maxsplit=1)[0].strip(): [o.strip() for o in label.locator("option").all_inner_texts()]
        for label in page.locator("form.ask fieldset label").all()
    }


def test_the_group_pages_other_controls(live_server, new_phone, shots, problems, tmp_path, monkeypatch):
    axe = Axe(shots)
    app = live_server.app
    page = new_phone().new_page()
    phone = Phone(page, shots)

    # --- "Make a group" on the home page: an empty group, its organiser's page -------------------------
    page.goto(live_server.url + "/")
    page.get_by_label("Name of the group").fill("Tuesday club")
    phone.tap(page.get_by_role("button", name="Make a group", exact=True), "home, group made")
    organiser_url = page.url
    assert re.search(r"/g/[A-Za-z0-9_-]{16,}$", organiser_url), organiser_url
    assert page.locator("h1").inner_text().strip() == "Tuesday club"
    assert season_of(page) == {}
    axe.check(page, "organiser's page, a new empty group")

    # --- Add a member -----------------------------------------------------------------------------------
    open_fold(page, "members-h", "add-h")  # the page folds each section: a tap on its heading opens it
    added = page.locator("form", has=page.locator("#add-name"))
    added.get_by_label("New member's name").fill("Ann")
    phone.tap(added.get_by_role("button", name="Add"), "ann added")
    assert page.locator("ul.member-list li[data-member]").evaluate_all("ls => ls.map(l => l.dataset.member)") == ["Ann"]
    axe.check(page, "organiser's page, ann a member")

    # --- night 1, kept by the pasted link: Ben, Cat and Dan asked about, each a new member -----------
    night_1 = start_night(phone, live_server.url, ["Ann", "Ben", "Cat", "Dan"], "June Tuesday")
    date_night(app, night_1, datetime.date(2025, 6, 13))
    play_high_card(phone, ["Cat", "Cat", "Dan"])
    assert phone.nets() == {"Ann": -3, "Ben": -3, "Cat": 5, "Dan": 1}
    keep_by_link(phone, organiser_url, axe, "night 1", problems)
    choices = asked(page)
    assert list(choices) == ["Ben", "Cat", "Dan"], choices
    assert choices["Ben"] == ["a new member", "Ann"], choices
    for i in (1, 2, 3):
        assert page.locator(f"#as-{i} option:checked").inner_text().strip() == "a new member"
    phone.tap(page.get_by_role("button", name="Keep the night in the group"), "night 1 kept, three new members")
    assert page.url == organiser_url
    assert "This night is kept in the group \u201cTuesday club\u201d." in flash(page)
    assert season_of(page) == {  # night 1: −0.75, −0.75, +1.25, +0.25 €
        "Ann": (1, f"{MINUS}0.75 €", "-3"), "Ben": (1, f"{MINUS}0.75 €", "-3"),
        "Cat": (1, "+1.25 €", "+5"), "Dan": (1, "+0.25 €", "+1"),
    }, season_of(page)

    # --- night 2: "Anne" is the member Ann, "Dave" a new member ----------------------------------------
    night_2 = start_night(phone, live_server.url, ["Anne", "Ben", "Cat", "Dave"], "March Tuesday")
    date_night(app, night_2, datetime.date(2026, 3, 20))
    play_high_card(phone, ["Anne", "Anne"])
    assert phone.nets() == {"Anne": 6, "Ben": -2, "Cat": -2, "Dave": -2}
    keep_by_link(phone, organiser_url, axe, "night 2", problems)
    choices = asked(page)
    assert list(choices) == ["Anne", "Dave"], choices
    assert choices["Anne"] == ["a new member", "Ann", "Ben", "Cat", "Dan"], choices
    page.locator("#as-1").select_option(label="Ann")
    phone.tap(page.get_by_role("button", name="Keep the night in the group"), "night 2 kept, anne is ann")
    members = page.locator("ul.member-list li[data-member]")
    assert sorted(members.evaluate_all("ls => ls.map(l => l.dataset.member)")) == ["Ann", "Ben", "Cat", "Dan", "Dave"]
    season = season_of(page)
    assert season["Ann"] == (2, "+0.75 €", "+3"), season  # −0.75 + 1.50; −3 + 6
    assert season["Dave"] == (1, f"{MINUS}0.50 €", "-2"), season
    assert season["Dan"] == (1, "+0.25 €", "+1"), season
    axe.check(page, "organiser's page, two nights, anne kept as ann")

    # --- Merge two names: Dave is Dan ---------------------------------------------------------------------
    open_fold(page, "members-h", "merge-h")
    merge = page.locator("form", has=page.locator("#merge-merged"))
    merge.locator("#merge-merged").select_option("Dave")
    merge.locator("#merge-kept").select_option("Dan")
    phone.tap(merge.get_by_role("button", name="Merge"), "dave merged into dan")
    season = season_of(page)
    assert "Dave" not in season and season["Dan"] == (2, f"{MINUS}0.25 €", "-1"), season  # +0.25 − 0.50; +1 − 2
    assert page.locator('table.season-table tbody tr[data-member="Dan"]').count() == 1

    # --- Rename a member: Cat is Kat ------------------------------------------------------------------------
    open_fold(page, "members-h", "rename-h")
    rename = page.locator("form", has=page.locator("#rename-member"))
    rename.locator("#rename-member").select_option("Cat")
    rename.get_by_label("New name").fill("Kat")
    phone.tap(rename.get_by_role("button", name="Rename"), "cat renamed kat")
    assert season_of(page) == {
        "Ann": (2, "+0.75 €", "+3"), "Ben": (2, f"{MINUS}1.25 €", "-5"),
        "Kat": (2, "+0.75 €", "+3"), "Dan": (2, f"{MINUS}0.25 €", "-1"),
    }, season_of(page)
    axe.check(page, "organiser's page, merged and renamed")

    # --- Remove a way to pay: Kat's PayPal.Me set, its Pay link shown, then removed ------------------------
    open_fold(page, "members-h", "handle-h")
    handle = page.locator("form", has=page.locator("#handle-kind"))
    handle.get_by_label("Member").select_option("Kat")
    handle.get_by_label("How they are paid").select_option(label="PayPal.Me")
    handle.get_by_label("Username, link or IBAN").fill("KatPays")
    phone.tap(handle.get_by_role("button", name="Save"), "kat's paypal.me saved")
    to_kat = page.locator('li.payment[data-payee="Kat"] a.pay-link[data-pay="paypal"]')
    assert to_kat.count() >= 1 and to_kat.first.get_attribute("href").startswith("https://paypal.me/KatPays/")
    open_fold(page, "members-h", "unhandle-h")
    remove = page.locator("form", has=page.locator("#unhandle-kind"))
    axe.check(page, "organiser's page, a way to pay to remove")
    remove.locator("#unhandle-member").select_option("Kat")
    remove.locator("#unhandle-kind").select_option(label="PayPal.Me")
    phone.tap(remove.get_by_role("button", name="Remove"), "kat's paypal.me removed")
    assert page.locator('li.payment[data-payee="Kat"]').count() >= 1  # still owed
    assert page.locator("a.pay-link").count() == 0
    assert page.locator("#unhandle-kind").count() == 0  # no handle left to remove

    # --- the period filter -------------------------------------------------------------------------------
    def show(period: str, what: str, **days: str) -> None:
        open_fold(page, "season-h")
        page.locator("#period").select_option(period)
        for which, day in days.items():
            page.locator(f"#period-{which}").fill(day)
        phone.tap(page.locator("form.period").get_by_role("button", name="Show"), what)

    night_1_only = {"Ann": (1, f"{MINUS}0.75 €", "-3"), "Ben": (1, f"{MINUS}0.75 €", "-3"),
                    "Kat": (1, "+1.25 €", "+5"), "Dan": (1, "+0.25 €", "+1")}
    night_2_only = {"Ann": (1, "+1.50 €", "+6"), "Ben": (1, f"{MINUS}0.50 €", "-2"),
                    "Kat": (1, f"{MINUS}0.50 €", "-2"), "Dan": (1, f"{MINUS}0.50 €", "-2")}

    def played(season: dict[str, tuple[int, str, str]]) -> dict[str, tuple[int, str, str]]:
        return {name: row for name, row in season.items() if row[0]}

    offered = page.locator("#period option").evaluate_all("os => os.map(o => o.value)")
    assert {"all", "2025", "2025-06", "2026", "2026-03", "range"} <= set(offered), offered
    show("2025", "season 2025")
    assert played(season_of(page)) == night_1_only, season_of(page)
    axe.check(page, "organiser's page, the year 2025")
    show("2026-03", "season march 2026")
    assert played(season_of(page)) == night_2_only, season_of(page)
    show("range", "season 14 june 2025 to 20 march 2026", **{"from": "2025-06-14", "to": "2026-03-20"})
    assert played(season_of(page)) == night_2_only, season_of(page)
    axe.check(page, "organiser's page, a range")
    show("range", "season 13 june 2025 to 19 march 2026", **{"from": "2025-06-13", "to": "2026-03-19"})
    assert played(season_of(page)) == night_1_only, season_of(page)
    show("all", "season all time")
    assert season_of(page)["Ann"] == (2, "+0.75 €", "+3")

    # --- Rivalries: Ann against Ben --------------------------------------------------------------------
    open_fold(page, "rivalry-h")
    page.locator("#rival-first").select_option("Ann")
    page.locator("#rival-second").select_option("Ben")
    phone.tap(page.get_by_role("button", name="Show what passed between them"), "ann against ben")
    rivalry = page.locator("section.rivalry")
    assert rivalry.locator("h3").inner_text().strip() == "Ann against Ben"
    assert " ".join(rivalry.locator(".rivalry-total").inner_text().split()) == "Ann's side: +0.50 € (+2 chips)"
    assert rivalry.locator("ol.rivalry-nights > li").count() == 1  # night 2 only: nothing passed in night 1
    assert "March Tuesday" in rivalry.locator("ol.rivalry-nights > li").inner_text()
    flows = rivalry.locator("ol.rivalry-nights > li ul li").all_inner_texts()
    paid = sum(int(m[1]) for f in flows for m in [re.match(r"Ben paid Ann (\d+) chips?", f)] if m)
    assert paid == 2 and all(f.startswith("Ben paid Ann") for f in flows), flows
    axe.check(page, "organiser's page, ann against ben")

    # --- the section bar at the foot of the screen: each section one tap away -------------------------
    page.goto(organiser_url)
    bar = page.locator("nav.sections")
    assert bar.is_visible() and bar.get_by_role("link").all_inner_texts() == [
        "Season", "Tab", "Nights", "Members", "Links"]
    bar.get_by_role("link", name="Members").tap()
    page.wait_for_url(organiser_url + "#members-h")
    heading = page.locator("#members-h").evaluate("h => h.getBoundingClientRect().top")
    assert 0 <= heading < 740 / 2, heading  # the section is on the screen, near its top
    axe.check(page, "organiser's page, the members' section by the bar")

    # --- the group's New night: another first game picked in its list shows that game's rules in place ---
    page.goto(organiser_url)
    phone.tap(page.get_by_role("link", name="New night", exact=True), "new night from the group")
    first = page.locator("#first-game")
    assert first.locator("option:checked").inner_text().strip() == "Fixed-stake pots"  # the last night's
    first.select_option(label="Napalm")
    page.locator('.rules-of[data-rules-of="napalm"]').wait_for()  # swapped in place: nothing started
    assert page.locator('input[name="rules_of"]').input_value() == "napalm"
    axe.check(page, "group's new night, napalm picked")

    # --- Take a night out (asked first; its Yes tapped twice in a hurry: once), then put it back ----------
    page.goto(organiser_url)
    open_fold(page, "nights-h")
    out = page.get_by_role("button", name="Take June Tuesday out of the group")
    asked_out = phone.ask(out, "take june tuesday out? asked")
    assert asked_out.startswith("Confirm: take June Tuesday (2025-06-13) out of the group?"), asked_out
    axe.check(page, "take a night out, asked first")
    guarded_double_tap(page, app, page.get_by_role("button", name="Yes, take June Tuesday out"))
    page.wait_for_url(organiser_url + "#nights-h")  # back at its own section of the long page
    assert played(season_of(page)) == night_2_only, season_of(page)  # night 1 no longer counts
    assert page.locator("ul.left-out li").all_inner_texts()[0].startswith("June Tuesday")
    assert len([r for r in app_records(app) if r == "night_left_out"]) == 1  # two taps, one record
    axe.check(page, "organiser's page, a night taken out")
    phone.ask(page.get_by_role("button", name="Put June Tuesday back"), "put june tuesday back? asked")
    phone.tap(page.get_by_role("button", name="Yes, put June Tuesday back"), "june tuesday put back")
    assert season_of(page)["Ann"] == (2, "+0.75 €", "+3") and page.locator("ul.left-out").count() == 0

    # --- Export group file, then Import the group on the home page -----------------------------------------
    page.goto(organiser_url)
    original = season_of(page)
    open_fold(page, "links-h")
    export = page.get_by_role("link", name="Export group file")
    export.scroll_into_view_if_needed()
    with page.expect_download() as download:
        export.tap()
    group_file = tmp_path / "group.json"
    download.value.save_as(group_file)
    assert json.loads(group_file.read_text("utf-8"))["format"] == "companion-group/1"
    page.goto(live_server.url + "/")
    page.locator("#group-file").set_input_files(str(group_file))
    phone.tap(page.get_by_role("button", name="Import the group"), "group imported")
    imported_url = page.url
    assert re.search(r"/g/[A-Za-z0-9_-]{16,}$", imported_url) and imported_url != organiser_url, imported_url
    assert season_of(page) == original, season_of(page)
    axe.check(page, "organiser's page, the imported group")

    # a file that is not a group file: the message, a 4xx, no group made
    not_a_group = tmp_path / "notes.json"
    not_a_group.write_text('{"shopping": ["bread", "milk"]}', "utf-8")
    page.goto(live_server.url + "/")
    page.locator("#group-file").set_input_files(str(not_a_group))
    assert refused(page, page.get_by_role("button", name="Import the group"), problems) == 422
    refusal = " ".join(page.locator("form", has=page.locator("#group-file")).inner_text().split())
    assert 'this is not a group file: a group file says "format": "companion-group/1"' in refusal, refusal
    axe.check(page, "home, a refused group file")

    # --- Replace the members' link (a double tap replaces once), then the organiser's -------------------
    page.goto(organiser_url)
    page.locator("nav.sections").get_by_role("link", name="Links").tap()  # the section bar opens the links' section
    page.wait_for_url(organiser_url + "#links-h")
    # the section opens as the address takes its #links-h (static/app.js): read the link once it shows
    opens(page, "links-h")
    old_members = page.locator("section.group-links p.link a").inner_text().strip()
    assert page.request.get(old_members).status == 200
    import companion.service as service_module

    replaced: list[str] = []
    rotate = service_module.rotate_group_link

    def counted(group: Any, which: str) -> None:
        replaced.append(which)
        rotate(group, which)

    monkeypatch.setattr(service_module, "rotate_group_link", counted)
    # the members' link is the list's first choice, so it is chosen again on the reload the double tap makes
    assert page.locator("#rotate-which option:checked").get_attribute("value") == "members"
    guarded_double_tap(page, app, page.get_by_role("button", name="Make a new link"))
    page.wait_for_url(organiser_url)
    assert replaced == ["members"], replaced  # two taps, one new link
    open_fold(page, "links-h")
    new_members = page.locator("section.group-links p.link a").inner_text().strip()
    assert new_members != old_members
    said = flash(page)
    assert "A new members' link is ready" in said or "Already done" in said, said
    assert page.request.get(old_members).status == 404
    assert page.request.get(new_members).status == 200  # one replacement: the link the page shows opens
    axe.check(page, "organiser's page, a new members' link")

    page.locator("#rotate-which").select_option("organiser")
    phone.tap(page.get_by_role("button", name="Make a new link"), "a new organiser link")
    new_organiser = page.url
    open_fold(page, "links-h")
    assert new_organiser != organiser_url and re.search(r"/g/[A-Za-z0-9_-]{16,}$", new_organiser)
    assert "A new organiser link is ready" in flash(page)
    assert page.request.get(organiser_url).status == 404
    assert page.request.get(new_organiser).status == 200
    assert page.locator("section.group-links p.link a").inner_text().strip() == new_members  # the members' kept
    axe.check(page, "organiser's page, a new organiser link")
    assert not axe.failures, "\n".join(axe.failures)
