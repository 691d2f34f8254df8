"""The fixed-stake pot games at the table, through the test client: every preset's usual deal,
the actions one tap away, and the refusals.  Every number is worked out by hand from
RULES-POKER.md (the worked figures are in each test's comments).

Each night seats Ann, Ben, Cat and Dan; Ann deals Napalm's first game, which nobody plays
(nothing recorded: it closes at 0 for everyone), then the pots game starts from the table's
"Start the next game" with the players and first dealer each test names.
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from companion.extensions import db
from companion.db.models import Event, Night
from pages import TablePage

SEATED = ("Ann", "Ben", "Cat", "Dan")


def stamp_of(html: str) -> dict[str, str]:
    version = re.search(r'name="version"[^>]*value="(\d+)"', html)
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', html)
    assert version and key
    return {"version": version.group(1), "request_key": key.group(1)}


def start_pots(start_night, client, preset: str, players=SEATED, first_dealer="Ann", **fields: str):  # type: ignore[no-untyped-def]
    """A night whose game at the table is the pots game ``preset`` (the form's other fields as given)."""
    page = start_night()
    html = client.get(f"{page.url}/next-game?game=pots").get_data(as_text=True)
    form = {"game": "pots", "players": list(players), "first_dealer": first_dealer, "preset": preset,
            "ante": "1", "stake_a": "2", "stake_b": "3", "sale_limit": ""}
    form.update(fields)
    response = client.post(f"{page.url}/next-game", data={**stamp_of(html), **form})
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    page.refresh()
    return page


def nets(client, page: TablePage) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """The night's net chips per seated player, from the report (the standings count the night)."""
    report = json.loads(client.get(f"{page.url}/report.json").get_data(as_text=True))
    return {p["name"]: p["net_chips"] for p in report["players"]}


def live(page: TablePage) -> dict[str, int]:
    """The standings on the table screen: net chips tonight, the pots game as it stands (its pots still out)."""
    rows = re.findall(r'<tr class="[^"]*" data-player="(\w+)">.*?<td class="num net[^"]*">([-+]?\d+)</td>', page.html, re.S)
    return {name: int(chips) for name, chips in rows}


def flash(page: TablePage) -> str:
    return unescape(" ".join(re.findall(r'<p class="flash" role="status">(.*?)</p>', page.html, re.S)))


def ok(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 303, response.get_data(as_text=True)[:3000]


def win(page: TablePage, name: str):  # type: ignore[no-untyped-def]
    return page.post("win", {"winner": name, "pot": pot_field(page)})


def pot_field(page: TablePage) -> str:
    found = re.search(r'<input name="pot" type="hidden" value="([^"]*)">', page.html)
    assert found, "no pot on the winner form"
    return found.group(1)


def version_of(app, page: TablePage) -> int:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.scalar(db.select(Night.version).where(Night.keeper_key == page.key))


# --- the rules' screen -----------------------------------------------------------------------


def game_list(html: str) -> list[tuple[str, str]]:
    """The next-game screen's Game list: (value, name) of each option."""
    found = re.search(r'<select name="game"[^>]*>(.*?)</select>', html, re.S)
    assert found, "no Game list"
    return re.findall(r'<option(?: selected)? value="([^"]+)">([^<]+)</option>', found.group(1))


def picked_game(html: str) -> str:
    found = re.search(r'<select name="game"[^>]*>.*?<option selected value="([^"]+)">', html, re.S)
    assert found, "no game picked"
    return found.group(1)


def test_the_next_game_screen_offers_each_pot_game_once_by_its_name(start_night, client):
    """Issue 35: the Game list offers each pot game by its own name, in the presets' order, and no
    "Fixed-stake pots" besides; no list of pot games inside the rules and no row of links repeats them.
    Opened on the pot games with none played tonight: the game's defaults (docs/games/poker.md: preset
    "fixed"), so Fixed-stake pot, its ante of 1 the one field shown."""
    page = start_night()
    html = client.get(f"{page.url}/next-game?game=pots").get_data(as_text=True)
    assert game_list(html) == [
        ("napalm", "Napalm"), ("nap", "Nap"),
        ("pots:tips_to_the_fat_one", "Tips to the Fat One"), ("pots:high_card", "High Card"),
        ("pots:mountain", "Mountain"), ("pots:nasdaq", "NASDAQ"), ("pots:mystery_wheelbarrow", "Mystery Wheelbarrow"),
        ("pots:fixed", "Fixed-stake pot"), ("betting", "Poker with real betting"),
    ]
    assert picked_game(html) == "pots:fixed" and "<h2>Fixed-stake pot</h2>" in html
    assert 'id="preset"' not in html and 'class="winners offers"' not in html
    assert html.count(">Mountain<") == 1
    visible = r'<input(?![^>]*type="(?:hidden|checkbox)")[^>]*name="(\w+)"'
    assert re.findall(visible, html) == ["ante"] and re.search(r'name="ante"[^>]*value="1"', html)


@pytest.mark.parametrize("pick, shown, hidden", [
    # RULES-POKER.md: Mountain and High Card take an ante; NASDAQ an ante and its sale limit; Tips A and B
    ("pots:mountain", ["ante"], ["stake_a", "stake_b", "sale_limit"]),
    ("pots:high_card", ["ante"], ["stake_a", "stake_b", "sale_limit"]),
    ("pots:nasdaq", ["ante", "sale_limit"], ["stake_a", "stake_b"]),
    ("pots:tips_to_the_fat_one", ["stake_a", "stake_b"], ["ante", "sale_limit"]),
])
def test_the_game_picked_shows_its_own_fields_only(start_night, client, pick, shown, hidden):
    """What the list's swap (static/app.js) fetches, and what a page without JavaScript opens: the
    picked game's own fields, the others along hidden (Mountain shows neither Tips' pots nor NASDAQ's limit)."""
    page = start_night()
    html = client.get(f"{page.url}/next-game?game={pick}").get_data(as_text=True)
    rules = html[html.index('class="rules-of"'):html.index("Start this game</button>")]
    assert f'data-rules-of="{pick}"' in html and f'name="rules_of" value="{pick}"' in rules
    visible = r'<input(?![^>]*type="(?:hidden|checkbox)")[^>]*name="(\w+)"'
    assert re.findall(visible, rules) == shown
    assert sorted(re.findall(r'<input type="hidden" name="(ante|stake_a|stake_b|sale_limit)"', rules)) == sorted(hidden)
    assert ("Tips to the Fat One (two players" in rules) == (pick == "pots:tips_to_the_fat_one")
    assert picked_game(html) == pick


def test_without_javascript_show_its_rules_swaps_to_the_game_picked(start_night, client, app):
    """No script: Mountain picked on a page that showed Tips, *Show its rules*: Mountain's own page, and
    nothing started; *Start this game* with NASDAQ picked on Mountain's page starts nothing either (422)
    and shows NASDAQ's; then NASDAQ starts as shown, ante 1, no limit (RULES-POKER.md)."""
    page = start_night()
    html = client.get(f"{page.url}/next-game?game=pots").get_data(as_text=True)
    data = {**stamp_of(html), "game": "pots:mountain", "rules_of": "pots:tips_to_the_fat_one", "show_rules": "1",
            "players": list(SEATED), "first_dealer": "Ann", "preset": "tips_to_the_fat_one", "stake_a": "2", "stake_b": "3"}
    shown = client.post(f"{page.url}/next-game", data=data)
    assert shown.status_code == 200
    mountain = shown.get_data(as_text=True)
    assert "<h2>Mountain</h2>" in mountain and picked_game(mountain) == "pots:mountain"
    data = {**stamp_of(mountain), "game": "pots:nasdaq", "rules_of": "pots:mountain", "players": list(SEATED),
            "first_dealer": "Ann", "preset": "mountain", "ante": "1"}
    refused = client.post(f"{page.url}/next-game", data=data)
    assert refused.status_code == 422
    nasdaq = refused.get_data(as_text=True)
    assert "You picked NASDAQ: nothing has started yet." in unescape(nasdaq)
    assert "<h2>NASDAQ</h2>" in nasdaq and 'name="sale_limit"' in nasdaq
    form = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', nasdaq))
    form.update(stamp_of(nasdaq), game="pots:nasdaq", players=list(SEATED), first_dealer="Ann", ante="1", sale_limit="")
    assert client.post(f"{page.url}/next-game", data=form).status_code == 303
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == page.key))
        assert [(g.kind, g.rules.get("preset")) for g in night.games] == [("napalm", None), ("pots", "nasdaq")]
        assert night.games[-1].rules["ante"] == 1 and night.games[-1].rules["sale_limit"] is None


