"""Every download names its file so that any server can send the header (issue 21, item 9).

A header is Latin-1 on the wire: the report's CSV and JSON downloads of a night named
in another script answered 500 on both links, under waitress and gunicorn.  Each now
sends an ASCII ``filename`` and the name itself in ``filename*=UTF-8''…`` (RFC 6266).
"""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from companion.web.plumbing.downloads import attachment
from security.support import Site


@pytest.mark.parametrize(
    ("name", "ascii_name"),
    [("金曜日", "night-report.csv"), ("Ночь у Ани", "night-report.csv"), ("٣", "night-report.csv"),
     ("Friday at Ann's", "night-report-Friday-at-Ann-s.csv")],
)
def test_every_download_of_a_night_named_in_any_script_is_sent_with_a_header_a_server_can_send(app, name, ascii_name):
    night = Site(app).seat(name=name)
    client = app.test_client()
    downloads = [f"/k/{night.keeper}/export.json"] + [
        f"/{link}/{key}/report.{ext}" for link, key in (("k", night.keeper), ("p", night.viewer)) for ext in ("csv", "json")
    ]
    for path in downloads:
        response = client.get(path)
        assert response.status_code == 200, path
        disposition = response.headers["Content-Disposition"]
        assert disposition.isascii(), path  # waitress and gunicorn send headers as Latin-1: ASCII is safe
        assert disposition.startswith("attachment; filename=\""), path
    csv = client.get(f"/p/{night.viewer}/report.csv").headers["Content-Disposition"]
    assert f'filename="{ascii_name}"' in csv
    if not name.isascii():
        # the name as typed, percent-encoded UTF-8: 金 is E9 87 91
        encoded = csv.split("filename*=UTF-8''", 1)[1]
        assert unquote(encoded) == "night-report-" + "-".join(name.replace("'", " ").split()) + ".csv"


def test_the_header_keeps_letters_of_any_script_and_turns_the_rest_into_single_dashes():
    assert attachment("napalm", "Friday", "json") == 'attachment; filename="napalm-Friday.json"'
    assert attachment("napalm-report", "金曜日", "csv") == (
        "attachment; filename=\"napalm-report.csv\"; filename*=UTF-8''napalm-report-%E9%87%91%E6%9B%9C%E6%97%A5.csv"
    )
    assert attachment("napalm", 'a"b/c\\d', "json") == 'attachment; filename="napalm-a-b-c-d.json"'
