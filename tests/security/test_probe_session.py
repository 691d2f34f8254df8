"""The session cookie (issue 15, item 5): it is signed, not encrypted, so nothing in it may
grant scorekeeping; the home page still lists the nights this browser keeps score of."""

from __future__ import annotations

import base64
import json
import zlib

from security.support import Site


def cookie_text(client) -> str:
    """What anyone holding the cookie reads in it: its payload, decoded without the secret key."""
    cookie = client.get_cookie("session")
    assert cookie is not None
    payload = cookie.value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    if cookie.value.startswith("."):
        raw = zlib.decompress(raw)
    return raw.decode()


def test_the_session_cookie_holds_no_scorekeeper_or_players_link(app, site: Site):
    client = app.test_client()
    nights = [site.seat(name=f"Night {i}") for i in range(25)]
    for night in nights:
        assert client.get(f"/k/{night.keeper}").status_code == 200
    seen = cookie_text(client)
    json.loads(seen)  # the decoding above is the whole of it
    for night in nights:
        assert night.keeper not in seen and night.viewer not in seen
        assert night.keeper[:12] not in seen


def test_the_home_page_still_lists_the_last_twenty_nights_this_browser_kept_score_of(app, site: Site):
    client = app.test_client()
    nights = [site.seat(name=f"Night {i}") for i in range(22)]
    for night in nights:
        client.get(f"/k/{night.keeper}")
    home = client.get("/").get_data(as_text=True)
    listed = [night for night in nights if f"/k/{night.keeper}" in home]
    assert listed == nights[2:]


def test_a_browser_that_never_opened_a_scorekeeper_link_lists_nothing(app, site: Site):
    night = site.seat()
    client = app.test_client()
    client.get(f"/p/{night.viewer}")
    assert f"/k/{night.keeper}" not in client.get("/").get_data(as_text=True)


def test_a_cookie_copied_to_another_app_with_another_secret_lists_nothing(app, make_app, site: Site, tmp_path):
    client = app.test_client()
    night = site.seat()
    client.get(f"/k/{night.keeper}")
    value = client.get_cookie("session").value
    # same database, another secret key: the signature fails and nothing is trusted
    other = make_app(SECRET_KEY="another-secret-key-that-is-long-enough-for-tests")
    Site(other).seat()
    thief = other.test_client()
    thief.set_cookie("session", value)
    assert "/k/" not in thief.get("/").get_data(as_text=True)