def test_an_offer_fills_in_its_preset_and_picks_two_players_for_tips(start_night, client):
    """Tips to the Fat One takes two: the dealer-to-be (Napalm's first deal was Ann's and passes
    to Ben) and the player on his left, Cat.  A 2, B 3 shown with C 4, D 6, E 9."""
    page = start_night()
    page.declare("Ben", "Cat")  # Ann's deal is under way: the next game's deal passes to Ben
    html = client.get(f"{page.url}/next-game?game=pots&offer=tips_to_the_fat_one").get_data(as_text=True)
    # the game by its name, picked in the list; the preset goes along unasked
    assert "<h2>Tips to the Fat One</h2>" in html
    assert '<input type="hidden" name="preset" value="tips_to_the_fat_one">' in html
    assert picked_game(html) == "pots:tips_to_the_fat_one"
    ticked = re.findall(r'name="players" value="(\w+)" checked', html)
    assert ticked == ["Ben", "Cat"]
    assert "with A 2 and B 3, <strong>C 4, D 6, E 9</strong>" in html
    # only A and B are asked: the ante and NASDAQ's limit (unused by Tips) go along hidden
    shown = re.findall(r'<input(?![^>]*type="(?:hidden|checkbox)")[^>]*name="(\w+)"', html)
    assert shown == ["stake_a", "stake_b"], shown
    assert 'select name="preset"' not in html and 'id="preset"' not in html


