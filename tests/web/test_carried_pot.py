"""Carrying an unfinished game's pot into the next night, through the pages.

The night played ("Friday", carry, Ann deals, ante 1, 5 tokens win), worked out by hand:

  hand 1, Ann deals (Ben, Cat, Dan, Ann)
    S1: Ben and Cat.  Ante: pot 4, everyone -1.  Cat wins: Ben pays her 4.
                                                  Ann -1, Ben -5, Cat +3, Dan -1
    S2: Dan alone: a token.   S3: nobody.
  hand 2, Ben deals (Cat, Dan, Ann, Ben)
    S1: Ann alone.  Ante: pot 8.                  Ann -2, Ben -6, Cat +2, Dan -2; Ann a token.
  The night ends in the middle of hand 2: game 1 unfinished, pot 8, 2 antes of each.

Under "carry" tonight's plan counts each player's 2 as returned: Ann 0, Ben -4, Cat +4,
Dan 0, so Ben pays Cat 4.  The next night: the same seats and rules, the deal passes
to the left of Ben (who dealt the hand left unfinished): Cat deals first; its pot
starts at 8 (Ann 2, Ben 2, Cat 2, Dan 2) and everyone at -2.
"""

from __future__ import annotations

import io
import json
import re

from sqlalchemy import select

from companion.extensions import db
from companion.db.models import Night
from pages import BankPage, TablePage, night_form

FOUR = ("Ann", "Ben", "Cat", "Dan")


def play_friday(t: TablePage) -> None:
    t.declare("Ben", "Cat"); t.winner("Cat")
    t.declare("Dan")
    t.declare()
    t.declare("Ann")
    assert [t.net(n) for n in FOUR] == [-2, -6, 2, -2]
    assert t.pot() == 8 and t.dealer() == "Ben"


def carry_form(html: str) -> tuple[str, dict[str, str]]:
    """Where the report's "Start the next night with this pot" posts, and its hidden fields."""
    form = re.search(r'<form method="post" action="([^"]+/carry)" class="carry">(.*?)</form>', html, re.S)
    assert form, "no carry button on the page"
    fields = dict(re.findall(r'name="(version|request_key)"[^>]*value="([^"]+)"', form.group(2)))
    assert set(fields) == {"version", "request_key"}
    return form.group(1), fields


def nights(app) -> list[Night]:
    with app.app_context():
        return list(db.session.scalars(select(Night).order_by(Night.id)))


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def friday(start_night) -> TablePage:
    t = start_night(unfinished_pot="carry")
    play_friday(t)
    return t


