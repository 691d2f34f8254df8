"""The two secret links: the players' link only looks, either link can be replaced,
the QR code carries the players' link a phone can open, and guessing is slowed down."""

from __future__ import annotations

import html as htmllib
import re
from urllib.parse import urlsplit

import pytest

from companion.db import brakes as ratelimit
from companion.web.plumbing import qr
from companion.web.plumbing import security
from companion.web.plumbing import addresses
from qr_codes import decode_qr, svg_to_pixels
from security.support import Site, random_key

LAN = "http://192.168.1.20:5000"
WARNING = "points at this machine itself"


# --- the QR code, read back as a phone's camera would -------------------------------------------


def share(client, keeper: str, base_url: str = LAN) -> tuple[str, str | None, str]:
    """(the players' link the share page shows, its warning if any, what its QR code says)."""
    page = client.get(f"/k/{keeper}/share", base_url=base_url)
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    shown = htmllib.unescape(re.search(r'<p class="link"><a href="([^"]+)">', body).group(1))
    warning = WARNING if WARNING in body else None
    svg = client.get(f"/k/{keeper}/players-qr.svg", base_url=base_url)
    assert svg.mimetype == "image/svg+xml"
    return shown, warning, decode_qr(svg.get_data(as_text=True))


def test_the_svg_reader_draws_what_the_qr_module_drew():
    image, size = svg_to_pixels(qr.svg("http://192.168.1.20:5000/p/x"), scale=1)
    matrix = qr.matrix("http://192.168.1.20:5000/p/x")
    assert size == len(matrix)
    assert [[image[y, x] == 0 for x in range(size)] for y in range(size)] == matrix


def test_the_qr_code_decodes_to_the_players_link_the_share_page_shows(site, client):
    night = site.seat()
    shown, warning, decoded = share(client, night.keeper)
    assert decoded == shown == f"{LAN}/p/{night.viewer}"
    assert warning is None
    assert night.keeper not in decoded
    assert client.get(decoded.removeprefix(LAN)).status_code == 200  # and it opens the players' page


@pytest.mark.parametrize(
    "base_url",
    ["http://localhost:5000", "http://127.0.0.1:5000", "http://127.0.1.1", "http://[::1]:5000",
     "http://0.0.0.0:5000", "http://LOCALHOST:5000", "http://companion.localhost:5000"],
)
def test_a_link_to_this_machine_itself_never_shows_without_a_warning(base_url, site, client, monkeypatch):
    monkeypatch.setattr(addresses, "lan_address", lambda: None)
    site.app.config["LISTEN_PORT"] = urlsplit(base_url).port or 80  # the test client reads no port of [::1]
    night = site.seat()
    shown, warning, decoded = share(client, night.keeper, base_url)
    assert decoded == shown
    assert warning is not None, f"{shown} is shown as if other phones could open it"


def test_on_this_machine_the_qr_code_uses_the_local_network_address(site, client, monkeypatch):
    monkeypatch.setattr(addresses, "lan_address", lambda: "192.168.1.7")
    site.app.config["LISTEN_HOST"] = "0.0.0.0"  # as `flask serve` (make run) records it
    night = site.seat()
    shown, warning, decoded = share(client, night.keeper, "http://127.0.0.1:5000")
    assert decoded == shown == f"http://192.168.1.7:5000/p/{night.viewer}"
    assert warning is None


@pytest.mark.parametrize("listening_on", ["127.0.0.1", None])
def test_a_server_that_listens_on_this_machine_only_never_offers_its_lan_address(
    listening_on, site, client, monkeypatch
):
    """Served on 127.0.0.1 (or by a server that did not say where), the LAN address would not answer."""
    monkeypatch.setattr(addresses, "lan_address", lambda: "192.168.1.7")
    site.app.config["LISTEN_HOST"] = listening_on
    night = site.seat()
    shown, warning, decoded = share(client, night.keeper, "http://127.0.0.1:5000")
    assert decoded == shown == f"http://127.0.0.1:5000/p/{night.viewer}"
    assert warning is not None


def test_a_public_address_from_the_config_is_used_as_it_is(make_app, monkeypatch):
    monkeypatch.setattr(addresses, "lan_address", lambda: None)
    site = Site(make_app(PUBLIC_BASE_URL="https://poker.example.org/"))
    night = site.seat()
    shown, warning, decoded = share(site.app.test_client(), night.keeper, "http://127.0.0.1:5000")
    assert decoded == shown == f"https://poker.example.org/p/{night.viewer}"
    assert warning is None


