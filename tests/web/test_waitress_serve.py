"""``serve``'s waitress keeps a keep-alive connection open after a 304 (issue 22).

Waitress alone closes it after every answer without a body, so every unchanged poll
of the players' page cost the phone a new connection.  A real waitress server on a
loopback port, in this process, with a two-line app; each test reads the raw bytes.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from waitress import wasyncore
from waitress.server import create_server

from companion.web.waitress_serve import keep_alive_without_body


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