def test_the_report_of_a_carry_night_starts_the_next_night_with_its_pot(start_night, client, app):
    t = friday(start_night)
    report = client.get(f"{t.url}/report").get_data(as_text=True)
    assert "Start the next night with this pot" in report
    assert "This pot of 8 chips (Ann 2, Ben 2, Cat 2, Dan 2) can start the next night" in text_of(report)
    assert "Cat deals first" in report
    action, fields = carry_form(report)
    assert action == f"{t.url}/carry"

    response = client.post(action, data=fields)
    assert response.status_code == 303
    new = TablePage(client, response.headers["Location"])
    assert new.url != t.url
    # pot 8, everyone -2, Cat deals, game 1 hand 1 stage 1
    assert new.pot() == 8
    assert [new.net(n) for n in FOUR] == [-2, -2, -2, -2]
    assert new.dealer() == "Cat"
    # the standings are the players' too: no other night's name (the report names it for the scorekeeper)
    assert "Pot: 8 carried in from the previous night: Ann 2, Ben 2, Cat 2, Dan 2" in new.html
    assert "Started \u201cFriday (continued)\u201d with the pot of 8 chips carried in from \u201cFriday\u201d." in new.html
    old, started = nights(app)
    assert started.name == "Friday (continued)"
    assert started.first_game.carried_in == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}
    assert started.carried_from == old.id
    assert started.players == old.players and started.first_game.first_dealer == "Cat"
    rules = ("ante", "ante_every", "tokens_to_win")
    assert [started.first_game.rules[r] for r in rules] == [old.first_game.rules[r] for r in rules]
    assert (started.chip_value, started.currency, started.first_game.rules["unfinished_pot"]) == (old.chip_value, old.currency, "carry")
    assert started.version == 0
    # the old night's rows are untouched: its version and events are what they were
    assert old.version == 5 and old.first_game.carried_in is None  # five actions recorded on Friday

    # Play on: Cat deals (Dan, Ann, Ben, Cat).  S1: Dan alone: ante, pot 12, everyone -3.
    new.declare("Dan")
    assert new.pot() == 12 and [new.net(n) for n in FOUR] == [-3, -3, -3, -3]
    # Still game 1: the carried chips are in its pot, and the status says so.
    assert "Pot: 8 carried in from" in new.html
    report = client.get(f"{new.url}/report").get_data(as_text=True)
    text = text_of(report)
    assert "Game 1's pot started with 8 chips carried in from \u201cFriday\u201d: Ann 2, Ben 2, Cat 2, Dan 2." in text
    assert "Game 1's antes include each player's share of the 8 chips carried in" in text
    # Ann's game 1 antes: 2 carried in + 1 tonight = 3
    ann = re.search(r'<article class="player-card" id="player-1" data-player="Ann">(.*?)</article>', report, re.S).group(1)
    assert '<th scope="row">1*</th><td class="num">−3</td>' in ann


def test_the_winner_of_the_next_nights_first_game_takes_the_carried_pot(start_night, client, app):
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    new = TablePage(client, client.post(action, data=fields).headers["Location"])
    # Cat deals (Dan, Ann, Ben, Cat).  Dan takes five tokens in a row (no dealer, no challenge):
    # S1 antes: pot 12, everyone -3; S1, S2, S3 of hand 1; then Dan deals hand 2, so his lone Yes
    # needs "No challenge": S1 (ante: pot 16, everyone -4), S2.  His 5th token: the pot of 16.
    # Dan -4 + 16 = +12, the others -4 each (Friday's 2 included).
    new.declare("Dan"); new.declare("Dan"); new.declare("Dan")
    new.declare("Dan"); new.challenge()
    new.declare("Dan"); new.challenge()
    assert new.pot() == 0
    assert [new.net(n) for n in FOUR] == [-4, -4, -4, 12]
    assert "carried in from" not in new.html.split('class="status"')[1].split("</section>")[0]
    report = client.get(f"{new.url}/report").get_data(as_text=True)
    assert "Dan</strong> took the pot of 16 after 2 hands (8 of it carried in)" in report
    assert "Dan took them with the rest of game 1's pot." in text_of(report)


def test_starting_twice_with_the_same_key_starts_one_night(start_night, client, app):
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    first = client.post(action, data=fields)
    again = app.test_client().post(action, data=fields)  # a retry from a fresh connection
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert len(nights(app)) == 2
    # another phone's button (another key) finds the same night: a pot is carried once
    other = {**fields, "request_key": "k" * 43}
    third = client.post(action, data=other)
    assert third.status_code == 303 and third.headers["Location"] == first.headers["Location"]
    assert len(nights(app)) == 2
    page = client.get(third.headers["Location"]).get_data(as_text=True)
    assert "Already started: \u201cFriday (continued)\u201d" in page


def test_the_players_link_cannot_start_the_next_night(start_night, client, app):
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    viewer = nights(app)[0].viewer_key
    response = client.post(f"/k/{viewer}/carry", data=fields)
    assert response.status_code == 403
    assert len(nights(app)) == 1
    # and the players' report shows no button
    page = client.get(f"/p/{viewer}/report").get_data(as_text=True)
    assert "/carry" not in page and "Start the next night" not in page
    assert "can start the next night" in page  # but says the pot can go on


