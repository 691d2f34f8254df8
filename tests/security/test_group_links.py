"""A group's two secret links (web/pages/groups.py): each opens its own pages only, a wrong one is a 404, and
nothing changes; with CSRF protection on, a group's forms without the page's token are refused.

The members' link reads the season and the tab; it must never open the organiser's pages (the
members' link on /g/ is as unknown as any other key), nor may the organiser's link stand in for
the members' (each link its own).  A member's own link (their latest) reads the same and says
"I got it" for a payment to that member; no other link opens its pages, an older one of theirs
included.
"""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from companion import service as services
from companion.db.models import Group, GroupRecord, MemberLink
from companion.extensions import db
from group.three_nights import group_document
from security.support import one_character_off, random_key
from security.test_access_matrix import ACCESS, MEMBERS, ORGANISER, OWN


def make_group(app, name: str = "Friday poker") -> SimpleNamespace:  # type: ignore[no-untyped-def]
    """A group from the group file of tests/group/three_nights.py: its links and version."""
    document = {**group_document(), "name": name}
    with app.app_context():
        group = services.import_group(json.dumps(document))
        group = db.session.get(Group, group.id)
        group_id, version = group.id, group.version
        services.make_member_link(group_id, "Cat", version, None)  # replaced by the next: opens nothing
        old = services.member_links(db.session.get(Group, group_id))["Cat"]
        services.make_member_link(group_id, "Cat", version + 1, None)
        group = db.session.get(Group, group_id)
        own = services.member_links(group)["Cat"]
        return SimpleNamespace(organiser_key=group.organiser_key, member_key=group.member_key, version=group.version,
                               own_key=own, old_own_key=old)


def state(app) -> tuple:  # type: ignore[no-untyped-def]
    """Everything a group's request could change: every group's links and version, and the records."""
    with app.app_context():
        groups = tuple(db.session.execute(select(Group.organiser_key, Group.member_key, Group.version).order_by(Group.id)))
        return (groups, db.session.scalar(select(func.count()).select_from(GroupRecord)),
                db.session.scalar(select(func.count()).select_from(MemberLink)))


def url(app, endpoint: str, key: str) -> str:  # type: ignore[no-untyped-def]
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    return rule.rule.replace("<key>", key)


@pytest.mark.parametrize("endpoint", sorted(e for e, access in ACCESS.items() if access in (ORGANISER, MEMBERS, OWN)))
def test_each_group_route_answers_only_its_own_link(app, endpoint):
    group, other = make_group(app), make_group(app, "Saturday")
    client = app.test_client()
    access = ACCESS[endpoint]
    own = {ORGANISER: group.organiser_key, MEMBERS: group.member_key, OWN: group.own_key}[access]
    wrong = {
        "no link": random_key(),
        "one character off": one_character_off(own),
        "too long": "A" * 65,
        # the group's and another group's links of the other kinds (a link of one kind opens only its own pages)
        **{f"the group's {k}": key for k, key in (("organiser link", group.organiser_key),
                                                  ("members' link", group.member_key), ("own link", group.own_key),
                                                  ("replaced own link", group.old_own_key)) if key != own},
        **{f"another group's {k}": key for k, key in (("organiser link", other.organiser_key),
                                                      ("members' link", other.member_key), ("own link", other.own_key))
           if {"organiser link": ORGANISER, "members' link": MEMBERS, "own link": OWN}[k] != access},
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
        expected = 404 if endpoint == "groups.member_qr" else expected  # asked no member: no code to draw
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
        f"/y/{group.own_key}/got-it": {"payer": "Ann", "payee": "Cat", "unit": "EUR", "amount": "0.75",
                                       "version": str(group.version), "request_key": services.new_key()},
        f"/g/{group.organiser_key}/members/link": {"member": "Ann", "version": str(group.version),
                                                   "request_key": services.new_key()},
        f"/g/{group.organiser_key}/nights/out": {"night": "1", "version": str(group.version),
                                                 "request_key": services.new_key()},
    }
    for path, data in posts.items():
        before = state(app)
        response = client.post(path, data=data, content_type="multipart/form-data" if "file" in data else None)
        assert response.status_code == 400, path
        assert state(app) == before, path
