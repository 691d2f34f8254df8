"""The report pages: who pays whom, marking payments paid, downloads, past nights.

The night played is night A of tests/report/test_report.py (worked out there by hand):
at the end, before the unfinished pot, Ann +11, Ben -33, Cat +11, Dan +3, pot 8
(2 antes from each in game 2), tokens Ben 1 and Dan 1.  At 0.25 EUR a chip.
"""

from __future__ import annotations

import csv
import json
import re

from companion.extensions import db
from companion.db.models import Event, Night
from pages import TablePage


def play_night_a(t: TablePage) -> None:
    t.declare("Ben", "Cat"); t.winner("Cat")
    t.declare()
    t.declare("Ann"); t.challenge()
    t.declare()
    t.declare("Ben"); t.challenge("Cat", "Dan"); t.tie("Cat", "Dan")
    t.declare("Dan")
    t.declare("Ann")  # Ann's 2nd token: game 1 and its pot of 12
    t.declare("Ann", "Ben"); t.winner("Ann")
    t.declare("Ben", "Cat"); t.winner("Cat")
    t.declare("Dan"); t.challenge()
    t.declare("Ben")
    assert [t.net(n) for n in ("Ann", "Ben", "Cat", "Dan")] == [11, -33, 11, 3]
    assert t.pot() == 8


def payments(html: str) -> list[tuple[str, str, int, bool]]:
    """(payer, payee, chips, paid) of each payment on a report page."""
    found = re.findall(
        r'<li class="payment( paid)?" data-payer="([^"]+)" data-payee="([^"]+)" data-chips="(\d+)">', html
    )
    return [(a, b, int(c), bool(paid)) for paid, a, b, c in found]


def viewer_key(app) -> str:
    with app.app_context():
        return db.session.query(Night).one().viewer_key


def events(app, kind: str) -> list[Event]:
    with app.app_context():
        return db.session.query(Event).filter_by(kind=kind).order_by(Event.seq).all()


def test_the_report_shows_the_plan_the_pot_and_each_player(start_night, client):
    t = start_night(tokens_to_win="2")
    play_night_a(t)
    html = client.get(f"{t.url}/report").get_data(as_text=True)
    # Returned antes: 2 back each.  Ann 13, Ben -31, Cat 13, Dan 5.  Ben pays all three.
    assert payments(html) == [("Ben", "Ann", 13, False), ("Ben", "Cat", 13, False), ("Ben", "Dan", 5, False)]
    assert "3.25 EUR" in html and "1.25 EUR" in html  # 13 and 5 chips at 0.25
    assert "-7.75 EUR" in html  # Ben: -31 x 0.25
    assert "pot of 8 chips" in html and "returned" in html
    # the live standings still show the table before the pot is dealt with
    assert re.search(r'data-player="Ben">.*?<td class="num net[^"]*">-33</td>', html, re.S)
    # the per-player breakdown: Ben's antes -5 over the night, side bets -28
    ben = re.search(r'<article class="player-card" id="player-2" data-player="Ben">(.*?)</article>', html, re.S).group(1)
    assert "<th scope=\"row\">All</th><td class=\"num\">−5</td><td class=\"num\">−28</td>" in ben
    assert "lost 4 to Ann, 16 to Cat, 8 to Dan" in ben
    assert "Ann</strong> took the pot of 12 after 3 hands" in html
    assert "Mark paid" in html and "Why?" in html


def test_the_pairwise_view_is_a_plain_link(start_night, client):
    t = start_night(tokens_to_win="2")
    play_night_a(t)
    html = client.get(f"{t.url}/report").get_data(as_text=True)
    assert f'href="{t.url}/report?view=pairwise"' in html
    html = client.get(f"{t.url}/report?view=pairwise").get_data(as_text=True)
    # Side bets per pair plus game 1's antes to Ann (3 from each of the others).
    assert [p[:3] for p in payments(html)] == [
        ("Ben", "Ann", 7), ("Ben", "Cat", 16), ("Ben", "Dan", 8), ("Cat", "Ann", 3), ("Dan", "Ann", 3)
    ]
    assert "side bets +4 · through the pot +3" in html


