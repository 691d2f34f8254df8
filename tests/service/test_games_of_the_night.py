"""A game started with nothing recorded in it is no game of the night, in the report and in the season (issue 35).

The issue's night: a group's New night began with Napalm (ante 1, 2 tokens) and nothing was recorded in it
before poker was started; then High Card.  Poker with real betting: one deal (its chips are on the table, the
app never sees them: 0 each), so the night settles on chip counts: everyone buys in 50 and counts Ann 48, Ben
55, Cat 47 (150 = 3 × 50): results Ann −2, Ben +5, Cat −3.  High Card: an ante of 1 from each of Ann, Ben and
Cat, Ben takes the pot of 3: Ben +2, Ann −1, Cat −1; the bank's line is the rest: Ann −1, Ben +3, Cat −2.  By
hand: 2 games (poker, High Card), never 3, and Napalm named nowhere in the report or the season; the night's
file still holds the three games started.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal as D
from html import unescape

from companion import service
from companion.db.models import Group, Night
from companion.extensions import db
from companion.games import GAMES
from companion.games.betting.engine import Deal
from companion.games.napalm import Declare
from companion.night.file import Money
from companion.service import bank

PLAYERS = ["Ann", "Ben", "Cat"]
NAPALM = {"kind": "napalm", "players": None, "first_dealer": "Ann",
          "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 2, "unfinished_pot": "return_antes"}}
HIGH_CARD = {"kind": "pots", "players": None, "first_dealer": "Ann", "rules": {"preset": "high_card"}}


def new_group() -> int:
    group = service.open_group("Fridays", None)
    for name in PLAYERS:
        service.add_member(group.id, name, db.session.get(Group, group.id).version, None)
    return group.id


def version(night_id: int) -> int:
    db.session.rollback()
    return db.session.get(Night, night_id).version


def facts(html: str) -> list[str]:
    return [" ".join(f.split()) for f in re.findall(r'<p class="muted facts">(.*?)</p>', html, re.S)]


def test_the_issues_night_counts_two_games_and_names_no_empty_napalm(app, client):
    with app.app_context():
        group_id = new_group()
        night = service.open_night_in_group(group_id, "Fridays #1", PLAYERS, Money(D("0.25"), "EUR"), NAPALM)
        night_id, key = night.id, night.keeper_key
        service.start_game(night_id, "betting", None, "Ann", {"variant": "Texas hold'em"}, version(night_id))
        service.record(night_id, Deal("Ann"), version(night_id))
        service.start_game(night_id, "pots", None, "Ben", {"preset": "high_card"}, version(night_id))
        service.record(night_id, GAMES["pots"].from_event("win", {"winners": ["Ben"]}), version(night_id))
        bank.record(night_id, "all_buy_in", {"chips": 50}, version(night_id), None)
        for player, count in {"Ann": 48, "Ben": 55, "Cat": 47}.items():
            bank.record(night_id, "cash_out", {"player": player, "chips": count}, version(night_id), None)
        night = db.session.get(Night, night_id)
        report = service.report_of(night)
        assert {p.name: p.net_chips for p in report.players} == {"Ann": -2, "Ben": 5, "Cat": -3}
        assert [g.title for g in service.games_of_the_night(night)] == ["Texas hold'em", "High Card"]
        # poker is named by the variant the group typed (issue 35, item 4)
        # the season: High Card's and the bank's lines (poker's 0 is no figure), and no Napalm line at all
        season = service.group_view(db.session.get(Group, group_id)).season
        assert {label: t.chips for label, t in season.row("Ben").per_game.items()} == {"High Card": 2, "The bank": 3}
        assert {label: t.chips for label, t in season.row("Cat").per_game.items()} == {"High Card": -1, "The bank": -2}
        exported = json.loads(service.export_history(night))  # records are records: the file keeps all three
        assert [g["game"] for g in exported["games"]] == ["napalm", "betting", "pots"]
    html = unescape(client.get(f"/k/{key}/report").get_data(as_text=True))
    said = facts(html)
    assert said[0].endswith("· 2 games"), said
    assert said[1] == ("2 games: Texas hold'em (with real betting; the chips on the table settle each pot), "
                       "High Card (ante 1, a pot nobody wins is carried)"), said
    assert "Napalm" not in html and "3 games" not in html
    assert "1st game (Texas hold'em)" in html and "2nd game (High Card)" in html
    nights = " ".join(unescape(client.get("/nights").get_data(as_text=True)).split())
    assert "2 games: Texas hold'em, High Card ·" in nights


def test_a_night_of_one_game_after_an_empty_one_is_that_games_in_the_season(app):
    """High Card started and left with nothing in it, then Napalm alone: Ben alone says Yes at the first hand's
    first two stages, a token each; 2 tokens win, so he takes the pot of that hand's antes, 1 from each of three:
    Ben +2, Ann −1, Cat −1, all of it Napalm's (a report of one Napalm game, whose lines carry no title)."""
    with app.app_context():
        group_id = new_group()
        night = service.open_night_in_group(group_id, "Fridays #1", PLAYERS, Money(D("0.25"), "EUR"), HIGH_CARD)
        night_id = night.id
        service.start_game(night_id, "napalm", None, "Ann", NAPALM["rules"], version(night_id))
        service.record(night_id, Declare(("Ben",)), version(night_id))
        service.record(night_id, Declare(("Ben",)), version(night_id))
        report = service.report_of(db.session.get(Night, night_id))
        assert {p.name: p.net_chips for p in report.players} == {"Ann": -1, "Ben": 2, "Cat": -1}
        season = service.group_view(db.session.get(Group, group_id)).season
        assert {label: t.chips for label, t in season.row("Ben").per_game.items()} == {"Napalm": 2}
        assert {label: t.chips for label, t in season.row("Cat").per_game.items()} == {"Napalm": -1}
