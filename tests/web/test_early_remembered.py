"""Every page answered early without reading the database while nothing was committed (web/early_pages.py:
``EarlyPages.remembered``; db/change_watch.py: the page generation).

What is remembered is the read each page is kept by (a night's row, by its scorekeeper's or players' link; the
rows of the nights a browser keeps score of, by the (night, mark) pairs its session holds; a group's stamp, by
its link), with the page generation it was read at.  The proof that it is never late: a change made in this process, by a sibling ``serve
--workers`` process (its commit counted in the memory they share, not told to this process) and, on SQLite,
by any connection at all, is shown by the very next request; and that it never crosses browsers: two
browsers that know different nights each get their own nights, and their own CSRF token, in alternation.
Run on SQLite and on PostgreSQL (``COMPANION_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import zlib

import pytest
from itsdangerous import URLSafeTimedSerializer

from companion import service
from companion.db import change_watch
from companion.db.models import Night
from companion.extensions import db
from conftest import EXTERNAL_DB
from pages import TablePage, night_form
from web.test_early_group_pages import TOKEN, early, served, shown, visit
from web.test_groups import group_document


def settled(app) -> None:  # type: ignore[no-untyped-def]
    """Wait until the change watch gives pages a generation (PostgreSQL: once its listener listens)."""
    watch = early(app)._remembered.watch()
    deadline = time.monotonic() + 10
    while watch.page_generation() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watch.page_generation() is not None


@pytest.fixture
def csrf_app(make_app):  # type: ignore[no-untyped-def]
    app = make_app(WTF_CSRF_ENABLED=True)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def browser_with_night(app, name: str) -> tuple[object, str]:  # type: ignore[no-untyped-def]
    """A browser that started a night called ``name`` (its session lists it), and the night's scorekeeper link."""
    client = app.test_client()
    form = client.get("/").get_data(as_text=True)
    token = TOKEN.search(form).group(2)  # type: ignore[union-attr]
    answer = client.post("/nights", data={**night_form(name=name), "csrf_token": token})
    assert answer.status_code == 303, answer.status_code
    page = TablePage(client, answer.headers["Location"])
    return client, page.key


def early_page(app, client, path: str) -> str:  # type: ignore[no-untyped-def]
    """``path`` answered early (asserted), as the browser reads it."""
    answered, status, headers, body = served(app, client, path)
    assert answered and status == "200 OK"
    return zlib.decompress(body).decode()


def remembered_page(app, path: str, name: str = "Friday at Ann") -> tuple[object, str]:  # type: ignore[no-untyped-def]
    """A browser that started the night ``name``, whose ``path`` is kept and was answered early once since the
    change watch settled: what it read for the page is remembered.  The browser and the night's link."""
    client, keeper = browser_with_night(app, name)
    visit(client, path)  # made and kept
    settled(app)
    assert name in early_page(app, client, path)
    return client, keeper


def page(app, client, path: str) -> str:  # type: ignore[no-untyped-def]
    """``path`` through the whole app, by whichever path answers it (a player in none of the browser's nights:
    Flask's 404 page)."""
    _, status, headers, body = served(app, client, path)
    assert status == "200 OK" or (status == "404 NOT FOUND" and path.startswith("/players/"))
    return shown(headers, body)


