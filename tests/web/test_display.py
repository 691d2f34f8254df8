"""The table display (issue 39, docs/display.md): its own read-only link, made, replaced and taken back on the
share page, and its page, live part and stream, for a night of two games told apart by their own parts.

The night: Ann, Ben, Cat, Dan; Ann deals; ante 1, 5 tokens, antes returned; a chip is 0.25 EUR.
Napalm (game 1): antes 1 each (pot 4); Ben and Cat say Yes, Cat wins: Ben pays Cat 4; Dan alone says Yes at
stage 2 (a token).  Then Nap (plain, stake 1; Ben deals) for all four: Napalm stops with its pot of 4, each
ante coming back, so it closes at Ann 0, Ben -4, Cat +4, Dan 0.  Nap's first deal: Cat bids 2 and makes it:
each of the three others pays her 2 (Cat +6).  The night: Ann -2, Ben -6, Cat +10, Dan -2, in money
-0.50, -1.50, +2.50, -0.50 EUR; settled in three payments, each to Cat: Ben 6 (1.50), Ann 2 (0.50), Dan 2 (0.50).
"""

from __future__ import annotations

import html as htmllib
import re

from companion import service as services
from companion.extensions import db
from companion.db.models import DisplayLink, Night
from pages import TablePage


def _text(html: str) -> str:
    return htmllib.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))


def _stamp(html: str) -> dict[str, str]:
    return dict(re.findall(r'name="(version|request_key)"[^>]*value="([^"]+)"', html))


def _display_key(app, table: TablePage) -> str | None:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.scalar(db.select(DisplayLink.key).join(Night, Night.id == DisplayLink.night_id)
                                 .where(Night.keeper_key == table.key))


def _make_display(client, app, table: TablePage, do: str = "new") -> str | None:  # type: ignore[no-untyped-def]
    response = client.post(f"{table.url}/display", data={"do": do})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"{table.url}/share#display-h")
    return _display_key(app, table)


def _mixed_night(client, start_night) -> TablePage:  # type: ignore[no-untyped-def]
    table = start_night()
    table.declare("Ben", "Cat")
    table.winner("Cat")
    table.declare("Dan")
    html = client.get(f"{table.url}/next-game?game=nap").get_data(as_text=True)
    response = client.post(f"{table.url}/next-game", data={
        **_stamp(html), "game": "nap", "players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": "Ben",
        "variant": "plain", "misere": "y", "stake": "1",
    })
    assert response.status_code == 303
    table.refresh()
    table.post("deal", {"bidder": "Cat", "bid": "2", "result": "made"})
    return table


def test_the_display_link_is_made_replaced_and_taken_back_on_the_share_page(start_night, client, app):
    table = start_night()
    share = client.get(f"{table.url}/share").get_data(as_text=True)
    assert "Make a display link" in share and "/d/" not in share  # a night has none until the scorekeeper asks
    first = _make_display(client, app, table)
    assert first
    share = client.get(f"{table.url}/share").get_data(as_text=True)
    assert f"/d/{first}" in share and "QR code of the table display" in share and "Take the display link back" in share
    viewer = app.test_client()  # the tablet
    assert viewer.get(f"/d/{first}").status_code == 200

    second = _make_display(client, app, table)  # replaced: the old link is an unknown link
    assert second and second != first
    assert viewer.get(f"/d/{first}").status_code == 404
    assert viewer.get(f"/d/{second}").status_code == 200

    assert _make_display(client, app, table, "take-back") is None
    for path in (f"/d/{second}", f"/d/{second}/live", f"/d/{second}/stream"):
        assert viewer.get(path).status_code == 404, path
    assert "Make a display link" in client.get(f"{table.url}/share").get_data(as_text=True)
    again = client.post(f"{table.url}/display", data={"do": "take-back"}, follow_redirects=True)
    assert "taken back already; nothing was changed" in _text(again.get_data(as_text=True))
    assert client.post(f"{table.url}/display", data={"do": "nothing"}).status_code == 400
    with app.app_context():  # a link is not a record: the night's version did not move
        assert db.session.scalar(db.select(Night.version).where(Night.keeper_key == table.key)) == 0


def test_the_display_link_opens_the_display_and_nothing_else(start_night, client, app):
    table = start_night()
    key = _make_display(client, app, table)
    with app.app_context():
        viewer_key = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == table.key))
    tablet = app.test_client()
    for path in (f"/k/{key}", f"/k/{key}/history", f"/k/{key}/share", f"/k/{key}/report", f"/p/{key}",
                 f"/p/{key}/live", f"/p/{key}/report", f"/p/{key}/stream"):
        assert tablet.get(path).status_code == 404, path
    assert tablet.post(f"/k/{key}/declare", data={"nobody": "1", "version": "0"}).status_code == 404
    assert tablet.post(f"/k/{key}/display", data={"do": "take-back"}).status_code == 404
    # and the display opens by its own link alone
    for other in (table.key, viewer_key):
        assert tablet.get(f"/d/{other}").status_code == 404
    page = tablet.get(f"/d/{key}").get_data(as_text=True)
    assert table.key not in page and viewer_key not in page
    assert _display_key(app, table) == key


