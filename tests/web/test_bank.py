"""The chip bank, the Bonus Round and dealer's choice through the web (issue 13), values worked by hand.

The night: Ann, Ben, Cat, Dan (chip 0.25 EUR), Napalm, ante 1, antes returned at the end.
Ben and Cat say Yes and Cat wins: the antes (1 each, pot 4) stay in the pot and Ben pays
Cat 4 (side bet).  The game closes with its pot of 4 returned: Ann 0, Ben −4, Cat +4, Dan 0.

Everyone buys in 100 (400 out of the bank).  Counts Ann 100, Ben 96, Cat 104, Dan 100:
400 back, and each equals bought + the tally (100 + 0, 100 − 4, 100 + 4, 100 + 0).
On counts: Ben −4, Cat +4; Ben pays Cat 4 chips (1.00 EUR).
"""

from __future__ import annotations

import json
from html import unescape
import random
import re
from typing import Any

import pytest

from companion.service import bank as bank_service
from companion.service import night_ledger
from companion import service as services
from companion.extensions import db
from companion.games import GAMES
from companion.night import bonus as bonus_mod
from companion.games.web import offers_of
from companion.db.models import Event, Night
from pages import BankPage, TablePage

PLAYERS = ("Ann", "Ben", "Cat", "Dan")


def events(app, key: str) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == key))
        rows = db.session.scalars(db.select(Event).where(Event.night_id == night.id).order_by(Event.seq))
        return [(e.kind, e.payload) for e in rows]


def bank_events(app, key: str) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def]
    return [(k, p) for k, p in events(app, key) if k in bank_service.KINDS]


def paid_stamp(client, night) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The report's confirming "Mark paid" form for Ben paying Cat 4 (the games' plan)."""
    report = client.get(f"{night.url}/report?payer=Ben&payee=Cat&chips=4").get_data(as_text=True)
    form = re.search(r'action="[^"]*/paid" class="confirm"[^>]*>(.*?)</form>', report, re.S)
    assert form
    return {k: re.search(rf'name="{k}"[^>]*value="([^"]+)"', form.group(1)).group(1) for k in ("version", "request_key")}


@pytest.fixture
def night(start_night):  # type: ignore[no-untyped-def]
    """The table after Cat won Ben's Yes: the game closes at Ann 0, Ben −4, Cat +4, Dan 0."""
    page = start_night()
    page.declare("Ben", "Cat")
    page.winner("Cat")
    return page


def test_the_night_settles_on_the_tally_by_default_and_the_bank_page_says_so(client, night):
    bank = BankPage(client, night)
    assert bank.status == 200
    assert 'data-settle-on="tally"' in bank.html
    assert "Settle on chip counts (the bank) instead" in bank.html


def test_everyone_buys_in_then_the_counts_settle_the_night(client, app, night):
    bank = BankPage(client, night)
    assert bank.settle_on("bank").status_code == 303
    assert 'data-settle-on="bank"' in bank.html
    assert "Not settled yet: nobody has bought in yet" in bank.html

    # one tap after the amount: one event for the whole table
    assert bank.everyone("100").status_code == 303
    assert "Everyone bought in 100 chips (25.00 EUR): Ann, Ben, Cat and Dan." in bank.html
    assert [bank.figure(n, "bought") for n in PLAYERS] == [100, 100, 100, 100]
    assert bank_events(app, night.key)[-1] == ("all_buy_in", {"chips": 100})
    assert re.search(r"data-in-play>400<", bank.html)
    assert "Still to cash out: Ann, Ben, Cat and Dan." in bank.html
    # the app's tally says what each count should be: bought + tally
    assert [bank.figure(n, "expected") for n in PLAYERS] == [100, 96, 104, 100]

    for name, count in zip(PLAYERS, ("100", "96", "104", "100")):
        assert bank.player(name, "cash_out", count).status_code == 303
    assert "Not settled yet" not in bank.html
    assert "every count matches bought + the app" in bank.html
    assert [bank.figure(n, "result") for n in PLAYERS] == [0, -4, 4, 0]
    assert bank.plan() == ["Ben>Cat:4"]
    assert "<strong>Ben</strong> pays <strong>Cat</strong> 4 chips (1.00 EUR)" in bank.html
    with app.app_context():
        n = db.session.scalar(db.select(Night).where(Night.keeper_key == night.key))
        assert bank_service.settle_block(n) is None
        # the report's hook: the night's balances are games + this, i.e. the counts − bought
        assert bank_service.extra_net_chips(n) == {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}


def test_a_count_off_the_tally_is_shown_per_player_and_blocks_the_settle_up(client, app, night):
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    # Ben's 2 chips ended in Cat's stack off the app's books: the bank balances (400), the counts do not match
    for name, count in zip(PLAYERS, ("100", "94", "106", "100")):
        bank.player(name, "cash_out", count)
    assert "Not settled yet: The counts do not match bought + the app&#39;s tally: Ben counted 94, expected 96 (-2), " \
           "Cat counted 106, expected 104 (+2). Check those counts." in bank.html
    assert bank.figure("Ben", "difference") is None  # the figure is the attribute below
    assert 'data-difference="-2"' in bank.html and 'data-difference="2"' in bank.html
    assert bank.plan() == []
    with app.app_context():
        n = db.session.scalar(db.select(Night).where(Night.keeper_key == night.key))
        assert bank_service.bank_results(n) is None
    # the report offers no payment while the bank does not balance, and a "Mark paid" sent
    # anyway (a report opened before, on another phone) is refused: nothing stored
    report = client.get(f"{night.url}/report").get_data(as_text=True)
    assert "No payments yet, and nothing to mark paid: the bank is not balanced." in report and "Mark paid" not in report
    before = len(events(app, night.key))
    stamp = {"version": str(len(events(app, night.key))), "request_key": services.new_key()}
    response = client.post(f"{night.url}/paid", data={**stamp, "payer": "Ben", "payee": "Cat", "chips": "4"})
    assert response.status_code == 422
    assert "the night settles on chip counts: The counts do not match" in response.get_data(as_text=True)
    assert len(events(app, night.key)) == before

    # a recount is a cancel and a new cash-out: the wrong counts stay in the log
    seqs = [int(s) for s in re.findall(r'<li class="" data-seq="(\d+)"', bank.html)]
    ben_wrong = max(seqs) - 2  # the cash-outs were Ann, Ben, Cat, Dan, newest first on the page
    assert "Ben cashed out 94" in bank.html.split(f'data-seq="{ben_wrong}"')[1].split("</li>")[0]
    assert bank.cancel(ben_wrong).status_code == 303
    assert bank.cancel(ben_wrong + 1).status_code == 303
    bank.player("Ben", "cash_out", "96")
    bank.player("Cat", "cash_out", "104")
    assert "Not settled yet" not in bank.html and bank.plan() == ["Ben>Cat:4"]
    assert f"(cancelled by #" in bank.html and "Ben cashed out 94 chips" in bank.html
    kinds = [k for k, _ in bank_events(app, night.key)]
    assert kinds.count("cash_out") == 6 and kinds.count("bank_cancel") == 2


def test_without_a_tally_the_bank_must_balance_and_says_whose_count_to_check(client, app, night, monkeypatch):
    # a night with a game the app does not record chip by chip: only the bank's balance is checked
    monkeypatch.setattr(night_ledger, "records_chip_by_chip", lambda night: False)  # where the bank's reads ask it
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    bank.player("Ann", "rebuy", "50")  # Ann: 150 bought; 450 out of the bank
    for name, count in zip(PLAYERS, ("160", "90", "120", "90")):  # 460 back: 10 more than bought
        bank.player(name, "cash_out", count)
    assert ("The bank does not balance: 10 chips more cashed out (460) than bought (450). "
            "Recount, biggest stacks first: Ann, Cat, Ben and Dan.") in bank.html
    assert 'class="bank-difference" data-difference="10"' in bank.html
    assert "Check: <strong>Ann</strong>, <strong>Cat</strong>, <strong>Ben</strong>, <strong>Dan</strong>." in bank.html
    # Cat recounts: 110
    cat = [int(s) for s in re.findall(r'data-seq="(\d+)"', bank.html)][1]
    bank.cancel(cat)
    bank.player("Cat", "cash_out", "110")
    # counts − bought: Ann 160 − 150 = +10, Ben −10, Cat +10, Dan −10
    assert [bank.figure(n, "result") for n in PLAYERS] == [10, -10, 10, -10]
    assert sorted(bank.plan()) == ["Ben>Ann:10", "Dan>Cat:10"]


