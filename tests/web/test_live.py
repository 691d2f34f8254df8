"""The players' poll (a browser without EventSource): the cheap 304, and the caches that must never show a stale table.

A poll that finds nothing new is a 304 from the view, before anything is rendered; a changed
table is rendered from standings kept per night and version, and the fragment once per version
and player.  Neither may hide a change made by this or another process, leak one phone's "me"
to another, or skip the link limiter.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from sqlalchemy import select, text, update

from companion.extensions import db
from companion.db.models import Game, Night
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
    fast = poll(client, viewer, first.headers["ETag"])  # the players' link: no session read, nothing rendered
    slow = poll(client, keeper, first.headers["ETag"])  # a scorekeeper's link: the night loaded
    assert fast.status_code == slow.status_code == 304
    assert fast.headers["ETag"] == slow.headers["ETag"] == first.headers["ETag"]
    assert fast.get_data() == slow.get_data() == b""
    assert {k: v for k, v in fast.headers.items() if k not in SKIP} == {
        k: v for k, v in slow.headers.items() if k not in SKIP
    }
    assert fast.headers["Cache-Control"] == "no-store"
    assert "Content-Security-Policy" in fast.headers


def test_a_304_names_what_the_table_varies_by_as_its_200_does(app, client, start_night):
    """RFC 9110 (15.4.5): a 304 carries the Vary its 200 would have: the fragment depends on the phone's
    session (who "me" is), so a cache between the phone and the app must not answer one phone's poll with
    another's; both ways to a 304 (by the players' link and by the scorekeeper's) say so."""
    page = start_night()
    page.declare("Ben", "Cat")
    keeper, viewer = links(app, page)
    first = poll(client, viewer)
    assert first.headers["Vary"] == "Cookie"
    for link in (viewer, keeper):
        unchanged = poll(client, link, first.headers["ETag"])
        assert unchanged.status_code == 304, link
        assert unchanged.headers.get("Vary") == "Cookie", link


def test_if_none_match_is_read_as_werkzeug_reads_it(app, client, start_night):
    """The phone's own tag, a list holding it, or "*": 304; another tag: 200."""
    page = start_night()
    page.declare("Ben", "Cat")
    keeper, viewer = links(app, page)
    tag = poll(client, viewer).headers["ETag"]
    for asked, status in ((tag, 304), (f'"older", {tag}', 304), ("*", 304), ('"older"', 200), (tag[:-2] + '"', 200)):
        assert poll(client, viewer, asked).status_code == status, asked
        assert poll(client, keeper, asked).status_code == status, asked


def test_a_change_is_seen_by_the_very_next_poll(app, client, start_night):
    """This process's own commit is seen at once."""
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
    assert "<strong>Ann</strong>: 0 tokens, -1 chip" in phones["Ann"]
    assert "<strong>Cat</strong>: 0 tokens, +3 chips" in phones["Cat"]
    assert 'class="mine"' not in phones[None]
    assert '<tr class="me' not in phones[None] and phones["Ann"].count('<tr class="me') == 1


