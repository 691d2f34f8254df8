"""A game started by mistake, with nothing recorded in it, can be taken back (issue 20, item 5).

Taking it back is an event, like every correction: its row and its start stay in the log;
the game before it is at the table again with its pot and state as they were; the history
and the night file say so, and import and ``flask replay`` read it back.

The night (tests/web/test_night_of_games.py): Ann, Ben, Cat, Dan, ante 1, antes returned.
#1 Ben and Cat say Yes (antes: pot 4, everyone −1), #2 Cat wins: Ben pays her 4, #3 Dan alone
says Yes at stage 2: Ann −1, Ben −5, Cat +3, Dan −1, pot 4, stage 3 next (RULES.md).
#4 Nap starts by mistake; #5 takes it back: Napalm is at the table again, exactly as it was.
"""

from __future__ import annotations

import io
import json
import re

from companion.night import file as nightfile
from companion.extensions import db
from companion.db.models import Event, Game
from pages import TablePage
from web.test_night_of_games import next_game_page, play_game_one, second_game, stamp_of

NAMES = ("Ann", "Ben", "Cat", "Dan")


def start_nap(client, page: TablePage) -> None:  # type: ignore[no-untyped-def]
    stamp = stamp_of(next_game_page(client, page, "?game=nap"))
    response = client.post(f"{page.url}/next-game", data={
        **stamp, "game": "nap", "rules_of": "nap", "players": list(NAMES), "first_dealer": "Ben",
        "variant": "plain", "misere": "y", "stake": "1",
    })
    assert response.status_code == 303
    page.refresh()
    assert "Tonight's 2nd game: Nap" in page.html


def take_back(client, page: TablePage, position: str = "2"):  # type: ignore[no-untyped-def]
    form = re.search(r'<form method="post" action="([^"]+/take-back)" class="take-back">(.*?)</form>', page.html, re.S)
    assert form, "no Take back this game control on the table"
    version = re.search(r'name="version"[^>]*value="(\d+)"', form.group(2))
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', form.group(2))
    assert version and key
    response = client.post(form.group(1), data={"version": version.group(1), "request_key": key.group(1),
                                                "position": position})
    if response.status_code == 303:
        page.refresh()
    return response


def test_a_nap_started_by_mistake_is_taken_back_and_napalm_is_at_the_table_again(start_night, client, app):
    page = play_game_one(start_night)
    start_nap(client, page)
    assert "Started Nap by mistake? Nothing is recorded in it yet" in page.html
    assert take_back(client, page).status_code == 303
    assert ("Game 2 of the night (Nap) taken back: started by mistake, nothing recorded in it. "
            "Napalm is at the table again, as it was.") in page.html
    # Napalm as it was: the pot of 4 and every balance; stage 3 of hand 1 is next
    assert [page.net(n) for n in NAMES] == [-1, -5, 3, -1] and page.pot() == 4 and page.dealer() == "Ann"
    assert "Stage 3" in page.html and "Tonight's" not in page.html and "take-back" not in page.html
    # nothing deleted: both games' rows, and the five events (#4 the start, #5 its taking back)
    with app.app_context():
        assert [g.kind for g in db.session.query(Game).order_by(Game.position)] == ["napalm", "nap"]
        assert [e.kind for e in db.session.query(Event).order_by(Event.seq)][-2:] == ["game", "game_taken_back"]
    history = client.get(f"{page.url}/history").get_data(as_text=True)
    assert "#5 " in history and "Game 2 of the night (Nap) taken back" in history
    # play goes on in Napalm: Ann alone says Yes at stage 3 (the dealer alone: a challenge is asked)
    page.declare("Ann")
    assert "who challenges?" in page.html


def test_a_game_with_a_record_in_it_is_not_taken_back(start_night, client, app):
    page = play_game_one(start_night)
    start_nap(client, page)
    stale = page.html
    # Cat (Ben deals; Cat bids first) makes 2 in Nap: +2 from each other player
    page.post("deal", {"bidder": "Cat", "bid": "2", "result": "made"})
    assert "take-back" not in page.html
    page.html = stale  # a screen shown before that deal still offers it
    refused = take_back(client, page)
    assert refused.status_code == 409  # the table moved on since that screen
    # sent from the screen as it is now (by hand: the screen offers no such control), it is refused
    page.refresh()
    undo = page.stamp("undo")
    response = client.post(f"{page.url}/take-back", data={**undo, "position": "2"})
    assert response.status_code == 422
    assert "Nap has records: undo them first, then take the game back" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Event).filter_by(kind="game_taken_back").count() == 0


def test_the_first_game_cannot_be_taken_back(start_night, client, app):
    page = start_night()
    assert "take-back" not in page.html
    version = re.search(r'name="version"[^>]*value="(\d+)"', page.html)
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', page.html)
    assert version and key
    response = client.post(f"{page.url}/take-back", data={"version": version.group(1), "request_key": key.group(1),
                                                          "position": "1"})
    assert response.status_code == 422
    assert "the night&#39;s first game cannot be taken back" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.query(Event).count() == 0


