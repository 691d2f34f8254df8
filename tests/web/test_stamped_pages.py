"""Pages kept per version (web/plumbing/kept_pages.py): each request still gets its own keys, token and messages."""

from __future__ import annotations

import re

from companion import service as services

KEY = re.compile(r'name="request_key" required type="hidden" value="([A-Za-z0-9_-]+)"')
TOKEN = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')


def test_two_phones_at_one_version_get_the_same_table_with_their_own_request_keys(start_night, client, app):
    page = start_night()
    first, second = client.get(page.url).get_data(as_text=True), client.get(page.url).get_data(as_text=True)
    keys_first, keys_second = KEY.findall(first), KEY.findall(second)
    assert len(keys_first) == len(keys_second) == 1  # the first stage: the declare form alone
    assert len(set(keys_first)) == len(keys_first) and not set(keys_first) & set(keys_second)
    assert KEY.sub("", first) == KEY.sub("", second)  # all the rest is the page kept for the version
    assert "\x00" not in first


def test_the_flash_of_an_action_shows_once_on_the_kept_page(start_night, client):
    page = start_night()
    response = client.post(f"{page.url}/declare", data={**page.stamp("declare"), "nobody": "1"})
    assert response.status_code == 303
    after = client.get(page.url).get_data(as_text=True)
    # four players, ante 1: nobody said Yes at stage 1, so the pot holds 4 and stage 2 is next
    flashed = re.findall(r'<p class="flash" role="status">([^<]*)</p>', after)
    assert len(flashed) == 1 and "Nobody said Yes" in flashed[0]
    assert 'data-pot="4"' in after
    again = client.get(page.url).get_data(as_text=True)
    assert '<p class="flash" role="status">' not in again


def test_a_new_scorekeeper_link_is_not_served_from_the_page_kept_for_the_old_one(start_night, client, app):
    page = start_night()
    old_key = page.key
    client.get(page.url)
    share = client.get(f"/k/{old_key}/share").get_data(as_text=True)
    request_key = re.search(r'name="request_key" value="([^"]+)"', share).group(1)
    moved = client.post(f"/k/{old_key}/rotate", data={"which": "keeper", "request_key": request_key})
    new_url = moved.headers["Location"].rsplit("/share", 1)[0]
    assert client.get(f"/k/{old_key}").status_code == 404
    html = client.get(new_url).get_data(as_text=True)
    assert old_key not in html and new_url.rsplit("/", 1)[-1] in html


def test_each_session_gets_its_own_csrf_token_in_the_kept_report(make_app):
    app = make_app(WTF_CSRF_ENABLED=True)
    one, two = app.test_client(), app.test_client()
    home = one.get("/").get_data(as_text=True)
    from pages import night_form

    created = one.post("/nights", data={**night_form(), "csrf_token": TOKEN.search(home).group(1)})
    url = created.headers["Location"]
    table_one = one.get(url).get_data(as_text=True)
    table_two = two.get(url).get_data(as_text=True)
    token_one, token_two = TOKEN.search(table_one).group(1), TOKEN.search(table_two).group(1)
    assert token_one != token_two
    # each phone's token is the one its own session accepts: a stage recorded from each page
    stamp = {"version": "0", "request_key": KEY.findall(table_two)[0], "csrf_token": token_two, "nobody": "1"}
    assert two.post(f"{url}/declare", data=stamp).status_code == 303
    assert set(TOKEN.findall(one.get(f"{url}/report").get_data(as_text=True))) <= {token_one}
    with app.app_context():
        assert services.new_key() not in table_one


# --- the kept pages' fast path: one statement per request (web/plumbing/links.keeper_link) -------------

PAGES = ("", "/report", "/history")
VERSION = re.compile(r'name="version"[^>]*value="(\d+)"')


