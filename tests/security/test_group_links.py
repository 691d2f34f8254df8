"""A group's two secret links (web/groups.py): each opens its own pages only, a wrong one is a 404, and
nothing changes; with CSRF protection on, a group's forms without the page's token are refused.

The members' link reads the season and the tab and says "I got it"; it must never open the
organiser's pages (the members' link on /g/ is as unknown as any other key), nor may the
organiser's link stand in for the members' (each link its own).
"""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from companion import service as services
from companion.db.models import Group, GroupRecord
from companion.extensions import db
from group.three_nights import group_document
from security.support import one_character_off, random_key
from security.test_access_matrix import ACCESS, MEMBERS, ORGANISER


def make_group(app, name: str = "Friday poker") -> SimpleNamespace:  # type: ignore[no-untyped-def]
    """A group from the group file of tests/group/three_nights.py: its links and version."""
    document = {**group_document(), "name": name}
    with app.app_context():
        group = services.import_group(json.dumps(document))
        group = db.session.get(Group, group.id)
        return SimpleNamespace(organiser_key=group.organiser_key, member_key=group.member_key, version=group.version)


def state(app) -> tuple:  # type: ignore[no-untyped-def]
    """Everything a group's request could change: every group's links and version, and the records."""
    with app.app_context():
        groups = tuple(db.session.execute(select(Group.organiser_key, Group.member_key, Group.version).order_by(Group.id)))
        return groups, db.session.scalar(select(func.count()).select_from(GroupRecord))


def url(app, endpoint: str, key: str) -> str:  # type: ignore[no-untyped-def]
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    return rule.rule.replace("<key>", key)


@pytest.mark.parametrize("endpoint", sorted(e for e, access in ACCESS.items() if access in (ORGANISER, MEMBERS)))
def test_each_group_route_answers_only_its_own_link(app, endpoint):
    group, other = make_group(app), make_group(app, "Saturday")
    client = app.test_client()
    own = group.organiser_key if ACCESS[endpoint] == ORGANISER else group.member_key
    wrong = {
        "no link": random_key(),
        "one character off": one_character_off(own),
        "the group's other link": group.member_key if ACCESS[endpoint] == ORGANISER else group.organiser_key,
        # another group's link of the other kind (its own kind opens that group's page: a link of its own)
        "another group's other link": other.member_key if ACCESS[endpoint] == ORGANISER else other.organiser_key,
        "too long": "A" * 65,
    }
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    for method in sorted((rule.methods or set()) - {"OPTIONS", "HEAD"}):
        for what, key in wrong.items():
            before = state(app)
            data = {"version": "0", "request_key": services.new_key(), "name": "Eve", "which": "members"}
            response = client.open(url(app, endpoint, key), method=method, data=data if method == "POST" else None)
            assert response.status_code == 404, (endpoint, method, what)
            assert state(app) == before, (endpoint, method, what)
    if "GET" in (rule.methods or ()):
        # a confirming page asked nothing (no payment, no night) says so: a 422 of its own link, never a 404
        # (settling asks only a unit: none is chips, which this group owes)
        expected = 422 if endpoint.startswith("groups.confirm_") and endpoint != "groups.confirm_settle" else 200
        assert client.get(url(app, endpoint, own)).status_code == expected, endpoint


@pytest.fixture
def csrf_app(make_app):  # type: ignore[no-untyped-def]
    return make_app(WTF_CSRF_ENABLED=True)


def test_a_groups_forms_without_the_pages_token_are_refused_and_change_nothing(csrf_app):
    app = csrf_app
    group = make_group(app)
    client = app.test_client()
    client.get(f"/g/{group.organiser_key}")  # this browser's session has a token; the forms below do not send it
    posts = {
        "/groups": {"name": "Another", "request_key": services.new_key()},
        "/groups/import": {"file": (io.BytesIO(json.dumps(group_document()).encode()), "g.json"),
                           "request_key": services.new_key()},
        f"/g/{group.organiser_key}/members/add": {"name": "Eve", "version": str(group.version),
                                                  "request_key": services.new_key()},
        f"/g/{group.organiser_key}/tab/paid": {"payer": "Ann", "payee": "Cat", "unit": "EUR", "amount": "0.75",
                                               "version": str(group.version), "request_key": services.new_key()},
        f"/g/{group.organiser_key}/rotate": {"which": "members", "request_key": services.new_key()},
        f"/m/{group.member_key}/got-it": {"payer": "Ann", "payee": "Cat", "unit": "EUR", "amount": "0.75",
                                          "version": str(group.version), "request_key": services.new_key()},
    }
    for path, data in posts.items():
        before = state(app)
        response = client.post(path, data=data, content_type="multipart/form-data" if "file" in data else None)
        assert response.status_code == 400, path
        assert state(app) == before, path
