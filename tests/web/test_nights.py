"""Starting, setting up, importing and exporting nights; several nights at once."""

from __future__ import annotations

import io
import json

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError

from companion import service as services
from companion.extensions import db
from companion.db.models import Event, Night
from pages import TablePage, night_form
from companion.night.file import Money

SPEC_EXAMPLE = {
    "format": "napalm-hand-history/1",
    "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
    "players": ["Ann", "Ben", "Cat", "Dan"],
    "first_dealer": "Ann",
    "stages": [
        {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]},
        {"stage": 2, "yes": []},
        {"stage": 3, "yes": ["Ann"], "challengers": ["Dan"],
         "cards": {"Ann": "AsKs2d3c9h9d4s", "Dan": "KhKd2h3h4h5h6h"}},
    ],
}


def test_starting_a_night_needs_two_to_seven_distinct_players(client, app):
    one = client.post("/nights", data=night_form(seat_2="", seat_3="", seat_4=""))
    assert one.status_code == 422
    assert "needs 2 to 7 players, not 1" in one.get_data(as_text=True)
    twins = client.post("/nights", data=night_form(seat_2="ann"))
    assert twins.status_code == 422
    assert "two players are called" in twins.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Night).count() == 0


def test_bad_rule_values_are_shown_next_to_their_fields(client, app):
    response = client.post("/nights", data=night_form(ante="-3", tokens_to_win="abc", chip_value="1e9"))
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert page.count('class="errors"') >= 3
    with app.app_context():
        assert db.session.query(Night).count() == 0


def test_the_up_button_swaps_seats_without_saving(client, app):
    response = client.post("/nights", data=night_form(move_up="3"))
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert page.index('value="Cat"') < page.index('value="Ben"')
    with app.app_context():
        assert db.session.query(Night).count() == 0


def test_the_first_dealer_is_the_chosen_seat(start_night):
    t = start_night(first_dealer="3")
    assert t.dealer() == "Cat"
    # Cat deals, so Dan speaks first and Cat last.
    order = [name for name in ("Dan", "Ann", "Ben", "Cat")]
    positions = [t.html.index(f'name="yes" value="{n}"') for n in order]
    assert positions == sorted(positions)


def test_setup_can_change_until_the_first_stage_is_recorded(start_night, client):
    t = start_night()
    response = client.post(f"{t.url}/setup", data=night_form(seat_1="Ann", seat_5="Eve", ante="2"))
    assert response.status_code == 303
    t.refresh()
    assert "Eve" in t.html
    t.declare()
    assert t.pot() == 10  # five players ante 2 each
    late = client.post(f"{t.url}/setup", data=night_form())
    assert late.status_code == 409


