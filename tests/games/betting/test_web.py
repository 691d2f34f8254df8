"""Poker with real betting at the table, through the test client."""

from __future__ import annotations

import re
from html import unescape

from companion.extensions import db
from companion.db.models import Event, Night

SEATED = ("Ann", "Ben", "Cat", "Dan")


def stamp_of(html: str) -> dict[str, str]:
    version = re.search(r'name="version"[^>]*value="(\d+)"', html)
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', html)
    assert version and key
    return {"version": version.group(1), "request_key": key.group(1)}


def start_betting(start_night, client, variant="Texas hold'em"):  # type: ignore[no-untyped-def]
    page = start_night()
    html = client.get(f"{page.url}/next-game?game=betting").get_data(as_text=True)
    form = {"game": "betting", "players": list(SEATED), "first_dealer": "Ann", "variant": variant}
    response = client.post(f"{page.url}/next-game", data={**stamp_of(html), **form})
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    page.refresh()
    return page


def flash(page) -> str:  # type: ignore[no-untyped-def]
    return unescape(" ".join(re.findall(r'<p class="flash" role="status">(.*?)</p>', page.html, re.S)))


def kinds(app, page) -> list[str]:  # type: ignore[no-untyped-def]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == page.key))
        return [e.kind for e in db.session.scalars(db.select(Event).where(Event.night_id == night.id).order_by(Event.seq))]


def test_a_deal_is_recorded_and_the_deal_passes_left(start_night, client, app):
    page = start_betting(start_night, client)
    assert "Deal played: next deal" in page.html
    assert "The chips on the table settle each pot: the app records the deals, not the chips." in page.html
    # issue 20 item 1: the table says how the night settles in the Bank page's words
    assert "This night settles on chip counts (the bank): Poker with real betting is played tonight" in unescape(page.html)
    r = page.post("deal", {})
    assert r.status_code == 303, r.get_data(as_text=True)[:2000]
    assert "Ann dealt; the deal passes to Ben" in unescape(page.html)
    assert kinds(app, page)[-1] == "deal"


def test_undo(start_night, client, app):
    page = start_betting(start_night, client)
    assert page.post("deal", {}).status_code == 303
    assert page.undo().status_code == 303
    assert kinds(app, page)[-1] == "void"


def test_a_doubled_tap_records_once(start_night, client, app):
    page = start_betting(start_night, client)
    stamp = page.stamp("deal")
    assert page.post("deal", {}, stamp=stamp).status_code == 303
    assert page.post("deal", {}, stamp=stamp).status_code == 303
    assert "Already recorded" in flash(page)
    assert kinds(app, page).count("deal") == 1


def test_refusals(start_night, client):
    page = start_betting(start_night, client)
    assert client.post(f"{page.url}/nosuch", data=page.stamp("deal")).status_code == 404
    assert client.post(f"{page.url}/deal", data={}).status_code in (400, 409, 422)
    html = client.get(f"{page.url}/next-game?game=betting").get_data(as_text=True)
    form = {"game": "betting", "players": list(SEATED), "first_dealer": "Ann", "variant": "x" * 41}
    assert client.post(f"{page.url}/next-game", data={**stamp_of(html), **form}).status_code == 422
