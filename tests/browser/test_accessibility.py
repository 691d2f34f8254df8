"""Issue 7: every screen passes axe-core with no serious or critical violation, and no text below 4.5:1.

axe-core is the ``axe.min.js`` bundled in the ``axe-playwright-python`` package (the
``test`` extra): nothing is fetched from the network.  The test puts it into each page
through the DevTools protocol (``page.evaluate``), which the app's Content-Security-Policy
does not govern, so the CSP stays exactly as strict as in production; ``axe.run`` then
checks the page as Chromium renders it: 360×740, dark theme, JavaScript on.

Two checks per screen:

* no violation of impact "serious" or "critical", of any rule axe runs by default
  (WCAG 2.0/2.1/2.2 A and AA, and best practices);
* no text below 4.5:1, large text included.  axe's ``color-contrast`` (AA) fails normal
  text below 4.5:1 but large text only below 3:1; the AAA rule ``color-contrast-enhanced``
  flags what lies between AA's floor and 7:1 (4.5:1 for large text), so it is run as well
  and each node it flags with a measured ratio below 4.5 fails (AAA's 7:1 is not asked for).

The screens are reached as a person reaches them, on one night of three players, two
tokens to win, played with real taps; the closed parts of a screen (a tie, the cards,
"Why?", the chip count) are opened first, since axe checks only what is shown.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from browser.phone import start_night

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cat"]
CONTRAST = "color-contrast"
ENHANCED = "color-contrast-enhanced"  # AAA; only the ratios it measures are used (see above)
MINIMUM_RATIO = 4.5


def axe_source() -> str:
    try:
        import axe_playwright_python
    except ImportError:  # pragma: no cover - depends on the machine
        pytest.fail("the axe-playwright-python package is not installed: pip install -e '.[test]'", pytrace=False)
    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


RUN_AXE = """async () => {
  const results = await axe.run(document, {
    rules: {"%s": {enabled: true}, "%s": {enabled: true}},
    resultTypes: ["violations", "incomplete"],
  });
  const node = (n) => ({
    target: n.target.map(String),
    html: n.html.slice(0, 160),
    summary: n.failureSummary || "",
    ratio: ((n.any || []).concat(n.all || []).find((c) => c.data && c.data.contrastRatio) || {data: {}}).data.contrastRatio,
  });
  const rule = (r) => ({id: r.id, impact: r.impact, help: r.help, nodes: r.nodes.map(node)});
  return {
    version: axe.version,
    violations: results.violations.map(rule),
    incomplete: results.incomplete.map(rule),
    ran: results.passes.concat(results.violations, results.incomplete).map((r) => r.id),
  };
}""" % (CONTRAST, ENHANCED)


#: what a finger taps, measured as Chromium lays it out; what is not shown has no box
SMALL_TARGETS = """() => Array.from(document.querySelectorAll(
    'a[href], button, summary, select, input:not([type=hidden]), label.toggle'))
  .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .map((e) => ({e, r: e.getBoundingClientRect()}))
  .filter(({r}) => r.width < 43.5 || r.height < 43.5)
  .map(({e, r}) => Math.round(r.width) + "x" + Math.round(r.height) + ": " + e.outerHTML.slice(0, 100))"""


class Axe:
    """Runs axe-core on a page and keeps what each screen failed."""

    def __init__(self, shots: Any) -> None:
        self.source = axe_source()
        self.shots = shots
        self.checked: list[str] = []
        self.failures: list[str] = []
        self.unsure: dict[tuple[str, str], str] = {}  # (rule, element) -> the first screen and why

    def check(self, page: Any, screen: str) -> None:
        page.wait_for_load_state("load")
        if not page.evaluate("() => typeof window.axe === 'object'"):
            page.evaluate(self.source)
        results = page.evaluate(RUN_AXE)
        self.shots(page, screen)
        self.checked.append(screen)
        assert CONTRAST in results["ran"] and ENHANCED in results["ran"], (
            f"{screen}: the contrast rules did not run (axe {results['version']} ran {sorted(results['ran'])})"
        )
        found = []
        for rule in results["violations"]:
            if rule["id"] == ENHANCED:
                nodes = [n for n in rule["nodes"] if n["ratio"] is None or n["ratio"] < MINIMUM_RATIO]
                if nodes:
                    found.append(self.describe(rule, nodes, f"text below {MINIMUM_RATIO}:1"))
            elif rule["impact"] in ("serious", "critical"):
                found.append(self.describe(rule, rule["nodes"]))
        # one-handed on a 360-px phone: the page itself never scrolls sideways (a wide table
        # scrolls inside its own region, which keyboard users can reach)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if overflow > 0:
            found.append(f"  the page is {overflow}px wider than the {page.viewport_size['width']}px screen")
        # issue 14, item 9: every link or button a finger taps is at least 44×44 CSS px
        for small in page.evaluate(SMALL_TARGETS):
            found.append(f"  a tap target of {small}")
        if found:
            self.failures.append(f"{screen} ({page.url}):\n" + "\n".join(found))
        # what axe could not decide (text over an image, a lone symbol, ...): printed, for a look
        for rule in results["incomplete"]:
            if rule["id"] == ENHANCED or rule["impact"] not in ("serious", "critical"):
                continue
            for n in rule["nodes"]:
                why = " ".join(n["summary"].split()).removeprefix("Fix any of the following: ")
                self.unsure.setdefault((rule["id"], n["html"]), f"{screen}: {n['html']}: {why}")

    @staticmethod
    def describe(rule: dict[str, Any], nodes: list[dict[str, Any]], what: str = "") -> str:
        lines = [f"  {rule['id']} ({rule['impact']}{', ' + what if what else ''}): {rule['help']}"]
        for n in nodes:
            ratio = f" [ratio {n['ratio']}]" if n["ratio"] is not None else ""
            lines.append(f"    {' '.join(n['target'])}{ratio}: {n['html']}")
            summary = " ".join(n["summary"].split())
            if summary:
                lines.append(f"      {summary[:300]}")
        return "\n".join(lines)


def expect_status(page: Any, status: int, url: str, do: Any) -> None:
    """Run ``do`` (a navigation or a submit) and check that the page answered ``status``."""
    with page.expect_navigation(wait_until="load") as navigation:
        do()
    response = navigation.value
    assert response is not None and response.status == status, (
        f"expected {status} from {url}, got {response.status if response else '?'}: {page.locator('main').inner_text()[:300]}"
    )


def forgive_error_status(problems: Any, status: int) -> None:
    """Chromium logs an error answer (4xx) as a console error; the ones this test asked for are no fault."""
    problems.seen[:] = [
        p for p in problems.seen if not re.search(rf"Failed to load resource: .*status of {status}\b", p)
    ]


def open_every_details(page: Any) -> None:
    """Open every closed part of the page ("Why?", the chip count form), as a person could."""
    page.evaluate("() => document.querySelectorAll('details:not([open])').forEach((d) => { d.open = true; })")


def tick(page: Any, name_attr: str, value: str) -> None:
    box = page.locator(f'input[name="{name_attr}"][value="{value}"]')
    page.locator("label.toggle", has=box).click()
    assert box.is_checked()


def test_every_screen_passes_axe(live_server, new_phone, table_screen, shots, problems):
    axe = Axe(shots)
    phone = new_phone()
    page = phone.new_page()
    base = live_server.url

    # --- the home page, empty, then its two forms' errors ---
    page.goto(base + "/")
    axe.check(page, "home")
    form = page.locator("form.night")
    form.get_by_label("Seat 1", exact=True).fill("Ann")
    form.get_by_label("Value of one chip").fill("a lot")
    expect_status(page, 422, "/nights", lambda: form.get_by_role("button", name="Start the night").click())
    assert page.locator("form.night .errors").count() >= 1
    axe.check(page, "home, new night form errors")
    forgive_error_status(problems, 422)
    page.get_by_label("Night file (.json)").set_input_files(
        {"name": "night.json", "mimeType": "application/json", "buffer": b'{"format": "napalm-hand-history/1"}'}
    )
    expect_status(page, 422, "/import", lambda: page.get_by_role("button", name="Import the night").click())
    assert page.locator('form[action$="/import"] .errors').count() >= 1
    axe.check(page, "home, import form errors")
    forgive_error_status(problems, 422)

    # --- the table, before anything is recorded, and its setup page ---
    start_night(page, base, NAMES, tokens_to_win=2)
    keeper_key, viewer_key = live_server.night_keys()
    table = page.url
    t = table_screen(page, NAMES)
    tick(page, "yes", "Ben")  # a ticked toggle looks different: check it too, and the dealer's
    tick(page, "yes", "Ann")
    axe.check(page, "table, who said yes")
    page.goto(table + "/setup")
    axe.check(page, "setup")
    page.goto(table)

    # --- stage 1: Ann, the dealer, alone: the challenge; Ben challenges: the showdown ---
    t.declare("Ann")
    assert "alone said Yes" in t.prompt
    tick(page, "challengers", "Cat")
    axe.check(page, "table, dealer alone, who challenges")
    page.locator('input[name="challengers"][value="Cat"]').uncheck()
    t.challenge("Ben")
    assert "Showdown between" in t.prompt
    axe.check(page, "table, showdown, winner taps")
    # of two, a tie is both: one button, no toggles to tick some (a ticked toggle is checked above, "who said yes")
    assert page.locator("fieldset.tie").count() == 0
    assert page.get_by_role("button", name="Both tied: nothing changes hands").count() == 1
    t.open_cards()
    t.card_field("Ann").click()
    page.locator(".picker").get_by_role("button", name="Ace of spades", exact=True).click()  # pressed: a spade and a heart
    page.locator(".picker").get_by_role("button", name="Ace of hearts", exact=True).click()
    axe.check(page, "table, card entry, picker")
    # cards that cannot be ranked: the form comes back with its errors
    t.card_field("Ann").fill("As As")
    t.card_field("Ben").fill("Kh")
    expect_status(page, 422, "/cards", lambda: page.get_by_role("button", name="Rank the cards").click())
    assert page.locator("details.cards .errors").count() >= 1
    axe.check(page, "table, card entry errors")
    forgive_error_status(problems, 422)

    # --- Ann wins the showdown; Ben alone twice: his second token ends game 1 ---
    page.goto(table)
    t.winner("Ann")
    t.declare("Ben")
    t.declare("Ben")
    assert "wins the pot" in t.flash
    axe.check(page, "table, game over")

    # --- another phone records: this one says so; then a stale submit (409) ---
    other = phone.new_page()
    other.goto(table)
    t.nobody()
    other.locator("p.watch").wait_for(state="visible")
    axe.check(other, "table, changed on another phone")
    expect_status(other, 409, "/declare", lambda: other.get_by_role("button", name="Nobody said Yes").click())
    axe.check(other, "table, stale submit (409)")
    forgive_error_status(problems, 409)
    other.close()
    page.goto(table)
    t.undo()
    assert page.locator(".recent li.voided").count() == 1
    axe.check(page, "table, after an undo")

    # --- the scorekeeper's other pages ---
    page.goto(table + "/share")
    axe.check(page, "share, QR code")

    # --- the players' pages ---
    page.goto(f"{base}/p/{viewer_key}")
    axe.check(page, "players' page")
    page.get_by_label("This is me").select_option("Cat")
    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Save").click()
    assert page.locator("section.mine").count() == 1
    axe.check(page, "players' page, this is me")
    page.goto(f"{base}/p/{viewer_key}/report")
    open_every_details(page)
    axe.check(page, "report, players'")

    # --- the report ---
    page.goto(f"{base}/k/{keeper_key}/report")
    open_every_details(page)
    axe.check(page, "report, fewest payments")
    page.goto(f"{base}/k/{keeper_key}/report?view=pairwise")
    open_every_details(page)
    axe.check(page, "report, pair by pair")
    page.goto(f"{base}/k/{keeper_key}/report")
    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Mark paid").first.click()
    axe.check(page, "report, confirm a payment")
    with page.expect_navigation(wait_until="load"):
        page.locator("form.confirm button[type=submit]").click()
    assert page.locator(".payment.paid").count() == 1
    axe.check(page, "report, a payment marked paid")
    page.goto(f"{base}/k/{keeper_key}/report?view=pairwise")
    assert "not in this list" in page.locator(".pay .flash.warn").inner_text()
    axe.check(page, "report, pair by pair, a payment marked in the other view")
    # the chips are counted on the Bank page now (issue 20 item 13): tests/browser/test_bank.py checks it with axe

    # --- the history, with an undone line and a payment ---
    page.goto(table + "/history")
    assert page.locator("table.history tr.voided").count() == 1
    axe.check(page, "history")

    # --- a night whose unfinished pot is carried into the next night ---
    page.goto(base + "/")
    form = page.locator("form.night")
    form.get_by_label("Name of the night").fill("Carry")
    for seat, player in enumerate(NAMES, start=1):
        form.get_by_label(f"Seat {seat}", exact=True).fill(player)
    form.get_by_label("Pot of an unfinished game at the end of the night").select_option("carry")
    with page.expect_navigation(wait_until="load"):
        form.get_by_role("button", name="Start the night").click()
    carried_from = page.url
    table_screen(page, NAMES).declare("Ben")  # the ante: a pot of 3 for the next night
    page.goto(carried_from + "/report")
    open_every_details(page)
    axe.check(page, "report, a pot to carry to the next night")
    with page.expect_navigation(wait_until="load"):
        page.get_by_role("button", name="Start the next night with this pot").click()
    assert "3 carried in from" in page.locator(".status .carried").inner_text()
    axe.check(page, "table, a pot carried in")
    continued = page.url
    page.goto(continued + "/report")
    open_every_details(page)
    axe.check(page, "report, a pot carried in")
    with live_server.app.app_context():
        from companion.extensions import db
        from companion.db.models import Night

        new_viewer = db.session.query(Night).filter_by(name="Carry (continued)").one().viewer_key
    page.goto(f"{base}/p/{new_viewer}")
    assert "3 carried in from" in page.locator(".status .carried").inner_text()
    axe.check(page, "players' page, a pot carried in")
    page.goto(carried_from + "/report")
    axe.check(page, "report, the pot carried into the next night")
    page.goto(carried_from)
    axe.check(page, "table, closed: its pot went on to the next night")

    # --- past nights, one player's history, home with a night ---
    page.goto(base + "/nights")
    axe.check(page, "past nights")
    page.goto(base + "/players/Ann")
    axe.check(page, "a player's history")
    page.goto(base + "/")
    axe.check(page, "home, with a night")

    # --- an error page ---
    expect_status(page, 404, "/no-such-page", lambda: page.goto(base + "/no-such-page"))
    axe.check(page, "error page (404)")
    forgive_error_status(problems, 404)

    if axe.unsure:
        print("\naxe could not decide these (check them by eye):\n" + "\n".join(axe.unsure.values()))
    assert not axe.failures, (
        f"accessibility failures on {len(axe.failures)} of {len(axe.checked)} screens:\n\n" + "\n\n".join(axe.failures)
    )
