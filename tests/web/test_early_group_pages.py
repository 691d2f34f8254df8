"""A group's page answered before Flask from the page kept (web/early_pages.py: the group's plug-in).

The proof is conformance: for the same request, the early answer and Flask's are the same status,
the same headers and the same page once the request keys and the CSRF token (made anew for every
request) are masked; and the early path is taken exactly when Flask's answer would be the kept page
with no cookie sent: not for a first visit, a flash to show, a stamp that moved, an unknown link, a
HEAD, a question in the address.  The group is tests/group/three_nights.py's (web/test_groups.py's
group_document), with CSRF on as in production.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib

import pytest
from werkzeug.test import EnvironBuilder

from companion import service
from companion.db.models import Group, Night
from companion.extensions import db
from companion.web.early_pages import ANSWERED, EarlyPages
from web.test_groups import group_document, row, stamp, text

KEY = re.compile(r'(name="request_key" (?:required )?type="hidden" value=")([A-Za-z0-9_-]+)(")')
TOKEN = re.compile(r'(name="csrf_token" type="hidden" value=")([^"]+)(")')
BROWSER = {"Accept-Encoding": "gzip, deflate"}  # what a browser takes (Chromium adds br and zstd)


@pytest.fixture
def site(make_app):  # type: ignore[no-untyped-def]
    app = make_app(WTF_CSRF_ENABLED=True, FAILED_LINK_LIMIT=2)
    with app.app_context():
        group = service.import_group(json.dumps(group_document()))
        links = (f"/g/{group.organiser_key}", f"/m/{group.member_key}")
    return app, app.test_client(), links


def early(app) -> EarlyPages:  # type: ignore[no-untyped-def]
    return app.extensions["companion_early_pages"]


def environ(client, path: str, method: str = "GET", **headers: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """The request a browser with ``client``'s cookie makes for ``path``."""
    sent = {"Host": "localhost", **BROWSER, **headers}
    cookie = client.get_cookie("session")
    if cookie is not None:
        sent["Cookie"] = f"session={cookie.value}"
    base, _, query = path.partition("?")
    return EnvironBuilder(path=base, query_string=query, method=method, headers=sent).get_environ()


def call(wsgi, env: dict) -> tuple[str, list[tuple[str, str]], bytes]:  # type: ignore[no-untyped-def,type-arg]
    answer: dict = {}  # type: ignore[type-arg]

    def start_response(status, headers, exc_info=None):  # type: ignore[no-untyped-def]
        answer["status"], answer["headers"] = status, list(headers)

    chunks = wsgi(env, start_response)
    try:
        body = b"".join(chunks)
    finally:
        getattr(chunks, "close", lambda: None)()
    return answer["status"], answer["headers"], body


def served(app, client, path: str, method: str = "GET", **headers: str):  # type: ignore[no-untyped-def]
    """(answered early?, status, headers, body) of the request through the whole app, as a server runs it."""
    env = environ(client, path, method, **headers)
    status, sent, body = call(app.wsgi_app, env)
    return bool(env.get(ANSWERED)), status, sent, body


def visit(client, path: str) -> str:  # type: ignore[no-untyped-def]
    """A page opened with the test client (plain, not compressed): the cookie it sets is kept by the client."""
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


def shown(headers: list[tuple[str, str]], body: bytes) -> str:
    """The page as the browser reads it: a page made anew goes out compressed by Flask-Compress (gzip here)."""
    encoding = dict(headers).get("Content-Encoding")
    if encoding == "deflate":
        body = zlib.decompress(body)
    elif encoding == "gzip":
        body = gzip.decompress(body)
    return body.decode()


def masked(html: str) -> str:
    return TOKEN.sub(r"\1-\3", KEY.sub(r"\1-\3", html))