def test_the_night_file_says_a_game_was_taken_back_and_import_and_replay_read_it(start_night, client, app):
    page = play_game_one(start_night)
    start_nap(client, page)
    take_back(client, page)
    exported = client.get(f"{page.url}/export.json").get_data(as_text=True)
    document = json.loads(exported)
    assert [g["game"] for g in document["games"]] == ["napalm", "nap"]
    assert document["games"][1]["taken_back"] is True and document["games"][1]["deals"] == []
    assert "taken_back" not in document["games"][0]
    # flask replay: Napalm closes with its pot of 4 unwon, each ante of 1 back: Ann 0, Ben −4,
    # Cat +4, Dan 0; Nap moved nothing.  Ben pays Cat 4.
    summary = nightfile.replay_summary(nightfile.loads(exported))
    assert summary["games"][1]["taken_back"] is True and summary["games"][1]["net_chips"] == dict.fromkeys(NAMES, 0)
    assert {n: p["net_chips"] for n, p in summary["players"].items()} == {"Ann": 0, "Ben": -4, "Cat": 4, "Dan": 0}
    assert summary["payments"] == [{"from": "Ben", "to": "Cat", "chips": 4}]
    # import: the same table, Napalm at it; and the same file again
    response = client.post("/import", data={"file": (io.BytesIO(exported.encode()), "night.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 303
    copy = TablePage(client, response.headers["Location"])
    assert [copy.net(n) for n in NAMES] == [-1, -5, 3, -1] and copy.pot() == 4 and "Stage 3" in copy.html
    again = json.loads(client.get(f"{copy.url}/export.json").get_data(as_text=True))
    assert again["games"] == document["games"]


def test_a_night_file_refuses_a_taken_back_game_with_records_or_the_first():
    base = {"format": "companion-night/2", "players": ["Ann", "Ben", "Cat"]}
    first = dict(base, games=[{"game": "napalm", "taken_back": True, "stages": []}])
    try:
        nightfile.loads(json.dumps(first))
    except nightfile.NightFileError as error:
        assert str(error) == "games[0] (napalm): 'taken_back': the night's first game cannot be taken back"
    else:
        raise AssertionError("a first game taken back was read")
    played = dict(base, games=[{"game": "napalm", "stages": []},
                               {"game": "napalm", "taken_back": True, "stages": [{"stage": 1, "yes": []}]}])
    try:
        nightfile.loads(json.dumps(played))
    except nightfile.NightFileError as error:
        assert str(error).startswith("games[1] (napalm): 'taken_back': Napalm has records")
    else:
        raise AssertionError("a game with records taken back was read")


def _facts(html: str) -> list[str]:
    return re.findall(r'<p class="muted facts">(.*?)</p>', html, re.S)


def test_a_game_taken_back_counts_nowhere_and_the_games_are_numbered_as_played(start_night, client, app):
    page = play_game_one(start_night)
    start_nap(client, page)  # #4: game 2 as started
    take_back(client, page)  # #5
    # the report of a night of one game played: Napalm's facts (ante 1, its token target), no "2 games: Napalm, Nap"
    report = client.get(f"{page.url}/report").get_data(as_text=True)
    assert all("Nap" not in line.replace("Napalm", "") for line in _facts(report)), _facts(report)
    assert not any("2 games" in line for line in _facts(report)) and "tokens win" in _facts(report)[0]
    start_nap(client, page)  # #6: the 2nd game played (start_nap checks "Tonight's 2nd game: Nap")
    stamp = stamp_of(next_game_page(client, page, "?game=napalm"))
    assert client.post(f"{page.url}/next-game", data={
        **stamp, **second_game(players=list(NAMES), first_dealer="Cat")}).status_code == 303  # #7
    page.refresh()
    # one numbering: the table's list, its heading and the history all count the games played
    assert "Tonight's 3rd game: Napalm" in page.html
    assert re.findall(r"<strong>(\d\w\w): (\w+)</strong>", page.html) == [("1st", "Napalm"), ("2nd", "Nap"), ("3rd", "Napalm")]
    history = client.get(f"{page.url}/history").get_data(as_text=True)
    assert history.count("Game 2 of the night: Nap starts") == 2  # the one taken back, and the one played
    assert "Game 2 of the night (Nap) taken back" in history
    assert "Game 3 of the night: Napalm starts" in history and "Game 4" not in history
    # the Nap played and the 3rd game have nothing recorded in them yet: no games of the night (issue 35), so
    # the report is still that of the one Napalm played
    report = client.get(f"{page.url}/report").get_data(as_text=True)
    assert not any(" games" in line for line in _facts(report)) and "tokens win" in _facts(report)[0], _facts(report)


def test_a_game_taken_back_leaves_no_rules_nor_carried_pot_behind(start_night, client, app):
    from companion import service as services
    from companion.db.models import Night

    page = play_game_one(start_night)
    # a Napalm set to carry its pot to the next night, started by mistake and taken back
    stamp = stamp_of(next_game_page(client, page, "?game=napalm"))
    assert client.post(f"{page.url}/next-game", data={
        **stamp, **second_game(players=list(NAMES), unfinished_pot="carry")}).status_code == 303
    page.refresh()
    take_back(client, page)
    with app.app_context():
        night = db.session.query(Night).one()
        try:
            services.next_night_of(night)
        except services.IllegalAction as refused:  # no game played tonight is set to carry its pot
            assert "setting for an unfinished pot is not \u201ccarry it to the next night\u201d" in str(refused)
        else:
            raise AssertionError("a game taken back carried its pot on")
    # the next Napalm is offered with the rules of the Napalm played (its pot's antes returned), not the one taken back
    form = next_game_page(client, page, "?game=napalm")
    assert re.search(r'<option selected value="return_antes"|<option value="return_antes" selected', form)
    assert not re.search(r'<option selected value="carry"|<option value="carry" selected', form)


def test_dealers_choice_does_not_call_a_game_taken_back_played_tonight(start_night, client):
    """Napalm played, Nap started by mistake and taken back: the choice lists Napalm first as played
    tonight; Nap is offered as a game not played tonight, in the group's order after it."""
    page = play_game_one(start_night)
    start_nap(client, page)
    take_back(client, page)
    html = client.get(f"{page.url}/choice").get_data(as_text=True)
    played = re.findall(r'data-game="(\w+)"[^>]*>([^<]+)<small>\(played tonight\)</small>', html)
    assert [kind for kind, _ in played] == ["napalm"]
