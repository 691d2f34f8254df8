"""The app installs on a phone's home screen and keeps the last standings when the network drops."""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG, after checking its signature and its IHDR chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    body = data[16 : 16 + length]
    assert struct.unpack(">I", data[16 + length : 20 + length])[0] == zlib.crc32(kind + body)
    return struct.unpack(">II", body[:8])


def test_the_service_worker_is_served_from_the_root_as_javascript(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    # static/sw.js, with each app-shell file's address as the pages name it (fingerprinted: issue 22)
    served = re.sub(rb"\?v=[0-9a-f]{12}\"", b'"', response.get_data())
    assert served == (STATIC / "sw.js").read_bytes()
    # its scope is where it is served from: the root, so it covers the players' pages under /p/
    assert "Service-Worker-Allowed" not in response.headers
    body = response.get_data(as_text=True)
    assert 'addEventListener("fetch"' in body and "/p/" in body


def test_the_pages_register_the_service_worker_from_a_file_not_inline(client, start_night):
    page = client.get(start_night().url).get_data(as_text=True)
    assert "<script>" not in page  # the CSP allows no inline script
    assert 'serviceWorker.register("/sw.js")' in (STATIC / "app.js").read_text()


def test_the_manifest_names_the_app_and_its_icons(client):
    response = client.get("/static/manifest.webmanifest")
    assert response.status_code == 200
    manifest = json.loads(response.get_data())
    assert manifest["name"] and manifest["short_name"]
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200, icon["src"]


def test_the_icons_are_pngs_of_their_stated_size(client):
    manifest = json.loads((STATIC / "manifest.webmanifest").read_text())
    for icon in manifest["icons"]:
        if icon["type"] != "image/png":
            continue
        width, height = (int(n) for n in icon["sizes"].split("x"))
        response = client.get(icon["src"])
        assert response.mimetype == "image/png"
        assert png_size(response.get_data()) == (width, height)


def test_every_page_links_the_manifest_and_a_touch_icon(client):
    page = client.get("/").get_data(as_text=True)
    # (fingerprinted: ?v=<content hash>, see test_static_files.py)
    assert re.search(r'rel="manifest" href="/static/manifest\.webmanifest\?v=[0-9a-f]{12}"', page)
    assert re.search(r'rel="apple-touch-icon" href="/static/icon-192\.png\?v=[0-9a-f]{12}"', page)


def test_the_service_worker_caches_the_shell_it_names(client):
    body = (STATIC / "sw.js").read_text()
    for name in ("app.css", "app.js", "icon-192.png", "icon-512.png", "manifest.webmanifest"):
        assert f"/static/{name}" in body
        assert client.get(f"/static/{name}").status_code == 200
