"""Issue 22: every page a phone opens is kept per version, and compressed where it pays, without changing what it says.

The players' page, the players' report, the bank page, the downloads, the home page and
a player's page across nights are made once per night version (or per set of nights)
and each request gets its own request keys, CSRF token and messages; a change of the
night shows at once.  A compressed answer decompresses to the page sent uncompressed.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib

from pages import BankPage, night_form

from companion.web.plumbing.kept_pages import adler32_combine

KEY = re.compile(r'name="request_key" (?:required )?type="hidden" value="([A-Za-z0-9_-]+)"')


def _viewer_key(client, page) -> str:
    share = client.get(f"{page.url}/share").get_data(as_text=True)
    return re.search(r"/p/([A-Za-z0-9_-]+)", share).group(1)


def _without_keys(html: str) -> str:
    return KEY.sub("", html)


# --- the players' page -------------------------------------------------------------------


def test_each_phone_sees_its_own_player_marked_on_the_kept_players_page(start_night, client, app):
    page = start_night()
    page.declare("Ben")
    viewer = _viewer_key(client, page)
    ann, ben = app.test_client(), app.test_client()
    assert ann.get(f"/p/{viewer}/me?name=Ann").status_code == 303
    assert ben.get(f"/p/{viewer}/me?name=Ben").status_code == 303
    for _ in range(2):  # the second time from what is kept
        ann_page = ann.get(f"/p/{viewer}").get_data(as_text=True)
        ben_page = ben.get(f"/p/{viewer}").get_data(as_text=True)
        assert "<option selected>Ann</option>" in ann_page and "<option selected>Ben</option>" not in ann_page
        assert "<option selected>Ben</option>" in ben_page and "<option selected>Ann</option>" not in ben_page
        assert 'class="me' in ann_page  # Ann's row of the standings is marked on her phone


def test_the_kept_players_page_follows_the_table_and_gives_a_stranger_no_cookie(start_night, client, app):
    page = start_night()
    page.declare("Ben")
    viewer = _viewer_key(client, page)
    stranger = app.test_client()
    first = stranger.get(f"/p/{viewer}")
    assert first.status_code == 200 and "Set-Cookie" not in first.headers
    again = stranger.get(f"/p/{viewer}")
    assert "Set-Cookie" not in again.headers and again.get_data() == first.get_data()
    page.declare()  # nobody says Yes at stage 2: the table moves on
    after = stranger.get(f"/p/{viewer}").get_data(as_text=True)
    assert after != first.get_data(as_text=True)
    assert re.search(r'data-etag="p-v2-', after)  # the live part starts from the new version


# --- the players' report and the downloads ---------------------------------------------------


def test_the_players_report_and_downloads_change_when_a_payment_is_marked(start_night, client, app):
    page = start_night()
    page.declare("Ben", "Cat")
    page.winner("Cat")  # Cat wins the showdown: the others owe her
    viewer = _viewer_key(client, page)
    urls = [f"/p/{viewer}/report", f"/p/{viewer}/report.csv", f"/p/{viewer}/report.json",
            f"{page.url}/report.json", f"{page.url}/export.json"]
    before = {url: client.get(url).get_data() for url in urls}
    assert all(client.get(url).get_data() == body for url, body in before.items())  # kept: the same bytes
    report = client.get(f"{page.url}/report").get_data(as_text=True)
    payer, payee, chips = re.search(
        r'<li class="payment" data-payer="([^"]+)" data-payee="([^"]+)" data-chips="(\d+)">', report
    ).groups()
    confirm = client.get(f"{page.url}/report?payer={payer}&payee={payee}&chips={chips}").get_data(as_text=True)
    form = re.search(r'class="confirm" id="confirm">(.*?)</form>', confirm, re.S).group(1)
    fields = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', form))
    assert client.post(f"{page.url}/paid", data=fields).status_code == 303
    after = {url: client.get(url).get_data() for url in urls}
    for url in urls:
        assert after[url] != before[url], url  # the payment is in every one of them
    assert any(p["paid"] for p in json.loads(after[f"/p/{viewer}/report.json"])["payments"])
    # the night file holds the payments marked paid too (docs/night-file.md, "paid"), so an imported copy
    # does not offer this one again
    assert json.loads(after[urls[-1]])["paid"] == [{"payer": payer, "payee": payee, "chips": int(chips)}]
    page.refresh()  # the payment moved the night's version on
    assert page.declare().status_code == 303
    assert json.loads(client.get(urls[-1]).get_data()) != json.loads(before[urls[-1]])


# --- the bank page -------------------------------------------------------------------------


def test_the_kept_bank_page_gives_each_request_its_own_keys_and_follows_a_buy_in(start_night, client):
    page = start_night()
    page.declare("Ben")
    bank = BankPage(client, page)
    first, second = bank.refresh(), bank.refresh()
    keys_first, keys_second = KEY.findall(first), KEY.findall(second)
    assert len(keys_first) >= 2 and not set(keys_first) & set(keys_second)
    assert _without_keys(first) == _without_keys(second)
    assert bank.everyone("100").status_code == 303
    assert "400" in bank.refresh()  # four players bought 100 chips each: the bank holds 400


# --- the home page and a player's nights ---------------------------------------------------------


def test_the_kept_home_page_gives_each_visit_new_request_keys_and_lists_a_new_night(client, start_night):
    first, second = client.get("/").get_data(as_text=True), client.get("/").get_data(as_text=True)
    keys_first, keys_second = KEY.findall(first), KEY.findall(second)
    # the night's form, its import form, and a group's two (make one, import one): each visit its own keys
    assert len(keys_first) == 4 and not set(keys_first) & set(keys_second)
    assert _without_keys(first) == _without_keys(second)
    start_night(name="Friday at Ann's")
    assert "Friday at Ann" in client.get("/").get_data(as_text=True)


def test_a_players_page_across_nights_follows_each_night(client, start_night):
    page = start_night(name="Friday")
    page.declare("Ben", "Cat")
    page.winner("Ben")
    before = client.get("/players/Ben").get_data(as_text=True)
    assert "Friday" in before
    assert client.get("/players/Ben").get_data(as_text=True) == before  # kept
    page.declare("Ann")  # a new version of the night: the page is made again
    second = start_night(name="Saturday")
    second.declare("Ben")
    after = client.get("/players/Ben").get_data(as_text=True)
    assert "Saturday" in after and "Friday" in after
    assert client.get("/players/Nobody").status_code == 404


def test_a_night_renamed_before_play_shows_its_new_name_on_the_home_page(client, app):
    created = client.post("/nights", data=night_form(name="Draft"))
    client.get(created.headers["Location"])  # this browser keeps score of it now
    assert "Draft" in client.get("/").get_data(as_text=True)  # kept now
    with app.app_context():  # the setup screen renames a night before play, at version 0
        from companion.extensions import db
        from companion.db.models import Night

        db.session.execute(db.update(Night).where(Night.name == "Draft").values(name="Final"))
        db.session.commit()
    home = client.get("/").get_data(as_text=True)
    assert "Final" in home and "Draft" not in home


# --- compression ----------------------------------------------------------------------------------


def test_a_kept_page_sent_compressed_is_the_page_sent_plain(start_night, client):
    page = start_night()
    page.declare("Ben")
    for path in ("", "/report"):  # the table screen (a form in it) and the report
        client.get(page.url + path)  # kept now
        plain = client.get(page.url + path)
        packed = client.get(page.url + path, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
        assert "Content-Encoding" not in plain.headers
        assert packed.headers["Content-Encoding"] == "deflate" and "Accept-Encoding" in packed.headers["Vary"]
        body = zlib.decompress(packed.get_data()).decode()
        assert int(packed.headers["Content-Length"]) == len(packed.get_data()) < len(body.encode())
        assert _without_keys(body) == _without_keys(plain.get_data(as_text=True))
        assert set(KEY.findall(body)).isdisjoint(KEY.findall(plain.get_data(as_text=True)))  # its own fresh keys


def test_a_download_is_compressed_once_and_decompresses_to_the_file(start_night, client):
    page = start_night()
    for _ in range(6):  # a file of a few KB: worth compressing
        page.declare("Ben", "Cat")
        page.winner("Cat")
    plain = client.get(f"{page.url}/export.json").get_data()
    assert len(plain) > 1400
    for _ in range(2):
        packed = client.get(f"{page.url}/export.json", headers={"Accept-Encoding": "gzip"})
        assert packed.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(packed.get_data()) == plain
        assert packed.headers["Content-Disposition"].startswith("attachment")


def test_the_players_poll_is_never_compressed_and_keeps_its_etag(start_night, client, app):
    page = start_night()
    page.declare("Ben")
    viewer = _viewer_key(client, page)
    phone = app.test_client()
    browser = {"Accept-Encoding": "gzip, deflate, br, zstd"}
    first = phone.get(f"/p/{viewer}/live", headers=browser)
    assert first.status_code == 200 and "Content-Encoding" not in first.headers
    etag = first.headers["ETag"]
    assert re.fullmatch(r'"p-v1-[0-9a-f]{20}"', etag)
    unchanged = phone.get(f"/p/{viewer}/live", headers={**browser, "If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.get_data() == b"" and "Content-Encoding" not in unchanged.headers


def test_a_short_answer_is_sent_as_it_is(client):
    response = client.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200 and "Content-Encoding" not in response.headers


def test_adler32_of_two_parts_put_together_is_the_whole_ones():
    first, second = b"Ann paid Ben 12 chips. " * 50, "Ночь у Ани".encode() * 3000
    assert adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second)) == zlib.adler32(first + second)
    assert adler32_combine(1, zlib.adler32(b""), 0) == 1


# --- the service worker ------------------------------------------------------------------------------


def test_the_service_worker_keeps_the_static_files_the_pages_load(client):
    page = client.get("/").get_data(as_text=True)
    worker = client.get("/sw.js")
    script = worker.get_data(as_text=True)
    assert worker.headers["Cache-Control"] == "no-cache"
    shell = re.search(r"var SHELL_FILES = \[(.*?)\];", script, re.S).group(1)
    addresses = re.findall(r'"([^"]+)"', shell)
    assert len(addresses) == 6 and all(re.fullmatch(r"/static/[\w.-]+\?v=[0-9a-f]{12}", a) for a in addresses)
    for name in ("app.css", "app.js", "icon.svg"):  # the very addresses the page has just loaded
        address = next(a for a in addresses if a.startswith(f"/static/{name}?"))
        assert f'"{address}"' in page
    assert client.get("/sw.js", headers={"If-None-Match": worker.headers["ETag"]}).status_code == 304


# --- a worker started in the middle of a night ----------------------------------------------------


def test_serving_starts_with_the_nights_in_play_folded(start_night, client, app):
    from companion import service as services
    from companion.web.plumbing.server import warm_up
    from companion.service import store

    played = start_night(name="In play")
    played.declare("Ben", "Cat")
    start_night(name="Not started")  # version 0: its setup may still change, nothing to fold
    services.clear_cache()  # as a worker just started
    with app.app_context():
        warm_up(app)
        from companion.extensions import db
        from companion.db.models import Night

        night = db.session.scalar(db.select(Night).where(Night.name == "In play"))
        assert store._cache.get(night.id)[0] == night.version == 1
        assert len(store._cache) == 1
    assert app.jinja_env.cache  # the templates compiled before the first request


def test_serving_starts_with_each_night_in_plays_pages_made(start_night, app):
    """The table screen, the report and the history of a night in play are made by the warm-up, not the first phone."""
    from companion import service as services
    from companion.web.plumbing.server import warm_up

    played = start_night(name="In play")
    played.declare("Ben", "Cat")
    services.clear_cache()  # as a worker just started
    with app.app_context():
        from companion.extensions import db
        from companion.db.models import Night

        night = db.session.scalar(db.select(Night).where(Night.name == "In play"))
        assert night.version == 1 and services.derived("chip-charts", night.id, 1) is None
        warm_up(app)
        for what in ("standings/6", "chip-charts", "history-lines"):
            assert services.derived(what, night.id, 1) is not None, what
        assert set(services.derived("chip-charts", night.id, 1)) == {"Ann", "Ben", "Cat", "Dan"}