def test_marking_a_payment_paid_takes_a_confirming_second_tap(start_night, client, app):
    t = start_night(tokens_to_win="2")
    play_night_a(t)
    version = len(events(app, "declare")) + len(events(app, "challenge")) + len(events(app, "showdown"))
    # First tap: a plain GET that only shows the confirming form.
    html = client.get(f"{t.url}/report?view=plan&payer=Ben&payee=Cat&chips=13").get_data(as_text=True)
    assert "Confirm: Ben paid Cat 3.25 EUR?" in html
    form = re.search(r'<form method="post" action="([^"]+)" class="confirm" id="confirm">(.*?)</form>', html, re.S)
    assert form and form.group(1) == f"{t.url}/paid"
    fields = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', form.group(2)))
    assert fields["version"] == str(version) and fields["payer"] == "Ben" and fields["chips"] == "13"
    assert events(app, "paid") == []
    # Second tap: recorded once, even when the tap is doubled.
    first = client.post(form.group(1), data=fields)
    again = client.post(form.group(1), data=fields)
    assert first.status_code == again.status_code == 303
    paid = events(app, "paid")
    assert len(paid) == 1 and paid[0].payload == {"payer": "Ben", "payee": "Cat", "chips": 13}
    html = client.get(first.headers["Location"]).get_data(as_text=True)
    assert "Already recorded: Ben paid Cat 3.25 EUR (13 chips)." in html
    assert payments(html) == [("Ben", "Ann", 13, False), ("Ben", "Cat", 13, True), ("Ben", "Dan", 5, False)]
    assert "Paid ✓" in html
    # A second phone's stale confirm form records nothing.
    stale = {**fields, "payer": "Ben", "payee": "Ann", "request_key": "k" * 30}
    response = client.post(f"{t.url}/paid", data=stale)
    assert response.status_code == 409
    assert len(events(app, "paid")) == 1


def test_a_payment_that_is_not_in_the_plan_is_refused(start_night, client, app):
    t = start_night(tokens_to_win="2")
    play_night_a(t)
    html = client.get(f"{t.url}/report?payer=Ben&payee=Cat&chips=13").get_data(as_text=True)
    fields = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', re.search(r'id="confirm">(.*?)</form>', html, re.S).group(1)))
    response = client.post(f"{t.url}/paid", data={**fields, "chips": "12"})
    assert response.status_code == 422
    assert "not in the plan" in response.get_data(as_text=True)
    response = client.post(f"{t.url}/paid", data={**fields, "chips": "0"})
    assert response.status_code == 422
    assert events(app, "paid") == []
    html = client.get(f"{t.url}/report?payer=Ben&payee=Cat&chips=99").get_data(as_text=True)
    assert "not in the plan" in html and 'id="confirm"' not in html


def test_the_players_link_reads_the_report_but_cannot_mark_paid(start_night, client, app):
    t = start_night(tokens_to_win="2")
    play_night_a(t)
    viewer = viewer_key(app)
    response = client.get(f"/p/{viewer}/report?payer=Ben&payee=Cat&chips=13")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert payments(html) == [("Ben", "Ann", 13, False), ("Ben", "Cat", 13, False), ("Ben", "Dan", 5, False)]
    assert "Mark paid" not in html and "Confirm:" not in html and "/paid" not in html
    assert t.key not in html  # the scorekeeper's secret never reaches the players' page
    response = client.post(
        f"/k/{viewer}/paid",
        data={"payer": "Ben", "payee": "Cat", "chips": "13", "version": "14", "request_key": "k" * 30},
    )
    assert response.status_code == 403
    assert events(app, "paid") == []
    # the downloads work from the players' link too, without the keeper's key
    data = client.get(f"/p/{viewer}/report.json").get_data(as_text=True)
    assert t.key not in data and json.loads(data)["payments"][0]["from"] == "Ben"


