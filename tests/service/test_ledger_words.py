"""Pair by pair, each chip says where it came from in its own line's words (issue 35): the Bonus Round's payments
were made player to player, the bank's line is the chip counts', and neither is "stakes in pots".

Worked by hand.  The grid is a 6×6 one whose cell 1-1 is a bonus "everyone pays the dealer 2"; the dice give 1-1.

The counts night: Poker with real betting under the chip bank, Ann, Ben, Cat at 0.25 EUR a chip.  Ann rolls
1-1: Ben pays Ann 2 and Cat pays Ann 2, with the chips on the table.  Everyone buys in 50; the counts are Ann 60,
Ben 45, Cat 45 (150 = 3 × 50): results Ann +10, Ben −5, Cat −5, the Bonus Round's payments in them.  The bank's
line beyond the Bonus Round: Ann +10 − 4 = +6, Ben −5 + 2 = −3, Cat −3, squared in the fewest payments: Ben pays
Ann 3, Cat pays Ann 3.  Pair by pair: Ben pays Ann 2 + 3 = 5, Cat pays Ann 5.

The tally night: High Card (ante 1 from each of Ann, Ben, Cat; Ben takes the pot of 3: Ann −1, Ben +2, Cat −1),
then Cat rolls 1-1: Ann pays Cat 2, Ben pays Cat 2.  The night: Ann −3, Ben 0, Cat +3.  The pot's shares: Ann
pays Ben 1, Cat pays Ben 1; the Bonus Round as made: Ann → Cat 2, Ben → Cat 2.  Pair by pair: Ann pays Ben 1,
Ann pays Cat 2, and between Ben and Cat, Ben's 2 to Cat less Cat's 1 to Ben: Ben pays Cat 1.
"""

from __future__ import annotations

import re
from decimal import Decimal as D
from html import unescape
from typing import Any

from companion import service
from companion.db.models import Night
from companion.extensions import db
from companion.games import GAMES
from companion.night.file import Money
from companion.service import bank

CELLS = [[f"Game {r}-{c}" for c in range(1, 7)] for r in range(1, 7)]
GRID = {"grid": {"dice": "2d6", "cells": CELLS, "bonuses": {"1-1": {"kind": "everyone_pays_dealer", "chips": 2}}},
        "lucky_chips": 1}
POKER = {"kind": "betting", "players": None, "first_dealer": "Ann", "rules": {"variant": "Texas hold'em"}}
HIGH_CARD = {"kind": "pots", "players": None, "first_dealer": "Ann", "rules": {"preset": "high_card"}}