def test_a_public_address_from_the_environment_is_used_as_it_is(make_app, monkeypatch):
    monkeypatch.setenv("COMPANION_PUBLIC_BASE_URL", "https://napalm.example.net")
    site = Site(make_app())
    night = site.seat()
    shown, _, decoded = share(site.app.test_client(), night.keeper)
    assert decoded == shown == f"https://napalm.example.net/p/{night.viewer}"


# --- the players' link only looks ----------------------------------------------------------------


def test_the_players_link_is_refused_on_every_route_that_changes_anything(site, client):
    routes = [e for e in site.state_changing() if site.rules()[e].arguments]
    assert len(routes) >= 8
    for endpoint in routes:
        night = site.seat(endpoint)
        before = site.snapshot(night.id), site.counts()
        response = site.send(client, "POST", endpoint, night.viewer, site.submit(endpoint, night))
        assert response.status_code == 403, endpoint
        assert "can only look" in response.get_data(as_text=True)
        assert (site.snapshot(night.id), site.counts()) == before, endpoint


def test_the_players_link_cannot_open_the_scorekeepers_pages_either(site, client):
    night = site.seat()
    for endpoint, rule in site.rules().items():
        if rule.rule.startswith("/k/") and "GET" in (rule.methods or ()):
            assert client.get(site.url(endpoint, night.viewer)).status_code == 403, endpoint


# --- replacing a link ----------------------------------------------------------------------------


def rotate(client, keeper: str, which: str, request_key: str | None = None):
    data = {"which": which, "request_key": request_key or random_key()}
    return client.post(f"/k/{keeper}/rotate", data=data)


def test_a_new_players_link_ends_the_old_one(site, client):
    night = site.seat()
    response = rotate(client, night.keeper, "viewer")
    assert response.status_code == 303 and response.headers["Location"] == f"/k/{night.keeper}/share"
    after = site.ref(night.id)
    assert after.viewer != night.viewer and after.keeper == night.keeper
    for path in ("", "/live", "/report", "/me?name=Ann"):
        assert client.get(f"/p/{night.viewer}{path}").status_code == 404, path
        assert client.get(f"/p/{after.viewer}{path}").status_code in (200, 303), path
    shown, _, decoded = share(client, night.keeper)
    assert decoded == shown == f"{LAN}/p/{after.viewer}"


def test_a_new_scorekeeper_link_ends_the_old_one(site, client):
    night = site.seat()
    response = rotate(client, night.keeper, "keeper")
    after = site.ref(night.id)
    assert after.keeper != night.keeper and after.viewer == night.viewer
    assert response.status_code == 303 and response.headers["Location"] == f"/k/{after.keeper}/share"
    for path in ("", "/share", "/history", "/report", "/export.json", "/players-qr.svg"):
        assert client.get(f"/k/{night.keeper}{path}").status_code == 404, path
        assert client.get(f"/k/{after.keeper}{path}").status_code == 200, path
    assert client.get(f"/p/{night.keeper}").status_code == 404  # nor does it still open the players' view
    stale = {"nobody": "1", "version": "0", "request_key": random_key()}
    assert client.post(f"/k/{night.keeper}/declare", data=stale).status_code == 404
    assert rotate(client, night.keeper, "keeper").status_code == 404
    assert site.snapshot(night.id)[0] == 0
    assert client.post(f"/k/{after.keeper}/declare", data=stale).status_code == 303


def test_this_browser_keeps_the_new_scorekeeper_link_even_if_the_answer_is_lost(site, client):
    night = site.seat()
    client.get(f"/k/{night.keeper}")
    rotate(client, night.keeper, "keeper")  # the redirect is never followed
    after = site.ref(night.id)
    assert f"/k/{after.keeper}" in client.get("/").get_data(as_text=True)


def test_a_doubled_tap_on_make_a_new_link_rotates_once_and_answers_the_same(site, client):
    night = site.seat()
    page = client.get(f"/k/{night.keeper}/share").get_data(as_text=True)
    request_key = re.search(r'name="request_key" value="([A-Za-z0-9_-]{43})"', page).group(1)
    answers = [rotate(client, night.keeper, "keeper", request_key) for _ in range(3)]
    assert {(a.status_code, a.headers["Location"]) for a in answers} == {(303, answers[0].headers["Location"])}
    after = site.ref(night.id)
    assert answers[0].headers["Location"] == f"/k/{after.keeper}/share"  # rotated once: the first answer holds
    assert client.get(answers[0].headers["Location"]).status_code == 200
    # the same key asking for the other link is refused; any other request on the old link is 404
    assert rotate(client, night.keeper, "viewer", request_key).status_code == 409
    assert rotate(client, night.keeper, "keeper").status_code == 404
    assert site.ref(night.id) == after