def test_an_early_leaver_cashes_out_and_the_others_are_still_to_count(client, night):
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    assert bank.player("Dan", "cash_out", "100").status_code == 303
    assert "Dan cashed out 100 chips, counted (25.00 EUR)." in bank.html
    assert "Still to cash out: Ann, Ben and Cat." in bank.html
    # Dan has cashed out: no more buy-in buttons for him, and a rebuy is refused
    response = bank.player("Dan", "rebuy", "50")
    assert response.status_code == 422
    assert "Dan has cashed out; cancel the cash-out first to buy more chips" in bank.html


@pytest.mark.parametrize(
    "action, player, chips, message",
    [
        ("buy_in", "Ann", "-5", "the buy-in cannot be negative (you entered -5)"),
        ("buy_in", "Ann", "ten", "the buy-in must be a whole number of chips in digits 0-9, not \u201cten\u201d"),
        ("buy_in", "Ann", "2.5", "not \u201c2.5\u201d"),
        ("buy_in", "Ann", "", "enter the buy-in as a whole number of chips"),
        ("buy_in", "Ann", "0", "the buy-in must be 1 to 1,000,000,000 chips"),
        ("cash_out", "Ben", "40", "Ben never bought in, so has nothing to cash out"),
        ("cash_out", "Ann", "-1", "Ann&#39;s count cannot be negative"),
        ("rebuy", "Cat", "10", "Cat has not bought in yet: record a buy-in"),
    ],
)
def test_a_bad_bank_entry_gets_a_clear_message_and_a_4xx_and_nothing_is_stored(
    client, app, night, action, player, chips, message
):
    bank = BankPage(client, night)
    bank.player("Ann", "buy_in", "100")
    before = events(app, night.key)
    response = bank.player(player, action, chips)
    assert response.status_code == 422
    assert response.history and response.history[0].status_code == 303  # Post/Redirect/Get, then the 422
    assert message in bank.html
    assert "Not recorded:" in bank.html
    assert events(app, night.key) == before
    # what was typed is still in the player's field
    if chips:
        assert f'name="chips" value="{chips}"' in bank.form("bank/player", f'data-player="{player}"')


def test_not_a_seated_player_or_a_made_up_action_is_refused(client, app, night):
    bank = BankPage(client, night)
    before = events(app, night.key)
    stamp = bank.stamp("bank/player", 'data-player="Ann"')
    r = client.post(f"{night.url}/bank/player", data={**stamp, "player": "Zed", "action": "buy_in", "chips": "5"})
    assert r.status_code == 422 and "\u201cZed\u201d is not seated tonight" in r.get_data(as_text=True)
    r = client.post(f"{night.url}/bank/player", data={**stamp, "player": "Ann", "action": "steal", "chips": "5"})
    assert r.status_code == 400 and "Choose buy in, rebuy or cash out" in r.get_data(as_text=True)
    r = client.post(f"{night.url}/bank/everyone", data={"chips": "100"})  # no version, no key
    assert r.status_code == 400 and "Nothing was recorded" in r.get_data(as_text=True)
    r = client.post(f"{night.url}/bank/cancel", data={**stamp, "seq": "1"})  # #1 is the game's declare
    assert r.status_code == 422 and "there is no bank event #1" in r.get_data(as_text=True)
    assert events(app, night.key) == before


def test_a_doubled_submit_records_once_and_a_stale_one_not_at_all(client, app, night):
    bank = BankPage(client, night)
    stamp = bank.stamp("bank/everyone")
    first = client.post(f"{night.url}/bank/everyone", data={**stamp, "chips": "100"})
    again = client.post(f"{night.url}/bank/everyone", data={**stamp, "chips": "100"})
    assert first.status_code == again.status_code == 303
    page = client.get(again.headers["Location"]).get_data(as_text=True)
    assert "Already recorded: Everyone bought in 100 chips" in page
    assert [k for k, _ in bank_events(app, night.key)] == ["all_buy_in"]
    # the same key with other content
    other = client.post(f"{night.url}/bank/everyone", data={**stamp, "chips": "200"})
    assert other.status_code == 409 and "already submitted with different content" in other.get_data(as_text=True)
    # a form from before the buy-in (an older version), with a new key
    stale = {**stamp, "request_key": "x" * 20}
    response = client.post(f"{night.url}/bank/player", data={**stale, "player": "Ann", "action": "rebuy", "chips": "5"})
    assert response.status_code == 409 and "The table changed since this screen was shown" in response.get_data(as_text=True)
    assert [k for k, _ in bank_events(app, night.key)] == ["all_buy_in"]


def test_a_tap_in_the_first_moments_of_the_next_bank_screen_records_nothing(client, app, night):
    """The second tap of a double tap lands on the next screen's button (issue 14, bug 2): the guard refuses it."""
    bank = BankPage(client, night)
    bank.everyone("100")
    app.config["TAP_GUARD_MS"] = 1000
    before = events(app, night.key)
    response = bank.player("Ann", "rebuy", "50")  # on the screen the buy-in just opened, at once
    assert response.status_code == 409 and "That tap came as the screen changed" in bank.html
    assert events(app, night.key) == before
    app.config["TAP_GUARD_MS"] = 0
    assert bank.player("Ann", "rebuy", "50").status_code == 303


def test_the_setting_cannot_change_once_a_payment_is_marked(client, app, night):
    bank = BankPage(client, night)
    old_screen = bank.stamp("bank/setting")  # a Bank page opened before the payment was marked
    stamp = paid_stamp(client, night)
    assert client.post(f"{night.url}/paid", data={**stamp, "payer": "Ben", "payee": "Cat", "chips": "4"}).status_code == 303
    # issue 20 item 13: the switch is no longer offered, and the page says why
    bank.refresh()
    assert "/bank/setting" not in bank.html
    assert "Settle-up payments are marked paid: what the night settles on can no longer change." in bank.html
    before = events(app, night.key)
    old_screen["version"] = str(len(before))  # the older screen's form, sent at the current version
    assert bank.post("bank/setting", {"on": "bank"}, stamp=old_screen).status_code == 422
    assert "settle-up payments are already marked: the night&#39;s setting can no longer change" in bank.html
    assert events(app, night.key) == before


def test_the_players_link_cannot_use_the_bank(client, app, night):
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == night.key))
    for path in ("bank", "bonus", "bonus/grid", "choice"):
        assert client.get(f"/k/{viewer}/{path}").status_code == 403
    assert client.post(f"/k/{viewer}/bank/everyone", data={"chips": "1"}).status_code == 403


def test_the_history_describes_the_bank_events(client, night):
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    history = client.get(f"{night.url}/history").get_data(as_text=True)
    assert "The night settles on chip counts (the bank)." in history
    assert "Everyone bought in 100 chips." in history


# --- the Bonus Round ---------------------------------------------------------------------------


