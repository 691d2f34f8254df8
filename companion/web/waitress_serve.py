"""Waitress as ``serve`` runs it: a 304 (or 204) keeps its keep-alive connection open, and no spin.

Waitress 3.0 closes the connection after every HTTP/1.1 answer it sends without a
Content-Length, and it drops the Content-Length of an answer that has no body: so every
304 went out with "Connection: close", whatever the app sent.  A 304 is almost all of
a night's traffic (every phone polls every 0.8 seconds and most find nothing changed,
web/live_poll.py), so each such poll cost the phone a new TCP connection and the server
an accept, a new channel and a poll() registration: under the load bench the 304 cost
the server about 200 us of CPU more than a bare hello-world (issue 22), almost none of
it in the app.  An answer with no body (1xx, 204, 304) ends with its header block
(RFC 9112 6.3), so a client that asked to keep the connection can send its next
request on it; this task keeps it open for them, and leaves every other answer
(HTTP/1.0, a client that sent "Connection: close", a body without a length) to waitress.

Its channel also sends each answer from the task's thread before the bytes are queued,
so that the I/O thread never spins on an answer a task is sending (:class:`KeepAliveChannel`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import WSGITask

_CLOSE = b"\r\nConnection: close\r\n"


class KeepAliveTask(WSGITask):
    """Waitress's WSGI task, except that an HTTP/1.1 answer with no body does not close the connection."""

    def build_response_header(self) -> bytes:
        try:
            keep = (
                not self.has_body
                and self.version == "1.1"
                and not self.close_on_finish
                and self.request.headers.get("CONNECTION", "").lower() != "close"
            )
        except AttributeError:  # a waitress whose task reads otherwise: leave every answer to it
            keep = False
        head: bytes = super().build_response_header()
        if keep and self.close_on_finish and head.count(_CLOSE) == 1:
            # waitress closed it only for the missing length, which an answer with no body needs not
            self.close_on_finish = False
            self.response_headers = [(k, v) for k, v in self.response_headers if k != "Connection"]
            head = head.replace(_CLOSE, b"\r\n", 1)
        return head


class KeepAliveChannel(HTTPChannel):
    """Waitress's channel with :class:`KeepAliveTask`, and an answer sent by its task's thread before it is queued.

    Waitress (``send_bytes=1``) has the task's thread flush each write at once, but it
    first adds the bytes to the channel's buffer and takes them off once the socket has
    them.  In between, the server's one I/O thread sees a channel with bytes waiting
    (``writable()``), asks ``poll()`` for it, is told the socket can take more, and finds
    the buffer's lock held by the task: it does nothing and goes round again, walking every
    open connection each time, and holding the GIL the task needs to finish.  With the
    phones' 140 keep-alive connections on one process that spin took most of the CPU: an
    instrumented copy of the loop counted ``poll()`` woken 10-16 times and 56-70 writable
    channels handled per request, and the server's requests per second fell to a fifth
    for seconds at a time (issue 22, bench/README.md).  Here a write that finds nothing queued before it
    goes straight to the socket under the same lock, so the buffer stays empty unless
    the socket cannot take it all; the rest, and every error, take waitress's own path.
    """

    task_class = KeepAliveTask

    def write_soon(self, data: Any) -> int:
        sent = 0
        if isinstance(data, bytes) and data and not self.total_outbufs_len:
            with self.outbuf_lock:
                # nothing queued before these bytes (checked again under the lock): sending them now keeps the order
                if self.connected and not self.total_outbufs_len:
                    try:
                        sent = self.send(data, do_close=False)  # 0 when the socket would block or is gone
                    except OSError:
                        sent = 0  # waitress's path below meets the error again and closes as it always does
                    if sent:
                        self.last_activity = time.time()  # as waitress's flush does (the idle-connection timeout)
            if sent == len(data):
                return sent
            data = data[sent:]
        return sent + int(super().write_soon(data))


def keep_alive_without_body(server: Any) -> Any:
    """Give ``server`` (what ``waitress.create_server`` returned) and any server it holds :class:`KeepAliveChannel`."""
    servers = [server] if isinstance(server, BaseWSGIServer) else []
    servers += [s for s in getattr(server, "map", {}).values() if isinstance(s, BaseWSGIServer) and s is not server]
    for each in servers:
        each.channel_class = KeepAliveChannel
    return server


def serve(app: Any, **options: Any) -> None:
    """``waitress.serve(app, **options)``, with :class:`KeepAliveTask`'s channels."""
    logging.basicConfig()  # as waitress.serve does (nothing if logging is set up already)
    server = keep_alive_without_body(create_server(app, **options))
    server.print_listen("Serving on http://{}:{}")
    server.run()
