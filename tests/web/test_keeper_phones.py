"""A second scorekeeper's phone (issue 39): its own keeper link, named, made on the share page and taken back.

A phone's link opens the night's keeper pages and takes the same commands as the first link; every page and
redirect it is answered carries its own link, never the first one; each record says which phone made it;
taking a link back (confirmed) makes it open nothing at once, and edits no record.
"""

from __future__ import annotations

import html as markup
import re

from flask.testing import FlaskClient

from pages import TablePage


def _text(response) -> str:  # type: ignore[no-untyped-def]
    """The page as a person reads it (``Ben's``, not ``Ben&#39;s``)."""
    return markup.unescape(response.get_data(as_text=True))


def make_phone(client: FlaskClient, table: TablePage, name: str) -> str:
    """Tap *Make a keeper link* on ``table``'s share page with ``name``: the new phone's own table address."""
    share = _text(client.get(f"{table.url}/share"))
    request_key = re.search(r'name="request_key" type="hidden" value="([^"]+)"', share.split('class="new-phone"')[1])
    response = client.post(f"{table.url}/phones", data={"name": name, "request_key": request_key.group(1)})
    assert response.status_code == 303, _text(response)
    page = _text(client.get(response.headers["Location"]))
    made = re.search(r'made=(\d+)', response.headers["Location"]).group(1)
    block = page.split(f'id="phone-{made}"')[1]
    return re.search(r'<p class="link"><a href="http://[^/]+(/k/[^"]+)"', block).group(1)


def take_back(client: FlaskClient, url: str, phone: str):
    """Open the confirm page for ``phone``'s link from ``url`` (a keeper phone's table) and tap its one button."""
    ask = client.get(f"{url}/phones/take-back?phone={phone}")
    assert ask.status_code == 200, _text(ask)
    html = _text(ask)
    fields = dict(re.findall(r'name="(version|request_key|phone)"[^>]*value="([^"]+)"', html))
    fields.update({k: v for v, k in re.findall(r'value="([^"]+)"[^>]*name="(version|request_key)"', html)})
    return client.post(f"{url}/phones/take-back", data=fields), html


def test_a_second_phone_keeps_score_under_its_own_link_and_name(start_night, client, app):
    table = start_night()
    ben = make_phone(client, table, "  Ben's   phone ")  # read by the one name reader: runs of spaces made one
    assert ben != table.url
    other = app.test_client()
    phone = TablePage(other, ben)
    assert table.key not in phone.html  # its pages carry its own link, never the first one
    assert f"{ben}/declare" in phone.html
    phone.declare("Ben", "Cat")
    table.refresh()
    table.winner("Cat")
    history = _text(other.get(f"{ben}/history"))
    assert table.key not in history
    assert "recorded by Ben's phone" in history and "recorded by the first phone" in history
    share = _text(client.get(f"{table.url}/share"))
    assert "The first phone</strong> (this phone)" in share and "<strong>Ben's phone</strong>" in share


def test_a_phone_name_is_read_by_the_one_name_reader_and_refused_with_a_message(start_night, client):
    table = start_night()
    share = _text(client.get(f"{table.url}/share"))
    key = re.search(r'name="request_key" type="hidden" value="([^"]+)"', share.split('class="new-phone"')[1]).group(1)
    for name, said in (("", "name the phone"), ("Ben\u202e", "changes the direction of text"), ("Ben\x1b", "control character"),
                       ("x" * 31, "at most 30 characters"), ("scorekeeper", "names something else")):
        refused = client.post(f"{table.url}/phones", data={"name": name, "request_key": key})
        assert refused.status_code == 422 and said in _text(refused), name
    make_phone(client, table, "Ben's phone")
    again = client.post(f"{table.url}/phones", data={"name": "ben's PHONE", "request_key": key + "x"})
    assert again.status_code == 422 and "keeps score already" in _text(again)


def test_a_doubled_make_makes_one_link(start_night, client, app):
    from companion.db.models import KeeperLink
    from companion.extensions import db

    table = start_night()
    share = _text(client.get(f"{table.url}/share"))
    key = re.search(r'name="request_key" type="hidden" value="([^"]+)"', share.split('class="new-phone"')[1]).group(1)
    first = client.post(f"{table.url}/phones", data={"name": "Ben's phone", "request_key": key})
    second = client.post(f"{table.url}/phones", data={"name": "Ben's phone", "request_key": key})
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
    with app.app_context():
        assert db.session.query(KeeperLink).count() == 1


def test_a_link_taken_back_reaches_nothing_at_once_and_its_records_stay(start_night, client, app):
    table = start_night()
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    TablePage(other, ben).declare()
    ben_id = re.search(r"phone-(\d+)", _text(client.get(f"{table.url}/share"))).group(1)
    response, asked = take_back(client, table.url, ben_id)
    assert "take back Ben's phone's link?" in asked and "recorded by Ben's phone" in asked
    assert response.status_code == 303
    for path in ("", "/history", "/share", "/report"):
        assert other.get(f"{ben}{path}").status_code == 404
    assert other.post(f"{ben}/declare", data={"nobody": "1"}).status_code == 404
    history = _text(client.get(f"{table.url}/history"))
    assert "recorded by Ben's phone" in history  # nothing in the ledger is edited