@pytest.mark.parametrize("which", [0, 1], ids=["organiser", "members"])
def test_the_early_answer_is_flasks_but_for_the_keys_and_token(site, which):
    app, client, links = site
    path = links[which]
    visit(client, path)  # the first visit: rendered, kept, the cookie with its CSRF secret set
    env = environ(client, path)
    status, headers, body = call(app.wsgi_app, dict(env))
    flask_status, flask_headers, flask_body = call(early(app).wsgi_app, dict(env))  # Flask itself, same request
    assert early(app).answered == 1
    assert status == flask_status == "200 OK"
    # the same headers in the same order (Content-Length too: a key or a token is as long in every request);
    # neither sends a cookie (the session is unchanged) and neither is dated (the server dates both)
    assert headers == flask_headers
    assert {k.lower() for k, _ in headers} >= {"content-encoding", "vary", "content-security-policy", "cache-control"}
    assert ("Content-Encoding", "deflate") in headers and ("Cache-Control", "no-store") in headers
    assert not any(k.lower() in ("set-cookie", "date") for k, _ in headers)
    page, flask_page = zlib.decompress(body).decode(), zlib.decompress(flask_body).decode()
    assert masked(page) == masked(flask_page) and "\x00" not in page
    keys, flask_keys = [m[1] for m in KEY.findall(page)], [m[1] for m in KEY.findall(flask_page)]
    # its own request keys, each one different (a doubled submit is told from a new one by them); the members'
    # page posts nothing itself ("I got it" asks first, on a page of its own)
    assert (bool(keys) if which == 0 else not keys) and len(set(keys)) == len(keys)
    assert not set(keys) & set(flask_keys) and all(len(k) == 43 for k in keys)
    assert len(TOKEN.findall(page)) == len(TOKEN.findall(flask_page)) >= (1 if which == 0 else 0)


def test_a_form_of_an_early_page_is_accepted_with_its_csrf_token(site):
    app, client, (organiser, _) = site
    visit(client, organiser)
    answered, status, _, body = served(app, client, organiser)
    assert answered and status == "200 OK"
    html = zlib.decompress(body).decode()
    token = TOKEN.search(html)
    assert token
    data = {**stamp(html, f"{organiser}/members/add"), "name": "Eve", "csrf_token": token[2]}
    response = client.post(f"{organiser}/members/add", data=data)
    assert response.status_code == 303
    assert '<li data-member="Eve">' in visit(client, organiser)  # Flask shows the flash; Eve is a member
    # and a token that is not the session's is refused, as on any page
    data = {**stamp(html, f"{organiser}/members/add"), "name": "Fay", "csrf_token": token[2][:-2] + "xx"}
    assert client.post(f"{organiser}/members/add", data=data).status_code == 400


def test_no_cookie_is_left_to_flask_which_sets_it(site):
    app, client, (organiser, _) = site
    visit(client, organiser)  # kept now
    stranger = app.test_client()
    answered, status, headers, _ = served(app, stranger, organiser)
    assert not answered and status == "200 OK"
    assert any(k == "Set-Cookie" for k, _ in headers)  # Flask made this browser's CSRF secret


def test_a_flash_to_show_is_left_to_flask_then_the_page_is_early_again(site):
    app, client, (organiser, _) = site
    html = visit(client, organiser)
    data = {**stamp(html, f"{organiser}/members/add"), "name": "Eve", "csrf_token": TOKEN.search(html)[2]}
    assert client.post(f"{organiser}/members/add", data=data).status_code == 303
    answered, status, headers, body = served(app, client, organiser)
    assert not answered and "Recorded: Eve is a member." in shown(headers, body)
    client.get(organiser)  # the flash shown (by the test client, whose cookie then drops it)
    answered, _, headers, body = served(app, client, organiser)
    assert answered and "Recorded:" not in shown(headers, body)


def test_a_change_to_a_night_is_shown_at_once_then_kept_again(site):
    app, client, (organiser, members) = site
    for path in (organiser, members):
        visit(client, path)
        assert served(app, client, path)[0]
    with app.app_context():
        night = db.session.query(Night).order_by(Night.id).first()
        old = night.viewer_key
        service.rotate_link(night, "viewer")
        new = db.session.get(Night, night.id).viewer_key
    for path in (organiser, members):
        answered, status, headers, body = served(app, client, path)
        assert not answered and status == "200 OK"  # the stamp moved: Flask makes the page anew
        html = shown(headers, body)
        assert old not in html and new in html
        answered, _, _, body = served(app, client, path)  # kept at the new stamp
        assert answered and new in zlib.decompress(body).decode()
    with app.app_context():
        night = db.session.query(Night).order_by(Night.id.desc()).first()  # night 3: Ann owes Benjamin 10 chips
        service.mark_paid(night.id, "Ann", "Ben", 4, expected_version=night.version)
    answered, _, headers, body = served(app, client, members)
    assert not answered and 'data-payer="Ann" data-payee="Benjamin" data-amount="6"' in shown(headers, body)


