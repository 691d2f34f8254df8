"""Brakes shared by every process (issue 15, items 2 and 3): link guessing, starting nights and
importing files are counted per client in the database, so two workers count as one; and a
valid link is never refused."""

from __future__ import annotations

import io

import pytest

from companion.db import brakes as ratelimit
from pages import night_form
from security.support import Site, history_file, random_key


@pytest.fixture
def clock(monkeypatch):
    now = [2_000_000.0]
    monkeypatch.setattr(ratelimit, "now", lambda: now[0])
    return now


@pytest.fixture
def two_workers(make_app):
    """Two app instances on one database, as two server processes are."""

    def build(**config):
        return make_app(**config), make_app(**config)

    return build


def test_guesses_spread_over_two_processes_are_counted_together(two_workers, clock):
    first, second = two_workers(FAILED_LINK_LIMIT=6)
    statuses = []
    for guess in range(12):
        app = first if guess % 2 else second
        statuses.append(app.test_client().get(f"/p/{random_key()}").status_code)
    assert statuses == [404] * 6 + [429] * 6


def test_a_blocked_guesser_still_gets_every_valid_link_on_every_process(two_workers, clock):
    first, second = two_workers(FAILED_LINK_LIMIT=3)
    night = Site(first).seat()
    for app in (first, second, first):
        assert app.test_client().get(f"/k/{random_key()}").status_code == 404
    for app in (first, second):
        client = app.test_client()
        assert client.get(f"/k/{random_key()}").status_code == 429
        assert client.get(f"/p/{night.viewer}").status_code == 200
        live = client.get(f"/p/{night.viewer}/live")
        assert live.status_code == 200
        assert client.get(f"/p/{night.viewer}/live", headers={"If-None-Match": live.headers["ETag"]}).status_code == 304
        assert client.get(f"/k/{night.keeper}").status_code == 200
        assert client.get(f"/k/{night.keeper}/report").status_code == 200


def test_starting_nights_is_limited_per_client_across_processes_with_a_clear_429(two_workers, clock):
    first, second = two_workers(NIGHT_LIMIT=3)
    site = Site(first)
    for i in range(3):
        app = first if i % 2 else second
        assert app.test_client().post("/nights", data=night_form(name=f"N{i}")).status_code == 303
    refused = first.test_client().post("/nights", data=night_form(name="N3"))
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 600
    text = refused.get_data(as_text=True)
    assert "Too many new nights from this device: at most 3 in 10 minutes" in text
    assert site.counts()[0] == 3
    # another phone at the same time is not braked
    other = second.test_client().post("/nights", data=night_form(name="Other"), environ_base={"REMOTE_ADDR": "10.1.1.9"})
    assert other.status_code == 303
    # ten minutes later the first phone may start nights again
    clock[0] += 601
    assert second.test_client().post("/nights", data=night_form(name="Later")).status_code == 303
    assert site.counts()[0] == 5


def test_importing_files_is_limited_per_client_across_processes(two_workers, clock):
    first, second = two_workers(IMPORT_LIMIT=2)
    site = Site(first)

    def upload(app, name: str):
        data = {"file": (io.BytesIO(history_file(name)), "night.json")}
        return app.test_client().post("/import", data=data, content_type="multipart/form-data")

    assert upload(first, "A").status_code == 303
    assert upload(second, "B").status_code == 303
    refused = upload(first, "C")
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert "Too many imports from this device" in refused.get_data(as_text=True)
    assert site.counts()[0] == 2



def group_count(app) -> int:  # type: ignore[no-untyped-def]
    from companion.db.models import Group
    from companion.extensions import db

    with app.app_context():
        return db.session.query(Group).count()


def test_making_groups_is_limited_per_client_across_processes_with_a_clear_429(two_workers, clock):
    """Issue 36, item 2: 300 groups from one address in 6.4 s; now a group is braked as a night is."""
    first, second = two_workers(GROUP_LIMIT=3)
    for i in range(3):
        app = first if i % 2 else second
        assert app.test_client().post("/groups", data={"name": f"Group {i}"}).status_code == 303
    refused = first.test_client().post("/groups", data={"name": "Group 3"})
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 600
    assert "Too many new groups from this device: at most 3 in 10 minutes" in refused.get_data(as_text=True)
    assert "nothing was saved" in refused.get_data(as_text=True)
    # a group made from a night is a new group too
    night = Site(first).seat()
    kept = second.test_client().post(f"/k/{night.keeper}/group", data={"name": "From the night", "link": ""})
    assert kept.status_code == 429 and "Too many new groups" in kept.get_data(as_text=True)
    assert group_count(first) == 3
    # another phone at the same time is not braked
    other = second.test_client().post("/groups", data={"name": "Other"}, environ_base={"REMOTE_ADDR": "10.1.1.9"})
    assert other.status_code == 303
    # ten minutes later the first phone may make groups again, from its name or from a night
    clock[0] += 601
    assert first.test_client().post("/groups", data={"name": "Later"}).status_code == 303
    kept = second.test_client().post(f"/k/{night.keeper}/group", data={"name": "From the night", "link": ""})
    assert kept.status_code == 303
    assert group_count(first) == 6