def test_the_first_phone_hands_over_and_leaves_with_nothing_lost(start_night, client, app):
    table = start_night()
    ben = make_phone(client, table, "Ben's phone")
    table.declare("Ben", "Cat")
    response, asked = take_back(client, table.url, "first")
    assert "hand the table over and leave?" in asked
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert client.get(table.url).status_code == 404  # the first link reaches nothing, at once
    other = app.test_client()
    phone = TablePage(other, ben)
    phone.winner("Cat")  # the table goes on from where the first phone left it
    history = _text(other.get(f"{ben}/history"))
    assert "recorded by the first phone" in history and "recorded by Ben's phone" in history
    share = _text(other.get(f"{ben}/share"))
    assert "The first phone" not in share and "Ben's phone</strong> (this phone)" in share
    # the last keeper phone cannot leave: nobody could keep score
    mine = re.search(r"phone-(\d+)", share).group(1)
    ask = other.get(f"{ben}/phones/take-back?phone={mine}")
    assert ask.status_code == 422 and "only phone keeping score" in _text(ask)


def test_another_phone_takes_the_first_phones_link_back(start_night, client, app):
    table = start_night()
    ben = make_phone(client, table, "Ben's phone")
    other = app.test_client()
    response, asked = take_back(other, ben, "first")
    assert "take back the first phone's link?" in asked
    assert response.status_code == 303 and response.headers["Location"] == f"{ben}/share"
    assert client.get(table.url).status_code == 404
    assert other.get(ben).status_code == 200


def test_migration_0013_adds_the_keeper_links_and_goes_back_down_keeping_the_nights(make_app, tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import inspect

    from companion.extensions import db

    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0012.sqlite'}")
    with app.app_context():
        db.drop_all()
        upgrade()
        with db.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []
        db.session.execute(db.text(
            "INSERT INTO night (name, keeper_key, viewer_key, players, chip_value, currency, version, created_at)"
            " VALUES ('Friday', 'k' || hex(randomblob(24)), 'v' || hex(randomblob(24)), '[\"Ann\", \"Ben\"]', 0, '',"
            " 0, '2026-11-01 20:00:00')"
        ))
        db.session.commit()
        db.session.remove()
        downgrade(revision="0012")
        with db.engine.connect() as connection:
            assert "keeper_link" not in inspect(connection).get_table_names()
            assert connection.execute(db.text("SELECT name FROM night")).scalars().all() == ["Friday"]
        upgrade()
        with db.engine.connect() as connection:
            assert "keeper_link" in inspect(connection).get_table_names()


def test_two_phones_tapping_the_same_stage_record_one_and_the_other_is_told_what_was_recorded(
    start_night, client, app
):
    table = start_night()
    ben = make_phone(client, table, "Ben's phone")
    phone = TablePage(app.test_client(), ben)
    table.refresh()
    mine, theirs = table.stamp("declare"), phone.stamp("declare")  # both screens made at version 0
    assert phone.post("declare", {"yes": ["Ann"], "confirm": "1"}, theirs).status_code == 303
    # a doubled tap of Ben's phone records once (its request key)
    assert phone.post("declare", {"yes": ["Ann"], "confirm": "1"}, theirs).status_code == 303
    refused = table.post("declare", {"nobody": "1"}, mine)
    said = _text(refused)  # the table as it is now, with the refusal said on it (the client follows the 303)
    assert refused.status_code == 409 and refused.history[0].status_code == 303
    # by hand: the first stage of the night, recorded by Ben's phone: four antes of 1 make a pot of 4, and the
    # dealer Ann alone said Yes
    assert "Ben's phone recorded first: Ante 1 each, pot 4. Ann (dealer) alone said Yes." in said, said
    assert "Nothing from this screen was recorded" in said
    assert f"{table.url}/challenge" in said  # the table as it is now: Ann's lone Yes is open to a challenge
    history = _text(client.get(f"{table.url}/history"))
    assert history.count("<tr class=") == 1 and "recorded by Ben's phone" in history


def test_the_reports_details_say_who_recorded_how_many_records(start_night, client, app):
    table = start_night()
    ben = make_phone(client, table, "Ben's phone")
    phone = TablePage(app.test_client(), ben)
    phone.declare("Ben", "Cat")  # record 1, Ben's phone
    table.refresh()
    table.winner("Cat")  # record 2, the first phone
    table.declare()  # record 3, the first phone
    report = _text(client.get(f"{table.url}/report"))
    # by hand: the first phone made records 2 and 3, Ben's phone record 1 (listed first: it recorded first)
    details = report.split('id="recorded-h"')[1].split("</section>")[0]
    assert details.index("recorded by Ben's phone: 1 record") < details.index("recorded by the first phone: 2 records")
    assert "recorded-h" not in _text(client.get(f"/p/{re.search(r'/p/([^/]+)', _text(client.get(f'{table.url}/share'))).group(1)}/report"))
