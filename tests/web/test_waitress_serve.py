"""``serve``'s waitress keeps a keep-alive connection open after a 304, and its I/O thread never spins (issue 22).

Waitress alone closes it after every answer without a body, so every unchanged poll
of the players' page cost the phone a new connection.  A real waitress server on a
loopback port, in this process, with a two-line app; each test reads the raw bytes.
The channel's own write is checked on one end of a socket pair, with a socket that
records what the server's I/O thread would have seen at each send.
"""

from __future__ import annotations

import errno
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from waitress import wasyncore
from waitress.server import create_server

from companion.web.waitress_serve import KeepAliveChannel, keep_alive_without_body


def _app(environ, start_response):  # type: ignore[no-untyped-def]
    path = environ["PATH_INFO"]
    if path == "/304":
        start_response("304 Not Modified", [("ETag", '"v1"'), ("Cache-Control", "no-store")])
        return []
    if path == "/204":
        start_response("204 No Content", [])
        return []
    if path == "/unsized":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return (part for part in [b"o", b"k"])  # a body whose length waitress cannot know
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


@pytest.fixture
def port() -> Iterator[int]:
    server = keep_alive_without_body(create_server(_app, host="127.0.0.1", port=0, threads=2, ident="companion"))
    stopping = threading.Event()

    def run() -> None:
        # waitress's own loop, a half-second at a time, until the test is over (as WebTest's
        # StopableWSGIServer runs it): closing its sockets under a running loop raised in this thread
        while not stopping.is_set() and server._map:
            wasyncore.loop(timeout=0.5, map=server._map, count=1)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    yield server.effective_port
    stopping.set()
    thread.join(5)
    for channel in list(server._map.values()):
        channel.handle_close()
    server.task_dispatcher.shutdown()


def _read_answer(sock: socket.socket) -> bytes:
    """One answer's head (and a Content-Length's body), or b"" when the server closed the connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            while len(body) < int(line.split(b":")[1]):
                more = sock.recv(4096)
                if not more:
                    break
                body += more
    return head + b"\r\n\r\n" + body


def _exchange(port: int, *requests: bytes) -> list[bytes]:
    """Send each request on one connection after the last one's answer; the answers, b"" once closed."""
    answers = []
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        for request in requests:
            try:
                sock.sendall(request)
                answers.append(_read_answer(sock))
            except OSError:
                answers.append(b"")
    return answers


def _get(path: str, version: str = "1.1", *headers: str) -> bytes:
    return "\r\n".join([f"GET {path} HTTP/{version}", "Host: 127.0.0.1", *headers, "", ""]).encode()


def test_a_304_keeps_the_connection_for_the_next_poll(port: int) -> None:
    first, second, third = _exchange(port, _get("/304"), _get("/304"), _get("/hello"))
    for answer in (first, second):
        assert answer.startswith(b"HTTP/1.1 304 Not Modified\r\n")
        assert b"connection:" not in answer.lower()
        assert b'\r\nEtag: "v1"\r\n' in answer and b"\r\nCache-Control: no-store\r\n" in answer
        assert b"content-length" not in answer.lower() and b"transfer-encoding" not in answer.lower()
        assert answer.endswith(b"\r\n\r\n")  # the head and nothing after it
    assert third.startswith(b"HTTP/1.1 200 OK\r\n") and third.endswith(b"\r\n\r\nok")


def test_a_204_keeps_it_too(port: int) -> None:
    first, second = _exchange(port, _get("/204"), _get("/hello"))
    assert first.startswith(b"HTTP/1.1 204 No Content\r\n") and b"connection:" not in first.lower()
    assert second.startswith(b"HTTP/1.1 200 OK\r\n")


def test_a_client_that_asks_to_close_is_still_answered_close(port: int) -> None:
    first, second = _exchange(port, _get("/304", "1.1", "Connection: close"), _get("/hello"))
    assert first.startswith(b"HTTP/1.1 304 Not Modified\r\n") and b"\r\nConnection: close\r\n" in first
    assert second == b""


def test_http_1_0_is_left_as_waitress_answers_it(port: int) -> None:
    first, second = _exchange(port, _get("/304", "1.0", "Connection: keep-alive"), _get("/hello"))
    assert first.startswith(b"HTTP/1.0 304 Not Modified\r\n") and b"\r\nConnection: close\r\n" in first
    assert second == b""