class Dice:
    """A random source that gives these faces, in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


def fixed_dice(monkeypatch, *faces: int) -> None:  # type: ignore[no-untyped-def]
    dice = Dice(*faces)
    monkeypatch.setattr(bank_service, "roll_dice", lambda grid, roller, rng=None: bonus_mod.roll(grid, roller, dice))


def grid_form(**extra: str) -> dict[str, str]:
    cells = {f"cell_{r}-{c}": f"Game {r}-{c}" for r in range(1, 7) for c in range(1, 7)}
    cells["cell_3-4"] = "Mountain"
    return {"dice": "2d6", "lucky_chips": "1", "bonus_cells": "1-1", "bonus_chips": "2", "anti_cells": "6-6",
            "anti_chips": "3", **cells, **extra}


def fill_grid(client, night, **extra: str):  # type: ignore[no-untyped-def]
    page = BankPage(client, night, "bonus/grid")
    return page, page.post("bonus/grid", grid_form(**extra))


def test_the_bonus_round_rolls_shows_the_game_and_records_the_payments(client, app, night, monkeypatch):
    bonus = BankPage(client, night, "bonus")
    assert "Fill a 6×6 grid (two dice)" in bonus.html
    page, response = fill_grid(client, night)
    assert response.status_code == 303
    assert events(app, night.key)[-1][0] == "bonus_grid"
    bonus.refresh()

    # the next dealer rolls: Ann dealt the hand Cat won, so Ben deals next
    assert re.search(r'<option selected value="Ben">|<option value="Ben" selected>', bonus.html)
    fixed_dice(monkeypatch, 1, 1)
    assert bonus.post("bonus/roll", {"roller": "Ben"}).status_code == 303
    assert 'data-game="Game 1-1"' in bonus.html and 'data-faces="1-1"' in bonus.html
    assert "Ben rolled 1-1: Game 1-1. Bonus: everyone pays Ben 2." in bonus.html
    assert events(app, night.key)[-1] == ("bonus_roll", {"dice": "2d6", "faces": [1, 1], "game": "Game 1-1", "roller": "Ben"})

    # Ann's lucky number: 3-4; Cat rolls it: Cat pays Ann 1
    fixed_dice(monkeypatch, 3, 4)
    bonus.post("bonus/lucky", {"player": "Ann"})
    assert "Ann&#39;s lucky number is 3-4." in bonus.html
    fixed_dice(monkeypatch, 3, 4)
    bonus.post("bonus/roll", {"roller": "Cat"})
    assert 'data-game="Mountain"' in bonus.html
    assert "Cat rolled 3-4: Mountain. Ann&#39;s lucky number: Cat pays Ann 1." in bonus.html
    # the anti-bonus: Dan rolls 6-6 and pays everyone 3
    fixed_dice(monkeypatch, 6, 6)
    bonus.post("bonus/roll", {"roller": "Dan"})
    assert "Anti-bonus: Dan pays everyone 3." in bonus.html

    # by hand: Ann −2 +1 +3 = +2; Ben +6 +3 = +9; Cat −2 −1 +3 = 0; Dan −2 −9 = −11
    with app.app_context():
        n = db.session.scalar(db.select(Night).where(Night.keeper_key == night.key))
        assert bank_service.extra_net_chips(n) == {"Ann": 2, "Ben": 9, "Cat": 0, "Dan": -11}
        # the app's tally: the game (0, −4, +4, 0) + the bonus payments
        assert bank_service.tally_of(n) == {"Ann": 2, "Ben": 5, "Cat": 4, "Dan": -11}
    for name, chips in (("Ann", "+2"), ("Ben", "+9"), ("Cat", "0"), ("Dan", "-11")):
        assert re.search(rf'data-player="{name}"><th scope="row">{name}</th><td class="num net[^"]*">{re.escape(chips)}<', bonus.html)


def test_a_roll_sent_twice_is_rolled_once(client, app, night, monkeypatch):
    fill_grid(client, night)
    bonus = BankPage(client, night, "bonus")
    stamp = bonus.stamp("bonus/roll")
    fixed_dice(monkeypatch, 2, 5, 5, 2)
    first = client.post(f"{night.url}/bonus/roll", data={**stamp, "roller": "Ben"})
    again = client.post(f"{night.url}/bonus/roll", data={**stamp, "roller": "Ben"})
    assert first.status_code == again.status_code == 303
    assert "Already recorded: Ben rolled 2-5: Game 2-5." in client.get(again.headers["Location"]).get_data(as_text=True)
    assert [p["faces"] for k, p in events(app, night.key) if k == "bonus_roll"] == [[2, 5]]


def test_the_app_rolls_with_secrets(client, app, night, monkeypatch):
    fill_grid(client, night)
    used = []

    class Spy(random.Random):
        def randint(self, a: int, b: int) -> int:
            used.append((a, b))
            return super().randint(a, b)

    monkeypatch.setattr(bonus_mod.secrets, "SystemRandom", Spy)
    bonus = BankPage(client, night, "bonus")
    assert bonus.post("bonus/roll", {"roller": "Ben"}).status_code == 303
    assert used == [(1, 6), (1, 6)]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"cell_2-3": ""}, "cell 2-3 needs a game&#39;s name"),
        ({"cell_2-3": "x" * 41}, "cell 2-3: a game&#39;s name is at most 40 characters"),
        ({"bonus_cells": "7-1"}, "\u201c7-1\u201d is not a cell of this grid"),
        ({"bonus_chips": "-2"}, "a bonus&#39;s chips cannot be negative"),
        ({"anti_cells": "1-1"}, "cell 1-1 is marked twice"),
        ({"lucky_chips": "lots"}, "a lucky number&#39;s chips must be a whole number of chips"),
        ({"dice": "3d6"}, "choose two dice (6×6) or a 20-sided die"),
    ],
)
def test_a_bad_grid_is_refused_naming_the_cell_and_nothing_is_stored(client, app, night, change, message):
    before = events(app, night.key)
    page, response = fill_grid(client, night, **change)
    assert response.status_code == 422
    assert message in page.html
    assert events(app, night.key) == before
    if "cell_2-3" not in change and change.get("dice") != "3d6":
        assert 'value="Mountain"' in page.html  # what was typed is kept


def test_a_roll_before_the_grid_is_refused(client, app, night):
    bonus = BankPage(client, night, "bonus")
    stamp = BankPage(client, night).stamp("bank/everyone")
    before = events(app, night.key)
    r = client.post(f"{night.url}/bonus/roll", data={**stamp, "roller": "Ben"})
    assert r.status_code == 422 and "fill in the Bonus Round&#39;s grid first" in r.get_data(as_text=True)
    assert events(app, night.key) == before
    assert bonus.status == 200


def test_a_d20_grid(client, app, night, monkeypatch):
    page = BankPage(client, night, "bonus/grid?dice=d20")
    cells = {f"cell_{i}": ("NASDAQ" if i == 17 else f"Game {i}") for i in range(1, 21)}
    assert page.post("bonus/grid", {"dice": "d20", "lucky_chips": "2", **cells}).status_code == 303
    fixed_dice(monkeypatch, 17)
    bonus = BankPage(client, night, "bonus")
    bonus.post("bonus/roll", {"roller": "Ben"})
    assert 'data-game="NASDAQ"' in bonus.html and "Ben rolled 17: NASDAQ." in bonus.html


def test_bonus_payments_count_in_the_bank_check(client, app, night, monkeypatch):
    fill_grid(client, night)
    fixed_dice(monkeypatch, 1, 1)
    BankPage(client, night, "bonus").post("bonus/roll", {"roller": "Ben"})  # everyone pays Ben 2 (in chips)
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    # tally: the game (0, −4, +4, 0) + the bonus (−2, +6, −2, −2) = (−2, +2, +2, −2)
    assert [bank.figure(n, "expected") for n in PLAYERS] == [98, 102, 102, 98]
    for name, count in zip(PLAYERS, ("98", "102", "102", "98")):
        bank.player(name, "cash_out", count)
    assert sorted(bank.plan()) == ["Ann>Ben:2", "Dan>Cat:2"]


# --- dealer's choice ------------------------------------------------------------------------------


def test_dealers_choice_offers_the_last_games_first_and_opens_the_next_game(client, night):
    page = BankPage(client, night, "choice")
    assert "Dealer's choice: Ben picks the next game" in page.html
    offers = re.findall(r'data-game="([^"]+)"(?: data-offer="[^"]+")? href="([^"]+)"', page.html)
    assert offers[0][0] == "napalm" and "(played tonight)" in page.html
    # tap 2: the game's next-game screen, filled in; tap 3 starts it
    html = client.get(offers[0][1].replace("&amp;", "&")).get_data(as_text=True)
    assert "The next game" in html and 'name="rules_of" value="napalm"' in html


def offered(html: str) -> list[tuple[str, str, str]]:
    """Each offer of the choice page: (game kind, offer key or "", the name on the button)."""
    return [
        (kind, offer, name.strip())
        for kind, offer, name in re.findall(
            r'<a class="button big[^"]*" data-game="([^"]+)"(?: data-offer="([^"]+)")? href="[^"]+">([^<]+)', html
        )
    ]


#: the offers of the app's own games, worked out by hand: each game by its title, the pot games by
#: their presets' names in their order (companion/games/pots/presets.py)
OWN_OFFERS = {
    "napalm": ["Napalm"],
    "nap": ["Nap"],
    "pots": ["Tips to the Fat One", "High Card", "Mountain", "NASDAQ", "Mystery Wheelbarrow", "Fixed-stake pot"],
    "betting": ["Poker with real betting"],
}


def offers_in_order(*latest_first: str) -> list[str]:
    """The names the choice page offers: ``latest_first`` (the games played tonight, the latest first),
    then every registered game's offers in the registry's order, those played left out; a game besides
    the app's own (installed beside them, or a test's own) by its offers' names, or once by its title."""
    names = list(latest_first)
    for kind in GAMES:
        own = OWN_OFFERS.get(kind) or [name for name, _ in offers_of(kind).values()] or [GAMES[kind].title]
        names += [name for name in own if name not in latest_first]
    return names


