"""The report speaks each game's words (issue 23): its columns, its lines, its CSV and its JSON.

Every figure is worked out by hand from the rules files (RULES-NAP.md for Nap,
RULES-POKER.md for the pot games, RULES.md for Napalm):

* **Pool Nap**, stake 1, Ann deals first.  Deal 1: a new pool, 2 from each of the four (8); Cat
  bids 2 and makes it: 2 from each other player.  Deal 2, Ben deals and adds 2 (pool 10); Dan
  bids Nap and makes it: 10 from each other player, and the pool of 10.  Pool empty at the end.
  Ann: paid 2 into the pool, lost 2 to Cat and 10 to Dan: −14.  Ben: paid 4, lost 2 to Cat and
  10 to Dan: −16.  Cat: paid 2, won 6, lost 10 to Dan: −6.  Dan: paid 2, lost 2 to Cat, won 30,
  took the pool of 10: +36.  (−14 − 16 − 6 + 36 = 0.)
* **High Card**, ante 1, Ann, Ben and Cat.  Deal 1: pot 3, Ben wins it.  Deal 2: pot 3, nobody
  wins: carried, and the night ends there, so each ante of 1 goes back.  Ann: antes 2, 1 back:
  −1.  Ben: antes 2, pot 3, 1 back: +2.  Cat: −1.
* **NASDAQ**, ante 1, Ann, Ben and Cat, no sale limit.  Cat sells Ben her card for 4; Ann wins the
  pot of 3.  Ann −1 + 3 = +2; Ben −1 − 4 = −5; Cat −1 + 4 = +3.
"""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import pytest

from companion.games import GAMES
from companion.games.nap.game import Nap
from companion.games.vocabulary import NEUTRAL, NO_CHIPS, Between, Column, ReportVocabulary
from companion.report.export import FORMAT, report_csv, report_dict
from companion.report.parts import build_night_report

FOUR = ("Ann", "Ben", "Cat", "Dan")
THREE = ("Ann", "Ben", "Cat")
#: what no page of a night without Napalm may say (issue 23)
NAPALM_WORDS = ("token", "side bet", "side_bet", "hand history")


def night(*games: tuple[str, tuple[str, ...], dict, list], seated: tuple[str, ...] = FOUR, kinds=None):  # type: ignore[no-untyped-def]
    """The report of a night of ``games`` (kind, players, rules, records), played from their records."""
    entries = []
    for kind_name, players, raw_rules, records in games:
        kind = (kinds or {}).get(kind_name) or GAMES[kind_name]
        rules = kind.rules_from_dict(raw_rules)
        state = kind.new_state(players, players[0], rules, None)
        kind.read_records(state, records)
        entries.append((kind.title, state, rules, kind.close(state, rules), kind))
    return build_night_report(entries, seated, chip_value=Decimal("0.25"), currency="EUR", name="Friday")


POOL_NAP = ("nap", FOUR, {"variant": "pool"}, [
    {"bidder": "Cat", "bid": 2, "made": True},
    {"bidder": "Dan", "bid": "nap", "made": True},
])
HIGH_CARD = ("pots", THREE, {"preset": "high_card"}, [
    {"pots": [{"winners": ["Ben"]}]},
    {"pots": [{"carried": True}]},
])
NASDAQ = ("pots", THREE, {"preset": "nasdaq"}, [
    {"sales": [{"seller": "Cat", "buyer": "Ben", "price": 4}], "pots": [{"winners": ["Ann"]}]},
])


def said(report) -> str:  # type: ignore[no-untyped-def]
    """Everything the report says in words: each payment's reasons, its CSV and its JSON."""
    why = " ".join(s for line in (*report.plan, *report.pairwise) for s in line.why)
    return " ".join((why, report_csv(report), report_csv(report, "pairwise"), json.dumps(report_dict(report)))).lower()


# --- Nap --------------------------------------------------------------------------------------------


