"""Waitress as ``serve`` runs it: a 304 (or 204) keeps its keep-alive connection open.

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
"""

from __future__ import annotations

import logging
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
    task_class = KeepAliveTask


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