def test_dealers_choice_offers_each_game_by_its_name_the_latest_played_first(client, app, night):
    """Played tonight: Napalm (the fixture), then Tips to the Fat One (a pot game's preset).
    Offered: Tips (latest), Napalm, then the rest in the group's order: Nap, the pot games'
    other presets in their order (High Card, Mountain, NASDAQ, Mystery Wheelbarrow, Fixed-stake
    pot), Poker with real betting.  Each preset is its own button, linked to its offer."""
    html = BankPage(client, night, "choice").html
    assert [name for _, _, name in offered(html)] == offers_in_order("Napalm")
    tips = re.search(r'data-offer="tips_to_the_fat_one" href="([^"]+)"', html)
    assert tips and tips.group(1) == f"{night.url}/next-game?game=pots&amp;offer=tips_to_the_fat_one"
    # start Tips to the Fat One through its offer's page, as the dealer would
    page = client.get(tips.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert "<h2>Tips to the Fat One</h2>" in page
    form = re.search(r'<form method="post" action="([^"]+)" class="night next-game">(.*?)</form>', page, re.S)
    assert form
    data: dict[str, Any] = {k: v for k, v in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(2))}
    for name in ("version", "request_key"):
        data[name] = re.search(rf'name="{name}"[^>]*value="([^"]+)"', form.group(2)).group(1)  # type: ignore[union-attr]
    data["players"] = re.findall(r'name="players" value="(\w+)" checked', form.group(2))
    data["game"] = re.search(r'<select name="game".*?<option selected value="([\w:]+)">', form.group(2), re.S).group(1)  # type: ignore[union-attr]  # the Game list
    data["first_dealer"] = "Ben"
    data["stake_a"], data["stake_b"] = "2", "3"
    response = client.post(form.group(1).replace("&amp;", "&"), data=data)
    assert response.status_code == 303, response.get_data(as_text=True)[-1000:]
    html = BankPage(client, night, "choice").html
    names = [name for _, _, name in offered(html)]
    assert names == offers_in_order("Tips to the Fat One", "Napalm"), names
    assert offered(html)[0] == ("pots", "tips_to_the_fat_one", "Tips to the Fat One")
    assert offered(html)[1] == ("napalm", "", "Napalm")
    assert html.count("(played tonight)") == 2
    assert 'class="button big primary" data-game="pots" data-offer="tips_to_the_fat_one"' in html


def start_from(client, url: str, **fields: Any) -> str:  # type: ignore[no-untyped-def]
    """Open a next-game screen at ``url`` (as a dealer's choice button does) and start it, everyone in,
    Ann dealing, with ``fields`` as typed; the screen shown is returned."""
    html = client.get(url.replace("&amp;", "&")).get_data(as_text=True)
    stamp = {k: re.search(rf'name="{k}"[^>]*value="([^"]+)"', html).group(1) for k in ("version", "request_key")}  # type: ignore[union-attr]
    action = re.search(r'<form method="post" action="([^"]+)" class="night next-game">', html).group(1)  # type: ignore[union-attr]
    form = {"game": "betting", "players": list(PLAYERS), "first_dealer": "Ann", **fields}
    response = client.post(action.replace("&amp;", "&"), data={**stamp, **form})
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    return html


def choice_link(html: str, name: str) -> str:
    found = re.search(r'href="([^"]+)">' + re.escape(name.replace("'", "&#39;")) + r"(?: <small>|</a>)", html)
    assert found, name
    return found.group(1)


def test_dealers_choice_offers_poker_with_real_betting_by_each_variant_played(client, app, night):
    """Issue 35: poker played with real betting under the bank is offered by the name the group typed.
    Played tonight: Napalm (the fixture), then Poker with real betting as "Texas hold'em", then as
    "Omaha".  Offered, the latest first: Omaha, Texas hold'em, Napalm; then every other offer in the
    group's order, the bare "Poker with real betting" among them (no game played under it yet).  Each
    variant's button opens the next game with the rules of the last game played under that name (so
    Texas hold'em's is "Texas hold'em", not Omaha, the last of its kind); the bare title, the defaults."""
    start_from(client, f"{night.url}/next-game?game=betting", variant="Texas hold'em")
    html = BankPage(client, night, "choice").html
    # the second poker game from the bare title's button, the variant typed anew
    start_from(client, choice_link(html, "Poker with real betting"), variant="Omaha")
    html = BankPage(client, night, "choice").html
    assert [name for _, _, name in offered(unescape(html))] == offers_in_order("Omaha", "Texas hold'em", "Napalm")
    assert html.count("(played tonight)") == 3
    assert offered(unescape(html))[:2] == [("betting", "", "Omaha"), ("betting", "", "Texas hold'em")]

    holdem = client.get(unescape(choice_link(html, "Texas hold'em"))).get_data(as_text=True)
    assert "<h2>Texas hold&#39;em</h2>" in holdem
    assert re.search(r'name="variant"[^>]*value="Texas hold&#39;em"', holdem)
    bare = client.get(unescape(choice_link(html, "Poker with real betting"))).get_data(as_text=True)
    assert "<h2>Poker with real betting</h2>" in bare
    assert re.search(r'name="variant"[^>]*value=""', bare)
    # a name never played tonight is no heading: the game's title, from the last game of the kind (Omaha)
    made_up = client.get(f"{night.url}/next-game?game=betting&named=Craps").get_data(as_text=True)
    assert "<h2>Poker with real betting</h2>" in made_up and "Craps" not in made_up
    assert re.search(r'name="variant"[^>]*value="Omaha"', made_up)
    # the table names the game at it by its variant too
    table = client.get(night.url).get_data(as_text=True)
    assert "Tonight's 3rd game: Omaha</p>" in table.replace("&#39;", "'")
    assert "<strong>2nd: Texas hold&#39;em</strong>" in table


# --- the night file ---------------------------------------------------------------------------------


def test_the_bank_and_the_rolls_go_out_in_the_night_file_and_come_back(client, app, night, monkeypatch):
    fill_grid(client, night)
    fixed_dice(monkeypatch, 1, 1)
    BankPage(client, night, "bonus").post("bonus/roll", {"roller": "Ben"})  # everyone pays Ben 2
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    bank.player("Ann", "cash_out", "90")  # wrong: cancelled, and left out of the file
    bank.cancel(int(re.findall(r'data-seq="(\d+)"', bank.html)[0]))
    for name, count in zip(PLAYERS, ("98", "102", "102", "98")):
        bank.player(name, "cash_out", count)
    exported = client.get(f"{night.url}/export.json").get_data(as_text=True)
    document = json.loads(exported)
    # issue 20 item 1: the rule changed: bank records settle the night on the counts, so the file
    # need not say so ("settle_on" is written only for a choice the rule would not make)
    assert "settle_on" not in document
    assert document["bank"] == [{"everyone_buys_in": 100}] + [
        {"cash_out": n, "chips": c} for n, c in zip(PLAYERS, (98, 102, 102, 98))
    ]
    assert document["bonus"][0]["rolls"] == [{"roller": "Ben", "faces": [1, 1], "game": "Game 1-1"}]
    assert document["bonus"][0]["grid"]["bonuses"] == {
        "1-1": {"kind": "everyone_pays_dealer", "chips": 2}, "6-6": {"kind": "dealer_pays_everyone", "chips": 3},
    }
    with app.app_context():
        copy = services.import_history(exported, name="Copy")
        assert bank_service.bank_results(copy) == {"Ann": -2, "Ben": 2, "Cat": 2, "Dan": -2}
        assert bank_service.ledger_of(copy).bonus_net == {"Ann": -2, "Ben": 6, "Cat": -2, "Dan": -2}
        assert services.export_history(copy).replace('"Copy"', '"Friday"') == exported


