"""A refused submit and the session cookie (issue 21, items 3 and 4).

A refused submit redirects to its page with ``?refused=<token>`` (issue 14, bug 3).  What
the page needs to show it again used to ride in the session cookie, which is signed but
readable by anyone holding it: it held ``"path": "/k/<scorekeeper key>"`` and what was
typed, and a refused Bonus Round grid made it 8,347 bytes, which browsers drop (the page
then showed no message).  Now the cookie holds a token and the rest is in the database.
These tests refuse every form that can be refused, in every way it can be (garbled,
stale, against the rules, as large as a client can make it), and read the cookie as a
stranger would.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from companion.extensions import db
from companion.db.models import KeptRefusal
from companion.web.plumbing import post_redirect_get
from security.support import NightRef, Site
from security.test_probe_session import cookie_text

#: what the person typed: it must not be readable in the cookie either
MARK = "typed-at-the-table"
#: the largest cookie a browser keeps, name and attributes included (RFC 6265's minimum)
COOKIE_LIMIT = 4096
#: the fields that choose which form is shown; the rest is what a person types
SELECTORS = {"game", "dice", "which", "request_key", "action", "on"}
#: the table's link rotation answers with its own page, never a kept refusal; so does taking back a keeper
#: phone's link, a confirmed step naming the phone by its number (a page shown before another record still
#: names the same phone), whose refusal is its own confirm page with a 4xx; and the table display's link
#: (make or take back: two buttons, nothing typed, refused as the rotation is: a 400 that says why)
NOT_REFUSED_BY_REDIRECT = {"share.rotate", "share.take_back", "share.display_link"}
#: forms that take nothing typed: the rules have nothing of theirs to refuse (garbled and stale ones are tried)
NOTHING_TYPED = {"report.carry", "table.undo", "table.take_back"}


def refusable(site: Site) -> list[str]:
    return [e for e in site.state_changing() if e not in NOT_REFUSED_BY_REDIRECT]


def garbled(data: dict[str, Any]) -> dict[str, Any]:
    """Every typed value long and wrong, and two hundred fields the form does not have."""
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name in SELECTORS or not isinstance(value, (str, list)):
            out[name] = value
        else:
            out[name] = MARK + "\u0663\u00b2" * 3000
    out.update({f"extra_{i}_{MARK}": MARK * 40 for i in range(200)})
    return out


def against_the_rules(endpoint: str, data: dict[str, Any]) -> dict[str, Any]:
    """A well-formed submit the rules refuse, with what was typed kept for the page."""
    wrong = {
        "home.create": {"seat_2": data.get("seat_1", "Ann"), "name": MARK},  # the same name twice
        "home.import_night": {"name": MARK},  # and the file below is not a night
        "setup.edit": {"seat_2": data.get("seat_1", "Ann"), "name": MARK},
        "table.cards": {"cards_0": f"As As {MARK}"},
        "table.showdown": {"winner": MARK},
        "table.declare": {"yes": [MARK]},
        "table.challenge": {"challengers": [MARK]},
        "next_game.start": {"players": ["Ann"], "first_dealer": MARK},
        "report.paid": {"payer": MARK},
        "bank.everyone": {"chips": f"-{MARK}"},
        "bank.player": {"chips": f"1_0{MARK}"},
        "bank.cancel": {"seq": MARK},
        "bonus.roll": {"roller": MARK},
        "bonus.lucky": {"player": MARK},
        "bonus.grid": {"cell_1": "", "anti_cells": MARK},
        "bank.setting": {"on": MARK},
        "groups.keep_night": {"name": "", "link": f"https://example.org/g/{MARK}"},  # no group's link
        "share.make_phone": {"name": "scorekeeper"},  # the history's own word for the first phone (docs/keepers.md)
    }[endpoint]
    if endpoint == "home.import_night":
        import io

        return {**data, **wrong, "file": (io.BytesIO(f'{{"format": "{MARK}"}}'.encode()), "night.json")}
    return {**data, **wrong}


#: a game's name at its longest (40 characters), in a script the old cookie spelled \uXXXX
LONG_GAME = (MARK + " \u91d1\u66dc\u65e5" * 10)[:40]


def largest_grid(data: dict[str, Any]) -> dict[str, Any]:
    """The Bonus Round's 6×6 grid with every field at its longest, refused for its anti-bonus cells."""
    cells = {f"cell_{r}-{c}": LONG_GAME for r in range(1, 7) for c in range(1, 7)}
    return {**{k: v for k, v in data.items() if not k.startswith("cell_")}, "dice": "2d6", **cells,
            "quick": "", "bonus_cells": ("1-1 " * 50)[:200], "bonus_chips": "1",
            "anti_cells": ("9-9 " * 50)[:200], "anti_chips": "1", "lucky_chips": "1"}