class Dice:
    """A random source that gives these faces, in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def version(night_id: int) -> int:
    db.session.rollback()
    return db.session.get(Night, night_id).version


def roll(night_id: int, roller: str) -> None:
    bank.record(night_id, "bonus_grid", GRID, version(night_id), None)
    bank.roll(db.session.get(Night, night_id), roller, version(night_id), None, rng=Dice(1, 1))


def counts_night() -> int:
    night_id = service.open_night("Counts", ["Ann", "Ben", "Cat"], Money(D("0.25"), "EUR"), POKER).id
    roll(night_id, "Ann")
    bank.record(night_id, "all_buy_in", {"chips": 50}, version(night_id), None)
    for player, count in {"Ann": 60, "Ben": 45, "Cat": 45}.items():
        bank.record(night_id, "cash_out", {"player": player, "chips": count}, version(night_id), None)
    return night_id


def pairwise(night_id: int) -> dict[tuple[str, str], Any]:
    return {(line.payer, line.payee): line for line in service.report_of(db.session.get(Night, night_id)).pairwise}


BANK_REST = ("(each count less the chips bought, less the games above, less the Bonus Round's payments), squared "
             "with the others' in the fewest payments.")


def test_on_chip_counts_the_bonus_rounds_payments_and_the_banks_line_are_each_said_in_their_words(app, client):
    with app.app_context():
        night_id = counts_night()
        lines = pairwise(night_id)
        assert {pair: line.chips for pair, line in lines.items()} == {("Ben", "Ann"): 5, ("Cat", "Ann"): 5}
        ben = lines["Ben", "Ann"]
        assert [(s.title, s.chips, s.paid) for s in ben.ledger] == [("Bonus Round", 2, 2), ("The bank", 3, 0)]
        assert ben.through_pot == 0  # no game's pot: the poker's chips are the bank's line
        assert ben.why == (
            "Bonus Round: Ben paid Ann 2 in its payments, player to player.",
            "The bank: Ben owes Ann 3 " + BANK_REST,
        )
        assert not any("pot" in sentence for line in lines.values() for sentence in line.why)
        # the fewest payments say it too: no chip passed in a game between them, 2 in the Bonus Round
        plan = {(line.payer, line.payee): line for line in service.report_of(db.session.get(Night, night_id)).plan}
        assert plan["Ben", "Ann"].why[2:4] == (
            "No chips passed between Ben and Ann directly in the games.",
            "In the Bonus Round's payments, player to player: Ben paid Ann 2.",
        )
        # the group's rivalry says each night's line as the report does
        group = service.open_group("Fridays", from_night=db.session.get(Night, night_id))
        rivalry = service.rivalry_view(group, "Ann", "Ben")
        assert [f.why for n in rivalry.nights for f in n.flows] == [ben.why]
        key = db.session.get(Night, night_id).keeper_key
    html = unescape(client.get(f"/k/{key}/report?view=pairwise").get_data(as_text=True))
    assert ('<p class="parts muted"><span data-ledger="Bonus Round">Bonus Round +2</span> · '
            '<span data-ledger="The bank">The bank +3</span></p>') in html
    assert "Bonus Round: Ben paid Ann 2 in its payments, player to player." in html and "in pots" not in html


def test_on_the_tally_the_bonus_rounds_payments_are_paid_as_made_beside_a_games_pot(app):
    with app.app_context():
        night_id = service.open_night("Tally", ["Ann", "Ben", "Cat"], Money(D("0.25"), "EUR"), HIGH_CARD).id
        service.record(night_id, GAMES["pots"].from_event("win", {"winners": ["Ben"]}), version(night_id))
        roll(night_id, "Cat")
        lines = pairwise(night_id)
        assert {pair: line.chips for pair, line in lines.items()} == {
            ("Ann", "Ben"): 1, ("Ann", "Cat"): 2, ("Ben", "Cat"): 1}
        assert lines["Ann", "Cat"].why == ("Bonus Round: Ann paid Cat 2 in its payments, player to player.",)
        ben = lines["Ben", "Cat"]
        assert (ben.through_pot, [(s.title, s.chips, s.paid, s.back) for s in ben.ledger]) == (
            -1, [("Bonus Round", 2, 2, 0)])
        assert ben.why == (  # the pot game's own word for what went into its pot: antes
            "Through the pot: Cat owes Ben 1 (Cat's antes in pots that went to Ben), netted here.",
            "Bonus Round: Ben paid Cat 2 in its payments, player to player.",
        )


SEASON_BANK = ("The bank: on a night settled on chip counts, each player's count less the chips they bought, less "
               "what the night's games gave them: chips won or lost at the table beyond what the app recorded "
               "(poker's pots, the Bonus Round's payments made in chips), never the chips bought from the bank or "
               "cashed into it.")


def season_page(client, key: str) -> str:  # type: ignore[no-untyped-def]
    response = client.get(key)
    assert response.status_code == 200
    html = unescape(response.get_data(as_text=True))
    return " ".join(html[html.index('<section class="season"'):].split("</section>")[0].split())


def test_the_seasons_bank_line_is_explained_where_the_season_shows_it(app, client):
    """The counts night above in a group: Ann's season, game by game, is "The bank" +10 (her count 60 less the 50
    she bought, the poker's 0 beside it): the line is explained once, on both the organiser's and the members'
    page.  A group of the tally night alone shows no bank line, and no explanation."""
    with app.app_context():
        group = service.open_group("Fridays", from_night=db.session.get(Night, counts_night()))
        assert {label: t.chips for label, t in service.group_view(group).season.row("Ann").per_game.items()} == {
            "The bank": 10}
        keys = f"/g/{group.organiser_key}", f"/m/{group.member_key}"
        tally_id = service.open_night("Tally", ["Ann", "Ben", "Cat"], Money(D("0.25"), "EUR"), HIGH_CARD).id
        service.record(tally_id, GAMES["pots"].from_event("win", {"winners": ["Ben"]}), version(tally_id))
        other = service.open_group("Saturdays", from_night=db.session.get(Night, tally_id))
        other_key = f"/g/{other.organiser_key}"
    for key in keys:
        season = season_page(client, key)
        said = re.sub(r"<[^>]+>", "", season)
        assert '<tr data-game="The bank">' in season and said.count(SEASON_BANK) == 1, key
    season = season_page(client, other_key)
    assert '<tr data-game="High Card">' in season and "The bank" not in season