def test_the_link_limiter_blocks_a_guessing_clients_guesses_but_never_its_valid_link(make_app, start_night):
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
    assert client.get(f"/p/guess9{'x' * 30}/live").status_code == 429
    assert poll(client, viewer, etag).status_code == 304  # the phone's own link still answers


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
        night_id = db.session.scalar(select(Night.id).where(Night.keeper_key == page.key))
        db.session.execute(  # the night's one game is played by everyone seated
            update(Game).where(Game.night_id == night_id).values(players=["Ann", "Ben", "Cat", "Eve"])
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


def test_the_fragment_kept_per_version_and_player_is_the_one_the_template_makes(app, client, start_night):
    """Byte for byte, for every "me" (a name to escape included) and at every version."""
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
        for me in [None, *names]:
            served = poll(phone_of(app, viewer, me), viewer, '"outdated"').get_data(as_text=True)
            assert served == the_template_for(app, viewer, me), (step, me)


def phone_of(app, viewer: str, me: str | None):
    phone = app.test_client()
    if me:
        assert phone.get(f"/p/{viewer}/me", query_string={"name": me}).status_code == 303
    return phone


def the_template_for(app, viewer: str, me: str | None) -> str:
    """The fragment as the template renders it from the night in the database (nothing kept)."""
    from flask import render_template

    from companion.web.pages.players import RECENT
    from companion.web.pages.standings import standings_of

    with app.app_context():
        night = db.session.scalar(select(Night).where(Night.viewer_key == viewer))
        with app.test_request_context():
            return render_template("players/_live.html", st=standings_of(night, RECENT), me=me)


def test_the_players_link_and_a_scorekeepers_link_poll_the_same_fragment_and_headers(app, start_night):
    page = start_night(seat_3='Cat "&" <Co>')
    page.declare("Ben", 'Cat "&" <Co>')
    page.winner('Cat "&" <Co>')
    page.declare("Dan")
    keeper, viewer = links(app, page)
    for me in [None, "Ann", 'Cat "&" <Co>', "Dan"]:
        phone = phone_of(app, viewer, me)
        by_keeper = poll(phone, keeper, '"outdated"')  # a scorekeeper's link: the night loaded
        by_viewer = poll(phone, viewer, '"outdated"')
        assert by_viewer.status_code == by_keeper.status_code == 200
        assert by_viewer.get_data() == by_keeper.get_data(), me
        assert by_viewer.get_data(as_text=True) == the_template_for(app, viewer, me), me
        assert list(by_viewer.headers.items()) == list(by_keeper.headers.items()), me
        assert by_viewer.headers["Vary"] == "Cookie" and "Set-Cookie" not in by_viewer.headers
        assert by_viewer.headers["Content-Length"] == str(len(by_viewer.get_data()))
    assert '<section class="mine"' in by_viewer.get_data(as_text=True)
    assert '<tr class="me' in by_viewer.get_data(as_text=True)


def test_a_stale_etag_after_a_recorded_action_gets_the_new_standings(app, start_night):
    page = start_night()
    _, viewer = links(app, page)
    ann, ben = phone_of(app, viewer, "Ann"), phone_of(app, viewer, "Ben")
    page.declare("Ben", "Cat")
    etag = poll(ann, viewer, '"outdated"').headers["ETag"]
    assert poll(ben, viewer, etag).status_code == 304
    before = poll(ben, viewer, '"outdated"')
    assert before.headers["ETag"] == etag and "Stage 1</strong>" in before.get_data(as_text=True)

    page.winner("Cat")  # a recorded action: a new version
    first = poll(ann, viewer, etag)
    assert first.status_code == 200 and first.headers["ETag"] != etag
    second = poll(ben, viewer, etag)
    assert second.status_code == 200 and second.headers["ETag"] == first.headers["ETag"]
    assert '<strong class="stage-no">Stage 2</strong>' in second.get_data(as_text=True)
    assert "<strong>Ben</strong>: 0 tokens, -5 chips" in second.get_data(as_text=True)
    assert "you pay 1.00 EUR (4 chips) to Cat." in second.get_data(as_text=True)
    assert "<strong>Ann</strong>: 0 tokens, -1 chip" in first.get_data(as_text=True)
    assert second.get_data(as_text=True) == the_template_for(app, viewer, "Ben")
    assert poll(ben, viewer, second.headers["ETag"]).status_code == 304

    page.undo()  # and back: the undone version is new again, never the kept one of before
    poll(ann, viewer, second.headers["ETag"])
    undone = poll(ben, viewer, second.headers["ETag"])
    assert undone.headers["ETag"] not in (etag, second.headers["ETag"])
    assert 'class="voided' in undone.get_data(as_text=True)
    assert undone.get_data(as_text=True) == the_template_for(app, viewer, "Ben")


def test_this_is_me_is_read_from_each_poll_s_own_cookie(app, start_night):
    page = start_night()
    page.declare("Ben", "Cat")
    page.winner("Cat")
    _, viewer = links(app, page)
    poll(app.test_client(), viewer)  # the first poll of this version keeps its standings
    phone = phone_of(app, viewer, "Ann")
    as_ann = poll(phone, viewer, '"outdated"').get_data(as_text=True)
    assert "<strong>Ann</strong>: 0 tokens, -1 chip" in as_ann
    assert as_ann.count('<tr class="me') == 1 and re.search(r'<tr class="me[ a-z]*" data-player="Ann">', as_ann)
    assert phone.get(f"/p/{viewer}/me?name=Cat").status_code == 303  # the same phone changes its mind
    as_cat = poll(phone, viewer, '"outdated"').get_data(as_text=True)
    assert "<strong>Cat</strong>: 0 tokens, +3 chips" in as_cat and "<strong>Ann</strong>" not in as_cat
    assert re.search(r'<tr class="me[ a-z]*" data-player="Cat">', as_cat) and as_cat == the_template_for(app, viewer, "Cat")
    assert phone.get(f"/p/{viewer}/me?name=").status_code == 303  # (nobody)
    nobody = poll(phone, viewer, '"outdated"').get_data(as_text=True)
    assert 'class="mine"' not in nobody and '<tr class="me' not in nobody

    # a cookie signed with another key is no session; nothing is sent back
    other = SimpleNamespace(secret_key="another-secret-key-that-is-long-enough", config={"SECRET_KEY_FALLBACKS": []})
    with app.app_context():
        night_id = db.session.scalar(select(Night.id).where(Night.viewer_key == viewer))
    forged = app.session_interface.get_signing_serializer(other).dumps({"me": {str(night_id): "Ann"}})
    stranger = app.test_client()
    stranger.set_cookie("session", forged)
    answer = poll(stranger, viewer, '"outdated"')
    assert answer.status_code == 200 and "Set-Cookie" not in answer.headers
    assert 'class="mine"' not in answer.get_data(as_text=True)
    assert answer.get_data() == poll(app.test_client(), viewer, '"outdated"').get_data()
    # a real cookie that names someone at another night, or nobody seated here: no "mine" either
    signed = app.session_interface.get_signing_serializer(app)
    for me in ({str(night_id + 1): "Ann"}, {str(night_id): "Zed"}):
        stranger.set_cookie("session", signed.dumps({"me": me}))
        answer = poll(stranger, viewer, '"outdated"')
        assert 'class="mine"' not in answer.get_data(as_text=True) and '<tr class="me' not in answer.get_data(as_text=True)


def test_the_players_page_shows_the_same_fragment_and_mine(app, start_night):
    page = start_night()
    page.declare("Ben", "Cat")
    _, viewer = links(app, page)
    phone = phone_of(app, viewer, "Ben")
    fragment = poll(phone, viewer, '"outdated"').get_data(as_text=True)
    shown = phone.get(f"/p/{viewer}").get_data(as_text=True)
    assert "<strong>Ben</strong>:" in fragment and fragment in shown


def test_a_scorekeeper_link_an_unknown_link_or_a_head(app, client, start_night):
    page = start_night()
    page.declare("Ben", "Cat")
    keeper, viewer = links(app, page)
    fresh = poll(client, viewer, '"outdated"')
    assert poll(client, viewer, '"outdated"').get_data() == fresh.get_data()
    by_keeper = poll(client, keeper, '"outdated"')
    assert by_keeper.status_code == 200 and by_keeper.get_data() == fresh.get_data()
    assert poll(client, keeper, fresh.headers["ETag"]).status_code == 304
    assert poll(client, "x" * 43, '"outdated"').status_code == 404
    assert poll(client, "x" * 43).status_code == 404
    assert client.head(f"/p/{viewer}/live", headers={"If-None-Match": '"outdated"'}).status_code == 200


def test_another_processs_commit_is_seen_by_the_next_poll(app, client, start_night, monkeypatch):
    """Every poll reads the night's version: a commit this process was not told of is seen at once."""
    from companion.db import change_watch

    page = start_night()
    _, viewer = links(app, page)
    etag = poll(client, viewer).headers["ETag"]
    assert poll(client, viewer, etag).status_code == 304
    monkeypatch.setattr(change_watch, "committed", lambda: None)  # as if the unit ran in another process
    page.declare("Ben", "Cat")
    assert poll(client, viewer, etag).status_code == 200


def test_a_changed_table_is_rendered_once_per_version_and_player(app, start_night, monkeypatch):
    from companion.web.pages import players

    page = start_night()
    page.declare("Ben", "Cat")
    _, viewer = links(app, page)
    phones = [phone_of(app, viewer, me) for me in ("Ann", "Ann", "Ben")]
    render, rendered = players.render_template, []

    def counting(name, **context):
        if name == "players/_live.html":
            rendered.append(context["me"])
        return render(name, **context)

    monkeypatch.setattr(players, "render_template", counting)
    answers = [poll(phone, viewer, '"outdated"') for phone in phones * 2]
    assert rendered == ["Ann", "Ben"]
    bodies = [answer.get_data(as_text=True) for answer in answers]
    assert bodies[0] == bodies[1] == bodies[3] and bodies[2] == bodies[5] != bodies[0]
    assert "<strong>Ann</strong>" in bodies[0] and "<strong>Ben</strong>" in bodies[2]
    page.winner("Cat")  # a new version: its own answers, not the last one's
    again = [poll(phone, viewer, '"outdated"') for phone in phones[:2]]
    assert again[0].get_data() == again[1].get_data() != answers[0].get_data()
    assert again[0].headers["ETag"] == again[1].headers["ETag"] != answers[0].headers["ETag"]