def test_the_downloads(start_night, client):
    t = start_night(tokens_to_win="2", unfinished_pot="split_leaders")
    play_night_a(t)
    response = client.get(f"{t.url}/report.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    first, *lines = response.get_data(as_text=True).splitlines()
    assert first == "format,companion-report/2"  # the format's version first (docs/report-format.md)
    # header, 4 players, 3 payments.  Split: Ben and Dan get 4 each: Ann 11, Ben -29, Cat 11, Dan 7.
    assert len(lines) == 8
    assert lines[2] == 'player,"Ben",,5,0,28,0,4,1,0,-29,-7.25,"EUR",'  # text a person typed is quoted
    assert lines[5] == 'payment,"Ben","Ann",,,,,,,,11,2.75,"EUR",no'
    data = client.get(f"{t.url}/report.json").get_json()
    assert data["unfinished_pot"]["choice"] == "split_leaders"
    assert [p["chips"] for p in data["payments"]] == [11, 11, 7]
    # ?view=pairwise: the pairwise payments instead (how many depends on which of
    # Ben and Dan the fewest-payments split of game 2's pot pairs Ann with).
    pairwise = client.get(f"{t.url}/report.csv?view=pairwise").get_data(as_text=True).splitlines()[1:]
    assert len(pairwise) == 1 + 4 + len(data["pairwise"])
    assert [row[1:3] for row in csv.reader(pairwise[5:])] == [[p["from"], p["to"]] for p in data["pairwise"]]


def test_the_report_has_no_chip_count_form_and_sends_the_count_to_the_bank_page(start_night, client, app):
    # issue 20 item 13: the report's own "Count the chips" form duplicated the Bank page's real counts
    t = start_night(tokens_to_win="2")
    play_night_a(t)
    html = client.get(f"{t.url}/report").get_data(as_text=True)
    assert "Count the chips" not in html and "count-form" not in html and "Compare with the ledger" not in html
    assert f'<a href="{t.url}/bank">count them on the Bank page</a>' in html
    # a count in the address (an old bookmark) is only a report
    assert "Compare with the ledger" not in client.get(f"{t.url}/report?count=1&buy_in=100&c1=113").get_data(as_text=True)
    assert "/bank" not in client.get(f"/p/{viewer_key(app)}/report").get_data(as_text=True)


def test_past_nights_and_a_players_history_show_only_this_browsers_nights(start_night, client, app, make_app):
    first = start_night(tokens_to_win="2", name="Friday")
    play_night_a(first)
    second = start_night(name="Saturday", seat_1="Ben", seat_2="Eve", seat_3=None, seat_4=None)
    # Saturday: Ben deals; Eve alone at stage 1: ante pot 2, Eve 1 token, Ben -1, Eve -1.
    second.declare("Eve")
    html = client.get("/nights").get_data(as_text=True)
    assert "Friday" in html and "Saturday" in html
    assert "1 of 3 payments" not in html and "0 of 3 payments marked paid" in html
    ben = client.get("/players/Ben")
    assert ben.status_code == 200
    page = ben.get_data(as_text=True)
    # Friday: Ben -31 (-7.75 EUR); Saturday: pot 2 returned, Ben 0 (0.00 EUR).  Total -7.75.
    assert "-7.75 EUR" in page and "<svg" in page and "style=" not in page
    assert "+0 / −28" in page  # side bets won / lost over both nights
    assert client.get("/players/ben").status_code == 200  # names match whatever the case
    assert client.get("/players/Zed").status_code == 404
    # Another browser knows no nights: nothing listed, no history, no link leaked.
    stranger = app.test_client()
    html = stranger.get("/nights").get_data(as_text=True)
    assert "Friday" not in html and first.key not in html
    assert stranger.get("/players/Ben").status_code == 404


def test_the_report_pages_have_no_inline_style_or_script(start_night, client, app):
    t = start_night(tokens_to_win="2")
    play_night_a(t)
    for url in (
        f"{t.url}/report", f"{t.url}/report?view=pairwise", f"{t.url}/report?payer=Ben&payee=Cat&chips=13",
        f"/p/{viewer_key(app)}/report", "/nights", "/players/Ann",
    ):
        response = client.get(url)
        html = response.get_data(as_text=True)
        assert response.status_code == 200, url
        assert "style=" not in html and "<style" not in html, url
        assert not re.search(r"<script(?![^>]*\ssrc=)", html), url
        assert "style-src 'self'" in response.headers["Content-Security-Policy"]