def test_an_offer_shows_the_fields_its_game_uses(start_night, client):
    """High Card asks its ante only; NASDAQ its ante and its sale limit (RULES-POKER.md)."""
    page = start_night()
    high = client.get(f"{page.url}/next-game?game=pots&offer=high_card").get_data(as_text=True)
    nasdaq = client.get(f"{page.url}/next-game?game=pots&offer=nasdaq").get_data(as_text=True)
    visible = r'<input(?![^>]*type="(?:hidden|checkbox)")[^>]*name="(\w+)"'
    assert re.findall(visible, high) == ["ante"]
    assert re.findall(visible, nasdaq) == ["ante", "sale_limit"]
    assert "<h2>High Card</h2>" in high and "<h2>NASDAQ</h2>" in nasdaq


def test_starting_a_game_from_its_offer_takes_the_offers_rules(start_night, client, app):
    """Tips to the Fat One from its offer with A 3, B 5 typed: C = 3 + 5 − 1 = 7, D = 5 + 7 − 1 = 11,
    E = 7 + 11 − 1 = 17; Ben and Cat play (the deal passes from Ann to Ben, Cat on his left)."""
    page = start_night()
    page.declare("Ben", "Cat")
    url = f"{page.url}/next-game?game=pots&offer=tips_to_the_fat_one"
    html = client.get(url).get_data(as_text=True)
    data = {**stamp_of(html), "game": "pots", "players": ["Ben", "Cat"], "first_dealer": "Ben"}
    for name, value in re.findall(r'<input type="hidden" name="(ante|stake_a|stake_b|sale_limit|preset)" value="([^"]*)"', html):
        data[name] = value
    data.update(stake_a="3", stake_b="5")
    response = client.post(f"{page.url}/next-game?offer=tips_to_the_fat_one", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)[-1500:]
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == page.key))
        game = night.games[-1]
        assert (game.kind, game.rules["preset"], game.rules["stakes"]) == ("pots", "tips_to_the_fat_one", [3, 5, 7, 11, 17])
        assert list(game.players) == ["Ben", "Cat"]


