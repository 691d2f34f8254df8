"""Every response, of every kind, keeps the links in and the page out of frames.

Referrer-Policy: no-referrer, a CSP without 'unsafe-inline', nosniff and frame
protection on pages, redirects, downloads, static files, 304s and every error
page; and the pages hold no inline script or style, so that CSP breaks nothing.
"""

from __future__ import annotations

import io
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.web.plumbing import security
from companion import service as services
from companion.service import uow
from companion.web.plumbing.links import keeper_night
from security.support import Site, csrf_token_of, random_key

HTML_PAGES_WITHOUT_INLINE_CODE = re.compile(
    r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+\s*=|javascript:", re.I
)


def csp_directives(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def assert_protected(response, what: str) -> None:
    headers = response.headers
    assert headers.get("Referrer-Policy") == "no-referrer", what
    assert headers.get("X-Content-Type-Options") == "nosniff", what
    assert headers.get("X-Frame-Options") == "DENY", what
    csp = headers.get("Content-Security-Policy")
    assert csp, what
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, what
    directives = csp_directives(csp)
    assert directives["frame-ancestors"] == ["'none'"], what
    assert directives["default-src"] == ["'self'"], what
    assert directives["script-src"] == ["'self'"], what
    assert directives["object-src"] == ["'none'"], what
    assert directives["base-uri"] == ["'none'"], what


@pytest.fixture
def strict_app(make_app) -> Flask:
    """CSRF on, a low limit on wrong links, errors handled as in production, and a route that breaks."""
    app = make_app(WTF_CSRF_ENABLED=True, FAILED_LINK_LIMIT=3, PROPAGATE_EXCEPTIONS=False, MAX_CONTENT_LENGTH=100_000)

    def broken():  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug")

    app.add_url_rule("/broken-for-the-test", "broken", broken)
    return app


def every_kind_of_response(app: Flask) -> dict[str, object]:
    site = Site(app)
    night = site.seat("report.paid")
    fresh = site.seat()
    client: FlaskClient = app.test_client()
    token = csrf_token_of(client.get("/").get_data(as_text=True))
    stamp = {**site.submit("table.declare", night), "csrf_token": token}
    css = client.get("/static/app.css")
    live = client.get(f"/p/{night.viewer}/live")
    live_again = client.get(f"/p/{night.viewer}/live", headers={"If-None-Match": live.headers["ETag"]})
    responses = {
        "home page": client.get("/"),
        "scorekeeper's page": client.get(f"/k/{night.keeper}"),
        "players' page": client.get(f"/p/{night.viewer}"),
        "share page": client.get(f"/k/{night.keeper}/share"),
        "setup page": client.get(f"/k/{fresh.keeper}/setup"),
        "history page": client.get(f"/k/{night.keeper}/history"),
        "report page": client.get(f"/k/{night.keeper}/report"),
        "players' report": client.get(f"/p/{night.viewer}/report"),
        "nights this browser knows": client.get("/nights"),
        "a player's history": client.get("/players/Ben"),
        "QR code": client.get(f"/k/{night.keeper}/players-qr.svg"),
        "hand-history download": client.get(f"/k/{night.keeper}/export.json"),
        "report download": client.get(f"/k/{night.keeper}/report.csv"),
        "health check": client.get("/healthz"),
        "redirect after a record": client.post(f"/k/{night.keeper}/declare", data=stamp),
        "stale submit (409)": client.post(f"/k/{night.keeper}/declare", data={**stamp, "request_key": random_key()}),
        "form error (422)": client.post("/nights", data={"csrf_token": token}),
        "players' link on a scorekeeper's page (403)": client.get(f"/k/{night.viewer}"),
        "CSRF refusal (400)": client.post(f"/k/{night.keeper}/undo", data={}),
        "method not allowed (405)": client.get(f"/k/{night.keeper}/declare"),
        "no such page (404)": client.get("/no-such-page"),
        "JSON error": client.get("/no-such-page", headers={"Accept": "application/json"}),
        "too large (413)": client.post(
            "/import", data={"csrf_token": token, "file": (io.BytesIO(b"x" * 200_000), "big.json")}
        ),
        "server error (500)": client.get("/broken-for-the-test"),
        "static file": css,
        "static file not modified (304)": client.get("/static/app.css", headers={"If-None-Match": css.headers["ETag"]}),
        "live standings": live,
        "live standings not modified (304)": live_again,
        "HEAD": client.head(f"/p/{night.viewer}"),
        "OPTIONS": client.options(f"/k/{night.keeper}"),
    }
    wrong = app.test_client()
    for _ in range(3):
        responses["unknown link (404)"] = wrong.get(f"/p/{random_key()}")
    responses["too many wrong links (429)"] = wrong.get(f"/p/{random_key()}")
    return responses


def test_every_kind_of_response_carries_the_security_headers(strict_app):
    responses = every_kind_of_response(strict_app)
    statuses = {what: r.status_code for what, r in responses.items()}
    assert {200, 303, 304, 400, 403, 404, 405, 409, 413, 422, 429, 500} <= set(statuses.values()), statuses
    assert statuses["static file not modified (304)"] == 304 and statuses["live standings not modified (304)"] == 304
    assert statuses["too many wrong links (429)"] == 429 and statuses["server error (500)"] == 500
    for what, response in responses.items():
        assert_protected(response, what)


def test_secret_link_pages_are_never_stored_and_never_indexed(strict_app):
    responses = every_kind_of_response(strict_app)
    for what in ("scorekeeper's page", "share page", "QR code", "hand-history download", "report page"):
        assert responses[what].headers["Cache-Control"] == "no-store", what
        assert responses[what].headers["X-Robots-Tag"] == "noindex", what
    for what in ("players' page", "live standings", "players' report"):
        assert responses[what].headers["Cache-Control"] in ("no-cache", "no-store"), what
        assert responses[what].headers["X-Robots-Tag"] == "noindex", what


def test_no_page_holds_inline_script_or_style_that_the_policy_would_block(strict_app):
    responses = every_kind_of_response(strict_app)
    checked = 0
    for what, response in responses.items():
        if response.mimetype in ("text/html", "image/svg+xml") and response.data:
            found = HTML_PAGES_WITHOUT_INLINE_CODE.findall(response.get_data(as_text=True))
            assert found == [], what
            checked += 1
    assert checked >= 15


# --- the links themselves -----------------------------------------------------------------------


def test_links_are_43_url_safe_characters_made_fresh_for_every_night(app, site):
    nights = [site.seat() for _ in range(60)]
    keys = [k for n in nights for k in (n.keeper, n.viewer)]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43,}", k) for k in keys)
    assert len(set(keys)) == len(keys)
    assert len(services.new_key()) >= 43 and uow.KEY_BYTES >= 32
    # 60 nights × 2 keys × 43 characters use nearly the whole alphabet: nothing is fixed
    assert len(set("".join(keys))) >= 60


def test_links_are_compared_in_constant_time(app, site, monkeypatch):
    night = site.seat()
    compared: list[tuple[bytes, bytes]] = []
    real = security.hmac.compare_digest

    def spy(a, b):  # type: ignore[no-untyped-def]
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(security.hmac, "compare_digest", spy)
    with app.test_request_context():
        assert keeper_night(night.keeper).id == night.id
    assert (night.keeper.encode(), night.keeper.encode()) in compared


def test_same_secret_says_equal_only_for_the_same_secret():
    key = services.new_key()
    assert security.same_secret(key, key)
    assert not security.same_secret(key[:-1] + ("A" if key[-1] != "A" else "B"), key)
    assert not security.same_secret(key[:-1], key)
    assert not security.same_secret("", key)
    assert not security.same_secret("é" * 43, key)
