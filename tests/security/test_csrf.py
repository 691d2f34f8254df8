"""CSRF protection switched on, as in production.

Every state-changing route (every rule with a method other than GET/HEAD/OPTIONS,
found in the URL map, so new routes are covered) is tried without a valid token
and must refuse and change nothing; with the page's own token the same submit works.
"""

from __future__ import annotations

import re

import pytest
from itsdangerous import URLSafeTimedSerializer

from companion import create_app
from security.support import Site, csrf_token_of


@pytest.fixture
def site(make_app) -> Site:
    return Site(make_app(WTF_CSRF_ENABLED=True))


def _session(site: Site, client) -> dict:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return site.app.session_interface.get_signing_serializer(site.app).loads(cookie.value)


def _bad_tokens(site: Site, client, token: str) -> dict[str, str | None]:
    stranger = site.app.test_client()
    stranger_token = csrf_token_of(stranger.get("/").get_data(as_text=True))
    raw = _session(site, client)["csrf_token"]
    forged = URLSafeTimedSerializer("another-secret-key-of-the-same-length-as-ours", salt="wtf-csrf-token").dumps(raw)
    return {
        "no token": None,
        "an empty token": "",
        "a made-up token": "x" * len(token),
        "a token with its signature changed": token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"),
        "another browser's token": stranger_token,
        "this browser's token signed with another secret": forged,
    }


def test_every_state_changing_request_without_a_valid_token_is_refused_and_changes_nothing(site):
    client = site.app.test_client()
    night = site.seat()
    token = csrf_token_of(client.get(f"/k/{night.keeper}").get_data(as_text=True))
    refused: dict[tuple[str, str], int] = {}
    endpoints = site.state_changing()
    assert {"home.create", "home.import_night", "table.declare", "share.rotate", "setup.edit"} <= set(endpoints)
    for endpoint in endpoints:
        for what, bad in _bad_tokens(site, client, token).items():
            night = site.seat(endpoint)
            before = site.snapshot(night.id), site.counts()
            data = site.submit(endpoint, night)
            if bad is not None:
                data["csrf_token"] = bad
            response = site.send(client, "POST", endpoint, night.keeper, data)
            refused[endpoint, what] = response.status_code
            assert (site.snapshot(night.id), site.counts()) == before, (endpoint, what)
            if response.status_code == 400:
                assert "not sent by this app" in response.get_data(as_text=True)
    assert set(refused.values()) == {400}, {k: v for k, v in refused.items() if v != 400}


def test_a_bad_token_in_the_header_is_refused_too(site):
    client = site.app.test_client()
    night = site.seat()
    client.get(f"/k/{night.keeper}")
    before = site.counts()
    response = client.post(
        f"/k/{night.keeper}/declare", data=site.submit("table.declare", night), headers={"X-CSRFToken": "x" * 40}
    )
    assert response.status_code == 400
    assert site.counts() == before


def test_the_same_submits_with_the_pages_own_token_are_accepted(site):
    """The control: the refusals above are the token's doing, not a bad form."""
    client = site.app.test_client()
    token = csrf_token_of(client.get("/").get_data(as_text=True))
    for endpoint in site.state_changing():
        night = site.seat(endpoint)
        before = site.snapshot(night.id), site.counts()
        data = {**site.submit(endpoint, night), "csrf_token": token}
        response = site.send(client, "POST", endpoint, night.keeper, data)
        assert response.status_code == 303, (endpoint, response.get_data(as_text=True)[-600:])
        assert (site.snapshot(night.id), site.counts()) != before, endpoint


def test_the_players_link_is_refused_even_with_a_valid_token(site):
    client = site.app.test_client()
    token = csrf_token_of(client.get("/").get_data(as_text=True))
    for endpoint in site.state_changing():
        if not site.rules()[endpoint].arguments:
            continue
        night = site.seat(endpoint)
        before = site.snapshot(night.id), site.counts()
        data = {**site.submit(endpoint, night), "csrf_token": token}
        assert site.send(client, "POST", endpoint, night.viewer, data).status_code == 403, endpoint
        assert (site.snapshot(night.id), site.counts()) == before, endpoint


def test_every_post_form_on_every_page_carries_the_token(site):
    client = site.app.test_client()
    night = site.seat("report.paid")
    payment = site.first_payment(night)
    pages = [
        "/",
        f"/k/{night.keeper}",
        f"/k/{night.keeper}/share",
        f"/k/{night.keeper}/report?payer={payment['payer']}&payee={payment['payee']}&chips={payment['chips']}",
        f"/k/{site.seat().keeper}/setup",
    ]
    seen = 0
    for path in pages:
        html = client.get(path).get_data(as_text=True)
        for form in re.findall(r'<form[^>]*method="post"[^>]*>(.*?)</form>', html, re.S | re.I):
            assert 'name="csrf_token"' in form, path
            seen += 1
    assert seen >= 7


def test_posts_over_https_are_accepted_without_a_referer(site):
    """Our pages send no Referer (Referrer-Policy: no-referrer), so the token alone must do.

    Flask-WTF's strict HTTPS mode would refuse every such form as "referrer missing".
    """
    client = site.app.test_client()
    night = site.seat()
    token = csrf_token_of(client.get(f"/k/{night.keeper}", base_url="https://poker.example.org").get_data(as_text=True))
    data = {**site.submit("table.declare", night), "csrf_token": token}
    response = client.post(f"/k/{night.keeper}/declare", data=data, base_url="https://poker.example.org")
    assert response.status_code == 303, response.get_data(as_text=True)[-400:]
    assert site.snapshot(night.id)[0] == 1
    # ... and still refused without the token
    data = site.submit("table.declare", site.ref(night.id))
    response = client.post(f"/k/{night.keeper}/declare", data=data, base_url="https://poker.example.org")
    assert response.status_code == 400
    assert site.snapshot(night.id)[0] == 1


def test_production_has_csrf_protection_on(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("COMPANION_ENV", "production")
    monkeypatch.setenv("COMPANION_SECRET_KEY", "p" * 48)
    monkeypatch.setenv("COMPANION_DATABASE_URL", f"sqlite:///{tmp_path / 'prod.sqlite'}")
    app = create_app()
    assert app.config.get("WTF_CSRF_ENABLED", True) is True
    assert app.test_client().post("/nights", data={"seat_1": "Ann", "seat_2": "Ben"}).status_code == 400
