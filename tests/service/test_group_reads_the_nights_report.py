"""The group reads a night exactly as the night's report does (issue 35, item 1).

A cancel on the Bank page names the night's own event number (a number among the games' events
too).  The group once folded the night's ledger anew, numbered 1…n, so a cancel there took back
another line (or none, and every group page answered 500).  Now the group reads the night's own
report, and a group file of it holds the live lines alone.

Each night here is a poker night on chip counts (group_support.poker): everyone buys in 50, so a
player's net is their live cash-out count less every live chip they bought, worked out below from
the lines recorded, never from the app's own report.
"""

from __future__ import annotations

import datetime
import random
from decimal import Decimal as D

from sqlalchemy import select

from companion import service
from companion.db.models import Event, Night
from companion.extensions import db
from companion.games import IllegalAction
from companion.service import bank
from companion.games.napalm.table import Declare
from companion.night.file import Money
from companion.service.group_nights import counted
from service.group_support import EUR25, group, played_night

PLAYERS = ("Ann", "Ben", "Dan")


def seq_of(night_id: int, kind: str, player: str) -> int:
    """The night's own number of the last ``kind`` event of ``player``."""
    db.session.rollback()
    return max(
        e.seq for e in db.session.scalars(select(Event).where(Event.night_id == night_id, Event.kind == kind))
        if e.payload.get("player") == player
    )


def night(night_id: int) -> Night:
    db.session.rollback()
    return db.session.get(Night, night_id, populate_existing=True)


