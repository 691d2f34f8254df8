"""Issue 14, item 13: static files are fingerprinted and served immutable; /sw.js is not."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "static"


def test_a_page_names_its_static_files_by_their_content_hash(client):
    page = client.get("/").get_data(as_text=True)
    for name in ("app.css", "app.js", "icon.svg", "icon-192.png", "manifest.webmanifest"):
        digest = hashlib.sha256((STATIC / name).read_bytes()).hexdigest()[:12]
        assert f"/static/{name}?v={digest}" in page, name


def test_a_fingerprinted_file_is_served_immutable_and_an_unfingerprinted_one_is_revalidated(client):
    page = client.get("/").get_data(as_text=True)
    url = re.search(r'href="(/static/app\.css\?v=[0-9a-f]{12})"', page).group(1)
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response.get_data() == (STATIC / "app.css").read_bytes()
    # without a fingerprint, or with one that is not this content's, the browser revalidates
    for other in ("/static/app.css", "/static/app.css?v=000000000000"):
        cache = client.get(other).headers.get("Cache-Control", "")
        assert "immutable" not in cache and "no-cache" in cache, (other, cache)


def test_the_service_worker_stays_at_its_own_unfingerprinted_address(client):
    response = client.get("/sw.js")
    assert response.headers["Cache-Control"] == "no-cache"
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    assert 'navigator.serviceWorker.register("/sw.js")' in script
