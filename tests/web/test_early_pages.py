"""Every kind of kept page answered before Flask (web/early_pages.py), checked the same way.

For each registered plug-in (:data:`~companion.web.early_pages.KINDS`), a scene opens its page once
(so it is kept), then the same request is sent through the whole app and to Flask alone: the status,
the headers in order and the page, once the request keys and the CSRF token are masked, are the same.
Then what must go to Flask does: a page whose stamp moved, an unknown link, a flash to show.  And the read
each page is kept by is made once while nothing is committed, and again at the first request after a commit.
The group's pages have their own, longer tests (web/test_early_group_pages.py), and what is remembered its
own (web/test_early_remembered.py).
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion import service
from companion.db.models import Night
from companion.extensions import db
from companion.web.early_pages import KINDS, PageKind
from web.test_early_group_pages import BROWSER, KEY, TOKEN, call, early, environ, masked, served, shown
from web.test_early_remembered import counting_reads, settled
from web.test_groups import group_document


@dataclass
class Scene:
    """A kind's page as a browser opens it: ``client`` holds the cookie, ``change()`` moves the page's stamp."""

    app: Flask
    client: FlaskClient
    path: str
    unknown: str
    change: Callable[[], None]
    shows_change: bool = True  # False: the page reads the same after ``change`` (made anew all the same)


def _viewer_key(client: FlaskClient, url: str) -> str:
    share = client.get(f"{url}/share").get_data(as_text=True)
    return re.search(r"/p/([A-Za-z0-9_-]+)", share).group(1)  # type: ignore[union-attr]


def _group(request: pytest.FixtureRequest) -> Scene:
    app = request.getfixturevalue("make_app")(WTF_CSRF_ENABLED=True)
    with app.app_context():
        group = service.import_group(json.dumps(group_document()))
        path, group_id = f"/g/{group.organiser_key}", group.id

    def change() -> None:
        with app.app_context():
            night = db.session.query(Night).order_by(Night.id).first()
            service.rotate_link(night, "viewer")

    return Scene(app, app.test_client(), path + "?period=2025", "/g/" + "x" * 43, change)


def _night(request: pytest.FixtureRequest, path: str) -> Scene:
    """A night whose first game is under way (Ben said yes), opened by Ann's phone ("this is me")."""
    app = request.getfixturevalue("app")
    page = request.getfixturevalue("start_night")()
    page.declare("Ben")
    viewer = _viewer_key(page.client, page.url)
    phone = app.test_client()
    assert phone.get(f"/p/{viewer}/me?name=Ann").status_code == 303
    return Scene(app, phone, path.format(viewer=viewer), path.format(viewer="x" * 43), lambda: page.declare())


def _keeper(request: pytest.FixtureRequest, path: str) -> Scene:
    """The same night opened by the scorekeeper's phone, whose session lists it (so Flask writes no cookie)."""
    app = request.getfixturevalue("app")
    page = request.getfixturevalue("start_night")()
    page.declare("Ben")

    def change() -> None:  # Ben's declaration undone, from another phone (whose session gets the flash)
        data = page.stamp("undo")
        assert app.test_client().post(f"{page.url}/undo", data=data).status_code == 303

    return Scene(app, page.client, path.format(keeper=page.key), path.format(keeper="x" * 43), change)


def _home(request: pytest.FixtureRequest) -> Scene:
    """The home page of the scorekeeper's phone, which lists its night; the night played on moves its row."""
    scene = _keeper(request, "/k/{keeper}")
    return Scene(scene.app, scene.client, "/", "/k/" + "x" * 43, scene.change, shows_change=False)


def _player(request: pytest.FixtureRequest) -> Scene:
    """Ann's page across the nights the scorekeeper's phone keeps score of."""
    scene = _keeper(request, "/k/{keeper}")
    return Scene(scene.app, scene.client, "/players/Ann", "/k/" + "x" * 43, scene.change, shows_change=False)


#: a scene per kind, by its name: a kind added to the registry without one fails test_every_kind_has_a_scene
SCENES: dict[str, Callable[[pytest.FixtureRequest], Scene]] = {
    "group": _group,
    "players": lambda request: _night(request, "/p/{viewer}"),
    "players-report": lambda request: _night(request, "/p/{viewer}/report?view=pairwise"),
    "table": lambda request: _keeper(request, "/k/{keeper}"),
    "keeper-report": lambda request: _keeper(request, "/k/{keeper}/report"),
    "history": lambda request: _keeper(request, "/k/{keeper}/history?page=1"),
    "bank": lambda request: _keeper(request, "/k/{keeper}/bank"),
    "players-csv": lambda request: _night(request, "/p/{viewer}/report.csv?view=pairwise"),
    "players-json": lambda request: _night(request, "/p/{viewer}/report.json"),
    "keeper-csv": lambda request: _keeper(request, "/k/{keeper}/report.csv"),
    "keeper-json": lambda request: _keeper(request, "/k/{keeper}/report.json"),
    "night-file": lambda request: _keeper(request, "/k/{keeper}/export.json"),
    "home": lambda request: _home(request),
    "player": lambda request: _player(request),
}

BY_NAME = pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])


def test_every_kind_has_a_scene():
    assert sorted(SCENES) == sorted(kind.name for kind in KINDS)


def visit(scene: Scene) -> str:
    """The first visit, as a browser makes it (a download's compressed bytes are kept by Flask's answer to it)."""
    response = scene.client.get(scene.path, headers=BROWSER)
    assert response.status_code == 200, response.status_code
    return shown(list(response.headers.items()), response.get_data())