def test_a_body_without_a_length_still_closes(port: int) -> None:
    (first,) = _exchange(port, _get("/unsized"))
    assert first.startswith(b"HTTP/1.1 200 OK\r\n") and b"\r\nConnection: close\r\n" in first


class _RecordingSocket:
    """A socket that notes, at each send, whether the server's I/O thread would poll the channel for writing.

    ``takes``: at most this many bytes per send (the kernel's buffer full), then nothing more;
    ``fails``: every send raises it.
    """

    def __init__(self, real: socket.socket, takes: int | None = None, fails: OSError | None = None) -> None:
        self.real, self.takes, self.fails = real, takes, fails
        self.channel: KeepAliveChannel | None = None
        self.seen: list[tuple[bool, int]] = []  # (writable(), bytes waiting in the buffer) at each send

    def send(self, data: bytes) -> int:
        assert self.channel is not None
        self.seen.append((bool(self.channel.writable()), self.channel.total_outbufs_len))
        if self.fails is not None:
            raise self.fails
        if self.takes is not None:
            data, self.takes = data[: self.takes], 0
            if not data:
                raise BlockingIOError(errno.EWOULDBLOCK, "would block")
        return self.real.send(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.fixture
def channel_to_peer() -> Iterator[Any]:
    """``make(**socket_options)``: a :class:`KeepAliveChannel` on one end of a socket pair, and the other end."""
    server = create_server(_app, host="127.0.0.1", port=0, threads=1)
    made: list[tuple[KeepAliveChannel, socket.socket]] = []

    def make(**options: Any) -> tuple[KeepAliveChannel, _RecordingSocket, socket.socket]:
        ours, peer = socket.socketpair()
        peer.settimeout(5)
        channel = KeepAliveChannel(server, ours, ("127.0.0.1", 0), server.adj, map={})
        recording = _RecordingSocket(ours, **options)
        recording.channel = channel
        channel.socket = recording  # type: ignore[assignment]
        made.append((channel, peer))
        return channel, recording, peer

    yield make
    for channel, peer in made:
        channel.handle_close()
        peer.close()
    server.close()
    server.task_dispatcher.shutdown()


def _received(peer: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        data += peer.recv(size - len(data))
    return data


def test_an_answer_goes_to_the_socket_without_ever_waiting_where_the_io_thread_looks(channel_to_peer: Any) -> None:
    channel, recording, peer = channel_to_peer()
    head = b"HTTP/1.1 304 Not Modified\r\nEtag: \"v1\"\r\n\r\n"
    assert channel.write_soon(head) == len(head)
    assert channel.write_soon(b"ok") == 2
    # while each send was under way the I/O thread would not have polled this channel for writing
    assert recording.seen == [(False, 0), (False, 0)]
    assert channel.total_outbufs_len == 0 and not channel.writable()
    assert _received(peer, len(head) + 2) == head + b"ok"


def test_what_the_socket_cannot_take_waits_in_order_behind_it(channel_to_peer: Any) -> None:
    channel, recording, peer = channel_to_peer(takes=5)
    assert channel.write_soon(b"HTTP/1.1 200 OK\r\n") == 17  # 5 sent, 12 kept for the I/O thread
    assert channel.total_outbufs_len == 12 and channel.writable()
    assert channel.write_soon(b"\r\nok") == 4  # queued behind the rest, never sent ahead of it
    assert channel.total_outbufs_len == 16
    recording.takes = None  # the socket drains: the I/O thread's flush sends what waited, in order
    channel._flush_some()
    assert channel.total_outbufs_len == 0
    assert _received(peer, 21) == b"HTTP/1.1 200 OK\r\n\r\nok"


def test_a_send_that_fails_is_left_to_waitress_which_closes_the_connection(channel_to_peer: Any) -> None:
    channel, _recording, _peer = channel_to_peer(fails=OSError(errno.EIO, "input/output error"))
    channel.write_soon(b"HTTP/1.1 200 OK\r\n\r\n")
    assert channel.will_close  # as waitress's own flush marks a socket error
