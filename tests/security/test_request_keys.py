"""A submit carries a key made with the page; the same key again records nothing new.

The key and the table's version are in the form before it is sent (read here from
the page's HTML, as a phone sends them).  Sent again, one to five more times, one
after another or all at the same moment against a real threaded server, the
submit records once and every copy gets the same answer; the same key with other
content is refused and records nothing.
"""

from __future__ import annotations

import html as htmllib
import io
import http.client
import re
import threading
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from flask import Flask
from werkzeug.serving import make_server

from pages import night_form
from security.support import Site, history_file

FORMS_WITH_KEYS = {
    # endpoint: (page that shows the form, what the person taps, the same key with other content)
    "table.declare": ("", {"nobody": "1"}, {"yes": "Ben", "confirm": "1"}),
    "table.challenge": ("", {"nobody": "1"}, {"challengers": "Ben", "confirm": "1"}),
    "table.showdown": ("", {"winner": "Ben"}, {"winner": "Cat"}),
    "table.cards": ("", {"cards_0": "As Ad", "cards_1": "Ks Kd"}, {"cards_0": "2s 3d", "cards_1": "Ks Kd"}),
    "table.undo": ("", {}, None),  # an undo has no content but its key
    "report.paid": ("/report?payer={payer}&payee={payee}&chips={chips}", {}, {"chips": "1"}),
}


def form_fields(html: str, action: str) -> dict[str, str]:
    """The hidden fields of the form that posts to ``action``, as the page shows them."""
    form = re.search(rf'<form[^>]*action="{re.escape(action)}"[^>]*>(.*?)</form>', html, re.S)
    assert form, f"no form posting to {action}"
    fields = {}
    for tag in re.findall(r"<input[^>]*>", form.group(1)):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and 'type="hidden"' in tag:
            fields[name.group(1)] = htmllib.unescape(value.group(1) if value else "")
    return fields


def page_form(site: Site, client, endpoint: str) -> tuple[str, dict[str, str], dict[str, str] | None]:
    """A night ready for ``endpoint``: (where to post, the filled form, other content for the same key)."""
    night = site.seat(endpoint)
    page, tap, other = FORMS_WITH_KEYS[endpoint]
    if "{payer}" in page:
        page = page.format(**site.first_payment(night))
    html = client.get(f"/k/{night.keeper}{page}").get_data(as_text=True)
    action = site.url(endpoint, night.keeper)
    fields = form_fields(html, action)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", fields["request_key"]), "the page made the key"
    return action, {**fields, **tap}, None if other is None else {**fields, **other}


def flashes(app: Flask, set_cookie: str | None) -> list[str]:
    if not set_cookie:
        return []
    value = re.search(r"session=([^;]*)", set_cookie).group(1)
    session = app.session_interface.get_signing_serializer(app).loads(value)
    return [message for _, message in session.get("_flashes", [])]


def same_summary(messages: list[str]) -> str:
    """The one summary all answers carry, with "Already recorded:"/"Recorded:" taken off."""
    summaries = {re.sub(r"^(Already recorded: |Recorded: )", "", m) for m in messages}
    assert len(summaries) == 1, messages
    return summaries.pop()


@pytest.mark.parametrize("endpoint", sorted(FORMS_WITH_KEYS))
def test_the_same_submit_sent_again_up_to_five_times_records_once_with_the_same_answer(endpoint, app, site):
    client = app.test_client()
    action, form, _ = page_form(site, client, endpoint)
    before = site.counts()
    answers = []
    for _ in range(6):  # the first send and five more
        phone = app.test_client()  # a retry may come from a fresh connection, without the cookie
        response = phone.post(action, data=form)
        answers.append((response.status_code, response.headers.get("Location")))
        assert site.counts()[1] == before[1] + 1
        messages = flashes(app, response.headers.get("Set-Cookie"))
        assert len(messages) == 1
        if len(answers) == 1:
            first = messages
        else:
            assert messages[0].startswith("Already recorded"), messages
            same_summary(first + messages)
    assert len(set(answers)) == 1 and answers[0][0] == 303


@pytest.mark.parametrize("endpoint", sorted(e for e, spec in FORMS_WITH_KEYS.items() if spec[2] is not None))
def test_the_same_key_with_other_content_is_refused_and_records_nothing(endpoint, app, site):
    client = app.test_client()
    action, form, other = page_form(site, client, endpoint)
    before = site.counts()
    assert client.post(action, data=form).status_code == 303
    recorded = site.counts()
    assert recorded[1] == before[1] + 1
    response = client.post(action, data=other)
    assert response.status_code in (409, 422)
    body = response.get_data(as_text=True)
    assert "different content" in body
    assert site.counts() == recorded


# --- the same key at the same moment, against a real threaded server -----------------------


@pytest.fixture
def server(app: Flask) -> Iterator[str]:
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    thread.join(10)


