"""Answer only to the host names the server is meant to be reached at (DNS rebinding, forged QR links).

Without this, a request with ``Host: evil.example`` got a players' link (and its QR
code) pointing at evil.example, and a web page on another site could reach the app
through a name it re-points at this machine.  Allowed: the host of
``COMPANION_PUBLIC_BASE_URL`` (at its port), this machine itself (localhost, 127.0.0.1,
::1) and its own addresses and names on the local network (the addresses phones open
from the QR code), at the port the server listens on, and whatever
``COMPANION_ALLOWED_HOSTS`` lists (at the port an entry names, or any).  A Host without a
port is answered by its name alone (a proxy in front sends it so).  A name with a
trailing dot is refused (issue 36, item 7: ``127.0.0.1.`` and ``127.0.0.1:5000`` on a
server listening on another port were answered).  Anything else gets a 400 saying which
setting to change.  A Flask hook, the app's first ``before_request`` (Flask in front of every
request, issue 37): it sees a trusted proxy's headers applied, and the app's security
headers go on its answer as on every other.  The players' and
members' links are never made from the Host a request names (web/plumbing/addresses.py).

This machine's own names and addresses are found here too (:func:`lan_address`: the
address on the local network that the players' QR code and ``serve`` show).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, request

#: this machine, whatever interface the server listens on
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "::"})
#: how often this machine's own addresses are looked up again (a laptop's LAN address changes)
REFRESH_SECONDS = 60.0


def hostname_of(host: str) -> str:
    """``host`` as a Host header gives it, without port, brackets, case or trailing dot."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


#: A Host header (RFC 9110, 7.2): a name or IPv4 address, or an IPv6 address in brackets, and
#: an optional port.  Nothing else: no user info ("127.0.0.1:80@evil.example" was read as
#: 127.0.0.1, and the players' link shown became "http:/p/<key>"), no path, no spaces.
_HOST_HEADER = re.compile(
    r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?\.?))(?::(?P<port>[0-9]{1,5}))?",
    re.ASCII | re.IGNORECASE,
)


def request_host(header: str) -> str | None:
    """The host name a Host header names (lower case, no port or brackets), or None when the header
    is not a host and a port and nothing else, or names a host with a trailing dot."""
    parsed = host_and_port(header)
    return None if parsed is None else parsed[0]


def host_and_port(header: str) -> tuple[str, int | None] | None:
    """(host name, port or None) a Host header names, as :func:`request_host` reads the name; None as it."""
    match = _HOST_HEADER.fullmatch(header)
    if match is None or (match["port"] is not None and int(match["port"]) > 65535):
        return None
    port = None if match["port"] is None else int(match["port"])
    if match["v6"] is not None:
        try:
            return str(ipaddress.IPv6Address(match["v6"])), port
        except ValueError:
            return None
    if match["name"].endswith("."):  # "127.0.0.1." is no address; a name is served without its dot
        return None
    return match["name"].lower(), port


#: the port a URL or a Host without one means
DEFAULT_PORTS = {"http": 80, "https": 443}


def listening_port(app: Flask, environ: dict[str, Any]) -> int | None:  # type: ignore[type-arg]
    """The port the server listens on: as ``serve`` recorded it, else as the WSGI server says (``SERVER_PORT``)."""
    port = app.config.get("LISTEN_PORT") or environ.get("SERVER_PORT")
    try:
        return int(port) if port else None
    except ValueError:
        return None


def configured_ports(app: Flask) -> dict[str, set[int | None]]:
    """The names the settings allow, each with the ports it is allowed at (None: any port): the public
    address's at its port, and ``ALLOWED_HOSTS``'s at the port an entry names, or at any.  A Host that
    names one of them without a port is allowed too."""
    names: dict[str, set[int | None]] = {}
    base = str(app.config.get("PUBLIC_BASE_URL") or "")
    if base:
        parts = urlsplit(base)
        try:
            port = parts.port or DEFAULT_PORTS.get(parts.scheme)
        except ValueError:
            port = None
        names.setdefault(hostname_of(parts.netloc.rsplit("@", 1)[-1]), set()).add(port)
    raw = app.config.get("ALLOWED_HOSTS") or ""
    items: Iterable[str] = raw.replace(",", " ").split() if isinstance(raw, str) else raw
    for item in items:
        if item.strip():
            named = host_and_port(item.strip().rstrip("."))
            names.setdefault(hostname_of(item), set()).add(named[1] if named is not None else None)
    return names