def test_after_carrying_the_old_report_names_the_new_night_and_only_the_keeper_gets_its_link(start_night, client, app):
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    client.post(action, data=fields)
    old, new = nights(app)
    keeper = client.get(f"{t.url}/report").get_data(as_text=True)
    assert "The pot of 8 chips was carried into" in text_of(keeper)
    assert f'href="/k/{new.keeper_key}"' in keeper
    assert "Start the next night with this pot" not in keeper
    viewer = client.get(f"/p/{old.viewer_key}/report").get_data(as_text=True)
    assert "The pot of 8 chips was carried into the next night." in text_of(viewer)  # players: no name
    assert new.keeper_key not in viewer and new.viewer_key not in viewer and old.keeper_key not in viewer
    # the new night's players' page and report show the carried pot, and no other night's name
    players = client.get(f"/p/{new.viewer_key}").get_data(as_text=True)
    assert "Pot: 8 carried in from the previous night: Ann 2, Ben 2, Cat 2, Dan 2" in players
    new_viewer_report = client.get(f"/p/{new.viewer_key}/report").get_data(as_text=True)
    assert "carried in from the previous night" in text_of(new_viewer_report)
    assert old.keeper_key not in new_viewer_report and new.keeper_key not in new_viewer_report
    assert old.keeper_key not in players and new.keeper_key not in players
    # the new night's scorekeeper report links back to Friday's report
    new_keeper_report = client.get(f"/k/{new.keeper_key}/report").get_data(as_text=True)
    assert f'href="/k/{old.keeper_key}/report"' in new_keeper_report


def test_the_old_table_is_closed_to_play_but_its_payments_can_still_be_marked(start_night, client, app):
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    client.post(action, data=fields)
    t.refresh()
    assert "The table is closed" in t.html and "Undo the last action" not in t.html
    version = nights(app)[0].version
    response = client.post(f"{t.url}/declare", data={"version": str(version), "request_key": "d" * 43, "nobody": "1"})
    assert response.status_code == 422
    assert "this night&#39;s pot was carried into \u201cFriday (continued)\u201d" in response.get_data(as_text=True)
    response = client.post(f"{t.url}/undo", data={"version": str(version), "request_key": "u" * 43})
    assert response.status_code == 422
    assert nights(app)[0].version == version
    # Ben pays Cat 4 (tonight's plan), marked on the old night's report
    page = client.get(f"{t.url}/report?payer=Ben&payee=Cat&chips=4").get_data(as_text=True)
    confirm = re.search(r'<form method="post" action="[^"]+/paid" class="confirm" id="confirm">(.*?)</form>', page, re.S)
    stamp = dict(re.findall(r'name="(version|request_key|payer|payee|chips)"[^>]*value="([^"]+)"', confirm.group(1)))
    assert client.post(f"{t.url}/paid", data={**stamp, "view": "plan"}).status_code == 303
    assert nights(app)[0].version == version + 1


def test_no_pot_to_carry_is_refused_with_a_message_and_nothing_is_started(start_night, client, app):
    # a night whose setting returns the antes: no button, and a POST is refused
    returned = start_night(name="Returned")
    play_friday(returned)
    page = client.get(f"{returned.url}/report").get_data(as_text=True)
    assert "Start the next night" not in page
    night = nights(app)[0]
    response = client.post(f"{returned.url}/carry", data={"version": str(night.version), "request_key": "r" * 43})
    assert response.status_code == 422
    assert "there is no pot to carry" in response.get_data(as_text=True)
    assert len(nights(app)) == 1
    # a carry night whose pot is empty (nothing recorded yet)
    empty = start_night(name="Empty", unfinished_pot="carry")
    assert "Start the next night" not in client.get(f"{empty.url}/report").get_data(as_text=True)
    response = client.post(f"{empty.url}/carry", data={"version": "0", "request_key": "e" * 43})
    assert response.status_code == 422
    assert "there is nothing to carry" in response.get_data(as_text=True)
    assert len(nights(app)) == 2


