"""The players' live view under load: the cheap 304, and the caches that must never show a stale table.

A poll that finds nothing new is answered before Flask runs (players.NotModified); a
changed table is rendered from standings kept per night and version.  Neither may
hide a change made by this or another process, leak one phone's "me" to another,
or skip the link limiter.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select, text, update

from companion.extensions import db
from companion.models import Night
from conftest import EXTERNAL_DB

SKIP = {"Date", "ETag"}


def links(app, page) -> tuple[str, str]:
    with app.app_context():
        night = db.session.scalar(select(Night).where(Night.keeper_key == page.key))
        return night.keeper_key, night.viewer_key


def poll(client, key: str, etag: str | None = None):
    headers = {"If-None-Match": etag} if etag else {}
    return client.get(f"/p/{key}/live", headers=headers)


def test_an_unchanged_table_costs_a_304_with_the_headers_flask_would_send(app, client, start_night):
    page = start_night()
    page.declare("Ben", "Cat")
    keeper, viewer = links(app, page)
    first = poll(client, viewer)
    assert first.status_code == 200
    fast = poll(client, viewer, first.headers["ETag"])  # answered by the middleware
    slow = poll(client, keeper, first.headers["ETag"])  # a scorekeeper's link: through Flask
    assert fast.status_code == slow.status_code == 304
    assert fast.headers["ETag"] == slow.headers["ETag"] == first.headers["ETag"]
    assert fast.get_data() == slow.get_data() == b""
    assert {k: v for k, v in fast.headers.items() if k not in SKIP} == {
        k: v for k, v in slow.headers.items() if k not in SKIP
    }
    assert fast.headers["Cache-Control"] == "no-cache"
    assert "Content-Security-Policy" in fast.headers


def test_a_change_is_seen_by_the_very_next_poll(app, client, start_night):
    page = start_night()
    _, viewer = links(app, page)
    etag = poll(client, viewer).headers["ETag"]
    assert poll(client, viewer, etag).status_code == 304
    page.declare("Ben", "Cat")
    changed = poll(client, viewer, etag)
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert 'data-pot="4"' in changed.get_data(as_text=True)
    assert poll(client, viewer, changed.headers["ETag"]).status_code == 304
    page.undo()
    undone = poll(client, viewer, changed.headers["ETag"])
    assert undone.status_code == 200 and 'data-pot="0"' in undone.get_data(as_text=True)
    assert 'class="voided' in undone.get_data(as_text=True)


def test_each_phone_sees_its_own_line_from_the_same_kept_standings(app, make_app, start_night):
    page = start_night()
    page.declare("Ben", "Cat")
    page.winner("Cat")
    _, viewer = links(app, page)
    phones = {}
    for name in ("Ann", "Cat", None):
        phone = app.test_client()
        if name:
            phone.get(f"/p/{viewer}/me?name={name}")
        phones[name] = poll(phone, viewer, '"outdated"').get_data(as_text=True)
    assert "<strong>Ann</strong>: 0 tokens, -1 chips" in phones["Ann"]
    assert "<strong>Cat</strong>: 0 tokens, +3 chips" in phones["Cat"]
    assert 'class="mine"' not in phones[None]
    assert '<tr class="me' not in phones[None] and phones["Ann"].count('<tr class="me') == 1


def test_the_link_limiter_still_blocks_a_guessing_client(make_app, start_night):
    app = make_app(FAILED_LINK_LIMIT=3)
    client = app.test_client()
    response = client.post("/nights", data={"seat_1": "Ann", "seat_2": "Ben", "first_dealer": "1", "ante": "1",
                                           "ante_every": "1", "tokens_to_win": "5", "chip_value": "0",
                                           "unfinished_pot": "return_antes"})
    assert response.status_code == 303
    keeper = response.headers["Location"].rsplit("/", 1)[1]
    with app.app_context():
        viewer = db.session.scalar(select(Night.viewer_key).where(Night.keeper_key == keeper))
    etag = poll(client, viewer).headers["ETag"]
    for guess in range(3):
        assert client.get(f"/p/guess{guess}{'x' * 30}/live").status_code == 404
    assert poll(client, viewer, etag).status_code == 429


def test_a_head_or_an_unknown_link_goes_the_usual_way(app, client, start_night):
    page = start_night()
    _, viewer = links(app, page)
    etag = poll(client, viewer).headers["ETag"]
    assert client.head(f"/p/{viewer}/live", headers={"If-None-Match": etag}).status_code == 304
    assert poll(client, "x" * 43, etag).status_code == 404
    assert poll(client, viewer + "!", etag).status_code == 404
    assert client.post(f"/p/{viewer}/live", headers={"If-None-Match": etag}).status_code in (400, 405)


def test_a_setup_changed_by_another_process_is_never_hidden_by_this_ones_caches(app, client, start_night):
    """Before play, another process may change the seating (update_setup): the cached fold must not win."""
    page = start_night()
    _, viewer = links(app, page)
    assert "Dan" in page.refresh() and "Dan" in client.get(f"/p/{viewer}").get_data(as_text=True)
    with app.app_context():  # as another process's update_setup would, leaving this one's caches alone
        db.session.execute(
            update(Night).where(Night.keeper_key == page.key).values(players=["Ann", "Ben", "Cat", "Eve"])
        )
        db.session.commit()
    assert "Eve" in page.refresh() and "Dan" not in page.html
    players_page = client.get(f"/p/{viewer}").get_data(as_text=True)
    assert 'data-player="Eve"' in players_page and 'data-player="Dan"' not in players_page
    page.declare("Eve")  # the fold the scorekeeper records on has the new seating too
    assert page.tokens("Eve") == 1  # a lone Yes: her first token


@pytest.mark.skipif(not (EXTERNAL_DB or "").startswith("postgresql"), reason="PostgreSQL only")
def test_a_connection_the_server_dropped_costs_no_poll(app, client, start_night):
    page = start_night()
    _, viewer = links(app, page)
    etag = poll(client, viewer).headers["ETag"]
    assert poll(client, viewer, etag).status_code == 304  # the poll pool now holds a connection
    with app.app_context():
        db.session.execute(text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ))
        db.session.commit()
    for _ in range(3):
        assert poll(client, viewer, etag).status_code == 304


def test_the_fragment_made_from_kept_parts_is_the_one_the_template_makes(app, client, start_night):
    """Byte for byte, for every "me" (a name to escape included) and at every version."""
    from flask import render_template

    from companion.views.common import standings_of
    from companion.views.players import RECENT

    page = start_night(seat_3='Cat "&" <Co>', tokens_to_win="2")
    _, viewer = links(app, page)
    names = ["Ann", "Ben", 'Cat "&" <Co>', "Dan"]
    for step in range(6):
        if step == 1:
            page.declare("Ben", 'Cat "&" <Co>')
        elif step == 2:
            page.winner('Cat "&" <Co>')
        elif step >= 3:
            page.declare("Dan")
        with app.app_context():
            night = db.session.scalar(select(Night).where(Night.viewer_key == viewer))
            for me in [None, *names]:
                phone = app.test_client()
                if me:
                    assert phone.get(f"/p/{viewer}/me", query_string={"name": me}).status_code == 303
                served = poll(phone, viewer, '"outdated"').get_data(as_text=True)
                with app.test_request_context():
                    direct = render_template("players/_live.html", st=standings_of(night, RECENT), me=me, shared=None)
                assert served == direct, (step, me)