def test_a_night_can_begin_with_a_pot_game(client):
    """The home page offers the pot games as the first game; High Card with three seats, Ann deals:
    Cat wins the first pot of 3 (Ann −1, Ben −1, Cat +2)."""
    home = client.get("/?game=pots").get_data(as_text=True)
    assert 'name="preset"' in home and 'class="winners offers"' not in home  # no night yet: no offer links
    response = client.post("/nights", data={
        "game": "pots", "name": "Poker", "seat_1": "Ann", "seat_2": "Ben", "seat_3": "Cat", "first_dealer": "1",
        "chip_value": "", "currency": "EUR", "preset": "high_card", "ante": "1", "stake_a": "2", "stake_b": "3",
        "sale_limit": "", "request_key": "r" * 20,
    })
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    page = TablePage(client, response.headers["Location"])
    assert "Deal 1: Ann deals. Who won the pot?" in page.html
    ok(win(page, "Cat"))
    assert live(page) == {"Ann": -1, "Ben": -1, "Cat": 2}
    # the report speaks of this night's game, not of Napalm's unfinished-pot setting
    report = unescape(client.get(f"{page.url}/report").get_data(as_text=True))
    assert "No game was left unfinished with chips in its pot." in report
    assert "The night's setting for the pot" not in report and "antes are returned" not in report


def test_tips_to_the_fat_one_with_a_not_less_than_b_is_refused_naming_both(start_night, client, app):
    page = start_night()
    html = client.get(f"{page.url}/next-game?game=pots").get_data(as_text=True)
    response = client.post(f"{page.url}/next-game", data={
        **stamp_of(html), "game": "pots", "players": ["Ann", "Ben"], "first_dealer": "Ann",
        "preset": "tips_to_the_fat_one", "ante": "1", "stake_a": "3", "stake_b": "3", "sale_limit": "",
    })
    assert response.status_code == 422
    assert "pot A&#39;s stake must be less than pot B&#39;s (A 3, B 3)" in response.get_data(as_text=True)
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == page.key))
        assert [g.kind for g in night.games] == ["napalm"]


def test_the_last_pots_rules_are_offered_again(start_night, client):
    page = start_pots(start_night, client, "nasdaq", sale_limit="5", ante="2")
    html = client.get(f"{page.url}/next-game?game=pots").get_data(as_text=True)
    assert picked_game(html) == "pots:nasdaq"  # the pot game played last, by its own name
    assert re.search(r'name="ante"[^>]*value="2"', html) and re.search(r'name="sale_limit"[^>]*value="5"', html)


# --- Tips to the Fat One ----------------------------------------------------------------------


def test_tips_to_the_fat_one_one_tap_per_pot_and_a_split(start_night, client):
    """A 2, B 3 → C 4, D 6, E 9: each stakes 24.  Ann deals; Cat and Dan sit out.

    Pot A (4): Ben.  Pot B (6): Ann.  Pot C (8): split, 4 each.  Pot D (12): Ann.  Pot E (18):
    Ben.  Ann −24 + 6 + 4 + 12 = −2; Ben −24 + 4 + 4 + 18 = +2.  Then Ben deals deal 2.
    """
    page = start_pots(start_night, client, "tips_to_the_fat_one", players=("Ann", "Ben"), stake_a="2", stake_b="3")
    assert "Deal 1: Ann deals. Who won pot A?" in page.html
    assert "takes the stakes: A 2, B 3, C 4, D 6, E 9 from each player" in page.html
    ok(win(page, "Ben"))
    assert "Stakes A 2, B 3, C 4, D 6, E 9 each. Pot A, 4: Ben takes it." in flash(page)
    assert page.pot() == 44 and "Who won pot B?" in page.html
    ok(win(page, "Ann"))
    ok(page.post("win", {"tied": ["Ann", "Ben"], "split": "1", "pot": "C"}))
    assert "Pot C, 8: Ann and Ben split, 4 each." in flash(page)
    ok(win(page, "Ann"))
    ok(win(page, "Ben"))
    assert page.pot() == 0 and "Deal 2: Ben deals. Who won pot A?" in page.html
    assert nets(client, page) == {"Ann": -2, "Ben": 2, "Cat": 0, "Dan": 0}
    report = unescape(client.get(f"{page.url}/report").get_data(as_text=True))
    # the Napalm the night began with has nothing in it: no game of the night (issue 35), the pots game is the 1st
    assert "1st game (Tips to the Fat One)" in report and "stakes A 2, B 3, C 4, D 6, E 9" in report
    assert "Pot C, 8: Ann and Ben split, 4 each." in report


