"""A secret link's address as other phones must open it, and a warning when they cannot.

The players' link of a night (web/pages/share.py) and the members' link of a group (web/pages/groups.py)
are shown as text and as a QR code for the phones around the table.  They are made from the
configured public address (``COMPANION_PUBLIC_BASE_URL``) or else from the address the server
listens on (as ``serve`` records it, or as the WSGI server says: ``SERVER_NAME`` and
``SERVER_PORT``), never from the Host a request names: a Host of this machine at another port
(``127.0.0.1:5000``, perhaps another program's) or with a trailing dot was answered, and the
links and QR codes were made from it (issue 36, item 7).  A server listening on every interface
is named by this machine's address on the local network; a link that only this machine can open
(localhost) says so.
"""

from __future__ import annotations

import ipaddress

from flask import current_app, request

from companion.web.plumbing.hosts import DEFAULT_PORTS, hostname_of, lan_address

#: what the page says when the link can only be opened on this machine
LOCAL_ONLY = (
    "This link points at this machine itself (localhost), so other phones cannot open it. "
    "Start the app on the local network (make run) or set COMPANION_PUBLIC_BASE_URL."
)
#: the "any address" a server listens on: every interface of this machine
EVERY_INTERFACE = frozenset({"0.0.0.0", "::", ""})


def shared_url(path: str) -> tuple[str, str | None]:
    """``path`` (an address on this app) as other phones must open it, and a warning when they can't."""
    config, scheme = current_app.config, request.scheme
    server_name, server_port = str(request.environ.get("SERVER_NAME", "")), str(request.environ.get("SERVER_PORT", ""))
    base = config.get("PUBLIC_BASE_URL", "").rstrip("/")
    if base:
        return base + path, None
    host = hostname_of(str(config.get("LISTEN_HOST") or server_name))
    port = str(config.get("LISTEN_PORT") or server_port)
    at = "" if not port or port == str(DEFAULT_PORTS.get(scheme)) else f":{port}"
    if host in EVERY_INTERFACE:
        lan = lan_address()
        if lan:  # every interface: the local network's address reaches this server
            return f"{scheme}://{lan}{at}{path}", None
        host = "localhost"
    shown = f"[{host}]" if ":" in host else host
    url = f"{scheme}://{shown}{at}{path}"
    return url, LOCAL_ONLY if _this_machine_only(host) else None


def _this_machine_only(host: str) -> bool:
    """localhost, a name under .localhost, 127.0.0.0/8 and ::1: no other phone reaches it."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