def test_an_unknown_or_wrong_link_goes_to_flask_and_is_counted(site):
    app, client, (organiser, members) = site
    visit(client, organiser)
    visit(client, members)
    organiser_key, member_key = organiser[3:], members[3:]
    # the members' link on the organiser's page, the organiser's on the members', then a made-up one:
    # each a 404 counted against the client, and past the limit (2 here) a 429
    asked = [f"/g/{member_key}", f"/m/{organiser_key}", "/g/" + "x" * 43]
    answers = [served(app, client, path) for path in asked]
    assert [a[0] for a in answers] == [False, False, False]
    assert [a[1] for a in answers] == ["404 NOT FOUND", "404 NOT FOUND", "429 TOO MANY REQUESTS"]
    assert served(app, client, organiser)[:2] == (True, "200 OK")  # a valid link is always answered


def test_a_head_a_question_or_no_deflate_is_left_to_flask(site):
    app, client, (organiser, _) = site
    visit(client, organiser)
    assert served(app, client, organiser)[0]
    assert not served(app, client, organiser, method="HEAD")[0]
    answered, status, _, _ = served(app, client, organiser + "?period=2025")
    assert not answered and status == "200 OK"  # a period not kept yet: Flask makes it
    assert served(app, client, organiser + "?period=all")[:2] == (True, "200 OK")  # the page kept: the whole season
    answered, status, headers, _ = served(app, client, organiser, **{"Accept-Encoding": "gzip"})
    assert not answered and status == "200 OK" and ("Content-Encoding", "gzip") in headers
    assert not served(app, client, organiser, **{"Accept-Encoding": "identity"})[0]


def test_a_host_the_server_does_not_answer_to_is_refused_before_the_page(site):
    app, client, (organiser, _) = site
    visit(client, organiser)
    answered, status, _, body = served(app, client, organiser, Host="evil.example")
    assert not answered and status == "400 Bad Request" and b"does not answer" in body


def test_the_members_link_shown_names_the_address_the_server_listens_on_whatever_the_host(site, monkeypatch):
    """Issue 36, item 7: the link was made from the request's Host; now from where the server listens."""
    from companion.web import addresses

    app, client, (organiser, members) = site
    monkeypatch.setattr(addresses, "lan_address", lambda: "192.168.1.7")
    app.config.update(LISTEN_HOST="0.0.0.0", LISTEN_PORT=8000)  # as `serve --port 8000` records it
    page = visit(client, organiser)  # made by Flask
    assert f"http://192.168.1.7:8000{members}" in page
    for host in ("localhost", "192.168.1.20:8000", "192.168.1.20:5000"):  # allowed: tests' ALLOWED_HOSTS, any port
        again = environ(client, organiser, Host=host)
        status, _, body = call(app.wsgi_app, again)
        # the one page kept, whatever the host: it names no host of the request's
        assert status == "200 OK" and again.get(ANSWERED)
        assert f"http://192.168.1.7:8000{members}" in zlib.decompress(body).decode()
    refused = environ(client, organiser, Host="localhost:5000")  # this machine, at another port
    assert call(app.wsgi_app, refused)[0] == "400 Bad Request"


#: the questions a group's page is kept by, each showing something else than the plain page: the group's
#: three nights are on 2025-03-07, -14 and -21 (tests/group/three_nights.py)
QUESTIONS = [
    "?period=2025",
    "?period=2025-03",
    "?period=range&from=2025-03-08&to=2025-03-14",
    "?first=Ann&second=Cat",
    "?nights=all&period=2025-03",
    "?period=range&from=2025-03-08&to=2025-03-14&first=Ann&second=Cat",
]


