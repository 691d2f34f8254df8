"""Who may use which route: every rule in the URL map, every method, every kind of link.

``ACCESS`` lists every endpoint with its access class.  A route that is not in it
fails ``test_every_route_in_the_url_map_has_an_access_class``, so a new route
cannot ship without someone deciding who may use it and this matrix checking it.
"""

from __future__ import annotations

import pytest
from flask import Flask

from companion import create_app
from companion import service as services
from security.support import STARTS_A_NIGHT, routes, NightRef, Site, one_character_off, random_key

PUBLIC = "anyone"  # needs no link and reads or changes no existing night
KEEPER = "the scorekeeper's link (the first, or a keeper phone's own)"
VIEWER = "the players' link (or the scorekeeper's)"
#: the night's table display link (issue 39, docs/display.md): opens the display alone, which no other link opens;
#: tried by test_the_display_link_opens_the_display_alone (one night for every route: a display link changes nothing)
DISPLAY = "the night's table display link"
BROWSER = "this browser's own list"  # needs no link; shows only nights this browser kept score of
#: a group's own routes (web/pages/groups.py), tried with a group's links in test_group_links.py
GROUP_PUBLIC = "anyone: makes a new group"
ORGANISER = "the group's organiser link"
MEMBERS = "the group's members' link"
OWN = "a member's own link (their latest)"
GROUP_CLASSES = (GROUP_PUBLIC, ORGANISER, MEMBERS, OWN)

ACCESS: dict[str, str] = {
    "static": PUBLIC,
    "home.index": PUBLIC,
    "home.healthz": PUBLIC,
    "home.service_worker": PUBLIC,  # the offline script, the same for everyone
    "home.create": PUBLIC,  # starts a new night with new links
    "home.import_night": PUBLIC,  # likewise, from a file
    "table.show": KEEPER,
    "table.declare": KEEPER,
    "table.challenge": KEEPER,
    "table.showdown": KEEPER,
    "table.cards": KEEPER,
    "table.undo": KEEPER,
    "history.show": KEEPER,
    "history.export": KEEPER,
    "share.show": KEEPER,
    "share.players_qr": KEEPER,
    "share.rotate": KEEPER,
    "share.make_phone": KEEPER,  # another keeper phone's own link (issue 39): every keeper phone may make one
    "share.confirm_take_back": KEEPER,
    "share.take_back": KEEPER,  # any keeper phone takes any one's link back, so long as one is left
    "share.display_link": KEEPER,  # make, replace or take back the table display's link (issue 39)
    "display.show": DISPLAY,
    "display.live": DISPLAY,
    "display.stream": DISPLAY,
    "setup.edit": KEEPER,
    "next_game.start": KEEPER,
    "table.take_back": KEEPER,
    "report.keeper": KEEPER,
    "report.keeper_csv": KEEPER,
    "report.keeper_json": KEEPER,
    "report.paid": KEEPER,
    "report.carry": KEEPER,  # starts the next night with this night's pot: a new night, new links
    "bank.show": KEEPER,  # the chip bank (web/pages/bank.py); the Bonus Round and dealer's choice below
    "bank.setting": KEEPER,
    "bank.everyone": KEEPER,
    "bank.player": KEEPER,
    "bank.cancel": KEEPER,
    "bank.confirm_cancel": KEEPER,
    "bonus.show": KEEPER,
    "bonus.grid": KEEPER,
    "bonus.roll": KEEPER,
    "bonus.lucky": KEEPER,
    "choice.show": KEEPER,
    "players.show": VIEWER,
    "players.live": VIEWER,
    "players.stream": VIEWER,  # the live part pushed (issue 37): as the poll
    "players.me": VIEWER,
    "report.viewer": VIEWER,
    "report.viewer_csv": VIEWER,
    "report.viewer_json": VIEWER,
    "report.nights": BROWSER,
    "report.player": BROWSER,  # /players/<name>: a name looked up among this browser's nights only
    "groups.keep": KEEPER,  # keep this night in a group (a new one, or one whose organiser link is pasted)
    "groups.keep_night": KEEPER,
    "groups.start": GROUP_PUBLIC,
    "groups.create": GROUP_PUBLIC,
    "groups.import_group": GROUP_PUBLIC,
    "groups.organiser": ORGANISER,
    "groups.organiser_stream": ORGANISER,
    "groups.add_member": ORGANISER,
    "groups.rename_member": ORGANISER,
    "groups.merge_members": ORGANISER,
    "groups.set_handle": ORGANISER,
    "groups.remove_handle": ORGANISER,
    "groups.tab_paid": ORGANISER,
    "groups.tab_settle": ORGANISER,
    "groups.confirm_paid": ORGANISER,
    "groups.confirm_settle": ORGANISER,
    "groups.confirm_leave_out": ORGANISER,
    "groups.confirm_put_back": ORGANISER,
    "groups.leave_out": ORGANISER,
    "groups.put_back": ORGANISER,
    "groups.members_qr": ORGANISER,
    "groups.rotate": ORGANISER,
    "groups.export": ORGANISER,
    "groups.new_night": ORGANISER,
    "groups.start_night": ORGANISER,
    "groups.members": MEMBERS,
    "groups.members_stream": MEMBERS,
    "groups.own": OWN,
    "groups.got_it": OWN,
    "groups.confirm_got_it": OWN,
    "groups.make_own_link": ORGANISER,
    "groups.member_qr": ORGANISER,
}