def test_a_carry_form_made_before_the_night_changed_is_stale(start_night, client, app):
    t = start_night(unfinished_pot="carry")
    t.declare("Ben", "Cat")
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    t.winner("Cat")  # another phone records: the pot is the same, but the form is for version 1
    response = client.post(action, data=fields)
    assert response.status_code == 409
    assert len(nights(app)) == 1
    # and a form without its key or version is refused
    assert client.post(action, data={"version": "2"}).status_code == 422
    assert len(nights(app)) == 1


def test_the_next_night_exports_its_carried_pot_and_imports_again(start_night, client, app):
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    new = TablePage(client, client.post(action, data=fields).headers["Location"])
    new.declare("Dan")
    exported = client.get(f"{new.url}/export.json").get_data()
    document = json.loads(exported)
    game = document["games"][0]  # export writes companion-night/2: the pot is the first game's
    assert game["carried_in"] == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}
    assert game["first_dealer"] == "Cat" and document["name"] == "Friday (continued)"
    response = client.post(
        "/import", data={"file": (io.BytesIO(exported), "night.json")}, content_type="multipart/form-data"
    )
    assert response.status_code == 303
    copy = TablePage(client, response.headers["Location"])
    assert copy.pot() == 12 and [copy.net(n) for n in FOUR] == [-3, -3, -3, -3]
    imported = nights(app)[-1]
    assert imported.first_game.carried_in == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2} and imported.carried_from is None
    # imported from a file, the source is not a night this app knows: "the previous night"
    assert "Pot: 8 carried in from the previous night" in copy.html


def test_a_contributor_left_out_of_the_next_night_gets_their_share_back_in_the_old_nights_settle_up(
    start_night, client, app
):
    """Issue 14, item 16.  Friday's pot of 8 is Ann 2, Ben 2, Cat 2, Dan 2 (play_friday).

    The next night is set up without Dan: his 2 chips come out of the pot and back to
    him in Friday's settle-up; 6 are carried (Ann 2, Ben 2, Cat 2: everyone there -2).
    Friday's balances do not change (a carried stake already counts as returned):
    Ann 0, Ben -6 + 2 = -4, Cat 2 + 2 = 4, Dan 0, so Ben pays Cat 4.
    """
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    new = TablePage(client, client.post(action, data=fields).headers["Location"])
    response = client.post(f"{new.url}/setup", data=night_form(seat_4="", first_dealer="3", unfinished_pot="carry"))
    assert response.status_code == 303
    new.refresh()
    assert new.pot() == 6 and [new.net(n) for n in ("Ann", "Ben", "Cat")] == [-2, -2, -2]
    assert nights(app)[1].first_game.carried_in == {"Ann": 2, "Ben": 2, "Cat": 2}
    report = text_of(client.get(f"{t.url}/report").get_data(as_text=True))
    assert "Not seated at the next night, Dan gets 2 chips back tonight, in this settle-up; the rest is carried." in report
    assert "The pot of 6 chips was carried into" in report
    old = client.get(f"{t.url}/report.json").get_json()
    assert {p["name"]: p["net_chips"] for p in old["players"]} == {"Ann": 0, "Ben": -4, "Cat": 4, "Dan": 0}
    # Dan sits down again before play: the pot stays 6, his share went back to him on Friday
    response = client.post(f"{new.url}/setup", data=night_form(first_dealer="3", unfinished_pot="carry"))
    assert response.status_code == 303
    assert nights(app)[1].first_game.carried_in == {"Ann": 2, "Ben": 2, "Cat": 2}


