"""The end-of-night report (companion.report), on nights worked out by hand.

Every expected number below comes from RULES.md and the arithmetic in the
comments, never from running the code.  Conventions: "net" is chips won minus
chips paid (positive: the table owes the player); a hand antes when its first
stage is recorded; a lone Yes takes a token; each losing Yes pays each winner
the pot as it stands.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections import Counter
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.report.charts import net_chart
from companion.report.export import report_csv, report_dict
from companion.games.napalm import Rules, Table
from companion.games.napalm.closing import close_night
from companion.games.napalm.game import NAPALM
from companion.games.napalm.report import build_report

FOUR = ("Ann", "Ben", "Cat", "Dan")


def night_a() -> Table:
    """Four players, Ann deals first, ante 1 every hand, 2 tokens win.

    Game 1
      Hand 1, Ann deals (speaking order Ben, Cat, Dan, Ann).
        S1: Ben and Cat say Yes. Ante: pot 4, everyone -1.
            Cat wins: Ben pays Cat 4.        nets Ann -1, Ben -5, Cat +3, Dan -1
        S2: nobody.  S3: Ann (dealer) alone, no challenge: Ann 1 token.
      Hand 2, Ben deals.
        S1: nobody. Ante: pot 8.            nets Ann -2, Ben -6, Cat +2, Dan -2
        S2: Ben (dealer) alone; Cat and Dan challenge and tie for best:
            Ben pays 8 to each.             nets Ann -2, Ben -22, Cat +10, Dan +6
        S3: Dan alone: Dan 1 token.
      Hand 3, Cat deals.
        S1: Ann alone. Ante: pot 12         nets Ann -3, Ben -23, Cat +9, Dan +5
            Ann's 2nd token: she takes 12.  nets Ann +9, Ben -23, Cat +9, Dan +5 (sum 0)
    Game 2 (the button moves to Dan)
      Hand 1, Dan deals (order Ann, Ben, Cat, Dan).
        S1: Ann and Ben. Ante: pot 4.       nets Ann +8, Ben -24, Cat +8, Dan +4
            Ann wins: Ben pays Ann 4.       nets Ann +12, Ben -28
        S2: Ben and Cat; Cat wins: Ben pays Cat 4.   Ben -32, Cat +12
        S3: Dan (dealer) alone, no challenge: Dan 1 token.
      Hand 2, Ann deals (order Ben, Cat, Dan, Ann).
        S1: Ben alone. Ante: pot 8.         nets Ann +11, Ben -33, Cat +11, Dan +3
            Ben 1 token.
    The night ends here: game 2 unfinished, pot 8 (2 antes from each), tokens
    Ben 1, Dan 1, dealer Ann.  Sum of nets -8 = -pot.
    """
    t = Table(FOUR, "Ann", Rules(ante=1, ante_every=1, tokens_to_win=2))
    t.declare(["Ben", "Cat"]); t.showdown(["Cat"])
    t.declare([])
    t.declare(["Ann"]); t.challenge([])
    t.declare([])
    t.declare(["Ben"]); t.challenge(["Cat", "Dan"]); t.showdown(["Cat", "Dan"])
    t.declare(["Dan"])
    t.declare(["Ann"])
    t.declare(["Ann", "Ben"]); t.showdown(["Ann"])
    t.declare(["Ben", "Cat"]); t.showdown(["Cat"])
    t.declare(["Dan"]); t.challenge([])
    t.declare(["Ben"])
    return t


def report_a(choice: str = "return_antes", paid=()):
    return build_report(night_a(), chip_value=Decimal("0.25"), currency="EUR", unfinished_pot=choice, paid=paid, name="A")


def plan(report):
    return [(p.payer, p.payee, p.chips) for p in report.plan]


def pairs(report):
    return [(p.payer, p.payee, p.chips) for p in report.pairwise]


def nets(report):
    return {p.name: p.net_chips for p in report.players}


# --- night A, the unfinished pot under each setting -------------------------------------------


def test_night_a_table_before_closing():
    t = night_a()
    assert t.net_chips == {"Ann": 11, "Ben": -33, "Cat": 11, "Dan": 3}
    assert t.pot == 8
    assert t.tokens == {"Ann": 0, "Ben": 1, "Cat": 0, "Dan": 1}
    assert t.dealer == "Ann"


def test_return_antes_gives_each_player_the_two_antes_of_game_2():
    # Everyone anted twice in game 2: 2 back each.  Ann 11+2, Ben -33+2, Cat 11+2, Dan 3+2.
    r = report_a("return_antes")
    assert nets(r) == {"Ann": 13, "Ben": -31, "Cat": 13, "Dan": 5}
    assert r.closing.pot == 8 and r.closing.carried == 0
    assert "returned" in r.choice_text and "2 each" in r.closing.note
    # Ben is the only debtor, so he pays everyone: 3 payments (n - 1), by payee name.
    assert plan(r) == [("Ben", "Ann", 13), ("Ben", "Cat", 13), ("Ben", "Dan", 5)]
    # 13 x 0.25 = 3.25; 5 x 0.25 = 1.25; Ben: -31 x 0.25 = -7.75
    assert [p.money for p in r.plan] == [Decimal("3.25"), Decimal("3.25"), Decimal("1.25")]
    assert [p.money_text for p in r.plan] == ["3.25 EUR", "3.25 EUR", "1.25 EUR"]
    assert r.player("Ben").money == Decimal("-7.75")
    assert r.player("Ben").money_text == "-7.75 EUR"


def test_split_leaders_gives_the_pot_to_ben_and_dan():
    # Most tokens: Ben 1, Dan 1.  8 / 2 = 4 each, nothing odd.
    # Ann 11, Ben -33+4 = -29, Cat 11, Dan 3+4 = 7; sum 0.
    r = report_a("split_leaders")
    assert nets(r) == {"Ann": 11, "Ben": -29, "Cat": 11, "Dan": 7}
    assert r.closing.shares == {"Ann": 0, "Ben": 4, "Cat": 0, "Dan": 4}
    assert plan(r) == [("Ben", "Ann", 11), ("Ben", "Cat", 11), ("Ben", "Dan", 7)]


def test_carry_leaves_the_pot_and_the_antes_in_it_out_of_tonight():
    # The 8 chips stay in the pot; each player's 2 antes in it count as not spent
    # tonight, so the balances are those of "return antes", and 8 chips are carried.
    r = report_a("carry")
    assert nets(r) == {"Ann": 13, "Ben": -31, "Cat": 13, "Dan": 5}
    assert r.closing.carried == 8
    assert r.closing.shares == {n: 0 for n in FOUR}  # nothing is handed out tonight
    assert "carried" in r.closing.note
    # In the breakdown the 2 antes show as +2 "unfinished pot" for each player.
    assert [p.games[1].unfinished for p in r.players] == [2, 2, 2, 2]


def test_the_closing_choices_never_lose_a_chip():
    t = night_a()
    for choice in ("return_antes", "split_leaders", "carry"):
        c = close_night(t, choice)
        assert sum(c.net.values()) == 0
        assert sum(c.shares.values()) + c.carried == c.pot == 8


def test_night_a_per_player_per_game_breakdown():
    r = report_a("return_antes")
    ann, ben, cat, dan = (r.player(n) for n in FOUR)
    assert [(g.number, g.winner, g.pot, g.hands) for g in r.games] == [(1, "Ann", 12, 3), (2, None, 8, 2)]

    # Ben, game 1: 3 antes; lost 4 (h1 S1) + 8 (h2 S2) to Cat and 8 to Dan.
    # -3 - 12 - 8 = -23.  Game 2: 2 antes; lost 4 to Ann and 4 to Cat; 1 token;
    # 2 antes back: -2 - 8 + 2 = -8.  Night: -31.
    g1, g2 = ben.games
    assert (g1.antes, dict(g1.lost_to), g1.won_from, g1.pots, g1.tokens, g1.net) == (3, {"Cat": 12, "Dan": 8}, (), 0, 0, -23)
    assert (g2.antes, dict(g2.lost_to), g2.unfinished, g2.tokens, g2.net) == (2, {"Ann": 4, "Cat": 4}, 2, 1, -8)
    assert (ben.total.antes, ben.total.side_lost, ben.total.side_won, ben.total.tokens) == (5, 28, 0, 1)
    assert dict(ben.total.lost_to) == {"Ann": 4, "Cat": 16, "Dan": 8}

    # Ann, game 1: 3 antes, 2 tokens, the pot of 12: +9.  Game 2: 2 antes, +4 from Ben, 2 back: +4.
    assert (ann.games[0].antes, ann.games[0].pots, ann.games[0].tokens, ann.games[0].net) == (3, 12, 2, 9)
    assert (dict(ann.games[1].won_from), ann.games[1].net) == ({"Ben": 4}, 4)
    assert ann.games_won == 1 and ann.total.net == 13

    # Cat: +12 from Ben in game 1 (-3 antes: +9), +4 in game 2 (-2 antes +2 back: +4).
    assert (dict(cat.games[0].won_from), cat.games[0].net, cat.games[1].net) == ({"Ben": 12}, 9, 4)
    # Dan: +8 from Ben, 1 token in game 1 (-3: +5); 1 token and nothing else in game 2 (0).
    assert (dict(dan.games[0].won_from), dan.games[0].tokens, dan.games[0].net) == ({"Ben": 8}, 1, 5)
    assert (dan.games[1].tokens, dan.games[1].net) == (1, 0)


def test_night_a_pairwise_follows_each_bet_and_each_pot():
    r = report_a("return_antes")
    # Side bets, netted per pair: Ben owes Ann 4, Cat 12 + 4 = 16, Dan 8.
    # Game 1's pot of 12 went to Ann: Ben, Cat and Dan each pay her the 3 antes
    # they put in.  Game 2's antes are returned: nothing moves.
    # Ben -> Ann: 4 + 3 = 7; Ben -> Cat 16; Ben -> Dan 8; Cat -> Ann 3; Dan -> Ann 3.
    assert pairs(r) == [("Ben", "Ann", 7), ("Ben", "Cat", 16), ("Ben", "Dan", 8), ("Cat", "Ann", 3), ("Dan", "Ann", 3)]
    parts = {(p.payer, p.payee): (p.side_bets, p.through_pot) for p in r.pairwise}
    assert parts[("Ben", "Ann")] == (4, 3)
    assert parts[("Ben", "Cat")] == (16, 0)
    assert parts[("Cat", "Ann")] == (0, 3)
    # Each player's pairwise payments add up to the same net: Ann 7+3+3 = 13, Cat 16-3 = 13, Dan 8-3 = 5.
    flow = Counter()
    for a, b, c in pairs(r):
        flow[a] -= c
        flow[b] += c
    assert dict(flow) == {"Ann": 13, "Ben": -31, "Cat": 13, "Dan": 5}


def test_night_a_pairwise_with_the_pot_split_among_the_leaders():
    r = report_a("split_leaders")
    # Game 2's pot of 8 goes 4 to Ben and 4 to Dan.  Through game 2's pot: Ben
    # and Dan +4 - 2 antes = +2 each, Ann and Cat -2 each: Ann pays 2 to one of
    # them and Cat 2 to the other (two payments of 2, either way round).
    flow = Counter()
    for a, b, c in pairs(r):
        flow[a] -= c
        flow[b] += c
    assert dict(flow) == {"Ann": 11, "Ben": -29, "Cat": 11, "Dan": 7}
    by_pair = {(p.payer, p.payee): p for p in r.pairwise}
    assert by_pair[("Ben", "Cat")].side_bets == 16 and by_pair[("Ben", "Dan")].side_bets == 8
    pot_parts = sorted(abs(p.through_pot) for p in r.pairwise if p.through_pot)
    # Game 1 sends 3 from each of Ben, Cat and Dan to Ann.  Either way round, one of
    # the game-2 payments of 2 nets against a 3 toward Ann (3 - 2 = 1), the other
    # stands alone: the pot parts are 1, 2, 3, 3.
    assert pot_parts == [1, 2, 3, 3]


def test_a_payment_is_explained_by_both_balances():
    r = report_a("return_antes")
    line = next(p for p in r.plan if p.payee == "Cat")
    why = " ".join(line.why)
    assert "Ben ends the night 31 chips down" in why
    assert "antes \u22125" in why and "side bets \u221216 to Cat" in why
    assert "Cat ends the night 13 chips up" in why and "side bets +16 from Ben" in why
    assert "Ben lost 16 to Cat in side bets and won 0" in why
    assert "Ben owes 31 chips in all, paid as 13 to Ann, 13 to Cat, 5 to Dan." in why


# --- odd chips, the dealer's left, a chip value of 0.05 ------------------------------------------


def test_an_odd_chip_goes_to_the_first_leader_from_the_dealers_left():
    """Ann, Ben, Cat; Ann deals; ante 1 on every OTHER hand; 3 tokens win.

    Hand 1 (Ann deals, antes): pot 3, everyone -1.
      S1: Ann (dealer) alone, no challenge: Ann 1 token.  S2: Cat alone: Cat 1 token.  S3: nobody.
    Hand 2 (Ben deals, no ante): S1 nobody.  The night ends: pot 3, leaders Ann and Cat.
    From the dealer's (Ben's) left: Cat, Ann, Ben.  3 = 2 x 1 + 1: Cat gets the odd chip.
    Ann -1 + 1 = 0, Ben -1, Cat -1 + 2 = +1.  (Seat order from seat 1 would have
    given the odd chip to Ann instead.)
    """
    t = Table(("Ann", "Ben", "Cat"), "Ann", Rules(ante=1, ante_every=2, tokens_to_win=3))
    t.declare(["Ann"]); t.challenge([])
    t.declare(["Cat"])
    t.declare([])
    t.declare([])
    assert t.pot == 3 and t.dealer == "Ben"
    r = build_report(t, chip_value=Decimal("0.05"), currency="€", unfinished_pot="split_leaders")
    assert r.closing.shares == {"Ann": 1, "Ben": 0, "Cat": 2}
    assert nets(r) == {"Ann": 0, "Ben": -1, "Cat": 1}
    assert plan(r) == [("Ben", "Cat", 1)]
    assert r.plan[0].money_text == "0.05 €"
    assert "Cat 2, Ann 1" in r.closing.note


def test_odd_totals_at_five_cents_balance_to_the_cent():
    """Ann, Ben, Cat; Ann deals; ante 1 every hand; 3 tokens win; one chip = 0.05.

    Hand 1 (Ann deals): S1 Ben alone: pot 3, Ben 1 token.  S2 Cat alone: Cat 1.  S3 nobody.
    Hand 2 (Ben deals): S1 nobody: pot 6.  S2, S3 nobody.
    Hand 3 (Cat deals): S1 nobody: pot 9; the night ends.  Everyone -3.
    Split among Ben and Cat (1 token each), from Cat's left: Ann, Ben, Cat, so Ben
    first: 9 = 4 + 4 + 1, Ben 5, Cat 4.  Ann -3, Ben +2, Cat +1.
    Money: Ann -0.15, Ben +0.10, Cat +0.05; Ann pays Ben 0.10 and Cat 0.05.
    """
    t = Table(("Ann", "Ben", "Cat"), "Ann", Rules(ante=1, ante_every=1, tokens_to_win=3))
    t.declare(["Ben"]); t.declare(["Cat"]); t.declare([])
    t.declare([]); t.declare([]); t.declare([])
    t.declare([])
    r = build_report(t, chip_value=Decimal("0.05"), currency="EUR", unfinished_pot="split_leaders")
    assert nets(r) == {"Ann": -3, "Ben": 2, "Cat": 1}
    assert [p.money for p in r.players] == [Decimal("-0.15"), Decimal("0.10"), Decimal("0.05")]
    assert [(p.payer, p.payee, p.money_text) for p in r.plan] == [("Ann", "Ben", "0.10 EUR"), ("Ann", "Cat", "0.05 EUR")]
    assert r.total_money == 0
    # The shown amounts add up exactly: 0.10 + 0.05 = 0.15 = what Ann is down.
    shown = sum(Decimal(p.money_text.split()[0]) for p in r.plan)
    assert shown == -Decimal(r.player("Ann").money_text.split()[0])


def test_a_chip_value_with_three_places_is_shown_exactly():
    # Night A, returned antes, at 0.125 a chip: Ben -31 x 0.125 = -3.875 (never "3.88").
    r = build_report(night_a(), chip_value=Decimal("0.125"), currency="", unfinished_pot="return_antes")
    assert r.player("Ben").money_text == "-3.875"
    # Ann 13 x 0.125 = 1.625, Dan 5 x 0.125 = 0.625: 1.625 + 1.625 + 0.625 = 3.875.
    assert [p.money_text for p in r.plan] == ["1.625", "1.625", "0.625"]
    assert report_dict(r)["players"][1]["money"] == "-3.875"


def test_a_tie_in_the_balances_gives_the_fewest_payments():
    """Ann, Ben, Cat, Dan; Ann deals; ante 1; 1 token wins.

    Hand 1, Ann deals.  S1: Ben and Cat say Yes: pot 4, everyone -1.  Cat wins:
    Ben pays Cat 4.  Nets Ann -1, Ben -5, Cat +3, Dan -1.
    S2: Ann, Ben, Cat and Dan say Yes; Ann and Dan tie for best: Ben and Cat each
    pay 4 to Ann and 4 to Dan.  Ann -1+8 = +7, Ben -5-8 = -13, Cat +3-8 = -5, Dan -1+8 = +7.
    S3: Ben alone: his 1st token wins the game and the pot of 4: Ben -13+4 = -9.
    Nets Ann +7, Ben -9, Cat -5, Dan +7 (sum 0); nothing unfinished.
    No two of them cancel, so 3 payments; the creditors tie at 7.
    """
    t = Table(FOUR, "Ann", Rules(tokens_to_win=1))
    t.declare(["Ben", "Cat"]); t.showdown(["Cat"])
    t.declare(["Ann", "Ben", "Cat", "Dan"]); t.showdown(["Ann", "Dan"])
    t.declare(["Ben"])
    r = build_report(t, chip_value=Decimal("1"), currency="$", unfinished_pot="carry")
    assert nets(r) == {"Ann": 7, "Ben": -9, "Cat": -5, "Dan": 7}
    assert r.closing.pot == 0 and r.closing.carried == 0
    assert len(r.plan) == 3
    paid_by = Counter()
    got = Counter()
    for a, b, c in plan(r):
        paid_by[a] += c
        got[b] += c
    assert paid_by == {"Ben": 9, "Cat": 5} and got == {"Ann": 7, "Dan": 7}
    assert r.games[0].winner == "Ben" and r.player("Ben").games_won == 1
    # Pairwise: side bets Ben->Cat 4, Ben->Ann 4, Ben->Dan 4, Cat->Ann 4, Cat->Dan 4;
    # the pot of 4 (1 ante each) to Ben: Ann, Cat, Dan each pay Ben 1.
    # Ben-Ann: 4 - 1 = 3; Ben-Cat: 4 - 1 = 3; Ben-Dan: 4 - 1 = 3; Cat-Ann 4; Cat-Dan 4.
    assert pairs(r) == [("Ben", "Ann", 3), ("Ben", "Cat", 3), ("Ben", "Dan", 3), ("Cat", "Ann", 4), ("Cat", "Dan", 4)]


def test_a_night_with_nothing_recorded():
    t = Table(("Ann", "Ben"), None, Rules())
    r = build_report(t, chip_value=Decimal("0.25"), currency="EUR")
    assert r.games == () and r.plan == () and r.pairwise == ()
    assert nets(r) == {"Ann": 0, "Ben": 0}
    assert r.settled


def test_an_undone_action_is_left_out_of_every_figure():
    # Ann, Ben; Ann deals.  S1: Ann and Ben say Yes (pot 2), Ben wins: Ann pays 2.  Undo the showdown.
    # Then Ann wins: Ben pays Ann 2.  Nets: Ann -1 + 2 = +1, Ben -1 - 2 = -3, pot 2.
    t = Table(("Ann", "Ben"), "Ann", Rules())
    t.declare(["Ann", "Ben"]); t.showdown(["Ben"]); t.void(); t.showdown(["Ann"])
    r = build_report(t, chip_value=Decimal("1"), unfinished_pot="return_antes")
    # Returned antes: Ann +2, Ben -2.
    assert nets(r) == {"Ann": 2, "Ben": -2}
    assert dict(r.player("Ann").total.won_from) == {"Ben": 2} and r.player("Ann").total.lost_to == ()


# --- paid payments ---------------------------------------------------------------------------------


def test_recorded_payments_mark_the_plan_and_the_rest_is_listed():
    r = report_a("return_antes", paid=[("Ben", "Cat", 13)])
    assert [p.paid for p in r.plan] == [False, True, False]
    assert r.unmatched("plan") == ()
    # The pairwise list has Ben -> Cat 16, not 13: there the payment marks nothing.
    assert [(p.payer, p.payee, p.chips) for p in r.unmatched("pairwise")] == [("Ben", "Cat", 13)]
    # What is left, counting it: Ann 13, Ben -31 + 13 = -18, Cat 0, Dan 5.
    assert [(p.payer, p.payee, p.chips) for p in r.remaining] == [("Ben", "Ann", 13), ("Ben", "Dan", 5)]
    assert r.find("plan", "Ben", "Cat", 13) is None  # already paid
    assert r.find("plan", "Ben", "Ann", 13) is r.plan[0]


def test_every_payment_made_settles_the_night():
    r = report_a("return_antes", paid=plan(report_a("return_antes")))
    assert all(p.paid for p in r.plan) and r.settled and r.remaining == ()


def test_a_payment_recorded_before_the_table_changed_is_unmatched():
    r = report_a("return_antes", paid=[("Ben", "Cat", 11)])
    assert not any(p.paid for p in r.plan)
    assert [(p.payer, p.payee, p.chips) for p in r.unmatched("plan")] == [("Ben", "Cat", 11)]
    # Left: Ann 13, Ben -20, Cat 2, Dan 5: Ben pays all three.
    assert [(p.payer, p.payee, p.chips) for p in r.remaining] == [("Ben", "Ann", 13), ("Ben", "Cat", 2), ("Ben", "Dan", 5)]


# --- how each stack changed (what a count is checked against: the Bank page, issue 20 item 13) --------------


def test_each_stack_changes_by_the_closing_balance():
    # Night A, returned antes.  The report's own chip-count form is gone (the Bank page counts); what it
    # read stays: bought 100 each, the stacks are 100 + closing nets: Ann 113, Ben 69, Cat 113, Dan 105.
    r = report_a("return_antes")
    assert [r.player(n).stack_change for n in FOUR] == [13, -31, 13, 5]


def test_a_carried_pot_leaves_its_chips_out_of_the_stacks():
    # Carried: the 8 chips stay in the middle, so the stacks are 100 + the table's
    # nets: Ann 111, Ben 67, Cat 111, Dan 103 (total 392 = 400 - 8).
    r = report_a("carry")
    assert [r.player(n).stack_change for n in FOUR] == [11, -33, 11, 3]
    assert r.closing.carried == 8


# --- a pot carried in from the previous night -------------------------------------------------------


def night_c() -> Table:
    """Ann, Ben, Cat; Ann deals; ante 1 every hand, 5 tokens win; the pot carried in holds
    Ann 2, Ben 1 (3 chips).

    Start: pot 3, nets Ann -2, Ben -1, Cat 0.
    Game 1, hand 1, Ann deals (Ben, Cat, Ann).
      S1: Ben and Cat. Ante: pot 6, nets Ann -3, Ben -2, Cat -1.  Cat wins: Ben pays her 6
          (the pot, carried chips included).        nets Ann -3, Ben -8, Cat +5
      S2: Cat alone: Cat 1 token.  S3: nobody.
    Hand 2, Ben deals (Cat, Ann, Ben).
      S1: Ann alone. Ante: pot 9.                   nets Ann -4, Ben -9, Cat +4; Ann 1 token.
    The night ends at hand 2, stage 2: game 1 unfinished, pot 9 = -(-4 - 9 + 4).
    Stakes in it: Ann 2 + 1 + 1 = 4, Ben 1 + 1 + 1 = 3, Cat 0 + 1 + 1 = 2 (not even).
    """
    t = Table(("Ann", "Ben", "Cat"), "Ann", Rules(), carried_in={"Ann": 2, "Ben": 1})
    t.declare(["Ben", "Cat"]); t.showdown(["Cat"])
    t.declare(["Cat"])
    t.declare([])
    t.declare(["Ann"])
    return t


def report_c(choice: str):
    return build_report(night_c(), chip_value=Decimal("0.5"), currency="EUR", unfinished_pot=choice, name="C")


def test_night_c_table_before_closing():
    t = night_c()
    assert t.net_chips == {"Ann": -4, "Ben": -9, "Cat": 4}
    assert t.pot == 9 and t.in_pot == {"Ann": 4, "Ben": 3, "Cat": 2}
    assert t.tokens == {"Ann": 1, "Ben": 0, "Cat": 1} and t.dealer == "Ben"


def test_returning_the_antes_with_a_carried_pot_gives_each_their_own_stake_not_an_even_split():
    # Ann -4 + 4 = 0, Ben -9 + 3 = -6, Cat 4 + 2 = 6.  (An even split, 3 each, would
    # have given Ann -1 and Cat 7: one of Ann's carried chips to Cat.)
    r = report_c("return_antes")
    assert r.closing.shares == {"Ann": 4, "Ben": 3, "Cat": 2} == r.closing.stakes
    assert nets(r) == {"Ann": 0, "Ben": -6, "Cat": 6}
    assert "(Ann 4, Ben 3, Cat 2, the pot carried in from the previous night included)" in r.closing.note
    assert plan(r) == [("Ben", "Cat", 6)]
    # The report counts the carried shares in game 1's antes: Ann 2 + 2, Ben 1 + 2, Cat 2,
    # and gives each their stake back as "unfinished pot".
    assert [(p.games[0].antes, p.games[0].unfinished) for p in r.players] == [(4, 4), (3, 3), (2, 2)]
    assert r.carried_in == (("Ann", 2), ("Ben", 1)) and r.carried_in_total == 3
    assert [(g.number, g.winner, g.pot, g.hands) for g in r.games] == [(1, None, 9, 2)]


def test_splitting_a_pot_with_carried_chips_among_the_leaders_splits_all_of_it():
    # Leaders: Ann 1, Cat 1.  From the dealer's (Ben's) left: Cat, Ann.  9 = 4 + 4 + 1 odd
    # chip to Cat: Cat 5, Ann 4.  Ann -4 + 4 = 0, Ben -9, Cat 4 + 5 = 9.
    r = report_c("split_leaders")
    assert r.closing.shares == {"Ann": 4, "Ben": 0, "Cat": 5}
    assert nets(r) == {"Ann": 0, "Ben": -9, "Cat": 9}
    assert plan(r) == [("Ben", "Cat", 9)]


def test_carrying_a_pot_that_was_itself_carried_in_carries_all_of_it_with_each_ones_share():
    # Tonight's balances leave each stake out, as with returned antes: Ann 0, Ben -6, Cat 6.
    # All 9 chips go on: Ann 4, Ben 3, Cat 2.
    r = report_c("carry")
    assert nets(r) == {"Ann": 0, "Ben": -6, "Cat": 6}
    assert r.closing.carried == 9 and r.closing.shares == {"Ann": 0, "Ben": 0, "Cat": 0}
    assert r.closing.carried_shares == {"Ann": 4, "Ben": 3, "Cat": 2}
    assert plan(r) == [("Ben", "Cat", 6)]
    # The next night starts where this one stopped: pot 9, Ann -4, Ben -3, Cat -2.
    following = Table(("Ann", "Ben", "Cat"), "Cat", Rules(), carried_in=r.closing.carried_shares)
    assert following.pot == 9 and following.net_chips == {"Ann": -4, "Ben": -3, "Cat": -2}


def test_the_carried_pot_never_loses_a_chip_under_any_choice():
    t = night_c()
    for choice in ("return_antes", "split_leaders", "carry"):
        c = close_night(t, choice)
        assert sum(c.net.values()) == 0
        assert sum(c.shares.values()) + c.carried == c.pot == 9


def test_the_carried_in_chips_are_left_out_of_the_stacks():
    # Carry; everyone bought in for 50 tonight.  What each did with their own stack:
    # Ann anted 2 (hands 1, 2): 48.  Ben anted 2 and paid Cat 6: 42.  Cat anted 2 and won 6: 54.
    # The 9 chips in the middle (3 from Friday, 6 antes) are in nobody's stack: 48 + 42 + 54 = 150 - 6.
    r = report_c("carry")
    assert [50 + r.player(n).stack_change for n in ("Ann", "Ben", "Cat")] == [48, 42, 54]
    assert r.closing.carried == 9
    # Returned instead: the 9 chips go back, Friday's 2 and 1 included: Ann 52, Ben 45, Cat 56.
    r = report_c("return_antes")
    assert [50 + r.player(n).stack_change for n in ("Ann", "Ben", "Cat")] == [52, 45, 56]
    assert r.closing.carried == 0


def night_e() -> Table:
    """Ann, Ben, Cat, Dan; Ann deals; 2 tokens win; Friday's pot held Ann 2, Ben 2, Cat 2.

    Start: pot 6, nets -2/-2/-2/0.
    Game 1, hand 1, Ann deals (Ben, Cat, Dan, Ann).
      S1: Ben alone. Ante: pot 10, nets -3/-3/-3/-1.  Ben 1 token.
      S2: Cat and Dan; Dan wins: Cat pays him 10.      nets -3/-3/-13/+9
      S3: Ben alone: 2nd token, the pot of 10.         nets -3/+7/-13/+9 (sum 0)
    Game 2 has not begun: pot 0.
    """
    t = Table(FOUR, "Ann", Rules(tokens_to_win=2), carried_in={"Ann": 2, "Ben": 2, "Cat": 2})
    t.declare(["Ben"])
    t.declare(["Cat", "Dan"]); t.showdown(["Dan"])
    t.declare(["Ben"])
    return t


def test_the_winner_of_the_first_game_is_paid_the_carried_chips_by_their_contributors():
    r = build_report(night_e(), chip_value=Decimal("1"), unfinished_pot="carry", name="E")
    assert nets(r) == {"Ann": -3, "Ben": 7, "Cat": -13, "Dan": 9}
    assert r.closing.pot == 0 and r.closing.carried == 0 and r.closing.carried_shares == {}
    assert [(g.number, g.winner, g.pot) for g in r.games] == [(1, "Ben", 10)]
    # Game 1's antes: 1 each, plus Friday's 2 for Ann, Ben and Cat.
    assert [p.games[0].antes for p in r.players] == [3, 3, 3, 1]
    assert r.player("Ben").games[0].pots == 10
    # Pair by pair: through the pot each pays Ben their antes in game 1 (Ann 3, Cat 3,
    # Dan 1; Ben's own 3 stay his); Cat pays Dan the side bet of 10.
    assert sorted(pairs(r)) == [("Ann", "Ben", 3), ("Cat", "Ben", 3), ("Cat", "Dan", 10), ("Dan", "Ben", 1)]
    # Fewest payments: Cat owes 13, Ann 3; Dan is owed 9, Ben 7.  No two cancel (no zero-sum
    # pair or triple), so 3 payments; largest debtor pays largest creditor: Cat pays Dan 9,
    # then Cat pays Ben 4, then Ann pays Ben 3.
    assert plan(r) == [("Ann", "Ben", 3), ("Cat", "Ben", 4), ("Cat", "Dan", 9)]
    data = report_dict(r)
    assert data["carried_in"] == {"Ann": 2, "Ben": 2, "Cat": 2}
    assert data["players"][0]["games"][0]["antes"] == 3


# --- downloads ---------------------------------------------------------------------------------------


def csv_body(text: str) -> io.StringIO:
    """The CSV after its first line, which names its format (docs/report-format.md)."""
    first, rest = text.split("\r\n", 1)
    assert first == "format,companion-report/2"
    return io.StringIO(rest)


def test_the_csv_has_a_row_per_player_and_per_payment():
    r = report_a("return_antes", paid=[("Ben", "Ann", 13)])
    rows = list(csv.DictReader(csv_body(report_csv(r))))
    assert [row["row"] for row in rows] == ["player"] * 4 + ["payment"] * 3
    ben = rows[1]
    assert (ben["player"], ben["antes"], ben["side_bets_lost"], ben["net_chips"], ben["money"]) == ("Ben", "5", "28", "-31", "-7.75")
    first = rows[4]
    assert (first["player"], first["to"], first["net_chips"], first["money"], first["paid"]) == ("Ben", "Ann", "13", "3.25", "yes")
    pair_rows = list(csv.DictReader(csv_body(report_csv(r, "pairwise"))))
    assert len(pair_rows) == 4 + 5


def test_a_name_that_looks_like_a_formula_is_defused_in_the_csv():
    t = Table(("=SUM(A1)", "Ben"), None, Rules())
    r = build_report(t, chip_value=Decimal("1"))
    assert "'=SUM(A1)" in report_csv(r)


@pytest.mark.parametrize(
    ("name", "delimiter", "defused"),
    [
        # a spreadsheet that splits on ";" ignores the quotes around a cell of a comma file and
        # made "=HYPERLINK(1)" a cell of its own: every part that starts a formula gets a '
        ("a;=HYPERLINK(1)", ";", "a;'=HYPERLINK(1)"),
        ("a,=1+1", ",", "a,'=1+1"),
        ("a|@SUM(1)", "|", "a|'@SUM(1)"),
        ("\uff1d1+1", ",", "'\uff1d1+1"),  # full-width "=": read as "=" by some spreadsheets
        ("\uff0b1", ",", "'\uff0b1"),  # full-width "+"
        ("\uff201", ",", "'\uff201"),  # full-width "@"
        ("\ufe661+1", ",", "'\ufe661+1"),  # small "="
        ('"=1+1', ",", "'\"=1+1"),  # a quote before it is skipped
        ("Ann;Ben", ";", "Ann;Ben"),  # nothing to defuse: the name as typed
    ],
)
def test_no_name_becomes_a_formula_in_the_csv_whatever_a_spreadsheet_splits_on(name, delimiter, defused):
    """Issue 21, item 7: every cell a person typed is quoted, and no part of it starts a formula."""
    t = Table((name, "Ben"), None, Rules())
    text = report_csv(build_report(t, chip_value=Decimal("1")))
    for row in csv.reader(io.StringIO(text), delimiter=delimiter):
        for cell in row:
            start = unicodedata.normalize("NFKC", cell).lstrip(' "\u3000')
            numeric = start.lstrip("-").replace(".", "").isdigit()
            assert numeric or not start.startswith(("=", "+", "-", "@")), cell
    rows = list(csv.reader(csv_body(text)))  # read with the file's own comma: one cell, as typed but defused
    assert sorted(row[1] for row in rows[1:3]) == sorted([defused, "Ben"])
    assert '"' + defused.replace('"', '""') + '"' in text  # quoted in the file


def test_the_json_is_exact_and_complete():
    data = json.loads(json.dumps(report_dict(report_a("split_leaders"))))
    assert data["chip_value"] == "0.25" and data["currency"] == "EUR"
    assert data["unfinished_pot"]["choice"] == "split_leaders"
    assert [p["money"] for p in data["players"]] == ["2.75", "-7.25", "2.75", "1.75"]  # 11, -29, 11, 7 x 0.25
    assert data["payments"][0] == {"from": "Ben", "to": "Ann", "chips": 11, "money": "2.75", "paid": False}
    assert data["players"][3]["games"][1]["unfinished_pot"] == 4


# --- the chart -------------------------------------------------------------------------------------


def test_the_chart_is_plain_svg_without_style_or_script():
    svg = net_chart([("Fri <b>", Decimal("3.25")), ("Sat", Decimal("-7.75"))], label="Ben & co", unit="EUR")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "style" not in svg and "script" not in svg
    assert "Fri &lt;b&gt;" in svg and "Ben &amp; co" in svg
    assert svg.count("<rect") == 2 and "<polyline" in svg
    assert net_chart([], label="x") == ""


# --- properties -----------------------------------------------------------------------------------


@st.composite
def random_nights(draw):
    """A random legal night: 2-7 players, random rules, random legal actions (with undos)."""
    count = draw(st.integers(2, 7))
    names = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus")[:count]
    rules = Rules(ante=draw(st.integers(0, 3)), ante_every=draw(st.sampled_from([1, 2])), tokens_to_win=draw(st.integers(1, 4)))
    # sometimes a pot carried in from the previous night, from some of the players
    carried_in = {n: draw(st.integers(1, 6)) for n in draw(st.lists(st.sampled_from(names), unique=True))}
    table = Table(names, draw(st.sampled_from(names)), rules, carried_in)
    for _ in range(draw(st.integers(0, 60))):
        phase = table.phase.value
        if table.can_void() and draw(st.integers(0, 9)) == 0:
            table.void()
        elif phase == "declare":
            table.declare(draw(st.lists(st.sampled_from(names), unique=True, max_size=count)))
        elif phase == "challenge":
            others = [n for n in names if n != table.dealer]
            table.challenge(draw(st.lists(st.sampled_from(others), unique=True, max_size=len(others))))
        else:
            yes = table.yes
            table.showdown(draw(st.lists(st.sampled_from(yes), unique=True, min_size=1, max_size=len(yes))))
    choice = draw(st.sampled_from(["return_antes", "split_leaders", "carry"]))
    value = draw(st.sampled_from(["0", "0.05", "0.25", "0.125", "1", "0.0001", "2.5"]))
    return table, choice, Decimal(value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_nights())
def test_any_night_the_report_adds_up(night):
    table, choice, value = night
    r = build_report(table, chip_value=value, currency="EUR", unfinished_pot=choice)
    closing = close_night(table, choice)
    for p in r.players:
        # the per-game breakdown sums to the player's closing balance
        assert sum(f.net for f in p.games) == p.total.net == p.net_chips == closing.net[p.name]
        assert p.total.pots + p.total.unfinished + p.total.side_won - p.total.side_lost - p.total.antes == p.net_chips
        assert p.money == value * p.net_chips
    # the unfinished pot is each player's stake in it; nothing handed out or carried is lost
    assert sum(closing.stakes.values()) == closing.pot == table.pot
    if choice == "return_antes":
        assert closing.shares == closing.stakes
    if choice == "carry" and closing.pot:
        assert closing.carried_shares == {n: c for n, c in closing.stakes.items() if c}
    # the stacks change by what was won at the table: the carried-in chips were in the middle
    assert sum(p.stack_change for p in r.players) == r.carried_in_total - closing.carried
    # money sums to zero exactly, and chips too
    assert sum(p.money for p in r.players) == 0
    assert sum(p.net_chips for p in r.players) == 0
    # side bets won and lost mirror each other
    won = sum(p.total.side_won for p in r.players)
    assert won == sum(p.total.side_lost for p in r.players)
    # both plans settle every balance, the plan in at most n - 1 payments
    owing = sum(1 for p in r.players if p.net_chips)
    assert len(r.plan) <= max(owing - 1, 0)
    for lines in (r.plan, r.pairwise):
        flow = Counter()
        for line in lines:
            flow[line.payer] -= line.chips
            flow[line.payee] += line.chips
            assert line.money == value * line.chips
        assert all(flow[p.name] == p.net_chips for p in r.players)
    # what is shown adds up: the money texts of the payments sum to each net exactly
    for p in r.players:
        shown = sum(
            (Decimal(line.money_text.split()[0]) * (1 if line.payee == p.name else -1)
             for line in r.plan if p.name in (line.payer, line.payee)),
            Decimal(0),
        )
        assert shown == Decimal(p.money_text.split()[0])


def test_a_night_of_two_games_is_one_report_each_game_counted_as_it_closed():
    from companion.report.parts import build_night_report

    # game 1 (Ann deals, ante 1): pot 4; Cat beats Ben: Ben pays Cat 4; Dan's token; stopped with
    # the antes returned: Ann 0, Ben -4, Cat +4, Dan 0.  Game 2 (Ben deals, ante 2, 1 token wins,
    # Dan out): Ann's lone Yes wins the pot of 6: Ann +4, Ben -2, Cat -2.
    first = Table(["Ann", "Ben", "Cat", "Dan"], "Ann", Rules(ante=1, tokens_to_win=5))
    first.declare(["Ben", "Cat"])
    first.showdown(winners=["Cat"])
    first.declare(["Dan"])
    second = Table(["Ann", "Ben", "Cat"], "Ben", Rules(ante=2, tokens_to_win=1))
    second.declare(["Ann"])
    games = []
    for table, setting in ((first, "return_antes"), (second, "split_leaders")):
        rules = replace(table.rules, unfinished_pot=setting)
        games.append(("Napalm", table, rules, NAPALM.close(table, rules), NAPALM))
    r = build_night_report(
        games,
        ["Ann", "Ben", "Cat", "Dan"], chip_value=Decimal("0.25"), currency="EUR", name="Friday",
    )
    assert {p.name: p.net_chips for p in r.players} == {"Ann": 4, "Ben": -6, "Cat": 2, "Dan": 0}
    assert sorted((p.payer, p.payee, p.chips) for p in r.plan) == [("Ben", "Ann", 4), ("Ben", "Cat", 2)]
    assert [g.label for g in r.games] == ["1st game (Napalm), game 1", "2nd game (Napalm), game 1"]
    assert [g.finished for g in r.games] == [False, True]
    # Ann: antes 1 + 2, pots 6, her ante of 1 returned: -3 + 6 + 1 = +4
    ann = r.player("Ann")
    assert (ann.total.antes, ann.total.pots, ann.total.unfinished) == (3, 6, 1)
    assert r.player("Dan").games[1].net == 0  # he sat the second game out
    # the pair-by-pair payments square every player too
    flows = {p.name: 0 for p in r.players}
    for line in r.pairwise:
        flows[line.payer] -= line.chips
        flows[line.payee] += line.chips
    assert flows == {"Ann": 4, "Ben": -6, "Cat": 2, "Dan": 0}
    assert r.closing.pot == 0  # the pot at the table now: the second game's, won