def test_the_display_shows_a_mixed_night_worked_out_by_hand(start_night, client, app):
    table = _mixed_night(client, start_night)
    key = _make_display(client, app, table)
    response = app.test_client().get(f"/d/{key}")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    html = response.get_data(as_text=True)
    text = _text(html)
    assert 'data-wake-lock="always"' in html and f'data-stream="/d/{key}/stream"' in html
    assert "2nd game: Nap" in text and "Deal 2: Cat deals. Who won the bid?" in text  # Ben dealt deal 1
    assert 'class="dealer-name">Cat<' in html and 'class="deal-no">Deal 2<' in html
    rows = re.findall(r'data-player="(\w+)">.*?class="num net[^"]*">([^<]+)</td>\s*<td class="num">([^<]+)</td>', html, re.S)
    assert rows == [("Ann", "-2", "-0.50 EUR"), ("Ben", "-6", "-1.50 EUR"), ("Cat", "+10", "2.50 EUR"),
                    ("Dan", "-2", "-0.50 EUR")]
    assert '<tr class=" dealer" data-player="Cat">' in html
    payments = re.findall(r'data-payment="(\w+) → (\w+)">.*?class="amount">([^<]+)</span> <span class="muted">\(([^)]+)\)', html)
    assert payments == [("Ann", "Cat", "0.50 EUR", "2 chips"), ("Ben", "Cat", "1.50 EUR", "6 chips"),
                        ("Dan", "Cat", "0.50 EUR", "2 chips")]
    assert "If the night ended now" in text and "Settle up" not in text
    assert "#5 Deal 1 · Cat made 2: +6; Ann, Ben, Dan −2 each" in text  # the game's own words for its record

    # the settle-up under way: a payment marked paid turns the display to the settle-up
    paid = client.post(f"{table.url}/paid", data={"version": "5", "request_key": services.new_key(), "payer": "Ben",
                                                  "payee": "Cat", "chips": "6", "view": "plan"})
    assert paid.status_code == 303
    html = app.test_client().get(f"/d/{key}").get_data(as_text=True)
    assert 'class="board settling"' in html and "Settle up" in html
    assert re.search(r'<li class="paid" data-payment="Ben → Cat">.*?Paid ✓', html)


def test_the_live_part_answers_304_while_unchanged_and_the_stream_sends_the_table_first(start_night, client, app):
    table = start_night()
    key = _make_display(client, app, table)
    tablet = app.test_client()
    live = tablet.get(f"/d/{key}/live")
    tag = live.headers["ETag"].strip('"')
    assert live.status_code == 200 and tag.startswith("d-v0-") and 'class="board' in live.get_data(as_text=True)
    assert tablet.get(f"/d/{key}/live", headers={"If-None-Match": f'"{tag}"'}).status_code == 304
    table.declare("Ben", "Cat")  # antes 1 each: pot 4
    changed = tablet.get(f"/d/{key}/live", headers={"If-None-Match": f'"{tag}"'})
    assert changed.status_code == 200 and changed.headers["ETag"].strip('"').startswith("d-v1-")

    stream = tablet.get(f"/d/{key}/stream")
    assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
    body = stream.get_data(as_text=True)
    assert body.startswith("retry: 1000\n\nid: 1\ndata: ")
    assert 'data-pot="4"' in body and 'data-player="Ben"' in body
    assert tablet.get(f"/d/{key}/stream?since=1").get_data(as_text=True) == "retry: 1000\n\n"  # nothing new


def test_migration_0014_adds_the_display_links_and_goes_back_down_keeping_the_nights(make_app, tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import inspect

    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0014.sqlite'}")
    with app.app_context():
        db.drop_all()
        upgrade()
        with db.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []
            assert {i["name"]: i["unique"] for i in inspect(connection).get_indexes("display_link")} == {
                "ix_display_link_key": 1, "ix_display_link_night_id": 1}
        db.session.execute(db.text(
            "INSERT INTO night (name, keeper_key, viewer_key, players, chip_value, currency, version, created_at)"
            " VALUES ('Friday', 'k' || hex(randomblob(24)), 'v' || hex(randomblob(24)), '[\"Ann\", \"Ben\"]', 0, '',"
            " 0, '2026-11-01 20:00:00')"
        ))
        db.session.commit()
        db.session.remove()
        downgrade(revision="0013")
        with db.engine.connect() as connection:
            assert "display_link" not in inspect(connection).get_table_names()
            assert connection.execute(db.text("SELECT name FROM night")).scalars().all() == ["Friday"]
        upgrade()
        with db.engine.connect() as connection:
            assert "display_link" in inspect(connection).get_table_names()