def test_a_rotation_without_a_request_key_is_refused(site, client):
    night = site.seat()
    response = client.post(f"/k/{night.keeper}/rotate", data={"which": "viewer"})
    assert response.status_code == 400
    assert site.ref(night.id) == night


def test_only_the_scorekeeper_can_replace_a_link(site, client):
    night = site.seat()
    for which in ("viewer", "keeper"):
        assert rotate(client, night.viewer, which).status_code == 403
        assert rotate(client, random_key(), which).status_code == 404
    assert site.ref(night.id) == night


# --- guessing is slowed down ----------------------------------------------------------------------


@pytest.fixture
def limited(make_app) -> Site:
    return Site(make_app(FAILED_LINK_LIMIT=5))


def test_after_too_many_unknown_links_a_client_gets_429(limited, monkeypatch):
    clock = [1_000_000.0]
    monkeypatch.setattr(ratelimit, "now", lambda: clock[0])
    night = limited.seat()
    guesser = limited.app.test_client()
    for i in range(5):
        path = f"/k/{random_key()}" if i % 2 else f"/p/{random_key()}/live"
        assert guesser.get(path).status_code == 404
    refused = guesser.get(f"/p/{random_key()}")
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 60
    assert guesser.post(f"/k/{random_key()}/declare", data={}).status_code == 429
    # a valid link is never refused, even to the guesser (issue 15: a phone's own link kept working)
    assert guesser.get(f"/p/{night.viewer}").status_code == 200
    assert guesser.get(f"/k/{night.keeper}").status_code == 200
    assert guesser.get("/").status_code == 200  # the rest of the site still answers
    # another phone is not punished for the guesser
    phone = limited.app.test_client()
    assert phone.get(f"/p/{random_key()}", environ_base={"REMOTE_ADDR": "192.168.1.33"}).status_code == 404
    # after a minute without guesses the client may try again
    clock[0] += 61
    assert guesser.get(f"/p/{random_key()}").status_code == 404


def test_unknown_links_posted_to_count_as_guesses_too(limited):
    guesser = limited.app.test_client()
    for _ in range(5):
        assert guesser.post(f"/k/{random_key()}/declare", data={"nobody": "1"}).status_code == 404
    assert guesser.get(f"/k/{random_key()}").status_code == 429


def test_real_links_never_count_against_a_client(limited):
    night = limited.seat()
    phone = limited.app.test_client()
    for _ in range(20):  # polling the live standings, and a players' link opened on the wrong page
        assert phone.get(f"/p/{night.viewer}/live").status_code == 200
        assert phone.get(f"/k/{night.viewer}").status_code == 403
    assert phone.get(f"/k/{night.keeper}").status_code == 200


def test_forwarded_addresses_are_ignored_unless_a_proxy_is_trusted(make_app):
    """A guesser cannot dodge the limit by making up an X-Forwarded-For of its own."""
    app = make_app(FAILED_LINK_LIMIT=3)
    guesser = app.test_client()
    for i in range(3):
        assert guesser.get(f"/p/{random_key()}", headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code == 404
    assert guesser.get(f"/p/{random_key()}", headers={"X-Forwarded-For": "10.0.0.99"}).status_code == 429


def test_behind_a_trusted_proxy_each_phone_is_limited_on_its_own_address_and_https_is_seen(make_app):
    app = make_app(FAILED_LINK_LIMIT=3, TRUSTED_PROXIES="1")
    site = Site(app)
    night = site.seat()
    proxy = app.test_client()
    guesser = {"X-Forwarded-For": "192.168.1.50", "X-Forwarded-Proto": "https"}
    for _ in range(3):
        assert proxy.get(f"/p/{random_key()}", headers=guesser).status_code == 404
    assert proxy.get(f"/p/{random_key()}", headers=guesser).status_code == 429
    phone = {"X-Forwarded-For": "192.168.1.51", "X-Forwarded-Proto": "https"}
    answer = proxy.get(f"/k/{night.keeper}", headers=phone)
    assert answer.status_code == 200
    assert "Secure" in answer.headers["Set-Cookie"]  # the phone reached the proxy over HTTPS


@pytest.mark.parametrize("value", ["-1", "one", "6", "1.5"])
def test_a_nonsense_number_of_proxies_stops_the_app_from_starting(value, tmp_path, monkeypatch):
    from companion import ConfigError, create_app

    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    with pytest.raises(ConfigError, match="COMPANION_TRUSTED_PROXIES"):
        create_app({"SECRET_KEY": "x" * 48, "SQLALCHEMY_DATABASE_URI": "sqlite://", "TRUSTED_PROXIES": value})