def test_the_report_include_shows_the_bank_and_the_bonus_payments(client, app, night, monkeypatch):
    from flask import render_template_string

    fill_grid(client, night)
    fixed_dice(monkeypatch, 1, 1)
    BankPage(client, night, "bonus").post("bonus/roll", {"roller": "Ben"})
    include = '{% include "bank/_report.html" %}'
    with app.test_request_context():
        n = db.session.scalar(db.select(Night).where(Night.keeper_key == night.key))
        html = render_template_string(include, night=n, keeper=True)
        assert "This night settles on the app&#39;s tally: the games and the Bonus Round&#39;s payments " \
               "(nobody has bought chips from the bank)." in html
        assert "Bonus Round payments (1 roll), in the balances:" in html
        assert '<span data-bonus="Ben">Ben +6</span>' in html and '<span data-bonus="Ann">Ann -2</span>' in html
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    with app.test_request_context():
        n = db.session.scalar(db.select(Night).where(Night.keeper_key == night.key))
        html = render_template_string(include, night=n, keeper=True)
        # why there are no payments is said once, in the payments' section (issue 20 item 4)
        assert "This night settles on chip counts (the bank)" in html and "Not settled yet" not in html
        players = render_template_string(include, night=n, keeper=False)
        assert n.keeper_key not in players
    report = client.get(f"{night.url}/report").get_data(as_text=True)
    assert report.count("Not settled yet: Still to cash out: Ann, Ben, Cat and Dan.") == 1
    assert f'href="{night.url}/bank"' in report
    for name, count in zip(PLAYERS, ("98", "102", "102", "98")):
        bank.player(name, "cash_out", count)
    with app.test_request_context():
        n = db.session.scalar(db.select(Night).where(Night.keeper_key == night.key))
        html = render_template_string(include, night=n, keeper=True)
        assert '<tr data-player="Ben"><th scope="row">Ben</th><td class="num">100</td><td class="num">102</td><td class="num">+2</td></tr>' in html
        assert "paid in chips at the table, so in the counts" in html


def test_quick_fill_puts_the_games_in_the_empty_cells_in_order(client, app, night):
    page = BankPage(client, night, "bonus/grid")
    form = {"dice": "2d6", "lucky_chips": "1", "quick": "High Card\n\nMountain\nNASDAQ\n", "cell_1-2": "Napalm"}
    assert page.post("bonus/grid", form).status_code == 303
    grid = [p for k, p in events(app, night.key) if k == "bonus_grid"][-1]["grid"]
    # 1-1 High Card, 1-2 typed, then Mountain, NASDAQ, High Card, … over the 35 empty cells
    assert grid["cells"][0] == ["High Card", "Napalm", "Mountain", "NASDAQ", "High Card", "Mountain"]
    # the 35 empty cells take games 0, 1, 2, 0, … of the list: the last (number 34) takes 34 mod 3 = 1, Mountain
    assert grid["cells"][5][5] == "Mountain"
    assert sum(row.count("High Card") for row in grid["cells"]) == 12  # numbers 0, 3, …, 33
    bad = page.post("bonus/grid", {"dice": "2d6", "quick": "x" * 41})
    assert bad.status_code == 422 and "quick fill: \u201cxxxxxxxxxxxxxxxxxxxx…\u201d is longer than 40 characters" in page.html


def _table_nets(html: str) -> dict[str, int]:
    rows = re.findall(r'data-player="(\w+)">.*?class="num net[^"]*">([^<]+)<', html, re.S)
    return {name: int(chips) for name, chips in rows}


def test_bonus_payments_count_in_the_report_the_standings_and_the_plan(client, app, night, monkeypatch):
    fill_grid(client, night)
    before = _table_nets(client.get(night.url).get_data(as_text=True))
    fixed_dice(monkeypatch, 1, 1)  # a bonus cell: everyone pays the roller, Ben, 2
    BankPage(client, night, "bonus").post("bonus/roll", {"roller": "Ben"})
    bonus = {"Ann": -2, "Ben": 6, "Cat": -2, "Dan": -2}
    # the table's standings move by the bonus payments alone
    after = _table_nets(client.get(night.url).get_data(as_text=True))
    assert {n: after[n] - before[n] for n in bonus} == bonus
    # the report by hand: the game as it closes (Ann 0, Ben -4, Cat +4, Dan 0) + the bonus
    expected = {"Ann": -2, "Ben": 2, "Cat": 2, "Dan": -2}
    report = client.get(f"{night.url}/report").get_data(as_text=True)
    nets = dict(re.findall(r'<tr data-player="(\w+)"><th scope="row"><a href="#player-\d">\w+</a><span class="name">\w+</span></th><td class="num[^"]*">([^<]+)<', report))
    assert {n: int(v.replace("\u2212", "-")) for n, v in nets.items()} == expected
    assert "Bonus Round" in report
    flows = dict.fromkeys(expected, 0)
    for payer, payee, chips in re.findall(r'data-payer="(\w+)" data-payee="(\w+)" data-chips="(\d+)"', report):
        flows[payer] -= int(chips)
        flows[payee] += int(chips)
    assert flows == expected  # the payments square the games and the bonus together


def test_on_chip_counts_the_standings_are_the_tally_the_counts_will_be_checked_against(client, app, night, monkeypatch):
    """The night above, settled on chip counts, everyone in for 100.  Ben rolls 1-1, a bonus cell:
    everyone pays him 2 at the table.  Until the counts are in, the table's standings are the app's
    tally (the game, then the bonus): Ann −1 − 2 = −3, Ben −5 + 6 = +1, Cat +3 − 2 = +1, Dan −1 − 2 = −3
    (the pot of 4 still out).  The counts that match it: the game closes at Ann 0, Ben −4, Cat +4,
    Dan 0, so 100 + 0 − 2 = 98, 100 − 4 + 6 = 102, 100 + 4 − 2 = 102, 98; then Ann and Dan each
    pay 2 (0.50 EUR)."""
    bank = BankPage(client, night)
    bank.settle_on("bank")
    bank.everyone("100")
    fill_grid(client, night)
    fixed_dice(monkeypatch, 1, 1)
    BankPage(client, night, "bonus").post("bonus/roll", {"roller": "Ben"})
    assert _table_nets(client.get(night.url).get_data(as_text=True)) == {"Ann": -3, "Ben": 1, "Cat": 1, "Dan": -3}
    bank.refresh()
    for name, count in (("Ann", "98"), ("Ben", "102"), ("Cat", "102"), ("Dan", "98")):
        assert bank.player(name, "cash_out", count).status_code == 303
    assert "every count matches bought + the app" in bank.html
    assert sorted(bank.plan()) == ["Ann>Ben:2", "Dan>Cat:2"] or sorted(bank.plan()) == ["Ann>Cat:2", "Dan>Ben:2"]


# --- issue 20 item 1: a night that uses the bank settles on the counts, without the switch -------------


def start_poker(client, night, status: int = 303):  # type: ignore[no-untyped-def]
    """After the Napalm game of the fixture, a game of Poker with real betting, everyone in, Ann deals
    (the answer must be ``status``; it is returned)."""
    html = client.get(f"{night.url}/next-game?game=betting").get_data(as_text=True)
    stamp = {k: re.search(rf'name="{k}"[^>]*value="([^"]+)"', html).group(1) for k in ("version", "request_key")}
    form = {"game": "betting", "players": list(PLAYERS), "first_dealer": "Ann", "variant": "Texas hold'em"}
    response = client.post(f"{night.url}/next-game", data={**stamp, **form})
    assert response.status_code == status
    return response


def counted_poker_night(  # type: ignore[no-untyped-def]
    client, night, each: str = "100", rebuy: str = "20", counts: tuple[str, ...] = ("90", "106", "124", "100")
) -> BankPage:
    """By default as in test_the_first_buy_in_puts_the_night_on_the_counts_without_touching_the_switch:
    Napalm (Ann 0, Ben −4, Cat +4, Dan 0), poker, everyone 100, Ben rebuys 20, counts 90, 106, 124,
    100: results Ann −10, Ben −14, Cat +24, Dan 0."""
    start_poker(client, night)
    bank = BankPage(client, night)
    bank.everyone(each)
    bank.player("Ben", "rebuy", rebuy)
    for name, count in zip(PLAYERS, counts):
        bank.player(name, "cash_out", count)
    return bank


def payments_offered(report: str) -> list[str]:
    """The report's payments that carry a "Mark paid" button, as payer>payee:chips."""
    offered = []
    for chunk in report.split('<li class="payment"')[1:]:
        found = re.match(r' data-payer="([^"]+)" data-payee="([^"]+)" data-chips="(\d+)">', chunk)
        if found and "Mark paid" in chunk.split('<li class="payment')[0].split("</ol>")[0]:
            offered.append("{}>{}:{}".format(*found.groups()))
    return offered