def at_once(server: str, action: str, forms: list[dict[str, str]]) -> list[tuple[int, str | None, str | None]]:
    """POST each form on its own connection, all released at the same moment."""
    barrier = threading.Barrier(len(forms))
    answers: list[tuple[int, str | None, str | None]] = [(0, None, None)] * len(forms)

    def send(i: int, form: dict[str, str]) -> None:
        host, port = server.split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.connect()
        body = urlencode(form)
        barrier.wait()
        connection.request(
            "POST", action, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"}
        )
        response = connection.getresponse()
        response.read()
        status, location, cookie = response.status, response.getheader("Location"), response.getheader("Set-Cookie")
        connection.close()
        if status == 303 and location and "refused=" in location and cookie:
            # a refusal redirects to its page, which answers with the refusal's status (issue 14, bug 3)
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
            connection.request("GET", location, headers={"Cookie": cookie.split(";", 1)[0]})
            page = connection.getresponse()
            page.read()
            status = page.status
            connection.close()
        answers[i] = (status, location, cookie)

    threads = [threading.Thread(target=send, args=(i, form)) for i, form in enumerate(forms)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return answers


@pytest.mark.parametrize(
    ("endpoint", "copies"),
    [("table.declare", 2), ("table.declare", 3), ("table.declare", 6), ("table.undo", 6), ("table.challenge", 4),
     ("table.cards", 4), ("report.paid", 5)],
)
def test_copies_sent_at_the_same_moment_record_once_and_get_the_same_answer(endpoint, copies, app, site, server):
    client = app.test_client()
    action, form, _ = page_form(site, client, endpoint)
    before = site.counts()
    answers = at_once(server, action, [form] * copies)
    assert [status for status, _, _ in answers] == [303] * copies, answers
    assert len({location for _, location, _ in answers}) == 1
    messages = [m for _, _, cookie in answers for m in flashes(app, cookie)]
    assert len(messages) == copies
    assert sum(not m.startswith("Already recorded") for m in messages) == 1, messages
    same_summary(messages)
    assert site.counts()[1] == before[1] + 1


def test_the_same_key_with_other_content_at_the_same_moment_records_one_of_them(app, site, server):
    client = app.test_client()
    action, form, other = page_form(site, client, "table.declare")
    before = site.counts()
    answers = at_once(server, action, [form, other, form, other])
    statuses = sorted(status for status, _, _ in answers)
    assert site.counts()[1] == before[1] + 1
    assert statuses in ([303, 303, 409, 409],), answers


def test_two_different_submits_made_for_the_same_version_record_only_the_first(app, site, server):
    """Two phones showing the same table: the second submit is stale and records nothing."""
    client = app.test_client()
    action, form, _ = page_form(site, client, "table.declare")
    _, other_phone, _ = page_form(site, client, "table.declare")  # another night's form: only its key is used
    rival = {**form, "request_key": other_phone["request_key"], "yes": "Ben", "confirm": "1"}
    rival.pop("nobody")
    before = site.counts()
    answers = at_once(server, action, [form, rival])
    assert sorted(status for status, _, _ in answers) == [303, 409], answers
    assert site.counts()[1] == before[1] + 1


# --- starting a night: "Start the night" and "Import" tapped twice start one night ---------


def start_forms(client) -> tuple[dict[str, str], dict[str, str]]:
    """The hidden fields of the two forms on the front page, as the page shows them."""
    html = client.get("/").get_data(as_text=True)
    start, upload = form_fields(html, "/nights"), form_fields(html, "/import")
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", start["request_key"]), "the page made the key"
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", upload["request_key"])
    assert start["request_key"] != upload["request_key"]
    return start, upload


def test_each_showing_of_the_front_page_makes_new_keys(app):
    client = app.test_client()
    assert start_forms(client)[0]["request_key"] != start_forms(client)[0]["request_key"]


def test_starting_a_night_sent_again_up_to_five_times_starts_one_night(app, site):
    start, _ = start_forms(app.test_client())
    form = {**night_form(), **start}
    locations = {app.test_client().post("/nights", data=form).headers["Location"] for _ in range(6)}
    assert site.counts()[0] == 1
    assert len(locations) == 1 and locations.pop().startswith("/k/")


def test_starting_a_night_with_the_same_key_and_other_seats_is_refused(app, site):
    client = app.test_client()
    start, _ = start_forms(client)
    assert client.post("/nights", data={**night_form(), **start}).status_code == 303
    response = client.post("/nights", data={**night_form(seat_4="Eve"), **start})
    assert response.status_code == 409
    assert "different content" in response.get_data(as_text=True)
    assert site.counts() == (1, 0)


def test_an_import_sent_again_imports_once(app, site):
    _, upload = start_forms(app.test_client())
    answers = set()
    for _ in range(3):
        data = {**upload, "file": (io.BytesIO(history_file()), "night.json"), "name": "Imported"}
        response = app.test_client().post("/import", data=data, content_type="multipart/form-data")
        answers.add((response.status_code, response.headers.get("Location")))
    assert len(answers) == 1 and answers.pop()[0] == 303
    nights, events = site.counts()
    assert nights == 1 and events > 0


def test_an_import_with_the_same_key_and_another_file_is_refused(app, site):
    client = app.test_client()
    _, upload = start_forms(client)
    first = {**upload, "file": (io.BytesIO(history_file()), "night.json")}
    assert client.post("/import", data=first, content_type="multipart/form-data").status_code == 303
    recorded = site.counts()
    other = {**upload, "file": (io.BytesIO(history_file("Other")), "night.json")}
    response = client.post("/import", data=other, content_type="multipart/form-data")
    assert response.status_code == 409
    assert "different content" in response.get_data(as_text=True)
    assert site.counts() == recorded


def test_copies_of_start_the_night_sent_at_the_same_moment_start_one_night(app, site, server):
    start, _ = start_forms(app.test_client())
    answers = at_once(server, "/nights", [{**night_form(), **start}] * 4)
    assert [status for status, _, _ in answers] == [303] * 4, answers
    assert len({location for _, location, _ in answers}) == 1
    assert site.counts()[0] == 1


# --- "Start the next night with this pot" tapped twice, or on two phones at once -----------------


def carry_form(site: Site, client) -> tuple[str, dict[str, str]]:
    night = site.seat("report.carry")  # a carry night with a pot of 4
    html = client.get(f"/k/{night.keeper}/report").get_data(as_text=True)
    action = site.url("report.carry", night.keeper)
    fields = form_fields(html, action)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", fields["request_key"]), "the page made the key"
    return action, fields


def test_copies_of_start_the_next_night_sent_at_the_same_moment_start_one_night(app, site, server):
    action, form = carry_form(site, app.test_client())
    before = site.counts()
    answers = at_once(server, action, [form] * 4)
    assert [status for status, _, _ in answers] == [303] * 4, answers
    assert len({location for _, location, _ in answers}) == 1
    assert site.counts()[0] == before[0] + 1


def test_two_phones_starting_the_next_night_at_the_same_moment_start_one_night(app, site, server):
    client = app.test_client()
    action, form = carry_form(site, client)
    other = {**form, "request_key": form_fields(client.get(action.replace("/carry", "/report")).get_data(as_text=True), action)["request_key"]}
    assert other["request_key"] != form["request_key"]
    before = site.counts()
    answers = at_once(server, action, [form, other, form, other])
    assert [status for status, _, _ in answers] == [303] * 4, answers
    assert len({location for _, location, _ in answers}) == 1
    assert site.counts()[0] == before[0] + 1


def test_an_action_and_start_the_next_night_at_the_same_moment_never_both_count(app, site, server):
    """Either the action is recorded and the carry form is stale, or the pot is carried and the
    table refuses the action: the next night's pot is always the old night's last pot."""
    from sqlalchemy import select

    from companion import service as services
    from companion.extensions import db
    from companion.db.models import Night

    for _ in range(3):
        client = app.test_client()
        action, form = carry_form(site, client)
        keeper = action.rsplit("/", 2)[-2]
        declare = {"version": form["version"], "request_key": services.new_key(), "yes": "Cat", "confirm": "1"}
        answers = at_once_each(server, [(action, form), (f"/k/{keeper}/declare", declare)])
        statuses = sorted(status for status, _, _ in answers)
        assert statuses in ([303, 409], [303, 422]), answers
        with app.app_context():
            old = db.session.scalar(select(Night).where(Night.keeper_key == keeper))
            new = services.continuation_of(old)
            if new is not None:
                assert old.version == int(form["version"])  # nothing was recorded after the carry
                assert new.first_game.carried_in == services.next_night_of(old).carried_in
                assert answers[1][0] == 422  # the table was closed
            else:
                assert answers[0][0] == 409  # the carry form was made before the action


def at_once_each(server: str, posts: list[tuple[str, dict[str, str]]]) -> list[tuple[int, str | None, str | None]]:
    """POST each (path, form) on its own connection, all released at the same moment."""
    barrier = threading.Barrier(len(posts))
    answers: list[tuple[int, str | None, str | None]] = [(0, None, None)] * len(posts)

    def send(i: int, path: str, form: dict[str, str]) -> None:
        host, port = server.split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.connect()
        barrier.wait()
        connection.request("POST", path, body=urlencode(form), headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        response.read()
        status, location, cookie = response.status, response.getheader("Location"), response.getheader("Set-Cookie")
        connection.close()
        if status == 303 and location and "refused=" in location and cookie:
            # a refusal redirects to its page, which answers with the refusal's status (issue 14, bug 3)
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
            connection.request("GET", location, headers={"Cookie": cookie.split(";", 1)[0]})
            page = connection.getresponse()
            page.read()
            status = page.status
            connection.close()
        answers[i] = (status, location, cookie)

    threads = [threading.Thread(target=send, args=(i, path, form)) for i, (path, form) in enumerate(posts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return answers