def counting_reads(monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    """The statements the one-row reads run (the rows of a browser's nights, a group's stamp)."""
    from companion.web import raw_reads

    read, calls = raw_reads._read, []

    def counting(engine, sql, values, *, one):  # type: ignore[no-untyped-def]
        calls.append(sql)
        return read(engine, sql, values, one=one)

    monkeypatch.setattr(raw_reads, "_read", counting)
    return calls


@pytest.mark.parametrize("path", ["/", "/players/Ann"])
def test_a_browsers_nights_are_read_once_then_again_after_a_commit_which_shows_at_once(csrf_app, monkeypatch, path):
    app = csrf_app
    reads = counting_reads(monkeypatch)
    client, keeper = remembered_page(app, path)
    reads.clear()
    for _ in range(3):
        assert "Friday at Ann" in early_page(app, client, path)
    assert reads == []  # nothing committed: the rows remembered, no statement
    with app.app_context():
        night = db.session.query(Night).filter_by(keeper_key=keeper).one()
        service.rotate_link(night, "keeper")  # this browser's mark no longer matches: the night leaves its pages
    assert "Friday at Ann" not in page(app, client, path)  # the very next request
    assert reads  # read again (and by Flask too when the page was not kept at those rows)


@pytest.mark.parametrize("path", ["/", "/players/Ann"])
def test_a_sibling_processs_commit_shows_at_once(csrf_app, monkeypatch, path):
    """A commit by another ``serve --workers`` process: counted in the memory the family shares, never told to
    this process (``committed`` does nothing here), so only the page generation can show it."""
    app = csrf_app
    client, keeper = remembered_page(app, path)
    monkeypatch.setattr(change_watch, "committed", lambda: None)  # as if the unit ran in a sibling process
    with app.app_context():
        night = db.session.query(Night).filter_by(keeper_key=keeper).one()
        service.rotate_link(night, "keeper")
    assert "Friday at Ann" not in page(app, client, path)


@pytest.mark.skipif(bool(EXTERNAL_DB), reason="SQLite's data_version: any connection's commit")
def test_any_connections_commit_to_the_sqlite_file_shows_at_once(csrf_app, monkeypatch):
    app = csrf_app
    client, keeper = remembered_page(app, "/")
    monkeypatch.setattr(change_watch, "committed", lambda: None)
    with app.app_context():
        path = db.engine.url.database
    with sqlite3.connect(path) as other:  # neither the unit of work nor this app: another program
        other.execute("UPDATE night SET name = 'Saturday at Ben' WHERE keeper_key = ?", (keeper,))
    html = page(app, client, "/")
    assert "Saturday at Ben" in html and "Friday at Ann" not in html


def test_a_commit_in_flight_leaves_the_pages_reading(csrf_app, monkeypatch):
    """While a commit is begun and not ended (in this process or a sibling), nothing read may be kept."""
    app = csrf_app
    client, _ = remembered_page(app, "/")
    reads = counting_reads(monkeypatch)
    with change_watch.committing():  # begun, not ended
        for _ in range(2):
            early_page(app, client, "/")
        if EXTERNAL_DB:
            assert len(reads) == 2  # PostgreSQL: the family's counts are apart, read
    reads.clear()
    early_page(app, client, "/")  # ended: read once more (the generation moved on) ...
    early_page(app, client, "/")  # ... then remembered
    assert len(reads) == 1


def test_two_browsers_never_see_each_others_nights_or_token(csrf_app):
    app = csrf_app
    ann, _ = browser_with_night(app, "Table of Ann")
    ben, _ = browser_with_night(app, "Table of Ben")
    for client in (ann, ben):
        visit(client, "/")
        visit(client, "/players/Ann")
    settled(app)
    secret = app.config["SECRET_KEY"]
    signer = URLSafeTimedSerializer(secret, salt="wtf-csrf-token")
    for _ in range(3):  # in alternation, each answered early from what it remembered
        for client, mine, theirs in ((ann, "Table of Ann", "Table of Ben"), (ben, "Table of Ben", "Table of Ann")):
            with client.session_transaction() as session:
                csrf_secret = session["csrf_token"]
            home = early_page(app, client, "/")
            assert mine in home and theirs not in home
            tokens = {match.group(2) for match in TOKEN.finditer(home)}
            assert tokens and all(signer.loads(token) == csrf_secret for token in tokens)  # this session's alone
            player = early_page(app, client, "/players/Ann")
            assert mine in player and theirs not in player
    stranger = app.test_client()  # knows no night: Flask's page, with none listed
    html = page(app, stranger, "/")
    assert "Table of Ann" not in html and "Table of Ben" not in html


@pytest.fixture
def group_site(csrf_app):  # type: ignore[no-untyped-def]
    with csrf_app.app_context():
        group = service.import_group(json.dumps(group_document()))
        links = (f"/g/{group.organiser_key}", f"/m/{group.member_key}")
    return csrf_app, csrf_app.test_client(), links


def test_a_groups_stamp_is_read_once_then_again_after_a_commit_which_shows_at_once(group_site, monkeypatch):
    app, client, links = group_site
    for path in links:
        visit(client, path)
    settled(app)
    reads = counting_reads(monkeypatch)
    for path in links:
        early_page(app, client, path)
    reads.clear()
    for _ in range(3):
        for path in links:
            early_page(app, client, path)
    assert reads == []
    with app.app_context():
        night = db.session.query(Night).order_by(Night.id.desc()).first()  # night 3: Ann owes Benjamin 10 chips
        service.mark_paid(night.id, "Ann", "Ben", 4, expected_version=night.version)
    assert 'data-payer="Ann" data-payee="Benjamin" data-amount="6"' in page(app, client, links[1])


def test_a_sibling_processs_change_to_a_groups_night_shows_at_once(group_site, monkeypatch):
    app, client, links = group_site
    for path in links:
        visit(client, path)
    settled(app)
    for path in links:
        early_page(app, client, path)
    monkeypatch.setattr(change_watch, "committed", lambda: None)
    with app.app_context():
        night = db.session.query(Night).order_by(Night.id).first()
        old = night.viewer_key
        service.rotate_link(night, "viewer")
        new = db.session.get(Night, night.id).viewer_key
    for path in links:
        html = page(app, client, path)
        assert old not in html and new in html


def test_an_unknown_group_link_is_never_remembered(group_site):
    """Flask counts every unknown link (security.reject_unknown_link): it must reach Flask every time."""
    app, client, links = group_site
    settled(app)
    unknown = "/g/" + "x" * 43
    statuses = [served(app, client, unknown)[:2] for _ in range(2)]
    assert statuses == [(False, "404 NOT FOUND")] * 2


def test_a_watch_that_fails_leaves_the_pages_reading(csrf_app, monkeypatch):
    app = csrf_app
    client, keeper = remembered_page(app, "/")

    def broken():  # type: ignore[no-untyped-def]
        raise RuntimeError("the watch's connection is gone")

    monkeypatch.setattr(early(app)._remembered.watch(), "page_generation", broken)
    reads = counting_reads(monkeypatch)
    assert "Friday at Ann" in early_page(app, client, "/")
    assert len(reads) == 1
    assert re.search("Friday at Ann", page(app, client, "/"))



def test_a_sibling_processs_commit_to_a_night_shows_at_once(start_night, app, monkeypatch):
    """A night's row, remembered by its link: a sibling's commit (rotating the link) shows at the next request."""
    page = start_night()
    page.declare("Ben")  # the table screen kept at the scorekeeper's tap
    settled(app)
    assert served(app, page.client, page.url)[:2] == (True, "200 OK")
    monkeypatch.setattr(change_watch, "committed", lambda: None)  # as if the unit ran in a sibling process
    with app.app_context():
        service.rotate_link(db.session.query(Night).filter_by(keeper_key=page.key).one(), "keeper")
    assert served(app, page.client, page.url)[:2] == (False, "404 NOT FOUND")


def test_an_unknown_night_link_is_never_remembered(app):
    """Flask counts every unknown link (security.reject_unknown_link): it must reach Flask every time."""
    client = app.test_client()
    settled(app)
    for unknown in ("/k/" + "x" * 43, "/p/" + "x" * 43 + "/report"):
        assert [served(app, client, unknown)[:2] for _ in range(2)] == [(False, "404 NOT FOUND")] * 2


@pytest.mark.parametrize("path", ["/", "/players/Ann"])
def test_one_request_looks_at_the_change_watch_once(csrf_app, monkeypatch, path):
    """A page kept by two remembered reads (its stamp, the browser's nights) takes one generation for both: on
    SQLite each look is a ``data_version`` read."""
    app = csrf_app
    client, _ = remembered_page(app, path)
    watch = early(app)._remembered.watch()
    looks, look = [], watch.page_generation

    def counted():  # type: ignore[no-untyped-def]
        looks.append(1)
        return look()

    monkeypatch.setattr(watch, "page_generation", counted)
    assert "Friday at Ann" in early_page(app, client, path)
    assert len(looks) == 1