def test_a_nap_night_is_told_in_bids_and_a_pool():
    r = night(POOL_NAP)
    assert {p.name: p.net_chips for p in r.players} == {"Ann": -14, "Ben": -16, "Cat": -6, "Dan": 36}
    (section,) = r.sections()
    assert [c.head for c in section.words.columns] == ["Bids", "Pool"]
    dan = r.player("Dan")
    assert dan.total.parts(r.words) == [
        "pool payments \u22122", "bids +10 from Ann", "bids +10 from Ben", "bids +10 from Cat",
        "bids \u22122 to Cat", "pool won +10",
    ]
    assert r.pot_word == "pool"


def test_a_nap_nights_json_and_csv_use_nap_keys_and_say_their_format():
    r = night(POOL_NAP)
    data = json.loads(json.dumps(report_dict(r)))
    assert data["format"] == FORMAT == "companion-report/2"
    ann = data["players"][0]
    assert {k: ann[k] for k in ("paid_into_pool", "bids_won", "bids_lost", "pool_won", "pool_returned", "net_chips")} == {
        "paid_into_pool": 2, "bids_won": {}, "bids_lost": {"Cat": 2, "Dan": 10}, "pool_won": 0, "pool_returned": 0,
        "net_chips": -14,
    }
    assert "antes" not in ann and "tokens" not in ann
    assert data["unfinished_pool"] == {"pool": 0, "carried": 0, "carried_shares": {}, "note": ""}  # no setting decided it
    # pair by pair: Ben owes Dan 10 in bids, and through the pool the 4 he paid into the pool Dan took
    # (Dan is its only winner: each player's pool payments go to him)
    assert {"from": "Ben", "to": "Dan", "chips": 14, "bids": 10, "through_pool": 4} in [
        {k: p[k] for k in ("from", "to", "chips", "bids", "through_pool")} for p in data["pairwise"]
    ]
    lines = report_csv(r).split("\r\n")
    assert lines[0] == "format,companion-report/2"
    assert lines[1] == (
        "row,player,to,paid_into_pool,bids_won,bids_lost,pool_won,pool_returned,games_won,net_chips,money,currency,paid"
    )
    rows = list(csv.DictReader(io.StringIO("\r\n".join(lines[1:]))))
    assert (rows[3]["player"], rows[3]["bids_won"], rows[3]["bids_lost"], rows[3]["pool_won"], rows[3]["net_chips"]) == (
        "Dan", "30", "2", "10", "36"
    )


def test_an_unwon_pool_is_given_back_in_the_pools_words():
    """Deal 1 only: the pool of 8 is unwon at the end, 2 back to each (Ann −2, Cat +6)."""
    r = night(("nap", FOUR, {"variant": "pool"}, [{"bidder": "Cat", "bid": 2, "made": True}]))
    assert r.player("Ann").total.parts(r.words) == ["pool payments \u22122", "bids \u22122 to Cat", "pool given back +2"]
    assert report_dict(r)["unfinished_pool"]["pool"] == 8


def test_no_napalm_word_in_a_nap_or_a_pot_nights_report():
    for games in ((POOL_NAP,), (HIGH_CARD,), (NASDAQ,)):
        seated = games[0][1]
        text = said(night(*games, seated=seated))
        for word in NAPALM_WORDS:
            assert word not in text, (games[0][0], word)


# --- a pot game --------------------------------------------------------------------------------------


def test_a_pot_night_is_told_in_antes_pots_and_sales():
    r = night(HIGH_CARD, seated=THREE)
    assert {p.name: p.net_chips for p in r.players} == {"Ann": -1, "Ben": 2, "Cat": -1}
    assert [c.head for c in r.sections()[0].words.columns] == ["Antes", "Pots", "Sales"]
    assert r.player("Ben").total.parts(r.words) == ["antes \u22122", "pots won +3", "unfinished pot +1"]
    data = report_dict(r)
    assert data["unfinished_pot"] == {
        "pot": 3, "carried": 0, "carried_shares": {}, "note": data["unfinished_pot"]["note"],
    }
    assert "choice" not in data["unfinished_pot"]  # no night's setting decided it: the game's own rules did
    assert report_csv(r).split("\r\n")[1].startswith("row,player,to,antes,sales_received,sales_paid,pots_won,unfinished_pot,")