def test_tips_a_bet_into_a_named_pot(start_night, client):
    """Stakes in with Ann's bet of 2 into pot E (18 + 2 = 20); then Ben takes A–E: 4 + 6 + 8 + 12 + 20.
    Ann −24 − 2 = −26, Ben −24 + 50 = +26."""
    page = start_pots(start_night, client, "tips_to_the_fat_one", players=("Ann", "Ben"))
    ok(page.post("into_pot", {"chips": "2", "reason": "bet", "pot": "E", "player": "Ann"}))
    assert "Ann: bet of 2 into pot E (20)." in flash(page)
    for _ in "ABCDE":
        ok(win(page, "Ben"))
    assert nets(client, page) == {"Ann": -26, "Ben": 26, "Cat": 0, "Dan": 0}


# --- High Card, Mountain: the carried pot ------------------------------------------------------


def test_high_card_carry_then_one_tap_then_an_odd_split(start_night, client):
    """Ann, Ben, Cat (Dan sits out), Ann deals, ante 1.  Deal 1 carried (pot 3).  Deal 2, Ben
    deals: antes again (pot 6), Cat wins 6.  Deal 3, Cat deals: pot 3 split Ann and Ben: 1 each
    and the odd chip to the first from the dealer's left, Ann.  Ann −3 + 2 = −1, Ben −3 + 1 = −2,
    Cat −3 + 6 = +3."""
    page = start_pots(start_night, client, "high_card", players=("Ann", "Ben", "Cat"))
    assert "Nobody won: carry the pot" in page.html
    ok(page.post("carry_over", {"pot": "pot"}))
    assert "Ante 1 each, pot 3. The pot, 3: carried to the next deal." in flash(page)
    assert "Deal 2: Ben deals. Who won the pot?" in page.html and "(the pot will be 6)" in page.html
    ok(win(page, "Cat"))
    assert "The pot, 6: Cat takes it." in flash(page)
    ok(page.post("win", {"tied": ["Ben", "Ann"], "split": "1", "pot": "pot"}))
    assert "The pot, 3: Ann and Ben split, Ann 2, Ben 1 (odd chip from the dealer's left)." in flash(page)
    assert nets(client, page) == {"Ann": -1, "Ben": -2, "Cat": 3, "Dan": 0}


def test_mountain_carried_twice_then_won(start_night, client):
    """Four players, ante 2: pot 8, carried; 16, carried; 24 to Dan.  Each −6, Dan +18."""
    page = start_pots(start_night, client, "mountain", ante="2")
    ok(page.post("carry_over", {"pot": "pot"}))
    ok(page.post("carry_over", {"pot": "pot"}))
    assert page.pot() == 16 and "(the pot will be 24)" in page.html
    ok(win(page, "Dan"))
    assert nets(client, page) == {"Ann": -6, "Ben": -6, "Cat": -6, "Dan": 18}