def test_importing_the_spec_example_gives_the_hand_worked_standings(client, app):
    response = client.post(
        "/import",
        data={"file": (io.BytesIO(json.dumps(SPEC_EXAMPLE).encode()), "night.json"), "name": "Imported"},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    t = TablePage(client, response.headers["Location"])
    # Hand 1, Ann deals: antes make the pot 4; Ben pays Cat 4; stage 3 Ann (dealer)
    # alone, Dan challenges and his K-high straight flush beats her pair of nines:
    # Ann pays Dan 4. Net: Ann -1-4, Ben -1-4, Cat -1+4, Dan -1+4.
    assert [t.net(n) for n in ("Ann", "Ben", "Cat", "Dan")] == [-5, -5, 3, 3]
    assert t.pot() == 4
    assert t.dealer() == "Ben"


def test_an_invalid_import_says_where_and_creates_nothing(client, app):
    bad = dict(SPEC_EXAMPLE, stages=[{"stage": 2, "yes": []}])
    response = client.post(
        "/import",
        data={"file": (io.BytesIO(json.dumps(bad).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "stages[0]" in response.get_data(as_text=True)
    assert "this is stage 1, not stage 2" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Night).count() == 0
        assert db.session.query(Event).count() == 0


def test_export_then_import_gives_the_same_night(start_night, client):
    t = start_night()
    t.declare("Ben", "Cat")
    t.tie("Ben", "Cat")
    t.declare("Dan")
    t.declare("Ann")
    t.challenge("Ben")
    t.cards(Ben="As Kd 7c 5c 3h 2h 9s", Ann="Qs Qd Qh 2c 2d 8s 9d")
    t.declare("Cat")
    t.undo()  # an undone action is not part of the export
    exported = client.get(f"{t.url}/export.json")
    assert exported.status_code == 200
    document = json.loads(exported.get_data(as_text=True))
    assert document["format"] == "companion-night/2"
    assert len(document["games"][0]["stages"]) == 3
    response = client.post(
        "/import",
        data={"file": (io.BytesIO(exported.get_data()), "night.json")},
        content_type="multipart/form-data",
    )
    copy = TablePage(client, response.headers["Location"])
    for name in ("Ann", "Ben", "Cat", "Dan"):
        assert copy.net(name) == t.net(name)
        assert copy.tokens(name) == t.tokens(name)
    assert copy.pot() == t.pot() and copy.dealer() == t.dealer()
    again = json.loads(client.get(f"{copy.url}/export.json").get_data(as_text=True))
    assert again["games"] == document["games"]


def test_two_nights_at_once_do_not_mix(start_night):
    first = start_night(name="Table one")
    second = start_night(name="Table two", seat_1="Zed", seat_2="Yan", seat_3="", seat_4="")
    first.declare("Ben")
    second.declare("Yan", "Zed")
    second.winner("Zed")
    first.refresh()
    assert first.tokens("Ben") == 1 and first.pot() == 4
    assert second.pot() == 2 and second.net("Zed") == 1 and second.net("Yan") == -3


def test_the_history_lists_every_action_with_who_and_what(start_night, client):
    t = start_night()
    t.declare("Ben", "Cat")
    t.winner("Cat")
    t.undo()
    page = client.get(f"{t.url}/history").get_data(as_text=True)
    assert page.count("<tr class=") == 3
    assert "undone by #3" in page
    assert "Ben → Cat 4" in page and "Cat → Ben 4" in page
    assert "phone " in page


def test_the_migrations_build_the_schema_the_models_describe(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'migrated.sqlite'}")
    with app.app_context():
        db.drop_all()
        upgrade()
        with db.engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), db.metadata)
    assert diff == []


def store_night_at_revision(revision: str, name: str, unfinished_pot: str) -> None:
    """Build the schema as ``revision`` left it and store a night in it, as that release did."""
    db.drop_all()
    upgrade(revision=revision)
    db.session.execute(
        db.text(
            "INSERT INTO night (name, keeper_key, viewer_key, players, first_dealer, ante, ante_every,"
            " tokens_to_win, chip_value, currency, unfinished_pot, version, created_at) VALUES"
            " (:name, 'k' || hex(randomblob(24)), 'v' || hex(randomblob(24)), '[\"Ann\", \"Ben\"]', 'Ann',"
            " 1, 1, 5, 0.25, 'EUR', :unfinished_pot, 0, '2026-11-01 20:00:00')"
        ),
        {"name": name, "unfinished_pot": unfinished_pot},
    )
    db.session.commit()


def test_a_database_made_by_the_first_release_upgrades_in_place_and_keeps_its_nights(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'old.sqlite'}")
    with app.app_context():
        store_night_at_revision("0001", "Old night", "return_antes")
        upgrade()
        night = db.session.scalars(db.select(Night)).one()
        assert (night.name, night.players, night.request_key) == ("Old night", ["Ann", "Ben"], None)


def test_migration_0003_adds_the_carried_pot_columns_and_keeps_the_nights(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0002.sqlite'}")
    with app.app_context():
        store_night_at_revision("0002", "Friday", "carry")
        upgrade(revision="0003")
        rows = lambda sql: db.session.execute(db.text(sql)).all()  # noqa: E731 - the schema as 0003 left it
        assert rows("SELECT name, carried_in, carried_from FROM night") == [("Friday", None, None)]
        friday_id = rows("SELECT id FROM night")[0][0]
        # a night carried from Friday; a second one from the same night is refused (a pot is
        # carried once), and so is one from a night that does not exist
        def add(name: str, carried_from: int) -> None:
            db.session.execute(db.text(
                "INSERT INTO night (name, keeper_key, viewer_key, players, first_dealer, ante, ante_every,"
                " tokens_to_win, chip_value, currency, unfinished_pot, version, created_at, carried_in, carried_from)"
                " VALUES (:name, :name || '-k', :name || '-v', '[\"Ann\", \"Ben\"]', 'Ben', 1, 1, 5, 0, '',"
                " 'return_antes', 0, '2026-11-02 20:00:00', '{\"Ann\": 1, \"Ben\": 1}', :source)"
            ), {"name": name, "source": carried_from})
        add("Saturday", friday_id)
        db.session.commit()
        for name, source in (("Again", friday_id), ("Nowhere", friday_id + 100)):
            with pytest.raises(IntegrityError):
                add(name, source)
                db.session.commit()
            db.session.rollback()
        saturday = rows("SELECT carried_in, carried_from FROM night WHERE name = 'Saturday'")[0]
        assert json.loads(saturday[0]) == {"Ann": 1, "Ben": 1} and saturday[1] == friday_id
        db.session.remove()
        # and back down: the columns go, the nights stay
        downgrade(revision="0002")
        with db.engine.connect() as connection:
            columns = {c["name"] for c in inspect(connection).get_columns("night")}
            assert "carried_in" not in columns and "carried_from" not in columns
            assert connection.execute(db.text("SELECT count(*) FROM night")).scalar() == 2
        upgrade()
        with db.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []


#: A night as the release before 0004 stored it: Ann, Ben, Cat; ante 1; Friday's pot carried in.
STAGES_AT_0003 = [
    ("declare", {"yes": ["Ben", "Cat"]}),  # ante 1 each: pot 3 + 2 carried in = 5; showdown Ben v Cat
    ("showdown", {"winners": ["Ben"], "cards": None}),  # Cat pays Ben the pot, 5
    ("declare", {"yes": ["Ann"]}),  # a lone Yes: Ann's token
    ("declare", {"yes": ["Cat"]}),  # stage 3, the hand's last: Cat's token (undone below)
    ("void", {}),
]


def test_migration_0004_makes_each_night_a_night_of_one_napalm_game_with_the_same_standings(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0003.sqlite'}")
    with app.app_context():
        db.drop_all()
        upgrade(revision="0003")
        db.session.execute(db.text(
            "INSERT INTO night (name, keeper_key, viewer_key, players, first_dealer, ante, ante_every,"
            " tokens_to_win, chip_value, currency, unfinished_pot, version, created_at, carried_in)"
            " VALUES ('Friday', 'keeper-friday-0123456789', 'viewer-friday-0123456789', '[\"Ann\", \"Ben\", \"Cat\"]',"
            " 'Cat', 1, 1, 3, 0.25, 'EUR', 'carry', 5, '2026-11-20 20:00:00', '{\"Ann\": 1, \"Ben\": 1}')"
        ))
        for seq, (kind, payload) in enumerate(STAGES_AT_0003, start=1):
            db.session.execute(db.text(
                "INSERT INTO event (night_id, seq, kind, payload, recorded_by, created_at)"
                " VALUES (1, :seq, :kind, :payload, 'phone abcd', '2026-11-20 20:00:00')"
            ), {"seq": seq, "kind": kind, "payload": json.dumps(payload)})
        db.session.commit()
        upgrade()
        with db.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []
        night = db.session.scalars(db.select(Night)).one()
        assert (night.name, night.players, night.version) == ("Friday", ["Ann", "Ben", "Cat"], 5)
        (game,) = night.games
        assert (game.position, game.kind, game.first_dealer, game.carried_in) == (1, "napalm", "Cat", {"Ann": 1, "Ben": 1})
        assert game.rules == {"ante": 1, "ante_every": 1, "tokens_to_win": 3, "unfinished_pot": "carry"}
        tagged = db.session.execute(db.text("SELECT count(*) FROM event WHERE game_id = :g"), {"g": game.id}).scalar()
        assert tagged == 5
        table = services.table_for(night)
        # By hand: antes 1 each (pot 3 + 2 carried in = 5); Ben wins the showdown: Cat pays him 5.
        # Ann -1 -1(carried) = -2, Ben -1 -1 +5 = +3, Cat -1 -5 = -6; pot 5; tokens: Ann 1 (Cat's undone)
        assert table.net_chips == {"Ann": -2, "Ben": 3, "Cat": -6}
        assert table.pot == 5 and table.tokens == {"Ann": 1, "Ben": 0, "Cat": 0}
        exported = json.loads(services.export_history(night))
        assert exported["games"][0]["stages"] == [
            {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Ben"]},
            {"stage": 2, "yes": ["Ann"]},
        ]
        assert exported["games"][0]["carried_in"] == {"Ann": 1, "Ben": 1}
        assert exported["money"] == {"chip_value": "0.25", "currency": "EUR"}


def test_a_night_file_of_one_game_imports_and_exports_as_it_came(client):
    from night.test_file import TWO_GAMES

    document = json.loads(json.dumps(TWO_GAMES))
    del document["games"][1]
    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(document).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    copy = TablePage(client, response.headers["Location"])
    # worked out in tests/night/test_file.py: antes 1 (pot 4), Ben pays Cat 4; Dan's token
    assert [copy.net(n) for n in ("Ann", "Ben", "Cat", "Dan")] == [-1, -5, 3, -1]
    assert copy.pot() == 4 and copy.tokens("Dan") == 1
    exported = json.loads(client.get(f"{copy.url}/export.json").get_data(as_text=True))
    # the export says who played (everyone seated, as the file left it to default)
    assert exported["games"] == [{**document["games"][0], "players": ["Ann", "Ben", "Cat", "Dan"]}]
    assert exported["money"] == document["money"]


def test_a_night_file_of_several_games_imports_whole_and_settles_once(client, app):
    from night.test_file import TWO_GAMES

    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(TWO_GAMES).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    copy = TablePage(client, response.headers["Location"])
    # worked out in tests/night/test_file.py: the night is Ann +4, Ben -6, Cat +2, Dan 0
    assert [copy.net(n) for n in ("Ann", "Ben", "Cat")] == [4, -6, 2] and "Dan 0" in copy.html
    report = json.loads(client.get(f"{copy.url}/report.json").get_data(as_text=True))
    assert {p["name"]: p["net_chips"] for p in report["players"]} == {"Ann": 4, "Ben": -6, "Cat": 2, "Dan": 0}
    assert sorted((p["from"], p["to"], p["chips"]) for p in report["payments"]) == [("Ben", "Ann", 4), ("Ben", "Cat", 2)]
    exported = json.loads(client.get(f"{copy.url}/export.json").get_data(as_text=True))
    assert [g["stages"] for g in exported["games"]] == [g["stages"] for g in TWO_GAMES["games"]]
    with app.app_context():
        night = db.session.scalars(db.select(Night)).one()
        # game 1: a declare and a showdown, then a declare; the game event; game 2: a declare
        assert night.version == 5


def test_a_wrong_night_file_is_refused_with_where_it_is_wrong(client, app):
    from night.test_file import TWO_GAMES

    document = json.loads(json.dumps(TWO_GAMES))
    document["games"][0]["stages"][0]["yes"] = ["Eve"]
    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(document).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "games[0] (napalm): stages[0]" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Night)) == 0


def test_a_night_file_with_a_game_the_table_cannot_show_yet_is_refused_whole(client, app, monkeypatch):
    from night.test_file import THREE_KINDS

    from companion.games.web import SCREENS

    # every game has its table screen now (the pot games too): take the pot game's away for this test
    monkeypatch.delitem(SCREENS, "pots")
    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(THREE_KINDS).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "game 3 of this night is High Card, which the app cannot show at the table yet" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Night)) == 0


def test_a_night_file_of_napalm_nap_and_a_pot_game_imports_whole(client, app):
    """The night worked out in tests/night/test_file.py: Ann −3, Ben −4, Cat +9, Dan −2; High Card at the table."""
    from night.test_file import THREE_KINDS

    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(THREE_KINDS).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303, response.get_data(as_text=True)[:1000]
    table = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Tonight's 3rd game: High Card" in table and "Deal 2: Ben deals. Who won the pot?" in table
    report = json.loads(client.get(f"{response.headers['Location']}/report.json").get_data(as_text=True))
    assert {p["name"]: p["net_chips"] for p in report["players"]} == {"Ann": -3, "Ben": -4, "Cat": 9, "Dan": -2}


def test_migration_0007_adds_the_group_tables_and_goes_back_down_keeping_the_nights(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0006.sqlite'}")
    with app.app_context():
        db.drop_all()
        upgrade(revision="0006")
        services.open_night("Friday", ["Ann", "Ben"], Money(), {"kind": "napalm", "players": None, "first_dealer": "Ann", "rules": {}})
        db.session.remove()
        upgrade()
        with db.engine.connect() as connection:
            assert {"home_group", "group_record", "group_night"} <= set(inspect(connection).get_table_names())
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []
        downgrade(revision="0006")
        with db.engine.connect() as connection:
            assert not {"home_group", "group_record", "group_night"} & set(inspect(connection).get_table_names())
            assert connection.execute(db.text("SELECT name FROM night")).scalars().all() == ["Friday"]
        upgrade()


def test_migration_0009_reads_a_groups_nights_from_one_index_and_goes_back_down(make_app, tmp_path):
    from sqlalchemy.dialects import sqlite

    from companion.service.group_views import _STAMP_BY_LINK
    from web.test_groups import group_document

    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0008.sqlite'}")
    compiled = _STAMP_BY_LINK[True].compile(dialect=sqlite.dialect())  # the kept group page's one statement
    stamp_sql = str(compiled)

    def indexes() -> dict[str, list[str]]:
        with db.engine.connect() as connection:
            return {i["name"]: i["column_names"] for i in inspect(connection).get_indexes("group_night")}

    with app.app_context():
        db.drop_all()
        upgrade(revision="0008")
        key = services.import_group(json.dumps(group_document())).organiser_key
        bound = compiled.construct_params({"key": key})
        values = tuple(bound[name] for name in compiled.positiontup)  # the statement's values, in its order
        db.session.remove()
        assert indexes()["ix_group_night_group_id"] == ["group_id"]
        upgrade()
        found = indexes()
        assert found["ix_group_night_group_id_night_id"] == ["group_id", "night_id"]
        assert "ix_group_night_group_id" not in found  # the new one serves a look-up by the group alone
        with db.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []
            plan = " / ".join(row[-1] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + stamp_sql, values))
            assert "SEARCH group_night USING COVERING INDEX ix_group_night_group_id_night_id" in plan, plan
            assert connection.exec_driver_sql(stamp_sql, values).one()[6] == 3  # the group's three nights
        downgrade(revision="0008")
        found = indexes()
        assert found["ix_group_night_group_id"] == ["group_id"] and "ix_group_night_group_id_night_id" not in found
        with db.engine.connect() as connection:
            assert connection.exec_driver_sql(stamp_sql, values).one()[6] == 3
        upgrade()



def test_migration_0010_reads_a_nights_payments_from_one_index_and_goes_back_down(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0009.sqlite'}")
    paid_sql = "SELECT payload FROM event WHERE night_id = ? AND kind = 'paid' AND seq <= ? ORDER BY seq"

    def indexes() -> dict[str, list[str]]:
        with db.engine.connect() as connection:
            return {i["name"]: i["column_names"] for i in inspect(connection).get_indexes("event")}

    def plan() -> str:
        db.engine.dispose()  # a pooled connection may keep a statement prepared on the schema before
        with db.engine.connect() as connection:
            return " / ".join(row[-1] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + paid_sql, (1, 10)))

    with app.app_context():
        db.drop_all()
        upgrade(revision="0009")
        assert "ix_event_night_id_kind_seq" not in indexes()
        upgrade()
        assert indexes()["ix_event_night_id_kind_seq"] == ["night_id", "kind", "seq"]
        assert "USING INDEX ix_event_night_id_kind_seq (night_id=? AND kind=? AND seq<?)" in plan(), plan()
        with db.engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []
        downgrade(revision="0009")
        assert "ix_event_night_id_kind_seq" not in indexes()
        assert "ix_event_night_id_kind_seq" not in plan(), plan()
        upgrade()


def test_migration_0012_keeps_each_refusals_address_and_goes_back_down_keeping_the_refusals(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0011k.sqlite'}")

    def refusals() -> list[tuple]:
        return [tuple(row) for row in db.session.execute(db.text("SELECT * FROM kept_refusal")).all()]

    with app.app_context():
        db.drop_all()
        upgrade(revision="0011")
        db.session.execute(db.text("INSERT INTO kept_refusal (token, path_digest, content, created_at)"
                                   " VALUES ('t1', 'd1', '{\"status\": 422}', '2026-11-28 20:00:00')"))
        db.session.commit()
        upgrade()
        assert refusals() == [(1, "t1", "d1", '{"status": 422}', "2026-11-28 20:00:00", "")]
        with db.engine.connect() as connection:
            assert {i["name"]: i["column_names"] for i in inspect(connection).get_indexes("kept_refusal")}[
                "ix_kept_refusal_client_id"] == ["client", "id"]
            assert compare_metadata(MigrationContext.configure(connection), db.metadata) == []
        db.session.remove()
        downgrade(revision="0011")
        assert refusals() == [(1, "t1", "d1", '{"status": 422}', "2026-11-28 20:00:00")]
        upgrade()


def test_migration_0011_adds_the_members_own_links_and_goes_back_down_keeping_the_groups(make_app, tmp_path):
    app = make_app(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'at-0010.sqlite'}")
    with app.app_context():
        db.drop_all()
        upgrade(revision="0010")
        db.session.execute(db.text("INSERT INTO home_group (name, organiser_key, member_key, version, created_at,"
                                   " nights_changed) VALUES ('Fridays', 'o1', 'm1', 0, '2026-11-28 20:00:00', 0)"))
        db.session.commit()
        upgrade(revision="0011")
        with db.engine.connect() as connection:
            indexes = {i["name"]: (i["column_names"], bool(i["unique"])) for i in inspect(connection).get_indexes("member_link")}
        assert indexes == {"ix_member_link_group_id": (["group_id"], False), "ix_member_link_key": (["key"], True)}
        db.session.execute(db.text("INSERT INTO member_link (group_id, member, key, created_at)"
                                   " VALUES (1, 'Cat', 'k1', '2026-11-29 02:00:00')"))
        db.session.commit()
        db.session.remove()
        downgrade(revision="0010")
        assert "member_link" not in inspect(db.engine).get_table_names()
        assert db.session.execute(db.text("SELECT name FROM home_group")).scalars().all() == ["Fridays"]
        upgrade()


# --- the payments marked paid go out in the night file and come back (companion.night.paid) ------------


def import_night(client, document: dict | bytes):  # type: ignore[no-untyped-def]
    raw = document if isinstance(document, bytes) else json.dumps(document).encode()
    return client.post("/import", data={"file": (io.BytesIO(raw), "night.json")}, content_type="multipart/form-data")


def mark_paid(client, url: str, payer: str, payee: str, chips: int) -> None:  # type: ignore[no-untyped-def]
    """The report's two taps of "Mark paid": the confirming form, then its submit."""
    import re

    report = client.get(f"{url}/report?payer={payer}&payee={payee}&chips={chips}").get_data(as_text=True)
    form = re.search(r'action="[^"]*/paid" class="confirm"[^>]*>(.*?)</form>', report, re.S)
    assert form, f"{payer} paying {payee} {chips} is not offered"
    stamp = {k: re.search(rf'name="{k}"[^>]*value="([^"]+)"', form.group(1)).group(1) for k in ("version", "request_key")}
    response = client.post(f"{url}/paid", data={**stamp, "payer": payer, "payee": payee, "chips": str(chips)})
    assert response.status_code == 303, response.get_data(as_text=True)[:500]


def offered(client, url: str) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    """The payments the report still offers with "Mark paid"."""
    import re

    report = client.get(f"{url}/report").get_data(as_text=True)
    found = []
    for chunk in report.split('<li class="payment')[1:]:  # a line marked paid is class="payment paid"
        line = re.match(r'" data-payer="([^"]+)" data-payee="([^"]+)" data-chips="(\d+)">', chunk)
        if line and "Mark paid" in chunk.split("</ol>")[0]:
            found.append((line[1], line[2], int(line[3])))
    return found


def test_a_payment_marked_paid_goes_out_in_the_night_file_and_is_not_offered_again_after_import(client, app):
    """tests/night/test_paid.py's night: Ann +6, Ben −4, Cat −2, so Ben pays Ann 4 and Cat pays Ann 2.  Ben's
    payment is marked paid; the night's file, imported (a restore, a move to another server), offers only
    Cat's 2 chips, not Ben's 4 again."""
    from night.test_paid import OWED

    url = import_night(client, OWED).headers["Location"]
    assert offered(client, url) == [("Ben", "Ann", 4), ("Cat", "Ann", 2)]
    mark_paid(client, url, "Ben", "Ann", 4)
    assert offered(client, url) == [("Cat", "Ann", 2)]
    exported = client.get(f"{url}/export.json").get_data()
    assert json.loads(exported)["paid"] == [{"payer": "Ben", "payee": "Ann", "chips": 4}]
    response = import_night(client, exported)
    assert response.status_code == 303, response.get_data(as_text=True)[:1000]
    copy = response.headers["Location"]
    assert offered(client, copy) == [("Cat", "Ann", 2)]
    report = json.loads(client.get(f"{copy}/report.json").get_data(as_text=True))
    assert [(p["from"], p["to"], p["chips"], p["paid"]) for p in report["payments"]] == [
        ("Ben", "Ann", 4, True), ("Cat", "Ann", 2, False),
    ]
    with app.app_context():
        night = db.session.scalars(db.select(Night).order_by(Night.id.desc())).first()
        events = list(db.session.scalars(db.select(Event).where(Event.night_id == night.id).order_by(Event.seq)))
        # each game's stage (Ann alone: a declare, and no challenge), the second game's start between them,
        # then the payment, after the rest, recorded by the import
        assert [e.kind for e in events] == ["declare", "challenge", "game", "declare", "challenge", "paid"]
        assert events[-1].payload == {"payer": "Ben", "payee": "Ann", "chips": 4}
        assert events[-1].recorded_by == "import" and night.version == len(events)
    # and the copy's file is the night's file, byte for byte
    assert client.get(f"{copy}/export.json").get_data() == exported


def test_a_night_with_a_payment_the_balances_do_not_owe_exports_and_imports_back_whole(client, app):
    """Whatever the table recorded comes back: *Mark paid* at a night outside a group checks only the players
    and the chips, so a payment marked in the pair-by-pair view or before play went on can be one the final
    balances (Ann +6, Ben −4, Cat −2) do not owe, here Cat paying Ben 3.  Its file imports, the payment is
    kept, and it marks no line: both of the plan's payments are still offered."""
    from companion import service as services
    from night.test_paid import OWED

    url = import_night(client, OWED).headers["Location"]
    with app.app_context():
        night = db.session.scalars(db.select(Night)).one()
        services.mark_paid(night.id, "Cat", "Ben", 3, night.version)
    exported = client.get(f"{url}/export.json").get_data()
    assert json.loads(exported)["paid"] == [{"payer": "Cat", "payee": "Ben", "chips": 3}]
    response = import_night(client, exported)
    assert response.status_code == 303, response.get_data(as_text=True)[:1000]
    copy = response.headers["Location"]
    assert offered(client, copy) == offered(client, url) == [("Ben", "Ann", 4), ("Cat", "Ann", 2)]
    assert client.get(f"{copy}/export.json").get_data() == exported


def test_a_night_with_both_payments_marked_paid_comes_back_settled_in_the_order_recorded(client):
    from night.test_paid import OWED

    url = import_night(client, OWED).headers["Location"]
    mark_paid(client, url, "Cat", "Ann", 2)
    mark_paid(client, url, "Ben", "Ann", 4)
    exported = client.get(f"{url}/export.json").get_data()
    assert json.loads(exported)["paid"] == [
        {"payer": "Cat", "payee": "Ann", "chips": 2}, {"payer": "Ben", "payee": "Ann", "chips": 4},
    ]
    copy = import_night(client, exported).headers["Location"]
    assert offered(client, copy) == []
    report = json.loads(client.get(f"{copy}/report.json").get_data(as_text=True))
    assert all(p["paid"] for p in report["payments"])
    assert client.get(f"{copy}/export.json").get_data() == exported


def test_a_night_without_payments_marked_paid_writes_no_paid_key(client):
    from night.test_paid import OWED

    url = import_night(client, OWED).headers["Location"]
    assert "paid" not in json.loads(client.get(f"{url}/export.json").get_data(as_text=True))


@pytest.mark.parametrize(
    "paid, message",
    [
        ([{"payer": "Zed", "payee": "Ann", "chips": 4}], "'paid'[0]: 'payer': 'Zed' is not seated tonight"),
        ([{"payer": "Ben", "payee": "Ben", "chips": 4}], "'paid'[0]: a payment is between two different players"),
        ([{"payer": "Ben", "payee": "Ann", "chips": 4.0}], "'paid'[0]: 'chips' must be a whole number written without"),
        ([{"payer": "Ben", "payee": "Ann", "chips": 0}], "'paid'[0]: 'chips' must be 1 to 1,000,000,000"),
        ([{"payer": "Ben", "payee": "Ann", "chips": 4, "when": "now"}], "'paid'[0]: unknown key 'when'"),
        ([{"payer": "Ben", "payee": "Ann"}], "'paid'[0]: 'chips' is missing"),
        ({"payer": "Ben"}, "'paid' must be a list of the payments marked paid"),
    ],
)
def test_a_night_file_with_a_wrong_payment_marked_paid_is_refused_and_stores_nothing(client, app, paid, message):
    from night.test_paid import OWED

    response = import_night(client, {**OWED, "paid": paid})
    assert response.status_code == 422
    assert message in response.get_data(as_text=True).replace("&#39;", "'")
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Night)) == 0
        assert db.session.scalar(db.select(db.func.count()).select_from(Event)) == 0
