"""A group's pages kept per (page, group's stamp, period), as a night's are per version (web/pages/groups.py).

The group is tests/group/three_nights.py's, imported through the home page (its figures are worked
out there and in tests/web/test_groups.py): Ann owes Cat 0.75 EUR (night 2) and Benjamin 10 chips
(night 3, chips only, unpaid).  A repeat request for an unchanged group is served kept, each request
with its own request keys, CSRF token and flashed messages; anything that changes the group or one of
its nights shows at once.
"""

from __future__ import annotations

import re

import pytest

from companion import service
from companion.db.models import Group, Night
from companion.extensions import db
from web.test_groups import confirmed, import_group, page, stamp, text

KEY = re.compile(r'name="request_key" (?:required )?type="hidden" value="([A-Za-z0-9_-]+)"')
TOKEN = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')
PAYMENTS = re.compile(r'data-payer="([^"]+)" data-payee="([^"]+)" data-amount="([^"]+)"')


@pytest.fixture
def organiser(client) -> str:  # type: ignore[no-untyped-def]
    return import_group(client)


@pytest.fixture
def members(app, organiser) -> str:  # type: ignore[no-untyped-def]
    with app.app_context():
        return "/m/" + db.session.query(Group).one().member_key


def not_made_again(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """From here on, a page made anew fails: only a kept page can be served."""

    def refuse(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the group's view was built again for an unchanged group")

    monkeypatch.setattr(service, "group_view", refuse)


def test_a_repeat_request_is_served_kept_with_its_own_request_keys(client, organiser, members, monkeypatch):
    first = {url: page(client, url) for url in (organiser, members)}
    not_made_again(monkeypatch)
    for url in (organiser, members):
        again = page(client, url)
        keys_first, keys_again = KEY.findall(first[url]), KEY.findall(again)
        # every form shown has its own key (the double-tap protection tells one submit from another by it); the
        # members' page posts nothing itself ("I got it" asks first, on a page of its own that has the key)
        assert (bool(keys_again) if url == organiser else not keys_again) and len(set(keys_again)) == len(keys_again)
        assert not set(keys_first) & set(keys_again)
        assert KEY.sub("", first[url]) == KEY.sub("", again)  # the rest is the page kept
        assert "\x00" not in again


def test_the_replace_a_link_form_gets_a_fresh_key_each_time_too(client, organiser):
    rotate = re.compile(r'action="[^"]+/rotate">.*?name="request_key"[^>]*value="([^"]+)"', re.S)
    one, two = rotate.search(page(client, organiser)), rotate.search(page(client, organiser))
    assert one and two and one[1] != two[1]


def test_a_kept_page_goes_out_compressed_to_a_browser_that_takes_it(client, organiser):
    import zlib

    plain = page(client, organiser)
    response = client.get(organiser, headers={"Accept-Encoding": "deflate"})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "deflate"
    body = zlib.decompress(response.get_data()).decode()
    assert KEY.sub("", body) == KEY.sub("", plain)


def test_each_session_gets_its_own_csrf_token_in_the_kept_page(make_app):
    from web.test_groups import group_document

    app = make_app(WTF_CSRF_ENABLED=True)
    with app.app_context():
        import json

        group = service.import_group(json.dumps(group_document()))
        url = f"/g/{group.organiser_key}"
    one, two = app.test_client(), app.test_client()
    page_one, page_two = one.get(url).get_data(as_text=True), two.get(url).get_data(as_text=True)
    tokens_one, tokens_two = set(TOKEN.findall(page_one)), set(TOKEN.findall(page_two))
    assert len(tokens_one) == len(tokens_two) == 1 and tokens_one != tokens_two


def test_a_payment_through_the_tab_changes_both_pages_and_its_message_shows_once(client, organiser, members):
    before = page(client, members)
    assert PAYMENTS.findall(before) == [("Ann", "Cat", "0.75"), ("Ann", "Benjamin", "10")]
    html = page(client, organiser)
    data = {**confirmed(client, html, f"{organiser}/tab/paid", 'value="Cat"'), "payer": "Ann", "payee": "Cat", "unit": "EUR",
            "amount": "0.75"}
    assert client.post(f"{organiser}/tab/paid", data=data).status_code == 303
    after = page(client, organiser)
    # Ann's 0.75 to Cat paid: EUR is square, the 10 chips to Benjamin are left
    assert PAYMENTS.findall(after) == [("Ann", "Benjamin", "10")]
    assert len(re.findall(r'<p class="flash" role="status">', after)) == 1 and "Recorded: Ann paid Cat" in after
    assert '<p class="flash" role="status">' not in page(client, organiser)  # shown once
    assert PAYMENTS.findall(page(client, members)) == [("Ann", "Benjamin", "10")]


def test_a_new_member_changes_the_page(client, organiser):
    html = page(client, organiser)
    assert 'data-member="Eve"' not in html
    data = {**stamp(html, f"{organiser}/members/add"), "name": "Eve"}
    assert client.post(f"{organiser}/members/add", data=data).status_code == 303
    assert '<li data-member="Eve">' in page(client, organiser)


def test_a_night_moving_on_changes_the_page(app, client, organiser, members):
    assert ("Ann", "Benjamin", "10") in PAYMENTS.findall(page(client, members))
    page(client, organiser)
    with app.app_context():
        night = db.session.query(Night).order_by(Night.id.desc()).first()  # night 3, the last imported
        # night 3: Ann pays Ben 4 of her 10 chips at the night itself (the group's version does not move)
        service.mark_paid(night.id, "Ann", "Ben", 4, expected_version=night.version)
    # 10 - 4 = 6 chips still owed to Benjamin
    assert ("Ann", "Benjamin", "6") in PAYMENTS.findall(page(client, members))
    assert ("Ann", "Benjamin", "6") in PAYMENTS.findall(page(client, organiser))


def test_a_nights_new_players_link_shows_at_once(app, client, organiser):
    with app.app_context():
        night = db.session.query(Night).order_by(Night.id).first()
        old = night.viewer_key
    assert old in page(client, organiser)
    with app.app_context():
        service.rotate_link(db.session.get(Night, night.id), "viewer")
        new = db.session.get(Night, night.id).viewer_key
    html = page(client, organiser)
    assert old not in html and new in html


def test_a_refused_form_is_shown_as_typed_and_never_kept(client, organiser):
    html = page(client, organiser)
    data = {**stamp(html, f"{organiser}/members/add"), "name": "Ann"}  # Ann is a member already
    shown = client.post(f"{organiser}/members/add", data=data)  # the client follows the 303 to the refusal
    assert shown.status_code == 422 and "The member could not be added" in text(shown.get_data(as_text=True))
    again = page(client, organiser)
    assert "The member could not be added" not in again


def test_a_period_or_rivalry_that_cannot_be_shown_is_never_kept(client, organiser):
    assert "cannot be shown" in page(client, organiser + "?first=Ann&second=Nobody", 400)
    assert "cannot be shown" in page(client, organiser + "?period=march", 400)
    assert "cannot be shown" not in page(client, organiser)
    # a rivalry that can be shown is kept by its two members: another pair is another page
    ann_cat = page(client, organiser + "?first=Ann&second=Cat")
    assert "Ann against Cat" in ann_cat and "Ann against Benjamin" in page(client, organiser + "?first=Ann&second=Benjamin")


# --- a long season: the lists shown at first ------------------------------------------------------


def long_group() -> dict:  # type: ignore[type-arg]
    """Fourteen nights, 2025-01-01 to 2025-01-14: night 1 of three_nights (settled at the night) on odd days,
    night 3 (Ann owes Ben 10 chips, unpaid) on even days."""
    from group.three_nights import GROUP, copy

    document = copy(GROUP)
    settled, unpaid = document["nights"][0], document["nights"][2]
    document["nights"] = [
        {**copy(settled if day % 2 else unpaid), "date": f"2025-01-{day:02d}"} for day in range(1, 15)
    ]
    return document


def test_a_long_season_lists_the_newest_nights_and_the_oldest_open_balances_then_all_on_asking(client):
    organiser = import_group(client, long_group())
    html = page(client, organiser)
    # 14 nights: the newest 12 listed (the 14th down to the 3rd), and a link to all 14
    assert html.count('class="night-card"') == 12 and "All 14 nights" in html
    # seven unpaid nights of 10 chips: Ann -10 and Benjamin +10 open at each, 14 balances; the oldest 12 shown
    assert "Ann owes 70 chips" in text(html) and "Benjamin is owed 70 chips" in text(html)
    open_rows = re.search(r'<details class="open-nights">(.*?)</details>', html, re.S)
    assert open_rows and open_rows[1].count("<tr><td>") == 12 and "All 14 open balances in chips" in open_rows[1]
    everything = page(client, organiser + "?nights=all")
    assert everything.count('class="night-card"') == 14 and "All 14 nights" not in everything
    open_rows = re.search(r'<details class="open-nights">(.*?)</details>', everything, re.S)
    assert open_rows and open_rows[1].count("<tr><td>") == 14
    # the period asked for goes with the link
    assert f'href="{organiser}?nights=all&amp;period=2025#nights-h"' in page(client, organiser + "?period=2025")


def test_the_one_statement_read_gives_the_services_stamp_and_only_by_the_right_link(app, organiser, members):
    from companion.web.pages.groups import read_stamp

    organiser_key, member_key = organiser.rsplit("/", 1)[1], members.rsplit("/", 1)[1]
    with app.test_request_context("/"):
        group = db.session.query(Group).one()
        stamp = service.group_stamp(group)
        # the group's id, version, name, two links, its nights' changes at no version (none yet), then its three
        # nights' count and the sum of their versions (each night's events, counted on its own rows here)
        versions = sum(n.version for n in db.session.query(Night))
        assert versions > 0
        assert stamp == (group.id, group.version, "Friday poker", organiser_key, member_key, 0, 3, versions)
        assert read_stamp(organiser_key, True) == stamp == read_stamp(member_key, False)
        # each link reads its own page's stamp only
        assert read_stamp(member_key, True) is None and read_stamp(organiser_key, False) is None
        assert read_stamp("x" * 43, True) is None and read_stamp("not a key!", True) is None
