"""Exposure found by the outside probe (issue 15, items 6, 9, 10): the database file, the
ETags of the players' live view, and the cache and transport headers of the secret pages."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from flask import Flask

from companion.db import backup as backups
from conftest import EXTERNAL_DB
from security.support import Site

sqlite_only = pytest.mark.skipif(bool(EXTERNAL_DB), reason="the database file is SQLite's")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@sqlite_only
@pytest.mark.app_makes_the_database
def test_the_database_file_and_its_wal_and_shm_are_readable_by_their_owner_only(make_app, tmp_path):
    old = os.umask(0o022)  # a usual umask, under which SQLite would make them 0644
    try:
        app = make_app()
        site = Site(app)
        night = site.seat()
        assert app.test_client().get(f"/k/{night.keeper}").status_code == 200
        database = tmp_path / "test.sqlite"
        files = [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    finally:
        os.umask(old)


@sqlite_only
def test_a_database_file_left_readable_by_others_is_made_private_when_the_app_starts(make_app, tmp_path):
    database = tmp_path / "test.sqlite"
    database.touch()
    database.chmod(0o644)
    make_app()
    assert mode(database) == 0o600


def test_a_backup_is_readable_by_its_owner_only(make_app, tmp_path):
    """A backup holds every night's secret links, as the database does: 0600 whatever the umask
    (SQLite's copy and pg_dump's file alike)."""
    old = os.umask(0o022)
    try:
        app = make_app()
        Site(app).seat()
        destination = tmp_path / "backups" / "friday.backup"
        summary = backups.backup(app.config["SQLALCHEMY_DATABASE_URI"], destination)
        assert summary.nights == 1
        assert mode(destination) == 0o600
        assert not destination.with_name("friday.backup.partial").exists()
    finally:
        os.umask(old)


def live_tag(client, key: str) -> str:
    response = client.get(f"/p/{key}/live")
    assert response.status_code == 200
    return response.headers["ETag"].strip('"')


def test_the_live_views_etag_does_not_show_the_nights_sequential_id(app, site):
    nights = [site.seat() for _ in range(3)]
    client = app.test_client()
    for night in nights:
        tag = live_tag(client, night.viewer)
        pieces = re.split(r"[-_.]", tag)
        assert str(night.id) not in pieces and f"n{night.id}" not in pieces, tag
        assert f"n{night.id}-" not in tag


def test_the_same_night_at_the_same_version_gets_another_tag_under_another_secret(make_app, tmp_path):
    first = make_app(SECRET_KEY="one-secret-key-that-is-long-enough-for-tests")
    night = Site(first).seat()
    tag = live_tag(first.test_client(), night.viewer)
    from companion import service as services
    from companion import create_app

    from conftest import _config

    second = create_app(_config(tmp_path, SECRET_KEY="another-secret-key-long-enough-for-the-tests"))
    services.clear_cache()
    assert live_tag(second.test_client(), night.viewer) != tag


def test_the_scorekeepers_page_watches_the_same_tag_the_players_poll_answers(app, site):
    night = site.seat()
    client = app.test_client()
    page = client.get(f"/k/{night.keeper}").get_data(as_text=True)
    watched = re.search(r'data-watch="[^"]+" data-etag="([^"]+)"', page)
    assert watched is not None
    assert watched.group(1) == live_tag(client, night.viewer)


def test_every_page_a_players_link_opens_is_never_stored(app, site):
    night = site.seat()
    client = app.test_client()
    first = client.get(f"/p/{night.viewer}/live")
    for path, response in {
        "players' page": client.get(f"/p/{night.viewer}"),
        "live standings": first,
        "live standings again (middleware)": client.get(f"/p/{night.viewer}/live"),
        "live standings not modified": client.get(f"/p/{night.viewer}/live", headers={"If-None-Match": first.headers["ETag"]}),
        "players' report": client.get(f"/p/{night.viewer}/report"),
    }.items():
        assert response.status_code in (200, 304), path
        assert response.headers["Cache-Control"] == "no-store", path


def test_https_answers_carry_hsts_and_plain_http_ones_do_not(app, site):
    night = site.seat()
    client = app.test_client()
    secure = client.get(f"/p/{night.viewer}", base_url="https://localhost")
    assert secure.headers["Strict-Transport-Security"] == "max-age=31536000"
    assert client.get("/", base_url="https://localhost").headers["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in client.get(f"/p/{night.viewer}").headers


def test_hsts_is_sent_behind_a_trusted_https_proxy(make_app):
    app = make_app(TRUSTED_PROXIES="1")
    response = app.test_client().get("/", headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "10.0.0.7"})
    assert response.headers["Strict-Transport-Security"] == "max-age=31536000"


def test_the_players_poll_answered_before_flask_carries_hsts_over_https_too(app, site):
    night = site.seat()
    client = app.test_client()
    first = client.get(f"/p/{night.viewer}/live", base_url="https://localhost")
    again = client.get(f"/p/{night.viewer}/live", base_url="https://localhost")  # the middleware's 200
    same = client.get(
        f"/p/{night.viewer}/live", base_url="https://localhost", headers={"If-None-Match": first.headers["ETag"]}
    )  # the middleware's 304
    assert (first.status_code, again.status_code, same.status_code) == (200, 200, 304)
    for response in (first, again, same):
        assert response.headers["Strict-Transport-Security"] == "max-age=31536000"
    plain = client.get(f"/p/{night.viewer}/live", headers={"If-None-Match": first.headers["ETag"]})
    assert plain.status_code == 304 and "Strict-Transport-Security" not in plain.headers


def test_the_pages_that_list_this_browsers_scorekeeper_links_are_never_stored(app, site):
    """Issue 21, item 5: the front door, the past nights and a player's history list the
    scorekeeper links this browser holds; a shared computer's cache must not keep them."""
    night = site.seat()
    client = app.test_client()
    client.get(f"/k/{night.keeper}")  # this browser keeps score of the night: the pages list it
    for path in ("/", "/nights", "/players/Ann"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert f"/k/{night.keeper}" in response.get_data(as_text=True), path
        assert response.headers["Cache-Control"] == "no-store", path
