"""Issue 14, item 17: the report draws each player's chips over the night; the players' page links to it."""

from __future__ import annotations

import re

from companion.extensions import db
from companion.db.models import Night


def test_the_report_has_a_chips_chart_per_player_and_the_players_page_links_to_it(start_night, client, app):
    t = start_night()  # Ann, Ben, Cat, Dan
    t.declare("Ben")  # the ante: everyone -1, a token to Ben
    report = client.get(t.url + "/report").get_data(as_text=True)
    for seat, name in enumerate(["Ann", "Ben", "Cat", "Dan"], start=1):
        chart = re.search(rf'<figure class="chart-box chips-chart" id="chips-{seat}"><svg[^>]*aria-label="([^"]+)"', report)
        assert chart and chart.group(1) == f"{name}&#x27;s chips over the night: -1 now"
    with app.app_context():
        viewer = db.session.query(Night).one().viewer_key
    page = client.get(f"/p/{viewer}").get_data(as_text=True)
    assert f'href="/p/{viewer}/report#who-h">Each player\'s chips over the night</a>' in page
    client.get(f"/p/{viewer}/me?name=Cat")
    page = client.get(f"/p/{viewer}").get_data(as_text=True)
    assert f'href="/p/{viewer}/report#chips-3">My chips over the night</a>' in page