@BY_NAME
def test_the_early_answer_is_flasks_but_for_the_keys_and_token(request, kind: PageKind):
    scene = SCENES[kind.name](request)
    visit(scene)  # the first visit: rendered and kept (the table screen was, by the scorekeeper's last tap)
    env = environ(scene.client, scene.path)
    answered = early(scene.app).answered
    status, headers, body = call(scene.app.wsgi_app, dict(env))
    flask_status, flask_headers, flask_body = call(early(scene.app).wsgi_app, dict(env))  # Flask alone
    assert early(scene.app).answered == answered + 1
    assert status == flask_status == "200 OK"
    assert headers == flask_headers  # in the same order, Content-Length too; no cookie, no date
    assert ("Cache-Control", "no-store") in headers
    assert not any(k.lower() in ("set-cookie", "date") for k, _ in headers)
    if kind.send is None:  # a kept page goes out as kept, compressed; a download as Flask-Compress sends it
        assert ("Content-Encoding", "deflate") in headers
    else:
        assert body == flask_body and dict(headers)["Content-Disposition"].startswith("attachment;")
    page, flask_page = shown(headers, body), shown(flask_headers, flask_body)
    assert masked(page) == masked(flask_page) and "\x00" not in page
    keys, flask_keys = KEY.findall(page), KEY.findall(flask_page)
    assert len(keys) == len(flask_keys) and not {k[1] for k in keys} & {k[1] for k in flask_keys}
    assert len(TOKEN.findall(page)) == len(TOKEN.findall(flask_page))


@BY_NAME
def test_a_moved_stamp_an_unknown_link_or_a_flash_goes_to_flask(request, kind: PageKind):
    scene = SCENES[kind.name](request)
    before = visit(scene)
    assert served(scene.app, scene.client, scene.path)[:2] == (True, "200 OK")
    scene.change()
    answered, status, headers, body = served(scene.app, scene.client, scene.path)
    assert not answered and status == "200 OK"
    if scene.shows_change and kind.send is None:  # the new stamp's page (a download may read the same)
        assert masked(shown(headers, body)) != masked(before)
    assert served(scene.app, scene.client, scene.path)[0]  # kept again at the new stamp
    answered, status, _, _ = served(scene.app, scene.client, scene.unknown)
    assert not answered and status == "404 NOT FOUND"  # counted against the client by Flask
    with scene.client.session_transaction() as session:
        session["_flashes"] = [("message", "Recorded: a test.")]
    answered, status, headers, body = served(scene.app, scene.client, scene.path)
    assert not answered and status == "200 OK"
    assert served(scene.app, scene.client, scene.path, method="HEAD")[0] is False


@BY_NAME
def test_what_a_page_is_kept_by_is_read_once_while_nothing_is_committed(request, monkeypatch, kind: PageKind):
    scene = SCENES[kind.name](request)
    visit(scene)
    settled(scene.app)
    reads = counting_reads(monkeypatch)
    assert served(scene.app, scene.client, scene.path)[:2] == (True, "200 OK")
    reads.clear()
    for _ in range(3):
        assert served(scene.app, scene.client, scene.path)[:2] == (True, "200 OK")
    assert reads == []  # remembered: no statement at all
    scene.change()
    reads.clear()
    answered, status, _, _ = served(scene.app, scene.client, scene.path)
    assert reads and (answered, status) == (False, "200 OK")  # the very next request reads, and Flask makes it anew


def test_a_browser_whose_session_does_not_list_the_night_is_left_to_flask_which_remembers_it(request):
    scene = SCENES["table"](request)
    visit(scene)
    stranger = scene.app.test_client()  # holds the scorekeeper's link, not yet this night in its session
    answered, status, headers, _ = served(scene.app, stranger, scene.path)
    assert not answered and status == "200 OK" and any(k == "Set-Cookie" for k, _ in headers)


def test_a_question_the_table_is_not_kept_by_is_left_to_flask(request):
    scene = SCENES["table"](request)
    visit(scene)
    assert served(scene.app, scene.client, scene.path)[0]
    assert not served(scene.app, scene.client, scene.path + "?refused=abc")[0]
    assert not served(scene.app, scene.client, scene.path.replace("/k/", "/p/"))[0]  # the players' page: 403


def test_a_form_of_an_early_table_screen_is_recorded_once_when_doubled(start_night, app):
    page = start_night()
    page.declare("Ben")  # version 1: the table screen is kept from now on
    answered, status, _, body = served(app, page.client, page.url)
    assert answered and status == "200 OK"
    page.html = zlib.decompress(body).decode()
    stamp = page.stamp("undo")  # the version and the fresh request key the early answer put in the form
    first = page.post("undo", {}, stamp=stamp)
    again = page.post("undo", {}, stamp=stamp)
    assert first.status_code == again.status_code == 303
    assert "Already recorded" in page.html
    with app.app_context():
        assert db.session.query(Night).one().version == 2  # the declaration, and its undoing once


def test_a_first_game_the_home_page_does_not_offer_is_flasks_400(request):
    scene = SCENES["home"](request)
    visit(scene)
    assert served(scene.app, scene.client, "/")[0]
    answered, status, _, _ = served(scene.app, scene.client, "/?game=nope")
    assert not answered and status == "400 BAD REQUEST"


def test_a_player_the_browser_has_not_seen_or_a_slash_at_the_end_is_left_to_flask(request):
    scene = SCENES["player"](request)
    visit(scene)
    assert served(scene.app, scene.client, scene.path)[0]
    for path in ("/players/Zo\u00eb", "/players/Ann/", "/players/Ann//x"):
        answered, status, _, _ = served(scene.app, scene.client, path)
        assert not answered and status != "200 OK", path  # Flask's 404 or routing's redirect