def lan_address() -> str | None:
    """This machine's address on the local network, for the QR code (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def machine_hosts(listen_host: str | None) -> set[str]:
    """This machine's own names and addresses (no packet is sent)."""
    names: set[str] = set()
    lan = lan_address()
    if lan:
        names.add(lan)
    if listen_host:
        names.add(hostname_of(listen_host))
    try:
        hostname = socket.gethostname().lower()
    except OSError:  # pragma: no cover
        return names
    names.update({hostname, f"{hostname}.local", socket.getfqdn().lower()})
    try:
        for *_, address in socket.getaddrinfo(hostname, None):
            names.add(str(address[0]).split("%", 1)[0].lower())
    except OSError:
        pass
    return names


def _loopback_address(name: str) -> bool:
    """127.0.0.0/8 and ::1 (Debian names this machine 127.0.1.1)."""
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class HostCheck:
    """The allowed hosts, this machine's own names among them, looked up again every minute."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._machine: tuple[float, set[str]] = (float("-inf"), set())
        self._lock = threading.Lock()

    def allowed(self, host: str, environ: dict[str, Any] | None = None) -> bool:  # type: ignore[type-arg]
        """Whether the server answers to Host ``host`` (its name, at its port if it names one) for the request
        ``environ``."""
        environ = environ or {}
        parsed = host_and_port(host)
        if parsed is None:
            return False
        name, port = parsed
        ports = configured_ports(self.app).get(name)
        if ports is not None and (port is None or None in ports or port in ports):
            return True
        # A port named must be the one the server listens on: another is another server's (the links
        # were made from it).  None named: a proxy in front (trusted or not) sends the name alone.
        if port is not None and port != listening_port(self.app, environ):
            return False
        if name in LOOPBACK or name.endswith(".localhost") or _loopback_address(name):
            return True
        return name in self._machine_hosts()

    def _machine_hosts(self) -> set[str]:
        """This machine's names, looked up again every minute by one request while the others
        use the last ones (a slow name lookup never holds every request up)."""
        at, names = self._machine
        if time.monotonic() - at < REFRESH_SECONDS:
            return names
        first = at == float("-inf")
        if self._lock.acquire(blocking=first):  # the very first lookup: every request waits for it
            try:
                if time.monotonic() - self._machine[0] >= REFRESH_SECONDS:
                    self._machine = (time.monotonic(), machine_hosts(self.app.config.get("LISTEN_HOST")))
            finally:
                self._lock.release()
        return self._machine[1]

    def refuse_other_hosts(self) -> Response | None:
        """Flask's ``before_request``, the app's first: a 400 saying which setting to change, for a Host
        the server is not meant to be reached at; nothing for any other (no Host, HTTP/1.0: the
        server's own name)."""
        host = request.environ.get("HTTP_HOST")
        if host is None or self.allowed(host, request.environ):
            return None
        shown = "".join(c for c in host[:80] if c.isprintable())
        body = (
            f"This server does not answer to the address \u201c{shown}\u201d. Open it at the address the "
            "scorekeeper's QR code shows; to serve it under this name, add the name to "
            "COMPANION_ALLOWED_HOSTS (or set COMPANION_PUBLIC_BASE_URL).\n"
        )
        return Response(body, status=400, content_type="text/plain; charset=utf-8", headers={"Cache-Control": "no-store"})


def init_app(app: Flask) -> None:
    """Check the Host before any other hook of the app: called first in ``create_app``, so that its
    ``before_request`` runs before every other (the security headers still go on its 400)."""
    app.before_request(HostCheck(app).refuse_other_hosts)