def test_the_first_buy_in_puts_the_night_on_the_counts_without_touching_the_switch(client, app, night):
    """Napalm (Ann 0, Ben −4, Cat +4, Dan 0), then Poker with real betting, whose pots the app never sees.
    Everyone buys in 100 (400 out), Ben rebuys 20 (420 out).  Counts: Ann 90, Ben 106, Cat 124, Dan 100:
    90 + 106 + 124 + 100 = 420 = bought, the bank balances.  Results, count − bought: Ann 90 − 100 = −10,
    Ben 106 − 120 = −14, Cat 124 − 100 = +24, Dan 0.  Fewest payments: Cat is the only one owed, so
    Ann pays Cat 10 (2.50 EUR) and Ben pays Cat 14 (3.50 EUR).  On the old default (the tally) the report
    offered only the Napalm game's Ben pays Cat 4."""
    start_poker(client, night)
    bank = BankPage(client, night)
    assert bank.everyone("100").status_code == 303
    assert bank.player("Ben", "rebuy", "20").status_code == 303
    sentence = ("This night settles on chip counts (the bank): Poker with real betting is played tonight, "
                "and the chips on the table settle its pots.")
    assert 'data-settle-on="bank"' in bank.html and sentence in unescape(bank.html)
    # the same words on the table and on the report; no tally switch (it could not be right)
    assert sentence in unescape(client.get(night.url).get_data(as_text=True))
    assert "/bank/setting" not in bank.html
    report = unescape(client.get(f"{night.url}/report").get_data(as_text=True))
    assert sentence in report
    # not balanced yet: no payment, no Mark paid, and what to do
    assert "No payments yet, and nothing to mark paid: the bank is not balanced." in report
    assert "Not settled yet: Still to cash out: Ann, Ben, Cat and Dan." in report
    assert "Count their chips and record each count on the Bank page (Cash out)" in report
    assert "Mark paid" not in report and 'class="payments"' not in report
    for name, count in zip(PLAYERS, ("90", "106", "124")):
        bank.player(name, "cash_out", count)
    report = client.get(f"{night.url}/report").get_data(as_text=True)
    assert "Not settled yet: Still to cash out: Dan." in unescape(report) and "Mark paid" not in report
    bank.player("Dan", "cash_out", "100")
    assert [bank.figure(n, "result") for n in PLAYERS] == [-10, -14, 24, 0]
    report = client.get(f"{night.url}/report").get_data(as_text=True)
    assert sorted(payments_offered(report)) == ["Ann>Cat:10", "Ben>Cat:14"]
    assert "2.50 EUR" in report and "3.50 EUR" in report


def test_a_night_on_the_counts_that_does_not_balance_offers_no_payment(client, app, night):
    """Napalm and poker; everyone buys in 100 (400); counts Ann 100, Ben 96, Cat 104, Dan 90: 390 back,
    10 short.  The report says why and what to do; a Mark paid sent anyway is refused."""
    start_poker(client, night)
    bank = BankPage(client, night)
    bank.everyone("100")
    for name, count in zip(PLAYERS, ("100", "96", "104", "90")):
        bank.player(name, "cash_out", count)
    report = unescape(client.get(f"{night.url}/report").get_data(as_text=True))
    assert "Not settled yet: The bank does not balance: 10 chips fewer cashed out (390) than bought (400)." in report
    assert "Recount on the Bank page: cancel the wrong cash-out in the bank's log, then record the right count" in report
    assert "Mark paid" not in report and 'class="payments"' not in report
    before = len(events(app, night.key))
    stamp = {"version": str(before), "request_key": services.new_key()}
    response = client.post(f"{night.url}/paid", data={**stamp, "payer": "Dan", "payee": "Cat", "chips": "4"})
    assert response.status_code == 422 and len(events(app, night.key)) == before


def test_a_poker_night_with_nobody_bought_in_is_on_the_counts_and_says_to_buy_in(client, night):
    start_poker(client, night)
    report = unescape(client.get(f"{night.url}/report").get_data(as_text=True))
    assert "Not settled yet: nobody has bought in yet" in report and "Mark paid" not in report
    assert "Record the buy-ins on the Bank page" in report


def test_a_night_recorded_chip_by_chip_may_choose_the_tally_and_the_report_says_so(client, app, night):
    """Only Napalm (Ann 0, Ben −4, Cat +4, Dan 0): the tally knows every chip.  After the buy-in the night is
    on the counts; the group chooses the tally instead: Ben pays Cat 4 (1.00 EUR) with nobody counting."""
    bank = BankPage(client, night)
    bank.everyone("100")
    assert 'data-settle-on="bank"' in bank.html
    assert bank.settle_on("tally").status_code == 303
    said = "This night settles on the app's tally, as chosen on the Bank page: the chips bought and counted are not used."
    assert said in unescape(bank.html)
    report = client.get(f"{night.url}/report").get_data(as_text=True)
    assert said in unescape(report)
    assert payments_offered(report) == ["Ben>Cat:4"]


def test_the_tally_is_refused_once_a_betting_game_is_in_the_night(client, app, night):
    bank = BankPage(client, night)
    stamp = bank.stamp("bank/setting")
    start_poker(client, night)
    before = events(app, night.key)
    stamp["version"] = str(len(before))
    assert bank.post("bank/setting", {"on": "tally"}, stamp=stamp).status_code == 422
    assert "Poker with real betting is played tonight: the chips on the table settle its pots" in unescape(bank.html)
    assert events(app, night.key) == before


def test_an_imported_file_with_bank_records_settles_on_the_counts(client, app):
    """tests/night/test_file.py's POKER_ON_COUNTS (issue 20 item 1): no "settle_on", bank records;
    count − bought = Ann −10, Ben +10, Cat 0, not the Napalm tally's Ben −3, Cat +3."""
    from night.test_file import POKER_ON_COUNTS

    document = POKER_ON_COUNTS
    with app.app_context():
        copy = services.import_history(json.dumps(document), name="Copy")
        assert bank_service.ledger_of(copy).settle_on == "bank"
        assert bank_service.bank_results(copy) == {"Ann": -10, "Ben": 10, "Cat": 0}


# --- issue 20 item 2: nothing moves a cashed-out player's chips --------------------------------------


def test_play_that_would_move_a_cashed_out_players_chips_is_refused_with_how_to_go_on(client, app, night):
    """Everyone buys in 100 (the night is on the counts); Cat cashes out.  In the next stage Ben and Cat
    say Yes (no chip moves: recorded) and Ben wins the showdown: Cat, the loser, would pay Ben the
    pot's size, chips out of her counted stack, so it is refused and nothing is stored.  Cancelling
    Cat's cash-out lets it through."""
    bank = BankPage(client, night)
    bank.everyone("100")
    bank.player("Cat", "cash_out", "104")
    night.refresh()
    assert night.declare("Ben", "Cat").status_code == 303  # a Yes moves no chip
    before = events(app, night.key)
    response = night.winner("Ben")
    assert response.status_code == 422
    assert ("Cat has cashed out, and this would move their chips after their count. To go on: cancel Cat&#39;s "
            "cash-out in the bank&#39;s log (Bank page), record this again, then count and cash out again.") in night.html
    assert events(app, night.key) == before
    cash_out = [seq for seq, (kind, _) in enumerate(events(app, night.key), start=1) if kind == "cash_out"][-1]
    bank.refresh()
    assert bank.cancel(cash_out).status_code == 303
    night.refresh()
    assert night.winner("Ben").status_code == 303


def test_the_next_game_is_refused_while_the_stopped_games_pot_would_give_chips_to_a_cashed_out_player(
    client, app, night
):
    """The fixture's Napalm: Ben and Cat said Yes (the antes: pot 4, 1 from each), Cat won.  Everyone
    buys in 100 (on the counts); Dan, leaving, is counted with his ante still in the pot: 99.  Starting
    Poker would stop Napalm and give each ante back (RULES.md, the default): 1 to Dan after his count,
    so it is refused and nothing is stored.  As the answer says: Dan's cash-out cancelled, Poker
    starts (the antes back), and Dan is counted again with his chip: 100."""
    bank = BankPage(client, night)
    bank.everyone("100")
    bank.player("Dan", "cash_out", "99")
    before = events(app, night.key)
    response = start_poker(client, night, status=422)
    assert ("Dan has cashed out, and this would move their chips after their count. To go on: cancel Dan&#39;s "
            "cash-out in the bank&#39;s log (Bank page)") in response.get_data(as_text=True)
    assert events(app, night.key) == before
    cash_out = [seq for seq, (kind, _) in enumerate(events(app, night.key), start=1) if kind == "cash_out"][-1]
    bank.refresh()
    assert bank.cancel(cash_out).status_code == 303
    start_poker(client, night)
    bank.refresh()
    assert bank.player("Dan", "cash_out", "100").status_code == 303