def stale(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "version": str(int(data["version"]) + 7)} if "version" in data else {**data, "extra": MARK}


def send(site: Site, client, endpoint: str, night: NightRef, data: dict[str, Any]):
    if endpoint == "bonus.grid" and "dice" in data:
        return client.post(site.url(endpoint, night.keeper) + f"?dice={data['dice']}", data=data)
    return site.send(client, "POST", endpoint, night.keeper, data)


def check_the_cookie(client, night: NightRef, response, what: str) -> None:
    assert 400 <= response.status_code < 500, (what, response.status_code)
    assert response.history and response.history[0].status_code == 303, what
    cookie = client.get_cookie("session")
    assert cookie is not None, what
    seen = cookie_text(client)
    assert night.keeper not in seen and night.viewer not in seen, (what, seen[:200])
    assert "/k/" not in seen and "/p/" not in seen, (what, seen[:200])
    assert MARK not in seen and "\u0663" not in seen, (what, seen[:200])
    # Set-Cookie: session=<value>; …: the whole of it must fit a browser's 4 KB
    header = next(h for h in response.history[0].headers.getlist("Set-Cookie") if h.startswith("session="))
    assert len(header.encode()) < COOKIE_LIMIT, (what, len(header))


@pytest.mark.parametrize("kind", ["garbled", "against the rules", "stale"])
def test_no_refusal_of_any_form_puts_a_link_or_what_was_typed_in_the_cookie(app, site: Site, kind):
    tried = []
    for endpoint in refusable(site):
        if kind == "against the rules" and endpoint in NOTHING_TYPED:
            continue
        night = site.seat(endpoint)
        data = site.submit(endpoint, night)
        data = {"garbled": garbled, "stale": stale}.get(kind, lambda d: against_the_rules(endpoint, d))(data)
        client = app.test_client()
        client.get(f"/k/{night.keeper}")  # the scorekeeper's phone: its cookie lists the night
        response = send(site, client, endpoint, night, data)
        if kind == "stale" and "version" not in site.submit(endpoint, night) and endpoint != "setup.edit":
            continue  # a form without a table version cannot be stale
        check_the_cookie(client, night, response, f"{endpoint} {kind}")
        tried.append(endpoint)
    assert len(tried) >= 13, tried  # every form that can be refused this way


def test_the_largest_refused_bonus_grid_keeps_a_small_cookie_and_its_page_shows_why(app, site: Site):
    night = site.seat("bonus.grid")
    client = app.test_client()
    client.get(f"/k/{night.keeper}")
    response = send(site, client, "bonus.grid", night, largest_grid(site.submit("bonus.grid", night)))
    check_the_cookie(client, night, response, "the 6×6 grid")
    page = response.get_data(as_text=True)
    assert "Not saved" in page or "Not recorded" in page
    # the grid as typed is shown again: every one of the 36 cells
    assert page.count(LONG_GAME) >= 36


def test_a_refusal_is_shown_only_to_the_browser_it_was_made_for_and_only_at_its_page(app, site: Site):
    night = site.seat("table.cards")
    phone = app.test_client()
    data = against_the_rules("table.cards", site.submit("table.cards", night))
    response = site.send(phone, "POST", "table.cards", night.keeper, data)
    assert response.status_code == 422 and MARK in response.get_data(as_text=True)
    address = response.history[0].headers["Location"]
    other = app.test_client()  # another browser with the same address: the plain page
    shown = other.get(address)
    assert shown.status_code == 200 and MARK not in shown.get_data(as_text=True)
    token = re.search(r"refused=([\w-]+)", address).group(1)  # type: ignore[union-attr]
    elsewhere = phone.get(f"/k/{night.keeper}/history?refused={token}")
    assert elsewhere.status_code == 200 and MARK not in elsewhere.get_data(as_text=True)