LINKS = (
    "no link",
    "one character off",
    "the players' link",
    "another night's players' link",
    "a keeper phone's link taken back",  # before the links that record: a 404 page shows what they flashed
    "another night's scorekeeper link",
    "this night's scorekeeper link",
    "another night's keeper phone's link",
    "this night's keeper phone's link",
)
OK = "ok"
#                 no link  one off  players'  other players'  taken back  other keeper  keeper  other phone  phone
MATRIX = {
    KEEPER: dict(zip(LINKS, (404, 404, 403, 403, 404, OK, OK, OK, OK))),
    VIEWER: dict(zip(LINKS, (404, 404, OK, OK, 404, OK, OK, OK, OK))),
    # BROWSER routes take no link: the browser first opens the link as a scorekeeper's
    # page (/k/<link>), then asks; a scorekeeper link, the night's first or a keeper phone's own,
    # puts a night on its list (listed by that link: docs/keepers.md); a link taken back puts none.
    BROWSER: dict(zip(LINKS, (404, 404, 404, 404, 404, OK, OK, OK, OK))),
}
#: Routes whose answer differs from their class's row.
MATRIX_FOR = {"report.nights": dict.fromkeys(LINKS, OK)}  # an empty list is still a page
#: Known deviations from the matrix (none at present); each needs a strict xfail test that flips when fixed.
KNOWN: dict[tuple[str, str, str], int] = {}
#: What "ok" is for each method (a route may say otherwise in OK_STATUS).
OK_BY_METHOD = {"GET": 200, "HEAD": 200, "POST": 303}
OK_STATUS = {
    ("players.me", "GET"): 303, ("players.me", "HEAD"): 303,
    # the page that asks before a bank line is cancelled, asked no line: it says so (its own link, never a 404)
    ("bank.confirm_cancel", "GET"): 422, ("bank.confirm_cancel", "HEAD"): 422,
    # likewise the page that asks before a keeper phone's link is taken back, asked no phone
    ("share.confirm_take_back", "GET"): 422, ("share.confirm_take_back", "HEAD"): 422,
}
METHODS = {"GET", "HEAD", "POST", "OPTIONS"}  # a rule with any other method needs a decision here


def _app() -> Flask:
    return create_app({"SECRET_KEY": "x" * 48, "SQLALCHEMY_DATABASE_URI": "sqlite://", "TESTING": True})


