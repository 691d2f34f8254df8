"""Issue 20, item 14: the words the night's pages use for the night file.

The export is the night file of the whole night, whatever games it held (docs/night-file.md),
not a Napalm hand history: its name says so, and so do the button and the home page's import.
"""

from __future__ import annotations


def test_the_export_is_the_night_file_named_for_the_night(start_night, client):
    page = start_night(name="Friday at Ann's")
    assert ">Export the night file</a>" in page.html and "hand history" not in page.html
    response = client.get(f"{page.url}/export.json")
    # the night's name in ASCII letters and digits, anything else a dash
    assert response.headers["Content-Disposition"] == 'attachment; filename="night-Friday-at-Ann-s.json"'
    assert response.get_json()["format"] == "companion-night/2"


def test_the_home_page_imports_a_night_file(client):
    html = client.get("/").get_data(as_text=True)
    assert '<h2 id="imp">Import a night file</h2>' in html
    assert "Night file (.json)" in html and "hand history" not in html.lower()
