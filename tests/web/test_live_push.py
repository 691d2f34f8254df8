"""The live pages pushed by Server-Sent Events (issue 37, item 1): the players' page, the group's pages.

Each stream is read through the werkzeug test client's streamed response, in a thread of its own
(:class:`Reader`), with a timeout on every wait: a test that would hang fails instead.  The change
that is pushed is a scorekeeper's real POST through the same app.
"""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from companion.extensions import db
from companion.db.models import Night
from companion.web.plumbing import live_push

#: how long a test waits for an event before it fails (not a speed target: bench/push_bench.py measures)
WAIT = 10.0


class Reader:
    """A stream asked for and read in a thread of its own (as a server does, the thread that asks is the one
    that reads), split into SSE messages."""

    def __init__(self, client, url: str, headers: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
        self.messages: queue.Queue[bytes | None] = queue.Queue()
        self.opened: queue.Queue[object] = queue.Queue()
        self.response = None
        self._buffer = b""
        self.thread = threading.Thread(target=self._read, args=(client, url, headers), daemon=True)
        self.thread.start()
        self.status, self.mimetype = self.opened.get(timeout=WAIT)  # type: ignore[misc]

    def _read(self, client, url: str, headers: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
        try:
            self.response = response = client.get(url, headers=headers, buffered=False)
            self.opened.put((response.status_code, response.mimetype))
            if response.status_code != 200:
                return
            for chunk in response.response:
                self._buffer += chunk
                while b"\n\n" in self._buffer:
                    message, self._buffer = self._buffer.split(b"\n\n", 1)
                    self.messages.put(message + b"\n\n")
            response.close()
        except BaseException as error:  # noqa: BLE001 - the test sees it as the end of the stream
            self.opened.put((error, None))
        finally:
            self.messages.put(None)  # the stream ended

    def next(self, timeout: float = WAIT) -> bytes | None:
        """The next message that is not a retry line or a comment (None: the stream ended)."""
        while True:
            message = self.messages.get(timeout=timeout)
            if message is None or not (message.startswith(b"retry:") or message.startswith(b":")):
                return message

    def nothing_within(self, seconds: float) -> bool:
        try:
            message = self.next(seconds)
        except queue.Empty:
            return True
        return message is None  # an end is not an event


def event_id(message: bytes) -> str:
    match = re.match(rb"id: ([^\n]*)\n", message)
    assert match, message
    return match.group(1).decode()


def event_data(message: bytes) -> str:
    return "\n".join(line[len("data: "):] for line in message.decode().split("\n") if line.startswith("data: "))


@pytest.fixture
def push_app(make_app):  # type: ignore[no-untyped-def]
    """An app whose streams end after 20 s and say they are alive every 5 s, so that no test waits long."""
    return make_app(LIVE_STREAM_SECONDS=20, LIVE_HEARTBEAT_SECONDS=5)


@pytest.fixture
def open_stream(push_app) -> Iterator:  # type: ignore[no-untyped-def]
    readers: list[Reader] = []

    def open_(client, url: str, **headers: str) -> Reader:  # type: ignore[no-untyped-def]
        reader = Reader(client, url, headers)
        readers.append(reader)
        assert reader.status == 200, reader.status
        assert reader.mimetype == "text/event-stream"
        return reader

    yield open_
    # End them all, again while any is still open: a stream still sending its first message when the hub
    # ends its topics watches a topic of its own made after (as a phone reconnecting would).
    deadline = time.monotonic() + 3 * WAIT  # a stream mid-render on a loaded machine (CI runs two suites at once)
    while any(reader.thread.is_alive() for reader in readers) and time.monotonic() < deadline:
        live_push.hub_of(push_app).end_all()
        for reader in readers:
            reader.thread.join(0.2)
    assert not any(reader.thread.is_alive() for reader in readers), "a stream did not end"


def night_links(app, keeper_key: str) -> tuple[int, str, int]:  # type: ignore[no-untyped-def]
    with app.app_context():
        night = db.session.scalar(select(Night).where(Night.keeper_key == keeper_key))
        return night.id, night.viewer_key, night.version


@pytest.fixture
def table(push_app):  # type: ignore[no-untyped-def]
    from pages import TablePage, night_form

    keeper = push_app.test_client()
    response = keeper.post("/nights", data=night_form())
    assert response.status_code == 303
    return TablePage(keeper, response.headers["Location"])


def test_the_stream_sends_the_current_fragment_then_each_change_once_to_every_phone(push_app, table, open_stream):
    _, viewer, version = night_links(push_app, table.key)
    assert version == 0  # a night just started has recorded nothing
    ann, ben = push_app.test_client(), push_app.test_client()
    first = open_stream(ann, f"/p/{viewer}/stream")
    message = first.next()
    # no Last-Event-ID: the current fragment at once, its id the version, as the poll renders it
    assert event_id(message) == "0"
    polled = ann.get(f"/p/{viewer}/live").get_data(as_text=True)
    assert event_data(message) == polled.rstrip("\n") or event_data(message) == polled
    second = open_stream(ben, f"/p/{viewer}/stream", **{"Last-Event-ID": "0"})
    assert second.nothing_within(0.3)  # it has version 0: nothing until the next change

    # the scorekeeper records one stage (Ben and Cat said Yes): the version moves to 1, one event each
    table.declare("Ben", "Cat")
    one, two = first.next(), second.next()
    assert event_id(one) == event_id(two) == "1"
    assert one == two  # the same bytes, rendered once for every phone without a "me"
    assert "Ben" in event_data(one)
    assert one != message
    assert first.nothing_within(0.3) and second.nothing_within(0.01)  # one event per change, no more


def test_last_event_id_older_than_the_current_gets_the_current_fragment_at_once(push_app, table, open_stream):
    _, viewer, _ = night_links(push_app, table.key)
    table.declare("Ben", "Cat")
    table.winner("Cat")  # two stages: the version is 2
    phone = push_app.test_client()
    behind = open_stream(phone, f"/p/{viewer}/stream", **{"Last-Event-ID": "1"})
    assert event_id(behind.next()) == "2"
    current = open_stream(phone, f"/p/{viewer}/stream?since=2")  # the page's own version, before any event
    assert current.nothing_within(0.3)
    # Last-Event-ID (an EventSource coming back) wins over the page's ?since=
    again = open_stream(phone, f"/p/{viewer}/stream?since=2", **{"Last-Event-ID": "0"})
    assert event_id(again.next()) == "2"


def test_a_stream_ends_after_its_time_with_a_retry_line(make_app, open_stream):
    from pages import TablePage, night_form

    app = make_app(LIVE_STREAM_SECONDS=0.3, LIVE_HEARTBEAT_SECONDS=0.1)
    keeper = app.test_client()
    page = TablePage(keeper, keeper.post("/nights", data=night_form()).headers["Location"])
    _, viewer, _ = night_links(app, page.key)
    response = app.test_client().get(f"/p/{viewer}/stream?since=0", buffered=False)
    body = b"".join(response.response)  # ends by itself: the 0.3 s are up
    response.close()
    assert body.startswith(b"retry: 1000\n\n")
    assert b"id:" not in body  # nothing changed
    assert b": still here\n\n" in body  # the heartbeat while it waited


def test_a_replaced_link_ends_its_stream_and_is_a_404_before_any_stream(push_app, table, open_stream):
    night_id, viewer, _ = night_links(push_app, table.key)
    phone = push_app.test_client()
    stream = open_stream(phone, f"/p/{viewer}/stream?since=0")
    # the scorekeeper makes a new players' link (the share page's form)
    share = table.client.get(f"/k/{table.key}/share").get_data(as_text=True)
    form = re.search(r'<form method="post" action="([^"]*rotate[^"]*)"(.*?)</form>', share, re.S)
    assert form, "no form to replace the players' link"
    fields = dict(re.findall(r'name="([^"]+)"[^>]*value="([^"]*)"', form.group(2)))
    fields.setdefault("which", "viewer")
    assert table.client.post(form.group(1), data=fields).status_code == 303
    _, new_viewer, _ = night_links(push_app, table.key)
    assert new_viewer != viewer
    assert stream.next() is None  # the stream ended, with no event
    assert phone.get(f"/p/{viewer}/stream").status_code == 404  # and asking again says the link is gone
    assert open_stream(phone, f"/p/{new_viewer}/stream").next() is not None  # the new link streams


def test_a_players_link_streams_its_own_night_only(push_app, open_stream):
    from pages import TablePage, night_form

    keeper = push_app.test_client()
    first = TablePage(keeper, keeper.post("/nights", data=night_form()).headers["Location"])
    second = TablePage(keeper, keeper.post("/nights", data=night_form(name="Another night")).headers["Location"])
    _, first_viewer, _ = night_links(push_app, first.key)
    phone = push_app.test_client()
    stream = open_stream(phone, f"/p/{first_viewer}/stream?since=0")
    second.declare("Ben", "Cat")  # another night's change: nothing on this stream
    assert stream.nothing_within(0.5)
    first.declare("Ben", "Cat")
    assert event_id(stream.next()) == "1"
    assert phone.get("/p/not-a-real-link-at-all-0123456789/stream").status_code == 404


def test_each_player_gets_their_own_section_and_phones_of_one_player_share_the_bytes(push_app, table, open_stream):
    _, viewer, _ = night_links(push_app, table.key)
    bens = [push_app.test_client(), push_app.test_client()]
    for ben in bens:
        assert ben.get(f"/p/{viewer}/me?name=Ben").status_code == 303
    nobody = push_app.test_client()
    streams = [open_stream(c, f"/p/{viewer}/stream?since=0") for c in (*bens, nobody)]
    table.declare("Ben", "Cat")
    ben1, ben2, other = (s.next() for s in streams)
    assert ben1 == ben2
    assert 'class="mine' in event_data(ben1) or "section class=\"mine" in event_data(ben1)
    assert "section class=\"mine" not in event_data(other)
    assert event_id(ben1) == event_id(other) == "1"


# --- the group's pages ------------------------------------------------------------------------------


def make_group(app, client) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A group made on the home page's form; (organiser key, members' key)."""
    from companion.db.models import Group

    response = client.post("/groups", data={"name": "Friday group", "request_key": "k" * 43})
    assert response.status_code == 303, response.status_code
    organiser = response.headers["Location"].rsplit("/", 1)[-1]
    with app.app_context():
        group = db.session.scalar(select(Group).where(Group.organiser_key == organiser))
        return group.organiser_key, group.member_key


def add_member(client, organiser: str, name: str) -> None:  # type: ignore[no-untyped-def]
    page = client.get(f"/g/{organiser}").get_data(as_text=True)
    form = re.search(r'action="/g/[^"]+/members/add"(.*?)</form>', page, re.S)
    assert form
    fields = dict(re.findall(r'name="([^"]+)"[^>]*value="([^"]*)"', form.group(1)))
    fields["name"] = name
    assert client.post(f"/g/{organiser}/members/add", data=fields).status_code == 303


def test_the_members_stream_pushes_the_live_part_and_never_the_organisers_parts(push_app, open_stream):
    organiser_phone = push_app.test_client()
    organiser, members = make_group(push_app, organiser_phone)
    page = push_app.test_client().get(f"/m/{members}").get_data(as_text=True)
    since = re.search(r'id="group-live" data-stream="([^"]+)" data-version="([^"]+)"', page)
    assert since, "the members' page names its stream"
    assert since.group(1) == f"/m/{members}/stream"
    ann, ben = push_app.test_client(), push_app.test_client()
    one = open_stream(ann, f"/m/{members}/stream?since={since.group(2)}")
    two = open_stream(ben, f"/m/{members}/stream?since={since.group(2)}")
    note = open_stream(organiser_phone, f"/g/{organiser}/stream?since={since.group(2)}")
    assert one.nothing_within(0.3)  # the page is current

    add_member(organiser_phone, organiser, "Dora")  # the organiser adds a member: the group's version moves
    first, second, changed = one.next(), two.next(), note.next()
    assert first == second  # the same bytes to every members' phone
    assert event_id(first) == event_id(changed) != since.group(2)
    data = event_data(first)
    assert "Dora" in data and 'class="season"' in data
    # the members' stream shows nothing of the organiser's: no organiser link, no form that changes anything
    assert organiser not in data and "csrf_token" not in data and 'method="post"' not in data
    # the organiser's stream says the group changed, with a link to the organiser's page
    assert f'href="/g/{organiser}"' in event_data(changed) and "Dora" not in event_data(changed)


def test_a_group_link_streams_its_own_page_only(push_app, open_stream):
    organiser_phone = push_app.test_client()
    organiser, members = make_group(push_app, organiser_phone)
    phone = push_app.test_client()
    assert phone.get(f"/g/{members}/stream").status_code == 404  # the members' link opens no organiser's stream
    assert phone.get(f"/m/{organiser}/stream").status_code == 404
    assert phone.get("/m/not-a-real-link-at-all-0123456789/stream").status_code == 404
    assert open_stream(phone, f"/m/{members}/stream").next() is not None  # no since: the current part at once


def test_a_commit_of_another_process_on_sqlite_is_heard_through_data_version(push_app, open_stream):
    """Another process's commit reaches no unit of work here: the watcher finds it by SQLite's data_version.
    A plain sqlite3 connection (no unit of work, no change watch) stands for that process."""
    import sqlite3

    from conftest import EXTERNAL_DB

    if EXTERNAL_DB:
        pytest.skip("SQLite's data_version")
    organiser_phone = push_app.test_client()
    _, members = make_group(push_app, organiser_phone)
    stream = open_stream(push_app.test_client(), f"/m/{members}/stream")
    first = event_id(stream.next())
    with push_app.app_context():
        path = db.engine.url.database
    other = sqlite3.connect(path)
    try:
        with other:  # what the group's stamp counts of a night changed without a version (a link replaced)
            other.execute("UPDATE home_group SET nights_changed = nights_changed + 1 WHERE member_key = ?", (members,))
    finally:
        other.close()
    moved = event_id(stream.next())
    assert moved != first


def test_a_change_is_rendered_once_for_every_phone_of_one_kind(push_app, table, open_stream, monkeypatch):
    from companion.web.pages import players

    renders = []
    real = players._pushed
    monkeypatch.setattr(players, "_pushed", lambda key: renders.append(key) or real(key))
    _, viewer, _ = night_links(push_app, table.key)
    streams = [open_stream(push_app.test_client(), f"/p/{viewer}/stream?since=0") for _ in range(3)]
    table.declare("Ben", "Cat")
    messages = [s.next() for s in streams]
    assert messages[0] == messages[1] == messages[2]
    assert len(renders) == 1  # three phones with no "me", one change: one render


def test_a_second_keeper_phones_watch_stays_open_for_each_change_until_its_link_is_taken_back(push_app, table, open_stream):
    """The table's watch ("The table changed on another phone") streams by the link the phone came by: a second
    keeper phone's own.  Its stream is held open and told of each change, as the first phone's is; its link
    taken back ends it, and asking again is a 404."""
    from companion import service

    night_id, _, _ = night_links(push_app, table.key)
    with push_app.app_context():
        ben = service.make_keeper_link(night_id, "Ben's phone", service.new_key())
    phone = push_app.test_client()
    watch = open_stream(phone, f"/p/{ben.key}/stream?since=0")
    assert watch.nothing_within(1.5)  # the watcher has read the night's stamp meanwhile: still open, nothing new
    table.declare("Ben", "Cat")
    assert event_id(watch.next()) == "1"  # the stage recorded on the first phone reaches Ben's phone's watch
    with push_app.app_context():
        service.take_back_keeper_link(night_id, ben.id)
    table.winner("Cat")  # a commit the watcher hears: it reads the stamp, which no longer holds Ben's link
    assert watch.next() is None  # ended, with no event
    assert phone.get(f"/p/{ben.key}/stream").status_code == 404