def test_the_next_game_starts_after_a_cash_out_when_nothing_of_that_players_is_in_the_pot(client, app, night):
    """Only a pot holding chips of a cashed-out player stops the next game.  After the fixture's Napalm
    a second Napalm starts without Dan (the first one's antes back: Dan 0); Ann and Cat say Yes: the
    antes of Ann, Ben and Cat, pot 3.  Everyone buys in 100; Dan, who sits out, cashes out 100 and
    leaves.  Poker starts: the pot of 3 goes back to Ann, Ben and Cat, nothing to Dan."""
    html = client.get(f"{night.url}/next-game?game=napalm").get_data(as_text=True)
    stamp = {k: re.search(rf'name="{k}"[^>]*value="([^"]+)"', html).group(1) for k in ("version", "request_key")}
    form = {"game": "napalm", "players": ["Ann", "Ben", "Cat"], "first_dealer": "Ben", "ante": "1", "ante_every": "1",
            "tokens_to_win": "5", "unfinished_pot": "return_antes"}
    assert client.post(f"{night.url}/next-game", data={**stamp, **form}).status_code == 303
    night.refresh()
    assert night.declare("Ann", "Cat").status_code == 303  # the antes of Ann, Ben and Cat: pot 3
    bank = BankPage(client, night)
    bank.everyone("100")
    bank.player("Dan", "cash_out", "100")
    start_poker(client, night)


def test_taking_back_a_game_is_refused_while_the_reopened_pot_would_take_chips_from_a_cashed_out_player(
    client, app, night
):
    """The mirror of the case above.  The fixture's Napalm (pot 4: each one's ante of 1); Poker starts
    and stops it: each ante back (Dan 0).  Everyone buys in 100; Dan leaves and is counted with his
    ante back in his stack: 100.  Taking Poker back (started by mistake, nothing recorded in it)
    would put Napalm at the table again with its pot of 4 as it was, Dan's ante in it again: his
    chips would move by −1 after his count, so it is refused and nothing is stored.  With Dan's
    cash-out cancelled, the take-back goes through."""
    from web.test_take_back import take_back

    start_poker(client, night)
    bank = BankPage(client, night)
    bank.everyone("100")
    bank.player("Dan", "cash_out", "100")
    before = events(app, night.key)
    night.refresh()
    response = take_back(client, night)
    assert response.status_code == 422
    assert ("Dan has cashed out, and this would move their chips after their count. To go on: cancel Dan&#39;s "
            "cash-out in the bank&#39;s log (Bank page)") in response.get_data(as_text=True)
    assert events(app, night.key) == before
    cash_out = [seq for seq, (kind, _) in enumerate(events(app, night.key), start=1) if kind == "cash_out"][-1]
    bank.refresh()
    assert bank.cancel(cash_out).status_code == 303
    night.refresh()
    assert take_back(client, night).status_code == 303
    assert night.pot() == 4  # Napalm at the table again, its pot as it was


def test_a_poker_deal_after_an_early_leaver_cashed_out_is_recorded(client, app, night):
    # a deal moves no chip the app records: Dan, who left early, is not in it
    start_poker(client, night)
    bank = BankPage(client, night)
    bank.everyone("100")
    bank.player("Dan", "cash_out", "100")
    night.refresh()
    assert night.post("deal", {}).status_code == 303


def test_a_bonus_roll_leaves_out_a_cashed_out_player_and_says_so(client, app, night, monkeypatch):
    """The grid's 1-1 is a bonus: everyone pays the dealer 2.  Everyone bought 100 (on the counts); Dan
    cashed out.  Ben rolls 1-1: Ann and Cat pay him 2 each (Ann −2, Ben +4, Cat −2), Dan nothing."""
    fill_grid(client, night)
    bank = BankPage(client, night)
    bank.everyone("100")
    bank.player("Dan", "cash_out", "100")
    bonus = BankPage(client, night, "bonus")
    assert "<strong>Dan</strong> has cashed out: a roll leaves them out of its payments" in bonus.html
    fixed_dice(monkeypatch, 1, 1)
    assert bonus.post("bonus/roll", {"roller": "Ben"}).status_code == 303
    assert "Ben rolled 1-1: Game 1-1. Bonus: everyone pays Ben 2. Left out of its payments, cashed out: Dan." in bonus.html
    assert events(app, night.key)[-1] == (
        "bonus_roll", {"dice": "2d6", "faces": [1, 1], "game": "Game 1-1", "roller": "Ben", "left_out": ["Dan"]})
    with app.app_context():
        n = db.session.scalar(db.select(Night).where(Night.keeper_key == night.key))
        assert bank_service.ledger_of(n).bonus_net == {"Ann": -2, "Ben": 4, "Cat": -2, "Dan": 0}
    # Dan cannot roll: his chips are counted
    before = events(app, night.key)
    fixed_dice(monkeypatch, 1, 1)
    assert bonus.post("bonus/roll", {"roller": "Dan"}).status_code == 422
    assert "Dan has cashed out, so cannot roll" in unescape(bonus.html)
    assert events(app, night.key) == before
    # the file keeps who was left out, so an import pays the same
    exported = client.get(f"{night.url}/export.json").get_data(as_text=True)
    assert json.loads(exported)["bonus"][0]["rolls"] == [
        {"roller": "Ben", "faces": [1, 1], "game": "Game 1-1", "left_out": ["Dan"]}]
    with app.app_context():
        copy = services.import_history(exported, name="Copy")
        assert bank_service.ledger_of(copy).bonus_net == {"Ann": -2, "Ben": 4, "Cat": -2, "Dan": 0}


# --- issue 20 item 13: who rolls moves on after a roll ---------------------------------------------------


def test_who_rolls_moves_on_to_the_next_dealer_after_a_roll(client, night, monkeypatch):
    # Ann dealt the hand Cat won: Ben deals next and rolls; after his roll, Cat (on his left) is offered
    fill_grid(client, night)
    bonus = BankPage(client, night, "bonus")
    assert re.search(r'<option selected value="Ben">|<option value="Ben" selected>', bonus.html)
    fixed_dice(monkeypatch, 2, 2)
    assert bonus.post("bonus/roll", {"roller": "Ben"}).status_code == 303
    assert re.search(r'<option selected value="Cat">|<option value="Cat" selected>', bonus.html), bonus.html


# --- issue 20 item 3: the Bank page warns only about counts that exist ------------------------------------


def test_no_count_is_off_before_anyone_has_counted(client, night):
    # the tally is Ann 0, Ben −4, Cat +4, Dan 0: before the first buy-in, and after it with nobody counted,
    # there is no count to be off, so nothing is amber and nothing is an alert
    bank = BankPage(client, night)
    assert 'class="diff"' not in bank.html and 'role="alert"' not in bank.html
    bank.everyone("100")
    assert 'class="diff"' not in bank.html and 'role="alert"' not in bank.html
    assert 'role="status" class="flash bank-block"><p>Not settled yet: Still to cash out: Ann, Ben, Cat and Dan.' in bank.html
    # "expected" is explained: bought 100 + the tally (Ben −4: 96), assuming the chips came from the bank
    assert bank.figure("Ben", "expected") == 96
    assert "it assumes they played all night with chips from the bank" in bank.html
    # Ben counts 94, 2 short of 96: his row only is amber, and the check is an alert
    bank.player("Ben", "cash_out", "94")
    assert re.findall(r'class="diff" role="alert" data-difference="(-?\d+)"', bank.html) == ["-2"]


def test_a_player_who_never_bought_in_but_played_is_named_without_a_count(client, night):
    """Ann, Ben and Dan buy in 100; Cat (+4 on the tally) does not.  Counts Ann 100, Ben 96, Dan 100 match
    bought + tally; Cat has no count, so no "count off" for her, but the night cannot settle: her +4
    came from somewhere."""
    bank = BankPage(client, night)
    for name in ("Ann", "Ben", "Dan"):
        bank.player(name, "buy_in", "100")
    for name, count in (("Ann", "100"), ("Ben", "96"), ("Dan", "100")):
        bank.player(name, "cash_out", count)
    assert 'class="diff"' not in bank.html
    assert ("Not settled yet: Cat never bought in, yet the app&#39;s tally moved their chips (Cat +4): "
            "record their buy-in, then their count.") in bank.html
    assert bank.plan() == []


# --- issue 20 item 14: "1 chip" --------------------------------------------------------------------------