def conforms(app, client, path: str) -> str:  # type: ignore[no-untyped-def]
    """Assert the early answer to ``path`` (kept by a first visit) is Flask's but for the keys and token; its page."""
    visit(client, path)
    env = environ(client, path)
    status, headers, body = call(app.wsgi_app, dict(env))
    flask_status, flask_headers, flask_body = call(early(app).wsgi_app, dict(env))  # Flask itself, same request
    assert env.get(ANSWERED) is None  # the copies were marked, not the request built
    assert status == flask_status == "200 OK"
    assert headers == flask_headers and ("Content-Encoding", "deflate") in headers
    page, flask_page = zlib.decompress(body).decode(), zlib.decompress(flask_body).decode()
    assert masked(page) == masked(flask_page)
    return page


@pytest.mark.parametrize("which", [0, 1], ids=["organiser", "members"])
@pytest.mark.parametrize("question", QUESTIONS)
def test_a_period_a_rivalry_or_every_night_is_answered_early_as_flask_answers_it(site, which, question):
    app, client, links = site
    plain = conforms(app, client, links[which])
    assert early(app).answered == 1
    page = conforms(app, client, links[which] + question)
    assert early(app).answered == 2
    assert masked(page) != masked(plain)  # the kept page of that question, not the whole season's


def test_what_each_question_shows_early_is_that_questions_page(site):
    app, client, (organiser, _) = site
    page = conforms(app, client, organiser + "?period=range&from=2025-03-08&to=2025-03-14")
    # night 2 alone (web/test_groups.py's figures): Ann -0.75 EUR, -3 chips
    assert "Season: 2025-03-08 to 2025-03-14" in page
    assert text(row(page, "Ann")) == "Ann 1 \u22120.75 EUR -3"
    assert "Season: March 2025" in conforms(app, client, organiser + "?period=2025-03")
    assert "Ann against Cat" in text(conforms(app, client, organiser + "?first=Ann&second=Cat"))
    assert early(app).answered == 3


def test_a_repeated_name_is_read_as_flask_reads_it_its_first_value(site):
    app, client, (organiser, _) = site
    first = conforms(app, client, organiser + "?period=2025-03")
    page = conforms(app, client, organiser + "?period=2025-03&period=march")
    assert early(app).answered == 2 and masked(page) == masked(first)  # Flask's request.args.get: the first
    answered, status, headers, body = served(app, client, organiser + "?period=march&period=2025-03")
    assert not answered and status == "400 BAD REQUEST" and "That period cannot be shown" in shown(headers, body)


@pytest.mark.parametrize("question", [
    "?period=march", "?period=2025-13", "?period=0000", "?period=range&from=2025-03-30&to=2025-03-01",
    "?period=range&from=2025-03-01", "?period=%FF",
])
def test_an_unreadable_period_gets_flasks_message_every_time(site, question):
    app, client, (organiser, _) = site
    visit(client, organiser)
    for _ in range(2):  # never kept, never early: Flask says why, each time
        answered, status, headers, body = served(app, client, organiser + question)
        assert not answered and status == "400 BAD REQUEST"
        html = shown(headers, body)
        assert "That period cannot be shown" in html and "The whole season is shown instead." in html


@pytest.mark.parametrize("question", ["?refused=abc", "?period=2025&refused=abc", "?utm_source=x", "?period=2025&x="])
def test_a_question_the_page_is_not_kept_by_is_left_to_flask(site, question):
    app, client, (organiser, _) = site
    visit(client, organiser)
    visit(client, organiser + "?period=2025")
    assert served(app, client, organiser + "?period=2025")[0]
    answered, status, _, _ = served(app, client, organiser + question)
    assert not answered and status == "200 OK"


def test_a_rivalry_that_cannot_be_shown_is_flasks_refusal_every_time(site):
    app, client, (organiser, _) = site
    visit(client, organiser)
    for _ in range(2):
        answered, status, headers, body = served(app, client, organiser + "?first=Ann&second=Nobody")
        assert not answered and status == "400 BAD REQUEST" and "That rivalry cannot be shown" in shown(headers, body)