def test_the_next_nights_setup_can_seat_a_newcomer(start_night, client, app):
    t = friday(start_night)
    action, fields = carry_form(client.get(f"{t.url}/report").get_data(as_text=True))
    new = TablePage(client, client.post(action, data=fields).headers["Location"])
    # seats may change otherwise: Eve joins
    response = client.post(f"{new.url}/setup", data=night_form(seat_5="Eve", first_dealer="3", unfinished_pot="carry"))
    assert response.status_code == 303
    new.refresh()
    assert new.pot() == 8 and new.net("Eve") == 0 and new.net("Dan") == -2
    assert nights(app)[1].first_game.carried_in == {"Ann": 2, "Ben": 2, "Cat": 2, "Dan": 2}


def test_a_night_on_chip_counts_carries_its_pot_and_both_nights_balance(start_night, client, app):
    """Friday under the bank (everyone buys in 100), played as above: the pot of 8 (2 of each)
    stays in the middle, so 392 chips come back: Ann 98, Ben 94, Cat 102, Dan 98.  Each count is
    bought + the tally − the 2 left in the pot; each result counts those 2 as still the
    player's: Ann 0, Ben −4, Cat +4, Dan 0 (Ben pays Cat 4, 1.00 EUR).

    The next night (the pot of 8 in the middle from the start), everyone buys in 100 again and
    Dan takes the pot of 16 (the game above): Ann, Ben, Cat count 98, Dan 114 (408 back of 400
    bought).  Results: count − bought − the 2 each had in the pot carried in: Ann, Ben, Cat −4,
    Dan +12; each pays Dan 4."""
    t = start_night(unfinished_pot="carry")
    bank = BankPage(client, t)
    bank.settle_on("bank")
    bank.everyone("100")
    t.refresh()
    play_friday(t)
    bank.refresh()
    for name, count in (("Ann", "98"), ("Ben", "94"), ("Cat", "102"), ("Dan", "97")):
        assert bank.player(name, "cash_out", count).status_code == 303
    # a miscount is found against bought + the tally − the 2 of Dan's left in the pot
    text = text_of(bank.html)
    assert "Dan counted 97, expected 98 (-1)" in text
    # "-1 chip", no longer "-1 chips" (issue 20 item 14)
    assert "Difference: -1 chip (cashed out − bought + the 8 left in the pot for the next night)" in text
    assert "Chips out of the bank and not yet back: 9 (8 of them stay in the pot for the next night)." in text
    assert ("The pot left in the middle for the next night is in nobody's count: Ann 2, Ben 2, Cat 2, Dan 2 chips, "
            "each still counted as its player's.") in text.replace("&#39;", "'")
    seq = int(re.findall(r'name="seq" value="(\d+)"', bank.html)[0])  # the newest line: Dan's count
    assert bank.cancel(seq).status_code == 303
    assert bank.player("Dan", "cash_out", "98").status_code == 303
    assert "The bank balances and every count matches bought + the app's tally." in bank.html
    assert bank.plan() == ["Ben>Cat:4"]
    report = client.get(f"{t.url}/report").get_data(as_text=True)
    assert re.findall(r'data-payer="(\w+)" data-payee="(\w+)" data-chips="(\d+)"', report) == [("Ben", "Cat", "4")]

    action, fields = carry_form(report)
    new = TablePage(client, client.post(action, data=fields).headers["Location"])
    next_bank = BankPage(client, new)
    next_bank.settle_on("bank")
    next_bank.everyone("100")
    new.refresh()
    new.declare("Dan"); new.declare("Dan"); new.declare("Dan")
    new.declare("Dan"); new.challenge()
    new.declare("Dan"); new.challenge()
    assert [new.net(n) for n in FOUR] == [-4, -4, -4, 12]
    next_bank.refresh()
    for name, count in (("Ann", "98"), ("Ben", "98"), ("Cat", "98"), ("Dan", "114")):
        assert next_bank.player(name, "cash_out", count).status_code == 303
    assert "The bank balances and every count matches bought + the app's tally." in next_bank.html
    assert sorted(next_bank.plan()) == ["Ann>Dan:4", "Ben>Dan:4", "Cat>Dan:4"]