NAPALM = {"kind": "napalm", "players": None, "first_dealer": "Ann",
          "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 2, "unfinished_pot": "return_antes"}}


def test_the_issues_night_a_napalm_stage_then_a_cash_out_cancelled_and_counted_again(app, client):
    """The issue's steps: Ann and Ben, a stage where nobody said Yes (its antes go back when the night
    ends), everyone buys in 10, Ann cashes out 10 and Ben 12; Ben's line cancelled and counted again as 10.
    The stage is the night's event #1, so the bank's lines are #2… and the cancel names #4, Ben's (read
    as the group once numbered them, there was no line #4: every group page answered 500).
    By hand: nobody won a chip (a Napalm night is counted chip by chip: each count must be 10): 0 and 0."""
    with app.app_context():
        opened = service.open_night("Friday", ["Ann", "Ben"], Money(D("0.25"), "EUR"), NAPALM)
        service.record(opened.id, Declare(()), 0)
        bank.record(opened.id, "all_buy_in", {"chips": 10}, 1, None)
        bank.record(opened.id, "cash_out", {"player": "Ann", "chips": 10}, 2, None)
        bank.record(opened.id, "cash_out", {"player": "Ben", "chips": 12}, 3, None)
        assert seq_of(opened.id, "cash_out", "Ben") == 4
        bank.record(opened.id, "bank_cancel", {"seq": 4}, 4, None)
        bank.record(opened.id, "cash_out", {"player": "Ben", "chips": 10}, 5, None)
        fridays = service.open_group("Fridays", from_night=night(opened.id))
        found = counted(night(opened.id))
        result = found.result
        assert result is not None, found.in_play
        assert dict(result.net) == {"Ann": 0, "Ben": 0}
        assert result.planned == ()
        keys = group(fridays.id).organiser_key, group(fridays.id).member_key
    assert client.get(f"/g/{keys[0]}").status_code == 200
    assert client.get(f"/m/{keys[1]}").status_code == 200
    exported = client.get(f"/g/{keys[0]}/export.json")
    assert exported.status_code == 200
    (entry,) = exported.get_json()["nights"]
    assert entry["night"]["bank"] == [{"everyone_buys_in": 10}, {"cash_out": "Ann", "chips": 10},
                                      {"cash_out": "Ben", "chips": 10}]


def test_a_recounted_cash_out_counts_in_the_group_as_on_the_nights_report(app):
    """Ann 58, Ben 50, Dan 42 cashed out; Ann's and Dan's lines cancelled and counted again as 60 and 40.
    By hand: Ann 60 − 50 = +10 chips, +2.50 €; Ben 0; Dan 40 − 50 = −10, −2.50 €; Dan pays Ann 2.50 €."""
    with app.app_context():
        n1 = played_night("N1", {"Ann": 58, "Ben": 50, "Dan": 42}, EUR25, datetime.date(2025, 1, 10))
        fridays = service.open_group("Fridays", from_night=n1)
        for player, count in (("Ann", 60), ("Dan", 40)):
            version, line = night(n1.id).version, seq_of(n1.id, "cash_out", player)
            bank.record(n1.id, "bank_cancel", {"seq": line}, version, None)
            bank.record(n1.id, "cash_out", {"player": player, "chips": count}, version + 1, None)

        result = counted(night(n1.id)).result
        assert result is not None
        assert dict(result.net) == {"Ann": 10, "Ben": 0, "Dan": -10}
        assert [(t.payer, t.payee, t.amount) for t in result.planned] == [("Dan", "Ann", D("2.50"))]
        report = service.report_of(night(n1.id))
        assert {p.name: p.net_chips for p in report.players} == dict(result.net)

        view = service.group_view(group(fridays.id))
        assert [(p.payer, p.payee, p.amount) for p in view.tab.plan["EUR"]] == [("Dan", "Ann", D("2.50"))]

        # the group file holds the live lines alone: imported again, the night counts the same
        again = service.import_group(service.export_group(group(fridays.id)))
        (copy,) = service.group_view(group(again.id)).nights
        assert dict(copy.result.net) == {"Ann": 10, "Ben": 0, "Dan": -10}


def test_the_organisers_page_the_members_page_and_the_export_answer_after_a_cancelled_line(app, client):
    """The issue's steps: a cash-out cancelled and recorded again, then every group page opened."""
    with app.app_context():
        n1 = played_night("N1", {"Ann": 58, "Ben": 50, "Dan": 42}, EUR25, datetime.date(2025, 1, 10))
        fridays = service.open_group("Fridays", from_night=n1)
        version, line = night(n1.id).version, seq_of(n1.id, "cash_out", "Ben")
        bank.record(n1.id, "bank_cancel", {"seq": line}, version, None)
        bank.record(n1.id, "cash_out", {"player": "Ben", "chips": 50}, version + 1, None)
        keys = group(fridays.id).organiser_key, group(fridays.id).member_key
    organiser = client.get(f"/g/{keys[0]}")
    assert organiser.status_code == 200
    assert "2.00" in organiser.get_data(as_text=True)  # Dan owes Ann 8 chips at 0.25 €
    assert client.get(f"/m/{keys[1]}").status_code == 200
    assert client.get(f"/g/{keys[0]}/export.json").status_code == 200


def play_a_random_bank(rng: random.Random, night_id: int) -> dict[int, tuple[str, str, int]]:
    """Buy-ins, rebuys, cash-outs and cancels in a random order; the live lines as the test keeps them
    (night seq -> (kind, player, chips)), every refused one left out."""
    live: dict[int, tuple[str, str, int]] = {}

    def try_record(kind: str, payload: dict) -> int | None:
        version = night(night_id).version
        try:
            done = bank.record(night_id, kind, payload, version, None)
        except IllegalAction:
            return None
        return done.seq

    seq = try_record("all_buy_in", {"chips": 50})
    assert seq is not None
    live[seq] = ("all", "", 50)
    for _ in range(rng.randint(3, 9)):
        move = rng.choice(["rebuy", "cash_out", "cancel", "cancel"])
        player = rng.choice(PLAYERS)
        if move == "cancel":
            if not live:
                continue
            target = rng.choice(sorted(live)[1:] or [0])  # any line but the first buy-in (a night does keep that)
            if try_record("bank_cancel", {"seq": target}) is not None:
                del live[target]
            continue
        chips = rng.randint(1, 90) if move == "cash_out" else rng.randint(5, 30)
        if (seq := try_record(move, {"player": player, "chips": chips})) is not None:
            live[seq] = (move, player, chips)
    if rng.random() < 0.2:
        return live  # a night left before its count: in play, counted nowhere
    # then everyone counts, the last player's count making the bank balance (as a table's does)
    counts = {who: seq for seq, (k, who, _) in live.items() if k == "cash_out"}
    if len(counts) == len(PLAYERS):
        player = rng.choice(PLAYERS)
        if try_record("bank_cancel", {"seq": counts[player]}) is not None:
            del live[counts[player]]
    for player in PLAYERS:
        if any(k == "cash_out" and who == player for k, who, _ in live.values()):
            continue
        bought = sum(c for k, who, c in live.values() if k == "all" or k == "rebuy")
        bought += sum(50 for k, *_ in live.values() if k == "all") * (len(PLAYERS) - 1)
        counted_ = sum(c for k, _, c in live.values() if k == "cash_out")
        others = [p for p in PLAYERS if p != player and not any(k == "cash_out" and w == p for k, w, _ in live.values())]
        chips = rng.randint(0, max(0, bought - counted_)) if others else bought - counted_
        if chips >= 0 and (seq := try_record("cash_out", {"player": player, "chips": chips})) is not None:
            live[seq] = ("cash_out", player, chips)
    return live


def test_nights_with_cancels_in_every_order_count_in_the_group_as_their_reports_and_the_lines_say(app):
    rng = random.Random(35)
    with app.app_context():
        first = played_night("N0", {"Ann": 50, "Ben": 50, "Dan": 50}, EUR25, datetime.date(2025, 1, 3))
        fridays = service.open_group("Fridays", from_night=first)
        balanced = 0
        for round_ in range(12):
            opened = service.open_night(f"R{round_}", list(PLAYERS), EUR25, {
                "kind": "betting", "players": None, "first_dealer": "Ann", "rules": {"variant": "Texas hold'em"}})
            live = play_a_random_bank(rng, opened.id)
            g = group(fridays.id)
            service.keep_night(g.id, opened.id, g.version, None)
            bought = {p: sum(c for k, who, c in live.values() if k == "all" or (k == "rebuy" and who == p))
                      for p in PLAYERS}
            counts = {who: c for k, who, c in live.values() if k == "cash_out"}
            found = counted(night(opened.id))
            if set(counts) == set(PLAYERS) and sum(counts.values()) == sum(bought.values()):
                balanced += 1
                assert found.result is not None, found.in_play
                assert dict(found.result.net) == {p: counts[p] - bought[p] for p in PLAYERS}
                report = service.report_of(night(opened.id))
                assert {p.name: p.net_chips for p in report.players} == dict(found.result.net)
                assert [(t.payer, t.payee, t.amount) for t in found.result.planned] == [
                    (line.payer, line.payee, line.money) for line in report.plan]
            else:
                assert found.result is None and not found.broken
        assert balanced >= 6  # the seed plays enough nights to the end
        view = service.group_view(group(fridays.id))
        assert not [n for n in view.in_play if "cannot be counted" in n.reason]
        # the whole group, written and read back, counts every night the same
        again = service.import_group(service.export_group(group(fridays.id)))
        assert [dict(k.result.net) for k in service.group_view(group(again.id)).nights] == [
            dict(k.result.net) for k in view.nights]
