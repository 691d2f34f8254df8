"""Issue 14, item 13: static files are fingerprinted and served immutable; /sw.js is not.

Issue 22: stylesheets and scripts are sent minified, and fingerprinted by the bytes sent.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from static_sent import as_sent

STATIC = Path(__file__).resolve().parents[2] / "static"


def test_a_page_names_its_static_files_by_their_content_hash(client):
    page = client.get("/").get_data(as_text=True)
    for name in ("app.css", "app.js", "icon.svg", "icon-192.png", "manifest.webmanifest"):
        digest = hashlib.sha256(as_sent(name)).hexdigest()[:12]
        assert f"/static/{name}?v={digest}" in page, name


def test_a_fingerprinted_file_is_served_immutable_and_an_unfingerprinted_one_is_revalidated(client):
    page = client.get("/").get_data(as_text=True)
    url = re.search(r'href="(/static/app\.css\?v=[0-9a-f]{12})"', page).group(1)
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response.get_data() == as_sent("app.css")
    # without a fingerprint, or with one that is not this content's, the browser revalidates
    for other in ("/static/app.css", "/static/app.css?v=000000000000"):
        cache = client.get(other).headers.get("Cache-Control", "")
        assert "immutable" not in cache and "no-cache" in cache, (other, cache)


def test_the_service_worker_stays_at_its_own_unfingerprinted_address(client):
    response = client.get("/sw.js")
    assert response.headers["Cache-Control"] == "no-cache"
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    assert 'navigator.serviceWorker.register("/sw.js")' in script


def test_the_stylesheet_and_the_script_are_sent_minified_and_kept_readable_in_static(client):
    for name, comment in (("app.css", b"/*"), ("app.js", b"\n  // ")):
        source = (STATIC / name).read_bytes()
        sent = client.get(f"/static/{name}").get_data()
        assert comment in source and comment not in sent, name
        assert sent == as_sent(name) and len(sent) < 0.9 * len(source), (name, len(sent), len(source))
    assert client.get("/static/icon-192.png").get_data() == (STATIC / "icon-192.png").read_bytes()


def test_a_minified_file_is_revalidated_by_its_etag_and_a_missing_one_is_not_found(client):
    first = client.get("/static/app.js")
    assert first.mimetype == "text/javascript" and first.headers["ETag"]
    again = client.get("/static/app.js", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    assert client.get("/static/nothing.css").status_code == 404


def stylesheets(client, url: str) -> list[str]:
    """The stylesheets the page at ``url`` links, in order."""
    return re.findall(r'rel="stylesheet" href="/static/([\w.-]+)\?v=', client.get(url).get_data(as_text=True))


def test_the_reports_rules_are_linked_by_the_report_pages_alone_after_the_apps(client, start_night):
    table = start_night()
    assert stylesheets(client, table.url) == ["app.css"]
    assert stylesheets(client, "/") == ["app.css"]
    assert stylesheets(client, f"{table.url}/report") == ["app.css", "report.css"]
    assert stylesheets(client, "/nights") == ["app.css", "report.css"]
    assert ".report " not in (STATIC / "app.css").read_text() and ".report " in (STATIC / "report.css").read_text()


def test_a_name_with_a_nul_or_climbing_out_of_the_folder_is_not_found(client):
    for address in ("/static/%00", "/static/Ann%00Ben", "/static/app.css%00.png", "/static/../companion/__init__.py"):
        assert client.get(address).status_code == 404, address


def test_a_file_is_kept_once_however_its_address_spells_it(app, client):
    """A stranger's spellings of one file (``x1/../app.css``, ``x2/../app.css`` …) are one file kept, not one each."""
    plain = client.get("/static/app.css").get_data()
    for n in range(20):
        assert client.get(f"/static/x{n}/../app.css").get_data() == plain
    assert set(app.extensions["companion_static_fingerprints"]._known) <= {"app.css", "app.js", "report.css"}


def test_the_script_and_the_stylesheet_go_out_compressed_to_a_browser_that_takes_it(client):
    """Issue 37: the script and the stylesheet were 21 of a first load's 31 KB, sent uncompressed."""
    import gzip

    for name in ("app.js", "app.css"):
        plain = client.get(f"/static/{name}")
        packed = client.get(f"/static/{name}", headers={"Accept-Encoding": "gzip"})
        assert packed.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed.headers["Vary"], name
        assert gzip.decompress(packed.get_data()) == as_sent(name) == plain.get_data(), name
        assert len(packed.get_data()) < len(plain.get_data()) / 2, name
        # one weak validator for both copies: a phone holding either is answered 304, with no body
        assert packed.headers["ETag"] == plain.headers["ETag"] and plain.headers["ETag"].startswith('W/"'), name
        for encoding in ("gzip", "identity"):
            again = client.get(f"/static/{name}", headers={"If-None-Match": plain.headers["ETag"],
                                                            "Accept-Encoding": encoding})
            assert again.status_code == 304 and again.get_data() == b"", (name, encoding)
    icon = client.get("/static/icon-192.png", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in icon.headers  # a PNG is compressed already