def test_a_game_that_does_not_carry_has_no_carry_action(start_night, client, app):
    page = start_pots(start_night, client, "fixed")
    assert "Nobody won" not in page.html
    before = version_of(app, page)
    response = page.post("carry_over", {"pot": "pot"}, stamp=page.stamp("win"))
    assert 400 <= response.status_code < 500
    assert version_of(app, page) == before


# --- NASDAQ: the bid, a sale over the limit, an unsold card, high-low -----------------------------


def test_nasdaq_bid_sale_unsold_and_high_low(start_night, client):
    """Four players, ante 1, sale limit 5; Ann deals.
    Ben bids 2 (antes in: pot 4 + 2 = 6).  Ben sells Cat a card for 12: excess 7, 4 to the pot,
    8 to Ben (pot 10).  Dan's unsold card at 3 (pot 13).  High Ann, low Cat: 7 and 6.
    Ann −1 + 7 = +6; Ben −3 + 8 = +5; Cat −1 − 12 + 6 = −7; Dan −1 − 3 = −4."""
    page = start_pots(start_night, client, "nasdaq", sale_limit="5")
    assert "a sale at 12: 8 to the seller, 4 to the pot" in page.html
    ok(page.post("into_pot", {"chips": "2", "reason": "bid", "pot": "pot", "player": "Ben"}))
    assert page.pot() == 6
    assert 'value="bid"' not in page.html  # one bid a deal
    ok(page.post("sale", {"seller": "Ben", "buyer": "Cat", "price": "12", "pot": "pot", "record": "1"}))
    assert "Cat bought Ben's card for 12: 8 to Ben, 4 to the pot (half the excess over 5)." in flash(page)
    ok(page.post("into_pot", {"chips": "3", "reason": "unsold", "pot": "pot", "player": "Dan"}))
    assert page.pot() == 13
    ok(page.post("highlow", {"high": ["Ann"], "low": ["Cat"], "pot": "pot", "record": "1"}))
    assert "The pot, 13: high Ann takes 7; low Cat takes 6." in flash(page)
    assert nets(client, page) == {"Ann": 6, "Ben": 5, "Cat": -7, "Dan": -4}


def test_nasdaq_refusals_change_nothing(start_night, client, app):
    page = start_pots(start_night, client, "nasdaq", sale_limit="5")
    ok(page.post("into_pot", {"chips": "2", "reason": "bid", "pot": "pot", "player": "Ben"}))
    before = version_of(app, page)
    # a second bid in the deal (forged: the screen no longer offers it)
    r = page.post("into_pot", {"chips": "1", "reason": "bid", "pot": "pot", "player": "Cat"})
    assert r.status_code == 422 and "chips go into the pot here as a bet or an unsold card" in r.get_data(as_text=True)
    page.refresh()
    r = page.post("sale", {"seller": "Cat", "buyer": "Cat", "price": "4", "pot": "pot", "record": "1"})
    assert r.status_code == 422 and "Cat cannot buy their own card" in r.get_data(as_text=True)
    page.refresh()
    r = page.post("sale", {"seller": "Cat", "buyer": "Ann", "price": "0", "pot": "pot", "record": "1"})
    assert r.status_code == 422 and "Number must be between 1 and 1000000" in r.get_data(as_text=True)
    page.refresh()
    r = page.post("sale", {"seller": "Cat", "buyer": "Ann", "price": "1000001", "pot": "pot", "record": "1"})
    assert r.status_code == 422 and "Number must be between 1 and 1000000" in r.get_data(as_text=True)
    page.refresh()
    r = page.post("sale", {"seller": "Cat", "buyer": "Ann", "price": "1.5", "pot": "pot", "record": "1"})
    assert r.status_code == 422 and "Enter a whole number in digits 0-9" in r.get_data(as_text=True)
    page.refresh()
    r = page.post("highlow", {"high": ["Ann"], "pot": "pot", "record": "1"})
    assert r.status_code == 422 and "tick the best high hand and the best low hand" in r.get_data(as_text=True)
    assert version_of(app, page) == before