def test_a_card_sold_is_a_sale_received_and_paid():
    r = night(NASDAQ, seated=THREE)
    assert {p.name: p.net_chips for p in r.players} == {"Ann": 2, "Ben": -5, "Cat": 3}
    assert r.player("Cat").total.parts(r.words) == ["antes \u22121", "sales +4 from Ben"]
    ben = report_dict(r)["players"][1]
    assert (ben["sales_received"], ben["sales_paid"]) == ({}, {"Cat": 4})
    why = " ".join(s for line in r.plan if line.payer == "Ben" and line.payee == "Cat" for s in line.why)
    assert "Ben lost 4 to Cat in sales and won 0 from Cat." in why


# --- Napalm keeps its words --------------------------------------------------------------------------


def test_napalm_keeps_antes_side_bets_pots_and_tokens():
    """Ante 1: Ben and Cat say Yes (pot 4), Cat wins and Ben pays her 4; Dan alone says Yes: a token.
    The pot of 4 is unfinished: each ante comes back.  Ann 0, Ben −4, Cat +4, Dan 0."""
    r = night(("napalm", FOUR, {"ante": 1, "tokens_to_win": 5}, [
        {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]}, {"stage": 2, "yes": ["Dan"]},
    ]))
    assert [c.head for c in r.sections()[0].words.columns] == ["Antes", "Side bets", "Pots", "Tok."]
    assert r.player("Ben").total.parts(r.words) == ["antes \u22121", "side bets \u22124 to Cat", "unfinished pot +1"]
    data = report_dict(r)
    assert data["unfinished_pot"]["choice"] == "return_antes"
    assert report_csv(r).split("\r\n")[1] == (
        "row,player,to,antes,side_bets_won,side_bets_lost,pots_won,unfinished_pot,tokens,games_won,net_chips,money,currency,paid"
    )
    assert data["players"][3]["tokens"] == 1


# --- a night of several games ------------------------------------------------------------------------


def test_a_night_of_napalm_and_nap_has_each_game_in_its_words_and_the_night_in_neutral_ones():
    """Napalm as above (Ann 0, Ben −4, Cat +4, Dan 0), then the Pool Nap night (Ann −14, Ben −16,
    Cat −6, Dan +36): Ann −14, Ben −20, Cat −2, Dan +36."""
    r = night(
        ("napalm", FOUR, {"ante": 1, "tokens_to_win": 5}, [
            {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]}, {"stage": 2, "yes": ["Dan"]},
        ]),
        POOL_NAP,
    )
    assert {p.name: p.net_chips for p in r.players} == {"Ann": -14, "Ben": -20, "Cat": -2, "Dan": 36}
    napalm, nap = r.sections()
    assert (napalm.title, [c.head for c in napalm.words.columns]) == ("Napalm", ["Antes", "Side bets", "Pots", "Tok."])
    assert (nap.title, [c.head for c in nap.words.columns]) == ("Nap", ["Bids", "Pool"])
    # each section adds up its own games: Ben lost 4 in side bets in Napalm, 12 in bids in Nap
    ben = r.player("Ben")
    assert (r.total_of(ben, napalm).side_lost, r.total_of(ben, nap).side_lost) == (4, 12)
    data = report_dict(r)
    ben_json = data["players"][1]
    # the night's totals in neutral words, each game in its own
    assert ben_json["lost_to_players"] == {"Cat": 6, "Dan": 10}
    assert ben_json["games"][0]["side_bets_lost"] == {"Cat": 4} and ben_json["games"][1]["bids_lost"] == {"Cat": 2, "Dan": 10}
    assert ben_json["tokens"] == 0  # a game of the night counts tokens
    assert data["words"]["pot"] == "pot"  # "pot" and "pool": the night says "pot"


