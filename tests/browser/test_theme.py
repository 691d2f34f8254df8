"""A theme that follows the phone (issue 35, "Also"): dark at a dim table, light when the phone asks.

static/app.css sets every colour as a variable of :root, dark first; ``@media (prefers-color-scheme:
light)`` sets them again.  Two phones at 360×740, one set to dark (the tests' default), one to light,
tap the same things: a night set up and started on the home page, a deal won on the table screen
(the flash and the standings), the report with a Pay offer (a Revolut link and its amount to type, a
SEPA transfer's QR code), and the printout.  Axe checks every screen of each (text contrast at least
4.5:1, no sideways scroll at 360 px, 44-px targets).

Worked by hand: High Card, ante 1, 0.25 € a chip, seats Ann, Ben, Cat: deal 1 (Ann deals), pot 3, Ben
wins: Ann −1, Ben +2, Cat −1; the report's payments are Ann pays Ben and Cat pays Ben, 1 chip = 0.25 € each.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser.phone import Phone
from browser.test_accessibility import Axe
from browser.test_group_controls import start_night

pytestmark = pytest.mark.browser

#: static/app.css's grounds and text, as the browser computes them
DARK = {"background": "rgb(17, 20, 24)", "text": "rgb(238, 241, 245)", "panel": "rgb(27, 32, 39)"}
LIGHT = {"background": "rgb(244, 245, 247)", "text": "rgb(20, 24, 29)", "panel": "rgb(255, 255, 255)"}


def colours(page: Any) -> dict[str, str]:
    return page.evaluate("""() => {
        const body = getComputedStyle(document.body), ask = document.querySelector('.ask, .report .payment');
        return {background: body.backgroundColor, text: body.color,
                panel: ask ? getComputedStyle(ask).backgroundColor : null};
    }""")


def theme_colour(page: Any) -> str:
    """The browser bar's colour the page asks for: the theme-color whose media matches."""
    return page.evaluate("""() => [...document.querySelectorAll('meta[name=theme-color]')]
        .filter(m => !m.media || matchMedia(m.media).matches).map(m => m.content)[0]""")


@pytest.mark.parametrize(("scheme", "expected", "bar"), [("dark", DARK, "#111418"), ("light", LIGHT, "#f4f5f7")])
def test_the_theme_follows_the_phone(live_server, new_phone, shots, problems, scheme, expected, bar):
    app = live_server.app
    page = new_phone(color_scheme=scheme).new_page()
    phone, axe = Phone(page, shots), Axe(shots)

    keeper = start_night(phone, live_server.url, ["Ann", "Ben", "Cat"], f"{scheme} night")
    assert page.evaluate("() => matchMedia('(prefers-color-scheme: light)').matches") is (scheme == "light")
    assert colours(page) == expected
    assert theme_colour(page) == bar
    axe.check(page, f"{scheme}: the table")
    phone.tap(page.get_by_role("button", name="Ben won", exact=True), f"{scheme}: ben won")
    assert "The pot, 3: Ben takes it." in " ".join(page.locator(".flash").all_inner_texts())
    assert phone.nets() == {"Ann": -1, "Ben": 2, "Cat": -1}
    axe.check(page, f"{scheme}: the table after a deal, its flash")

    # the night kept in a group, Ben paid by Revolut and by IBAN: the report's Pay offer in this theme
    from companion import service
    from companion.db.models import Night
    from companion.extensions import db

    key = keeper.split("?")[0].rstrip("/").rsplit("/", 1)[1]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == key))
        group = service.open_group(f"{scheme} Thursdays", from_night=night)
        group_id, version = group.id, group.version
        service.set_handle(group_id, "Ben", "revolut", {"username": "ben.b"}, version, None)
        iban = {"iban": "DE89 3704 0044 0532 0130 00", "holder": "Ben Bell", "bic": ""}
        service.set_handle(group_id, "Ben", "iban", iban, version + 1, None)
    phone.link("Report")
    offer = page.locator('li.payment[data-payer="Ann"][data-payee="Ben"]')
    assert offer.locator('a.pay-link[data-pay="revolut"]').get_attribute("href") == "https://revolut.me/ben.b"
    assert " ".join(offer.locator(".pay-to-type").inner_text().split()) == "amount to type: 0.25 €"
    assert colours(page)["background"] == expected["background"]
    # the QR code keeps its white ground in both themes (a camera reads dark modules on light)
    assert offer.locator(".pay-qr svg").evaluate("s => getComputedStyle(s).backgroundColor") == "rgb(255, 255, 255)"
    axe.check(page, f"{scheme}: the report with a pay offer")

    # printed: black on white whatever the phone's theme, the links gone, the transfer's details kept
    page.emulate_media(media="print")
    printed = colours(page)
    assert (printed["background"], printed["text"]) == ("rgb(255, 255, 255)", "rgb(0, 0, 0)"), printed
    assert not page.locator("a.pay-link").first.is_visible()
    assert page.locator(".pay-details").first.is_visible()
    shots(page, f"{scheme}: the report, printed")
    page.emulate_media(media="screen")
    assert not axe.failures, "\n\n".join(axe.failures)