def test_a_sale_in_a_game_without_sales_is_no_action(start_night, client, app):
    page = start_pots(start_night, client, "high_card", players=("Ann", "Ben", "Cat"))
    before = version_of(app, page)
    r = page.post("sale", {"seller": "Ann", "buyer": "Ben", "price": "3", "pot": "pot"}, stamp=page.stamp("win"))
    assert 400 <= r.status_code < 500 and version_of(app, page) == before


# --- Mystery Wheelbarrow and the plain fixed stake ---------------------------------------------------


def test_mystery_wheelbarrow_one_tap(start_night, client):
    """Four players, ante 1: Cat wins the pot of 4: Cat +3, the others −1."""
    page = start_pots(start_night, client, "mystery_wheelbarrow")
    ok(win(page, "Cat"))
    assert nets(client, page) == {"Ann": -1, "Ben": -1, "Cat": 3, "Dan": -1}


def test_fixed_a_bet_then_the_winner(start_night, client):
    """Ann, Ben, Cat, ante 1: Ann bets 2 (pot 3 + 2 = 5), Ben wins 5: Ann −3, Ben +4, Cat −1."""
    page = start_pots(start_night, client, "fixed", players=("Ann", "Ben", "Cat"))
    ok(page.post("into_pot", {"chips": "2", "reason": "bet", "pot": "pot", "player": "Ann"}))
    assert "Ante 1 each, pot 3. Ann: bet of 2 into the pot (5)." in flash(page)
    ok(win(page, "Ben"))
    assert nets(client, page) == {"Ann": -3, "Ben": 4, "Cat": -1, "Dan": 0}


# --- refusals, repeats and stale screens ----------------------------------------------------------------


def test_the_players_page_says_what_each_has_in_the_pot(start_night, client, app):
    """High Card, Ann, Ben, Cat: deal 1 carried (1 each in the pot); Ann's phone says so."""
    page = start_pots(start_night, client, "high_card", players=("Ann", "Ben", "Cat"))
    ok(page.post("carry_over", {"pot": "pot"}))
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == page.key))
    client.get(f"/p/{viewer}/me?name=Ann")
    mine = unescape(client.get(f"/p/{viewer}").get_data(as_text=True))
    assert "<strong>Ann</strong>: 1 in the pot (back to you if nobody wins it), -1 chip" in mine


def test_a_winner_not_in_the_game_is_refused_by_name(start_night, client, app):
    page = start_pots(start_night, client, "high_card", players=("Ann", "Ben", "Cat"))
    before = version_of(app, page)
    r = page.post("win", {"winner": "Dan", "pot": "pot"})
    assert r.status_code == 422
    assert "Dan is not playing this game: the win can only name Ann, Ben and Cat" in r.get_data(as_text=True)
    page.refresh()
    r = page.post("win", {"tied": ["Ann"], "split": "1", "pot": "pot"})
    assert r.status_code == 422 and "a split needs two or more players" in r.get_data(as_text=True)
    assert version_of(app, page) == before


def test_a_doubled_tap_records_once(start_night, client, app):
    page = start_pots(start_night, client, "fixed")
    stamp = page.stamp("win")
    ok(page.post("win", {"winner": "Ben", "pot": "pot"}, stamp=stamp))
    ok(page.post("win", {"winner": "Ben", "pot": "pot"}, stamp=stamp))
    assert "Already recorded: " in flash(page)
    assert nets(client, page) == {"Ann": -1, "Ben": 3, "Cat": -1, "Dan": -1}
    with app.app_context():
        night = db.session.scalar(db.select(Night).where(Night.keeper_key == page.key))
        kinds = [e.kind for e in db.session.scalars(db.select(Event).where(Event.night_id == night.id).order_by(Event.seq))]
        assert kinds == ["game", "win"]


