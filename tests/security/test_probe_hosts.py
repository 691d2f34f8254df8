"""The Host header (issue 15, item 7): the server answers only to the names it is meant to be
reached at, so a forged Host never lands in a players' link or its QR code."""

from __future__ import annotations

import pytest

from companion.web.plumbing import hosts
from companion.web.plumbing import addresses


@pytest.fixture
def lan(monkeypatch):
    """This machine is 192.168.1.7 on the local network, called "den"."""
    monkeypatch.setattr(addresses, "lan_address", lambda: "192.168.1.7")
    monkeypatch.setattr(hosts, "machine_hosts", lambda listen_host: {"192.168.1.7", "den", "den.local"})


def test_a_forged_host_gets_a_400_that_says_what_to_change_and_no_link(lan, make_app):
    app = make_app()
    night_keeper = _seat(app)
    client = app.test_client()
    for path in ("/", f"/k/{night_keeper}/share", f"/k/{night_keeper}/players-qr.svg"):
        response = client.get(path, headers={"Host": "evil.example"})
        assert response.status_code == 400, path
        body = response.get_data(as_text=True)
        assert "evil.example" in body and "COMPANION_ALLOWED_HOSTS" in body
        assert "/p/" not in body


def test_the_players_poll_answered_before_flask_refuses_a_forged_host_too(lan, make_app, site_of):
    app = make_app()
    viewer = site_of(app).seat().viewer
    client = app.test_client()
    assert client.get(f"/p/{viewer}/live").status_code == 200
    assert client.get(f"/p/{viewer}/live").status_code == 200  # now kept: the middleware's answer
    assert client.get(f"/p/{viewer}/live", headers={"Host": "rebound.example:5000"}).status_code == 400


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:5000", "127.0.0.1:5000", "[::1]:5000", "192.168.1.7:5000", "den.local", "DEN"]
)
def test_this_machine_is_answered_by_every_name_and_address_it_has_at_the_port_it_listens_on(lan, make_app, host):
    app = make_app(LISTEN_PORT=5000)  # as `serve --port 5000` records it
    assert app.test_client().get("/", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    "host", ["127.0.0.1:5000", "localhost:5000", "[::1]:5000", "192.168.1.7:5000", "den.local:80",
             "127.0.0.1.", "localhost.", "den.local.", "127.0.0.1.:8000"]
)
def test_this_machine_at_another_port_or_with_a_trailing_dot_is_refused(lan, make_app, host):
    """Issue 36, item 7: served on port 8000, ``Host: 127.0.0.1:5000`` and ``127.0.0.1.`` were answered,
    and the players' link and its QR code were made from them."""
    app = make_app(LISTEN_HOST="0.0.0.0", LISTEN_PORT=8000)
    keeper = _seat(app)
    for path in ("/", f"/k/{keeper}/share", f"/k/{keeper}/players-qr.svg"):
        response = app.test_client().get(path, headers={"Host": host})
        assert response.status_code == 400, path
        assert "does not answer to the address" in response.get_data(as_text=True)
        assert "/p/" not in response.get_data(as_text=True)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "den.local:8000", "192.168.1.20:5000", "poker.example.org"])
def test_the_players_link_and_its_qr_code_name_the_address_the_server_listens_on_whatever_the_host(lan, make_app, host):
    """Served on every interface at port 8000: the local network's address at that port, from any allowed Host
    (the tests' ALLOWED_HOSTS take 192.168.1.20 and poker.example.org at any port)."""
    from qr_codes import decode_qr

    app = make_app(LISTEN_HOST="0.0.0.0", LISTEN_PORT=8000)
    night = site_of_app(app)
    client = app.test_client()
    page = client.get(f"/k/{night.keeper}/share", headers={"Host": host}).get_data(as_text=True)
    assert f'<a href="http://192.168.1.7:8000/p/{night.viewer}">' in page
    svg = client.get(f"/k/{night.keeper}/players-qr.svg", headers={"Host": host}).get_data(as_text=True)
    assert decode_qr(svg) == f"http://192.168.1.7:8000/p/{night.viewer}"


def test_a_server_listening_on_one_address_names_that_address(lan, make_app):
    app = make_app(LISTEN_HOST="192.168.1.7", LISTEN_PORT=8000)
    night = site_of_app(app)
    page = app.test_client().get(f"/k/{night.keeper}/share", headers={"Host": "den.local:8000"})
    assert f'<a href="http://192.168.1.7:8000/p/{night.viewer}">' in page.get_data(as_text=True)


def site_of_app(app):  # type: ignore[no-untyped-def]
    from security.support import Site

    return Site(app).seat()


def test_names_from_the_settings_are_answered(lan, make_app):
    app = make_app(PUBLIC_BASE_URL="https://poker.example.org", ALLOWED_HOSTS="cards.example.net, 10.0.0.9")
    client = app.test_client()
    for host in ("poker.example.org", "cards.example.net:8443", "10.0.0.9"):
        assert client.get("/", headers={"Host": host}).status_code == 200, host
    assert client.get("/", headers={"Host": "poker.example.org.evil.example"}).status_code == 400


def test_the_qr_link_of_a_lan_request_names_the_lan_address_the_server_listens_at(lan, make_app):
    app = make_app(LISTEN_HOST="0.0.0.0", LISTEN_PORT=5000)
    keeper = _seat(app)
    page = app.test_client().get(f"/k/{keeper}/share", headers={"Host": "192.168.1.7:5000"})
    assert page.status_code == 200
    assert "http://192.168.1.7:5000/p/" in page.get_data(as_text=True)


def test_the_hostname_is_read_without_port_brackets_or_case():
    assert hosts.hostname_of("Den.Local:5000") == "den.local"
    assert hosts.hostname_of("[::1]:5000") == "::1"
    assert hosts.hostname_of("example.org.") == "example.org"


def _seat(app) -> str:
    from security.support import Site

    return Site(app).seat().keeper


@pytest.fixture
def site_of():
    from security.support import Site

    return Site


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:80@evil.example",  # user info: read as 127.0.0.1, the link shown became "http:/p/<key>"
        "localhost@evil.example",
        "localhost:5000/evil.example",
        "127.0.0.1 evil.example",
        "[::1]@evil.example",
        "localhost:99999",
        "localhost:5000:80",
        "",
    ],
)
def test_a_host_header_that_is_more_than_a_host_and_a_port_is_refused(lan, make_app, host):
    """Issue 21, item 6."""
    app = make_app()
    keeper = _seat(app)
    response = app.test_client().get(f"/k/{keeper}/share", headers={"Host": host})
    assert response.status_code == 400
    assert "/p/" not in response.get_data(as_text=True)


def test_a_host_header_is_read_as_a_host_and_a_port():
    assert hosts.request_host("Den.Local:5000") == "den.local"
    assert hosts.request_host("[::1]:5000") == "::1"
    assert hosts.request_host("example.org.") is None  # a trailing dot: issue 36, item 7
    assert hosts.request_host("127.0.0.1.") is None
    assert hosts.host_and_port("127.0.0.1:5000") == ("127.0.0.1", 5000)
    assert hosts.host_and_port("[::1]") == ("::1", None)
    assert hosts.request_host("127.0.0.1:80@evil.example") is None
    assert hosts.request_host("[not-an-address]") is None