def test_every_route_in_the_url_map_has_an_access_class(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    endpoints = {rule.endpoint for rule in routes(_app())}
    assert endpoints - ACCESS.keys() == set(), "add these routes to ACCESS, deciding who may use them"
    assert ACCESS.keys() - endpoints == set(), "these routes are gone: remove them from ACCESS"


def test_every_route_uses_only_methods_the_matrix_knows(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    for rule in routes(_app()):
        assert set(rule.methods or ()) <= METHODS, rule


def test_no_route_takes_a_number_or_anything_but_a_secret_link(tmp_path, monkeypatch):
    """Nights are reached only by 256-bit links: there is no id to count up or down."""
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    for rule in routes(_app()):
        if rule.endpoint == "static":
            assert rule.arguments == {"filename"}
            continue
        if ACCESS[rule.endpoint] == BROWSER:
            assert rule.arguments <= {"name"}, rule  # a player's name, looked up in this browser's nights
            continue
        assert rule.arguments <= {"key"}, rule
        if rule.arguments:
            assert type(rule._converters["key"]).__name__ == "UnicodeConverter", rule
            assert ACCESS[rule.endpoint] in (KEEPER, VIEWER, DISPLAY, ORGANISER, MEMBERS, OWN)
        else:
            assert ACCESS[rule.endpoint] in (PUBLIC, GROUP_PUBLIC), rule


def _link(kind: str, access: str, this: NightRef, other: NightRef) -> str:
    return {
        "no link": random_key(),
        "one character off": one_character_off(this.keeper if access == KEEPER else this.viewer),
        "the players' link": this.viewer,
        "another night's players' link": other.viewer,
        "another night's scorekeeper link": other.keeper,
        "this night's scorekeeper link": this.keeper,
        "another night's keeper phone's link": other.phone,
        "this night's keeper phone's link": this.phone,
        "a keeper phone's link taken back": this.gone,
    }[kind]


@pytest.mark.parametrize("endpoint", sorted(e for e, access in ACCESS.items() if access not in (*GROUP_CLASSES, DISPLAY)))
def test_each_route_answers_each_kind_of_link_as_the_matrix_says(endpoint, app):
    site = Site(app)
    rule = site.rules()[endpoint]
    access = ACCESS[endpoint]
    client = app.test_client()
    answers: dict[tuple[str, str], int] = {}
    expected: dict[tuple[str, str], int] = {}
    not_found_bodies: set[bytes] = set()
    for method in sorted(rule.methods or ()):
        ok = OK_STATUS.get((endpoint, method), OK_BY_METHOD.get(method))
        if access == PUBLIC:
            before = site.counts()
            response = site.send(client, method, endpoint, None, site.submit(endpoint))
            answers[method, "-"] = response.status_code
            expected[method, "-"] = 200 if method == "OPTIONS" else ok
            created = 1 if method == "POST" else 0
            assert site.counts()[0] == before[0] + created, (method, "a public route changed the nights")
            continue
        for kind in LINKS:
            this, other = site.seat(endpoint), site.seat(endpoint, name="Saturday")
            before = site.snapshot(this.id), site.snapshot(other.id), site.counts()
            link = _link(kind, access, this, other)
            target = other if kind.startswith("another night") else this
            if access == BROWSER:
                client = app.test_client()  # a browser that has opened this one link, and nothing else
                client.get(f"/k/{link}")
                response = site.send(client, method, endpoint, None)
                body = response.get_data(as_text=True) if method == "GET" else ""
                if method == "GET":  # a keeper phone's own link lists its night too, by that link alone (issue 39)
                    opens = kind in ("this night's scorekeeper link", "this night's keeper phone's link")
                    assert ("Friday" in body) == opens, (method, kind)
                    assert ("Saturday" in body) == (kind in ("another night's scorekeeper link",
                                                             "another night's keeper phone's link")), (method, kind)
                    if kind.endswith("keeper phone's link"):
                        assert target.keeper not in body and f"/k/{target.phone}" in body, (method, kind)
            else:
                response = site.send(client, method, endpoint, link, site.submit(endpoint, target))
            answers[method, kind] = response.status_code
            # OPTIONS is answered from the URL map alone: the view never runs, the key is never read
            want = 200 if method == "OPTIONS" else MATRIX_FOR.get(endpoint, MATRIX[access])[kind]
            expected[method, kind] = KNOWN.get((endpoint, method, kind), ok if want == OK else want)
            if response.status_code == 404 and method != "HEAD":
                not_found_bodies.add(response.data)

            changes_this = method == "POST" and kind in ("this night's scorekeeper link", "this night's keeper phone's link")
            changes_other = method == "POST" and kind in (
                "another night's scorekeeper link", "another night's keeper phone's link")
            after = site.snapshot(this.id), site.snapshot(other.id), site.counts()
            if endpoint in STARTS_A_NIGHT:
                # the night whose link it is stays as it was; one new night appears, started from it
                assert after[:2] == before[:2], (method, kind, "a night changed")
                started = int(changes_this or changes_other)
                assert after[2][0] == before[2][0] + started, (method, kind, "nights started")
            else:
                assert (after[0] != before[0]) == changes_this, (method, kind, "this night")
                assert (after[1] != before[1]) == changes_other, (method, kind, "the other night")
                assert after[2][0] == before[2][0], (method, kind, "a night appeared or vanished")
    assert answers == expected
    assert len(not_found_bodies) <= 1, "a 404 body tells one unknown link from another"


def test_head_on_the_setup_page_answers_like_get(site, client):
    night = site.seat()
    assert client.head(f"/k/{night.keeper}/setup").status_code == client.get(f"/k/{night.keeper}/setup").status_code


def test_a_link_one_character_off_is_as_unknown_as_any_other(site, client):
    """Every wrong link gets byte-for-byte the same 404, whatever it is near."""
    night = site.seat()
    site.seat(name="Saturday")
    probes = [
        random_key(),
        one_character_off(night.keeper),
        one_character_off(night.viewer),
        night.keeper[:-1],
        night.keeper + "A",
        night.keeper.swapcase(),
        night.keeper[::-1],
        "A" * 43,
        "x" * 65,
        *(str(n) for n in range(0, night.id + 3)),  # the ids around the real ones
    ]
    seen: set[tuple[bytes, tuple]] = set()
    for key in probes:
        for path in (f"/k/{key}", f"/k/{key}/history", f"/p/{key}", f"/p/{key}/live", f"/k/{key}/report"):
            response = client.get(path)
            assert response.status_code == 404, path
            headers = tuple(sorted((k, v) for k, v in response.headers.items() if k != "Date"))
            seen.add((response.data, headers))
        response = client.post(f"/k/{key}/declare", data={"nobody": "1", "version": "0", "request_key": random_key()})
        assert response.status_code == 404
        seen.add((response.data, tuple(sorted((k, v) for k, v in response.headers.items() if k != "Date"))))
    bodies = {body for body, _ in seen}
    assert len(bodies) == 1
    assert b"/k/" not in next(iter(bodies)) and b"/p/" not in next(iter(bodies))
    # the headers differ only in Cache-Control, if at all (both links' pages are never stored)
    assert len({tuple(h for h in headers if h[0] != "Cache-Control") for _, headers in seen}) == 1
    assert site.counts()[1] == 0


def test_pages_the_players_link_opens_never_contain_the_scorekeepers_link(site, client):
    night = site.seat("table.showdown")
    pages = [site.url(endpoint, night.viewer) for endpoint, access in ACCESS.items() if access == VIEWER]
    pages += [site.url(endpoint, night.viewer) for endpoint, access in ACCESS.items() if access == KEEPER]
    for path in pages:
        response = client.get(path, follow_redirects=True)
        if response.status_code == 405:
            response = client.post(path, data={"which": "keeper"})
        body = response.get_data(as_text=True)
        assert night.keeper not in body, path
        assert night.keeper not in str(response.headers), path
    cookie = client.get_cookie("session")
    if cookie is not None:
        session = site.app.session_interface.get_signing_serializer(site.app).loads(cookie.value)
        assert night.keeper not in str(session)


def test_pages_a_keeper_phones_link_opens_never_contain_the_first_link(site, client):
    """A keeper phone's own link (issue 39) opens every scorekeeper page, and each page, form and redirect
    carries the phone's link: never the night's first link, which it could keep using once its own is taken back."""
    night = site.seat("table.showdown")
    for endpoint, access in ACCESS.items():
        if access not in (KEEPER, VIEWER) or endpoint == "share.take_back":
            continue
        path = site.url(endpoint, night.phone)
        response = client.get(path)
        if response.status_code == 405:
            response = client.post(path, data=site.submit(endpoint, night) if endpoint != "report.paid" else {})
        body = response.get_data(as_text=True)
        assert response.status_code < 500, path
        assert night.keeper not in body, path
        assert night.keeper not in str(response.headers), path
        if response.status_code in (302, 303):
            assert night.phone in response.headers["Location"] or not response.headers["Location"].startswith("/k/"), path
    # this browser's lists (docs/keepers.md): the night the phone opened, by the phone's own link alone
    for path in ("/", "/nights", "/players/Ann"):
        response = client.get(path)
        assert response.status_code == 200 and night.keeper not in response.get_data(as_text=True), path
        assert f"/k/{night.phone}" in response.get_data(as_text=True), path
    cookie = client.get_cookie("session")
    session = site.app.session_interface.get_signing_serializer(site.app).loads(cookie.value)
    assert night.keeper not in str(session)


def test_the_display_link_opens_the_display_alone_and_a_replaced_or_taken_back_one_nothing(app, site: Site):
    """The table display's link (issue 39) reaches its three addresses and no other route, by any method; no other
    kind of link reaches the display; a display link replaced, or taken back, reaches nothing at all.  Every such
    answer is the one 404 of any unknown link, and nothing of either night changes."""
    this, other = site.seat(), site.seat(name="Saturday")
    with app.app_context():
        replaced = services.new_display_link(this.id)
        display = services.new_display_link(this.id)  # the first is replaced: an unknown link now
        taken_back = services.new_display_link(other.id)
        services.take_back_display_link(other.id)
    before = site.snapshot(this.id), site.snapshot(other.id), site.counts()
    client = app.test_client()
    not_found: dict[str, set[bytes]] = {}
    wrong = {"a display link replaced": replaced, "a display link taken back": taken_back}
    for endpoint, rule in site.rules().items():
        access = ACCESS[endpoint]
        if access in GROUP_CLASSES or access in (PUBLIC, BROWSER):
            continue
        links = {**wrong, "this night's display link": display}
        if access == DISPLAY:  # every other kind of link is as unknown here
            links.update({"no link": random_key(), "one character off": one_character_off(display),
                          "the players' link": this.viewer, "this night's scorekeeper link": this.keeper,
                          "this night's keeper phone's link": this.phone, "a keeper phone's link taken back": this.gone})
        # a legal submit (report.paid's names a payment of the plan Ben -> Cat: the night has none recorded here)
        data = {"payer": "Ben", "payee": "Cat", "chips": "4"} if endpoint == "report.paid" else site.submit(endpoint, this)
        for method in sorted((rule.methods or set()) - {"OPTIONS"}):
            for kind, link in links.items():
                response = site.send(client, method, endpoint, link, data)
                want = OK_BY_METHOD[method] if (access, kind) == (DISPLAY, "this night's display link") else 404
                assert response.status_code == want, (endpoint, method, kind)
                if want == 404 and method != "HEAD":
                    not_found.setdefault(endpoint, set()).add(response.data)
    # per route, as the matrix (a JSON route's 404 is JSON): one body, whatever the unknown link
    assert all(len(bodies) == 1 for bodies in not_found.values()), "a 404 body tells one unknown link from another"
    assert (site.snapshot(this.id), site.snapshot(other.id), site.counts()) == before


def test_pages_the_display_link_opens_never_contain_another_link(site, client):
    """The table display shows the night to the room: never the scorekeeper's, a keeper phone's nor the players'
    link (whoever photographs the TV gets nothing to open)."""
    night = site.seat("table.showdown")
    with site.app.app_context():
        display = services.new_display_link(night.id)
    for endpoint, access in ACCESS.items():
        if access != DISPLAY:
            continue
        response = client.get(site.url(endpoint, display))
        assert response.status_code == 200, endpoint
        for secret in (night.keeper, night.viewer, night.phone):
            assert secret not in response.get_data(as_text=True) and secret not in str(response.headers), endpoint
