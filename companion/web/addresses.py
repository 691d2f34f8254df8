"""A secret link's address as other phones must open it, and a warning when they cannot.

The players' link of a night (web/share.py) and the members' link of a group (web/groups.py)
are shown as text and as a QR code for the phones around the table: a link to "localhost"
would open nothing there.  When the app is opened on the machine itself, the link names this
machine's address on the local network (when the server listens on it), or says why it cannot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import current_app, request

from companion.web.hosts import lan_address

#: what the page says when the link can only be opened on this machine
LOCAL_ONLY = (
    "This link points at this machine itself (localhost), so other phones cannot open it. "
    "Start the app on the local network (make run) or set COMPANION_PUBLIC_BASE_URL."
)


def shared_url(path: str) -> tuple[str, str | None]:
    """``path`` (an address on this app) as other phones must open it, and a warning when they can't."""
    return shared_address(path, request.host, request.scheme, request.host_url, current_app.config)


def shared_address(path: str, host: str, scheme: str, host_url: str, config: Mapping[str, Any]) -> tuple[str, str | None]:
    """:func:`shared_url` for a request reached at ``host`` (``request.host``: lower case or not, with its
    port) over ``scheme``, whose ``host_url`` is ``scheme://host/`` (and the app's root), under the app's
    ``config``: outside a request too (the group's pages answered before Flask: web/early_pages.py)."""
    base = config.get("PUBLIC_BASE_URL", "").rstrip("/")
    if base:
        return base + path, None
    host = host.lower()
    hostname = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    # this machine only: loopback, and the "any address" a server listens on (make run
    # prints http://0.0.0.0:5000/, which a browser on this machine opens happily)
    if hostname in ("localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]") or hostname.startswith("127.") or (
        hostname.endswith(".localhost")
    ):
        lan = lan_address()
        port = host.rsplit(":", 1)[1] if ":" in host and not host.endswith("]") else ""
        # the LAN address reaches this server only when it listens on every interface
        # (``serve`` records where it listens; make run uses 0.0.0.0)
        if lan and config.get("LISTEN_HOST") in ("0.0.0.0", "::"):
            return f"{scheme}://{lan}{':' + port if port else ''}{path}", None
        return host_url.rstrip("/") + path, LOCAL_ONLY
    return host_url.rstrip("/") + path, None