def test_the_bank_and_the_report_say_1_chip(client, app, night):
    """Everyone buys in 1 chip; Ben rebuys 1.  The log says "1 chip", never "1 chips"; counts Ann 1, Ben 2,
    Cat 1, Dan 0: 4 back of 5 bought, "1 chip fewer"; the report's block says so too."""
    bank = counted_poker_night(client, night, "1", "1", ("1", "2", "1", "0"))
    assert "1 chips" not in bank.html
    assert "Everyone bought in 1 chip (0.25 EUR)" in bank.html and "Ben rebought 1 chip (0.25 EUR)." in bank.html
    assert "Ann cashed out 1 chip, counted (0.25 EUR)." in bank.html
    assert "The bank does not balance: 1 chip fewer cashed out (4) than bought (5)." in bank.html
    assert "Difference: -1 chip (cashed out − bought)." in bank.html
    report = client.get(f"{night.url}/report").get_data(as_text=True)
    assert "1 chips" not in report
    assert "The bank does not balance: 1 chip fewer" in report and "and The bank" not in report
    history = client.get(f"{night.url}/history").get_data(as_text=True)
    assert "Everyone bought in 1 chip." in history and "1 chips" not in history


# --- issue 20 item 8: a payment marked paid shows paid on the players' page too ---------------------------


def test_a_payment_marked_paid_shows_paid_on_the_players_page(client, app, night):
    """The tally: Ben pays Cat 4 chips (4 × 0.25 = 1.00 EUR).  Marked paid on the report: Cat's and Ben's
    phones say it is paid, as the players' report does, not "you receive … from Ben"."""
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == night.key))
    cat = client.get(f"/p/{viewer}/me?name=Cat", follow_redirects=True).get_data(as_text=True)
    assert "you receive 1.00 EUR (4 chips) from Ben." in cat
    stamp = paid_stamp(client, night)
    assert client.post(f"{night.url}/paid", data={**stamp, "payer": "Ben", "payee": "Cat", "chips": "4"}).status_code == 303
    cat = client.get(f"/p/{viewer}").get_data(as_text=True)
    assert "you receive " not in cat
    assert 'you received 1.00 EUR (4 chips) from Ben <span class="paid-mark" data-paid="Ben">Paid ✓</span>.' in cat
    ben = client.get(f"/p/{viewer}/me?name=Ben", follow_redirects=True).get_data(as_text=True)
    assert 'you paid 1.00 EUR (4 chips) to Cat <span class="paid-mark" data-paid="Cat">Paid ✓</span>.' in ben
    report = client.get(f"/p/{viewer}/report").get_data(as_text=True)
    assert '<li class="payment paid" data-payer="Ben" data-payee="Cat" data-chips="4">' in report


# --- issue 20 item 4: the report of a night on counts reads as clearly as one on the tally ----------------




def test_the_report_on_counts_names_the_banks_line_and_ends_each_chart_at_the_result(client, app, night):
    """The bank's line is the results less the games: Ann −10 − 0 = −10, Ben −14 − (−4) = −10,
    Cat 24 − 4 = +20, Dan 0."""
    counted_poker_night(client, night)
    html = unescape(client.get(f"{night.url}/report").get_data(as_text=True))
    # one labelled line, said once
    assert html.count("The bank: each count less the chips bought, less the games above: "
                      "Ann −10, Ben −10, Cat +20, Dan 0") == 1
    assert "The bank: The bank" not in html and "less the games: The bank" not in html
    # each player's table: a "Bank" row with its figure under Net only, never a game "0" under Pots
    card = html[html.index('<article class="player-card" id="player-3"'):]
    card = card[:card.index("</article>")]
    assert '<tr class="ledger-row" data-ledger="Bank"><th scope="row"><abbr title="The bank">Bank</abbr></th>' \
           '<td class="num"></td><td class="num"></td><td class="num"></td><td class="num"></td>' \
           '<td class="num pos">+20</td></tr>' in card
    assert '<th scope="row">0' not in html
    # why: the poker is not "pots won"
    assert "pots won +20" not in html and "The bank +20" in html
    # the chart ends at the result (+24), not at the games' tally (+4)
    assert "Cat&#39;s chips over the night: +24 now" in html or "Cat's chips over the night: +24 now" in html


def test_the_players_page_figures_add_up_to_the_standings_on_counts(client, app, night):
    counted_poker_night(client, night)
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == night.key))
    html = unescape(client.get(f"/p/{viewer}").get_data(as_text=True))
    table = html[html.index('<table class="standings">'):]
    standings = {}
    for name, row in re.findall(r'<tr[^>]*data-player="(\w+)"[^>]*>(.*?)</tr>', table[:table.index("</table>")], re.S):
        standings[name] = int(re.search(r'<td class="num net[^"]*">([-+]?\d+)<', row).group(1))
    lines = re.findall(r'data-night-game="\d+">.*?·(.*?)</li>', html, re.S)
    lines += re.findall(r'data-night-ledger="The bank"><strong>The bank</strong> ·(.*?)</p>', html, re.S)
    assert len(lines) == 3  # Napalm, the poker, the bank
    total = dict.fromkeys(PLAYERS, 0)
    for line in lines:
        shares = re.sub(r'<span class="muted">.*?</span>', "", line)  # a game's note, not its figures
        for name, chips in re.findall(r"(\w+) ([-+]?\d+)", re.sub(r"<[^>]+>", "", shares)):
            total[name] += int(chips)
    # Napalm (0, −4, +4, 0) + poker (0, 0, 0, 0) + the bank (−10, −10, +20, 0) = the results on the counts
    assert total == {"Ann": -10, "Ben": -14, "Cat": 24, "Dan": 0}
    assert {n: standings.get(n) for n in PLAYERS} == total, standings


# --- the players' page on the counts: the report's payments, or its reason for none ----------------------


def _players_page(client, app, night, name: str) -> str:  # type: ignore[no-untyped-def]
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == night.key))
    return unescape(client.get(f"/p/{viewer}/me?name={name}", follow_redirects=True).get_data(as_text=True))


def test_the_players_page_on_counts_not_balanced_shows_no_payment_then_the_reports_plan(client, app, night):
    """Napalm (Ann 0, Ben −4, Cat +4, Dan 0), poker, everyone 100, Ben rebuys 20; Ann 90, Ben 106 and
    Cat 124 cash out, Dan has not: the night settles on the counts and cannot settle yet.  The tally's
    plan (Ben pays Cat 4, 1.00 EUR) is not what the night settles on, so Cat's phone offers no payment
    and says why, in the report's words.  Dan counts 100: 420 back of 420 bought, results Ann −10, Ben −14,
    Cat +24, Dan 0: Ann pays Cat 10 (10 × 0.25 = 2.50 EUR), Ben pays Cat 14 (3.50 EUR), as on the report."""
    bank = counted_poker_night(client, night, counts=("90", "106", "124"))
    cat = _players_page(client, app, night, "Cat")
    assert "No payments yet, and nothing to mark paid: the bank is not balanced. " \
           "Not settled yet: Still to cash out: Dan." in cat
    assert "If the night were settled now" not in cat and "from Ben" not in cat
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == night.key))
    players_report = unescape(client.get(f"/p/{viewer}/report").get_data(as_text=True))
    assert "No payments yet, and nothing to mark paid: the bank is not balanced." in players_report
    assert 'class="payments"' not in players_report
    bank.player("Dan", "cash_out", "100")
    cat = _players_page(client, app, night, "Cat")
    said = re.search(r"If the night were settled now:(.*?)</p>", cat, re.S).group(1)
    assert sorted(part.strip(" ;.") for part in said.split(";")) == [
        "you receive 2.50 EUR (10 chips) from Ann", "you receive 3.50 EUR (14 chips) from Ben"]
    assert "No payments yet" not in cat
    players_report = client.get(f"/p/{viewer}/report").get_data(as_text=True)
    assert sorted(payments_offered(client.get(f"{night.url}/report").get_data(as_text=True))) == ["Ann>Cat:10", "Ben>Cat:14"]
    assert 'data-payer="Ann" data-payee="Cat" data-chips="10"' in players_report


def test_one_chip_is_said_one_chip_on_the_players_page_and_the_players_report(client, app, night):
    """Napalm, poker; everyone buys 1 chip, Ben rebuys 1: 5 bought.  Counts Ann 1, Ben 2, Cat 2, Dan 0: 5, the
    bank balances.  Results: Ann 0, Ben 2 − 2 = 0, Cat +1, Dan −1: Dan pays Cat 1 chip (0.25 EUR)."""
    counted_poker_night(client, night, "1", "1", ("1", "2", "2", "0"))
    dan = _players_page(client, app, night, "Dan")
    assert "you pay 0.25 EUR (1 chip) to Cat." in dan and "-1 chip (" in dan and "1 chips" not in dan
    assert "1 chips" not in unescape(client.get("/players/Cat").get_data(as_text=True))
    assert "(+1 chip)" in unescape(client.get("/players/Cat").get_data(as_text=True))
    assert "(\u22121 chip)" in unescape(client.get("/players/Dan").get_data(as_text=True))