def test_the_kept_refusals_are_bounded_in_age_and_number(app, site: Site, monkeypatch):
    monkeypatch.setattr(post_redirect_get, "MAX_KEPT", 5)
    night = site.seat("table.cards")
    phone = app.test_client()
    for _ in range(12):
        data = against_the_rules("table.cards", site.submit("table.cards", night))
        assert site.send(phone, "POST", "table.cards", night.keeper, data).status_code == 422
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(KeptRefusal)) <= 5
        db.session.execute(db.update(KeptRefusal).values(created_at=KeptRefusal.created_at - timedelta(hours=2)))
        db.session.commit()
    # an hour later the page is the plain one, and the next refusal deletes the old rows
    data = against_the_rules("table.cards", site.submit("table.cards", night))
    response = site.send(phone, "POST", "table.cards", night.keeper, data)
    assert response.status_code == 422
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(KeptRefusal)) == 1


def kept_by(app, client: str | None = None) -> int:  # type: ignore[no-untyped-def]
    """How many refusals are kept, in all or for one client address."""
    with app.app_context():
        query = select(func.count()).select_from(KeptRefusal)
        if client is not None:
            query = query.where(KeptRefusal.client == client)
        return db.session.scalar(query) or 0


def flood(app, address: str, times: int) -> None:  # type: ignore[no-untyped-def]
    """``times`` refused submits from ``address``, each from a browser without a cookie (a script's)."""
    for _ in range(times):
        response = app.test_client().post("/groups", data={"name": ""}, environ_base={"REMOTE_ADDR": address})
        assert response.status_code == 422


def test_a_flood_of_refusals_from_one_address_keeps_another_phones_refusal_and_what_was_typed(app, site: Site, monkeypatch):
    """Issue 36, item 4: 1,100 refused submits from one address pushed out a scorekeeper's kept refusal.

    With room for 5 in all and 3 per address: the scorekeeper's one refusal, then 40 from a stranger,
    who keeps only their newest 3; then 30 more from each of three more addresses, whose overflow is
    taken from whoever holds the most, never from the scorekeeper's one.
    """
    monkeypatch.setattr(post_redirect_get, "MAX_KEPT", 5)
    monkeypatch.setattr(post_redirect_get, "MAX_PER_CLIENT", 3, raising=False)
    night = site.seat("table.cards")
    phone = app.test_client()
    scorekeeper = {"REMOTE_ADDR": "192.168.1.31"}
    data = against_the_rules("table.cards", site.submit("table.cards", night))
    refused = site.send(phone, "POST", "table.cards", night.keeper, data, environ_base=scorekeeper)
    assert refused.status_code == 422 and MARK in refused.get_data(as_text=True)
    address = refused.history[0].headers["Location"]

    def the_scorekeeper_still_sees_the_refusal() -> None:
        shown = phone.get(address, environ_base=scorekeeper)  # the scorekeeper's phone reloads its page
        page = shown.get_data(as_text=True)
        assert shown.status_code == 422
        assert 'value="As As typed-at-the-table"' in page  # what was typed, with the reason it was refused
        assert "Ben&#39;s cards: &#39;ty&#39; is not a card" in page

    flood(app, "203.0.113.66", 40)
    the_scorekeeper_still_sees_the_refusal()
    assert (kept_by(app), kept_by(app, "192.168.1.31"), kept_by(app, "203.0.113.66")) == (4, 1, 3)
    for stranger in ("203.0.113.67", "203.0.113.68", "198.51.100.9"):
        flood(app, stranger, 30)
    the_scorekeeper_still_sees_the_refusal()
    assert kept_by(app) == 5 and kept_by(app, "192.168.1.31") == 1


def test_a_browser_keeps_only_its_newest_refusal(app, site: Site):
    night = site.seat("table.cards")
    phone = app.test_client()
    for _ in range(4):
        data = against_the_rules("table.cards", site.submit("table.cards", night))
        assert site.send(phone, "POST", "table.cards", night.keeper, data).status_code == 422
    assert kept_by(app) == 1