# --- what a game declares ----------------------------------------------------------------------------


def test_a_game_that_declares_no_words_is_told_in_neutral_ones():
    class Plain(Nap):
        report_vocabulary = NEUTRAL

    r = night(POOL_NAP, kinds={"nap": Plain()})
    assert [c.head for c in r.sections()[0].words.columns] == ["In", "Won/lost", "Out"]
    assert r.player("Cat").total.parts(r.words) == [
        "stakes \u22122", "direct payments +2 from Ann", "direct payments +2 from Ben", "direct payments +2 from Dan",
        "direct payments \u221210 to Dan",
    ]
    assert "won_from_players" in report_dict(r)["players"][0]


def test_a_game_whose_records_hold_a_figure_its_words_leave_out_is_refused():
    class Wrong(Nap):
        report_vocabulary = NO_CHIPS  # says it moves no chips, but its bids do

    with pytest.raises(ValueError, match="Nap: its report words leave out chips paid in"):
        night(POOL_NAP, kinds={"nap": Wrong()})


def test_a_column_needs_the_figure_it_shows():
    with pytest.raises(ValueError, match="a column shows chips between players, which these words leave out"):
        ReportVocabulary(
            columns=(Column("between", "Points", "points won and lost"),),
            paid_in=None, between=None, taken_out=None, returned=None, pot=None,
        )


def test_a_game_that_moves_no_chips_leaves_the_night_in_the_other_games_words():
    """Napalm as above, then a deal of poker with real betting (no chips move at the table): the
    night's totals stay in Napalm's words, and the poker's line joins Napalm's table."""
    r = night(
        ("napalm", FOUR, {"ante": 1, "tokens_to_win": 5}, [
            {"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]}, {"stage": 2, "yes": ["Dan"]},
        ]),
        ("betting", FOUR, {"variant": "Texas hold'em"}, [{"dealer": "Ann"}]),
    )
    assert r.words == GAMES["napalm"].report_vocabulary
    (section,) = r.sections()
    assert section.title == "Napalm, Poker with real betting" and len(section.lines) == len(r.games)
    assert r.player("Ben").total.parts(r.words) == ["antes \u22121", "side bets \u22124 to Cat", "unfinished pot +1"]


def test_a_game_of_points_between_players_says_points_and_has_no_pot():
    """Plain Nap keeps no pool: its chips only pass between players, so it can be told as points.
    Deal 1 as above: Cat makes 2, 2 from each other player (Ann −2, Ben −2, Cat +6, Dan −2)."""
    points = ReportVocabulary(
        columns=(Column("between", "Points", "points won and lost"),),
        paid_in=None, between=Between("points", "points_won", "points_lost", "points", "point"),
        taken_out=None, returned=None, pot=None,
    )

    class Points(Nap):
        report_vocabulary = points

    r = night(("nap", FOUR, {"variant": "plain"}, [{"bidder": "Cat", "bid": 2, "made": True}]), kinds={"nap": Points()})
    assert r.player("Cat").total.parts(r.words) == ["points +2 from Ann", "points +2 from Ben", "points +2 from Dan"]
    assert r.pot_word is None
    data = report_dict(r)
    assert not any(key.startswith("unfinished") for key in data)
    assert data["players"][0] == {
        "name": "Ann", "seat": 1, "points_won": {}, "points_lost": {"Cat": 2}, "net_chips": -2, "games_won": 0,
        "money": "-0.50", "games": [{"number": 0, "points_won": {}, "points_lost": {"Cat": 2}, "net_chips": -2}],
    }
    assert data["pairwise"][0] == {"from": "Ann", "to": "Cat", "chips": 2, "money": "0.50", "points": 2, "paid": False}
    assert report_csv(r).split("\r\n")[1] == "row,player,to,points_won,points_lost,games_won,net_chips,money,currency,paid"