def _another_process_declares(app, keeper_key: str, version: int) -> None:
    """Record "Nobody said Yes" from a separate Python process on the same database: this one's caches never see it."""
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    script = textwrap.dedent(
        f"""
        from companion import service as services
        from companion import create_app
        from companion.games.napalm import Declare
        from companion.db.models import Night
        from companion.extensions import db
        app = create_app({{"SQLALCHEMY_DATABASE_URI": {app.config["SQLALCHEMY_DATABASE_URI"]!r}, "SECRET_KEY": "x" * 48}})
        with app.app_context():
            night = db.session.scalar(db.select(Night).where(Night.keeper_key == {keeper_key!r}))
            services.record(night.id, Declare(()), {version})
        """
    )
    repo = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", script], cwd=repo, check=True, timeout=120)


def test_a_version_recorded_by_another_process_shows_at_once_on_every_kept_page(start_night, client, app):
    page = start_night()
    page.declare("Ben")  # version 1: the pages are kept from here on
    before = {path: client.get(page.url + path).get_data(as_text=True) for path in PAGES}
    assert set(VERSION.findall(client.get(page.url).get_data(as_text=True))) == {"1"}  # the kept table
    _another_process_declares(app, page.key, 1)
    assert set(VERSION.findall(client.get(page.url).get_data(as_text=True))) == {"2"}
    history = client.get(f"{page.url}/history").get_data(as_text=True)
    assert history.count("Nobody said Yes") == before["/history"].count("Nobody said Yes") + 1
    report = client.get(f"{page.url}/report").get_data(as_text=True)
    assert KEY.sub("", report) != KEY.sub("", before["/report"])


def test_a_kept_page_is_never_served_to_a_wrong_or_players_link(start_night, client, app):
    page = start_night()
    page.declare("Ben")
    for path in PAGES:
        assert client.get(page.url + path).status_code == 200  # kept now
    with app.app_context():
        from companion.db.models import Night
        from companion.extensions import db

        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == page.key))
    near = page.key[:-1] + ("A" if page.key[-1] != "A" else "B")
    for path in PAGES:
        assert client.get(f"/k/{viewer}{path}").status_code == 403  # the players' link cannot look here
        assert client.get(f"/k/{near}{path}").status_code == 404
        assert client.get(f"/k/{page.key}x{path}").status_code == 404
        assert client.get(f"/k/{page.key[:20]}{path}").status_code == 404


def test_a_kept_page_reads_one_statement_and_keeps_the_security_headers(start_night, client, app):
    from sqlalchemy import event

    from companion.db.engine import reads_engine
    from companion.extensions import db

    page = start_night()
    page.declare("Ben")
    for path in PAGES:
        client.get(page.url + path)
    statements: list[str] = []
    with app.app_context():
        engine = db.engine
    reads = reads_engine(app)  # on a server database, the kept pages' reads have a pool of their own
    engines = [engine] if reads.pool is engine.pool else [engine, reads]
    listener = lambda *args: statements.append(args[2])  # noqa: E731 - (conn, cursor, statement, ...)
    for each in engines:
        event.listen(each, "before_cursor_execute", listener)
    try:
        for path in PAGES:
            response = client.get(page.url + path)
            assert response.status_code == 200
            assert response.headers["Content-Type"] == "text/html; charset=utf-8"
            assert response.headers["Cache-Control"] == "no-store"
            assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
            assert response.headers["Referrer-Policy"] == "no-referrer"
            assert response.headers["X-Robots-Tag"] == "noindex"
    finally:
        for each in engines:
            event.remove(each, "before_cursor_execute", listener)
    selects = [statement for statement in statements if statement.lstrip().upper().startswith("SELECT")]
    assert len(selects) == len(PAGES)  # the night's row by its link, read by the service; the page itself is kept
    assert selects == statements  # no BEGIN nor ROLLBACK around it (issue 37), nor anything else
    assert all("keeper_key" in statement for statement in selects)


def test_a_second_browser_opening_a_kept_page_lists_the_night_as_its_own(start_night, client, app):
    page = start_night(name="Saturday")
    page.declare("Ben")
    client.get(page.url)  # kept
    other = app.test_client()
    assert other.get(page.url).status_code == 200  # served from what is kept
    assert "Saturday" in other.get("/nights").get_data(as_text=True)
    assert "Saturday" not in app.test_client().get("/nights").get_data(as_text=True)
