"""Pages kept per version (views/stamped.py): each request still gets its own keys, token and messages."""

from __future__ import annotations

import re

from companion import services

KEY = re.compile(r'name="request_key" required type="hidden" value="([A-Za-z0-9_-]+)"')
TOKEN = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')


def test_two_phones_at_one_version_get_the_same_table_with_their_own_request_keys(start_night, client, app):
    page = start_night()
    first, second = client.get(page.url).get_data(as_text=True), client.get(page.url).get_data(as_text=True)
    keys_first, keys_second = KEY.findall(first), KEY.findall(second)
    assert len(keys_first) == len(keys_second) == 1  # the first stage: the declare form alone
    assert len(set(keys_first)) == len(keys_first) and not set(keys_first) & set(keys_second)
    assert KEY.sub("", first) == KEY.sub("", second)  # all the rest is the page kept for the version
    assert "\x00" not in first


def test_the_flash_of_an_action_shows_once_on_the_kept_page(start_night, client):
    page = start_night()
    response = client.post(f"{page.url}/declare", data={**page.stamp("declare"), "nobody": "1"})
    assert response.status_code == 303
    after = client.get(page.url).get_data(as_text=True)
    # four players, ante 1: nobody said Yes at stage 1, so the pot holds 4 and stage 2 is next
    flashed = re.findall(r'<p class="flash" role="status">([^<]*)</p>', after)
    assert len(flashed) == 1 and "Nobody said Yes" in flashed[0]
    assert 'data-pot="4"' in after
    again = client.get(page.url).get_data(as_text=True)
    assert '<p class="flash" role="status">' not in again


def test_a_new_scorekeeper_link_is_not_served_from_the_page_kept_for_the_old_one(start_night, client, app):
    page = start_night()
    old_key = page.key
    client.get(page.url)
    share = client.get(f"/k/{old_key}/share").get_data(as_text=True)
    request_key = re.search(r'name="request_key" value="([^"]+)"', share).group(1)
    moved = client.post(f"/k/{old_key}/rotate", data={"which": "keeper", "request_key": request_key})
    new_url = moved.headers["Location"].rsplit("/share", 1)[0]
    assert client.get(f"/k/{old_key}").status_code == 404
    html = client.get(new_url).get_data(as_text=True)
    assert old_key not in html and new_url.rsplit("/", 1)[-1] in html


def test_each_session_gets_its_own_csrf_token_in_the_kept_report(make_app):
    app = make_app(WTF_CSRF_ENABLED=True)
    one, two = app.test_client(), app.test_client()
    home = one.get("/").get_data(as_text=True)
    from pages import night_form

    created = one.post("/nights", data={**night_form(), "csrf_token": TOKEN.search(home).group(1)})
    url = created.headers["Location"]
    table_one = one.get(url).get_data(as_text=True)
    table_two = two.get(url).get_data(as_text=True)
    token_one, token_two = TOKEN.search(table_one).group(1), TOKEN.search(table_two).group(1)
    assert token_one != token_two
    # each phone's token is the one its own session accepts: a stage recorded from each page
    stamp = {"version": "0", "request_key": KEY.findall(table_two)[0], "csrf_token": token_two, "nobody": "1"}
    assert two.post(f"{url}/declare", data=stamp).status_code == 303
    assert set(TOKEN.findall(one.get(f"{url}/report").get_data(as_text=True))) <= {token_one}
    with app.app_context():
        assert services.new_key() not in table_one