def test_a_doubled_tap_names_what_it_recorded(start_night, client):
    page = start_pots(start_night, client, "fixed")
    stamp = page.stamp("win")
    ok(page.post("win", {"winner": "Ben", "pot": "pot"}, stamp=stamp))
    ok(page.post("win", {"winner": "Ben", "pot": "pot"}, stamp=stamp))
    assert "Already recorded: Ante 1 each, pot 4. The pot, 4: Ben takes it." in flash(page)


def test_a_doubled_tap_after_its_pot_ended_or_its_bid_was_taken_records_once(start_night, client, app):
    """The second copy arrives when the table has moved on (pot A ended; the deal's bid taken): it is
    answered "Already recorded", not refused for the table as it is now."""
    tips = start_pots(start_night, client, "tips_to_the_fat_one", players=("Ann", "Ben"))
    stamp = tips.stamp("win")
    ok(tips.post("win", {"winner": "Ben", "pot": "A"}, stamp=stamp))
    ok(tips.post("win", {"winner": "Ben", "pot": "A"}, stamp=stamp))
    assert "Already recorded" in flash(tips) and "Who won pot B?" in tips.html
    # the same key with another winner is not a repeat: refused, nothing recorded
    r = tips.post("win", {"winner": "Ann", "pot": "A"}, stamp=stamp)
    assert r.status_code == 409
    tips.refresh()
    assert live(tips) == {"Ann": -24, "Ben": -20}  # stakes 24 each; pot A, 4, to Ben once
    # the report closes the game: pots B–E (Ann's 3 + 4 + 6 + 9 = 22, and Ben's) go back
    assert nets(client, tips) == {"Ann": -2, "Ben": 2, "Cat": 0, "Dan": 0}


def test_a_doubled_bid_records_once(start_night, client):
    page = start_pots(start_night, client, "nasdaq")
    stamp = page.stamp("into_pot")
    bid = {"chips": "2", "reason": "bid", "pot": "pot", "player": "Ben"}
    ok(page.post("into_pot", bid, stamp=stamp))
    ok(page.post("into_pot", bid, stamp=stamp))
    assert "Already recorded" in flash(page) and page.pot() == 6
    assert live(page) == {"Ann": -1, "Ben": -3, "Cat": -1, "Dan": -1}
    # the deal is unfinished: the report returns the pot to who paid it in, bid and all
    assert nets(client, page) == {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}


def test_a_stale_screen_is_refused_409(start_night, client, app):
    page = start_pots(start_night, client, "fixed")
    old = page.stamp("win")
    ok(win(page, "Ben"))
    before = version_of(app, page)
    r = page.post("win", {"winner": "Cat", "pot": "pot"}, stamp={**old, "request_key": "x" * 20})
    assert r.status_code == 409
    assert version_of(app, page) == before


def test_undo_gives_the_antes_back(start_night, client):
    page = start_pots(start_night, client, "fixed", players=("Ann", "Ben"))
    ok(win(page, "Ben"))
    ok(page.undo())
    assert nets(client, page) == {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}
    assert "Deal 1: Ann deals. Who won the pot?" in page.html


@pytest.mark.parametrize("preset", ["tips_to_the_fat_one", "high_card", "mountain", "nasdaq", "mystery_wheelbarrow", "fixed"])
def test_every_preset_shows_its_table_and_players_page(start_night, client, app, preset):
    players = ("Ann", "Ben") if preset == "tips_to_the_fat_one" else ("Ann", "Ben", "Cat")
    page = start_pots(start_night, client, preset, players=players)
    assert "Ann won" in page.html and "Ben won" in page.html and "Dan won" not in page.html
    with app.app_context():
        viewer = db.session.scalar(db.select(Night.viewer_key).where(Night.keeper_key == page.key))
    ok(win(page, "Ben"))
    players_page = client.get(f"/p/{viewer}")
    assert players_page.status_code == 200 and "Deal 1 · " in players_page.get_data(as_text=True)
    history = client.get(f"{page.url}/history")
    assert history.status_code == 200 and "Deal 1 · Ann deals" in history.get_data(as_text=True)
    assert client.get(f"{page.url}/report").status_code == 200
