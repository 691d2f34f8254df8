"""Nap at the table, through the real pages (the test client): every action form, every refusal.

A night starts with Napalm (the home page's game), then "Start the next game" picks Nap.
Seats Ann, Ben, Cat, Dan (Eve); Ann deals Nap's first deal unless a test says otherwise.
Every figure is worked out by hand from ../shared/RULES-NAP.md; the arithmetic is in the
comments.  Net chips are read from the standings, which count the whole night: Napalm's
game closes with nothing played, so they are Nap's alone.
"""

from __future__ import annotations

import html as htmllib
import io
import json
import re

import pytest

from companion.extensions import db
from companion.db.models import Event
from pages import TablePage, night_form

FOUR = ["Ann", "Ben", "Cat", "Dan"]
MINUS = "\u2212"


def stamp_of(html: str) -> dict[str, str]:
    version = re.search(r'name="version"[^>]*value="(\d+)"', html)
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', html)
    assert version and key
    return {"version": version.group(1), "request_key": key.group(1)}


class NapPage(TablePage):
    """The table screen of a Nap game, as the scorekeeper taps it."""

    def deal(self, bidder: str | None, bid: object = None, result: str = "made", **extras: object):
        data: dict[str, object] = {"result": result}
        if bidder is not None:
            data["bidder"] = bidder
        if bid is not None:
            data["bid"] = str(bid)
        data.update(extras)
        return self.post("deal", data)

    def nets(self, names: list[str] = FOUR) -> list[int]:
        return [self.net(name) for name in names]

    @property
    def text(self) -> str:
        """The page's words, tags dropped and spaces collapsed."""
        return htmllib.unescape(" ".join(re.sub(r"<[^>]+>", " ", self.html).split()))

    def flash(self) -> str:
        found = re.search(r'class="flash"[^>]*>(.*?)</', self.html, re.S)
        return htmllib.unescape(found.group(1).strip()) if found else ""

    def version(self) -> int:
        return int(self.stamp("deal")["version"])


@pytest.fixture
def nap_night(client, app):  # type: ignore[no-untyped-def]
    """Start a night (Napalm at the table), then Nap with ``rules`` from the next-game screen."""

    def start(players: list[str] = FOUR, first_dealer: str = "Ann", **rules: object) -> NapPage:
        seats = {f"seat_{i}": name for i, name in enumerate(players, start=1)}
        response = client.post("/nights", data=night_form(**seats))
        assert response.status_code == 303
        url = response.headers["Location"]
        html = client.get(f"{url}/next-game?game=nap").get_data(as_text=True)
        form: dict[str, object] = {
            **stamp_of(html), "game": "nap", "players": players, "first_dealer": first_dealer,
            "variant": "plain", "misere": "y", "stake": "1",
        }
        for key, value in rules.items():
            if value is False:
                form.pop(key, None)
            else:
                form[key] = "y" if value is True else str(value)
        response = client.post(f"{url}/next-game", data=form)
        assert response.status_code == 303, response.get_data(as_text=True)[:2000]
        return NapPage(client, url)

    return start


def events(app) -> int:  # type: ignore[no-untyped-def]
    with app.app_context():
        return db.session.scalar(db.select(db.func.count()).select_from(Event))


# --- the screen ------------------------------------------------------------------------------


def test_the_screen_shows_the_dealer_the_bids_the_rules_allow_and_the_three_taps(nap_night) -> None:
    page = nap_night()
    assert "Tonight's 2nd game: Nap" in page.text
    assert "Deal 1: Ann deals. Who won the bid?" in page.text
    assert page.dealer() == "Ann"
    # the bidders, from the dealer's left: Ben, Cat, Dan, then Ann (who holds cards with 4 players)
    assert re.findall(r'name="bidder" value="([^"]+)"', page.html) == ["Ben", "Cat", "Dan", "Ann"]
    # the default rules: Misère on, Wellington and Blücher off; each bid shows made / failed each
    assert re.findall(r'name="bid" value="([^"]+)"', page.html) == ["1", "2", "3", "misere", "4", "nap"]
    assert f"Nap +10 / {MINUS}5 each" in page.text and f"Misère +3 / {MINUS}3 each" in page.text
    assert re.search(r'<button type="submit" name="result" value="made"[^>]*>Made</button>', page.html)
    assert re.search(r'<button type="submit" name="result" value="failed"[^>]*>Failed</button>', page.html)
    # 4 players: no throw-in (the dealer must bid), no pool; penalties one tap away
    assert 'value="thrown_in"' not in page.html and "Pool" not in page.text
    assert re.search(r'<details class="extras"><summary>Penalties</summary>', page.html)


def test_a_plain_deal_made_pays_the_bidder_from_each_other_player(nap_night, app) -> None:
    page = nap_night()
    before = events(app)
    response = page.deal("Cat", 2, "made")
    assert response.status_code == 303
    # Cat made 2: Ann, Ben and Dan pay her 2 each: Cat +6
    assert page.nets() == [-2, -2, 6, -2]
    assert page.flash() == f"Cat made 2: +6; Ann, Ben, Dan {MINUS}2 each"
    assert f"Deal 1 · Cat made 2: +6; Ann, Ben, Dan {MINUS}2 each" in page.text
    assert events(app) == before + 1
    # the deal passes left: Ben deals deal 2
    assert "Deal 2: Ben deals. Who won the bid?" in page.text and page.dealer() == "Ben"


def test_a_failed_nap_pays_five_to_each_other_player(nap_night) -> None:
    page = nap_night()
    page.deal("Ben", "nap", "failed")
    # Nap failed: Ben pays 5 to each of Ann, Cat, Dan: −15
    assert page.nets() == [5, -15, 5, 5]
    assert page.flash() == f"Ben failed Nap: {MINUS}15; Ann, Cat, Dan +5 each"


def test_the_stake_and_the_optional_bids_come_from_the_rules_chosen(nap_night) -> None:
    page = nap_night(misere=False, wellington=True, blucher=True, stake=2)
    assert re.findall(r'name="bid" value="([^"]+)"', page.html) == [
        "1", "2", "3", "4", "nap", "wellington", "blucher",
    ]
    # Blücher at stake 2: made 10 × 2 = 20 each, failed 20 × 2 = 40 each
    assert f"Blücher +20 / {MINUS}40 each" in page.text
    page.deal("Dan", "blucher", "failed")
    assert page.nets() == [40, 40, 40, -120]


def test_a_lead_out_of_turn_pays_the_bidder_three(nap_night) -> None:
    page = nap_night()
    page.deal("Ben", 4, "made", led="Ann")
    # Ann pays Ben 3 at once; then 4 each from Ann, Cat, Dan: Ben +15, Ann −7, Cat −4, Dan −4
    assert page.nets() == [-7, 15, -4, -4]
    assert page.flash() == f"Ben made 4 (Ann led out of turn): +15; Ann {MINUS}7; Cat, Dan {MINUS}4 each"


def test_an_opponents_revoke_pays_the_made_amount_to_everyone_else(nap_night) -> None:
    page = nap_night()
    page.deal("Ben", 3, "revoke", revoke="Cat")
    # Cat revoked against Ben's 3: Cat pays 3 to Ben and 3 to each other opponent (Ann, Dan)
    assert page.nets() == [3, 3, -9, 3]
    assert page.flash() == f"Cat revoked against Ben's 3: {MINUS}9; Ann, Ben, Dan +3 each"


def test_another_players_wrong_hand_on_a_failed_bid_pays_nothing(nap_night) -> None:
    page = nap_night()
    page.deal("Ann", 3, "failed", wrong_cards="other")
    assert page.nets() == [0, 0, 0, 0]
    assert "another hand was wrong" in page.flash()
    # the bidder held too many cards and made it: paid nothing either
    page.deal("Cat", 2, "made", wrong_cards="bidder_over")
    assert page.nets() == [0, 0, 0, 0]


def test_widow_nap_taken_and_failed_costs_ten_each(nap_night) -> None:
    page = nap_night(variant="widow")
    assert "Took the widow" in page.text and "+10 / " + MINUS + "10 each" in page.text
    page.deal("Dan", "nap", "failed", widow="y")
    # Nap with the widow failed: Dan pays 10 to each of Ann, Ben, Cat
    assert page.nets() == [10, 10, 10, -30]
    assert page.flash() == f"Dan failed Nap with the widow: {MINUS}30; Ann, Ben, Cat +10 each"


def test_peep_nap_a_peek_goes_into_the_pool_and_a_made_nap_takes_it(nap_night) -> None:
    page = nap_night(variant="peep")
    assert "Tonight's 2nd game: Peep Nap" in page.text  # named as players do
    # a new pool: 2 from each of 4 before deal 1 → 8; what a made Nap takes with this deal's ante
    assert "A new pool: 2 from everyone before this deal." in page.text
    assert "A made Nap takes the pool: 8 chips" in page.text
    assert 'name="peeks" value="Ben"' in page.html
    page.deal("Cat", "nap", "made", peeks="Ben")
    # antes 2 each (pool 8), Ben's peek 1 (pool 9); Cat made Nap: 10 from each other, and the pool of 9
    # Ann −2 −10 = −12; Ben −2 −1 −10 = −13; Cat −2 +30 +9 = +37; Dan −12
    assert page.nets() == [-12, -13, 37, -12]
    assert page.flash().endswith("Cat takes the pool of 9")
    # the pool was won: the next deal starts a new one
    assert re.search(r'class="pot pool" data-pool="0"', page.html)


def test_purchase_nap_exchanged_cards_are_paid_into_the_pool(nap_night) -> None:
    page = nap_night(variant="purchase")
    # exchanged_<seat>: Ann is seat 0, Cat seat 2
    page.deal("Dan", 3, "made", exchanged_0="2", exchanged_2="3")
    # antes 2 each (pool 8), Ann 2 cards (10), Cat 3 cards (13); Dan made 3: 3 from each other player
    # Ann −2 −2 −3 = −7; Ben −2 −3 = −5; Cat −2 −3 −3 = −8; Dan −2 +9 = +7; the pool holds 13
    assert page.nets() == [-7, -5, -8, 7]
    assert re.search(r'class="pot pool" data-pool="13"', page.html)
    # Ben deals deal 2 and adds 2: a made Nap would take 15
    assert "Ben adds 2 to the pool (dealer)." in page.text and "takes the pool: 15 chips" in page.text
    assert "Pool 13, paid in by Ann 4, Ben 2, Cat 5, Dan 2." in page.text


def test_pool_nap_failed_nap_doubles_the_pool(nap_night) -> None:
    page = nap_night(variant="pool", first_dealer="Dan")
    page.deal("Cat", 2, "made")  # antes 2 each: pool 8; Cat +6 −2 = +4, the others −2 −2 = −4
    page.deal("Ben", "nap", "failed")
    # Ann deals and adds 2 (pool 10); Ben pays 5 to each of Ann, Cat, Dan, and 10 into the pool: 20
    # Ann −4 −2 +5 = −1; Ben −4 −15 −10 = −29; Cat +4 +5 = +9; Dan −4 +5 = +1
    assert page.nets() == [-1, -29, 9, 1]
    assert re.search(r'class="pot pool" data-pool="20"', page.html)
    assert page.flash() == (
        f"Ben failed Nap: {MINUS}15; Ann, Cat, Dan +5 each. Into the pool: Ann 2 (dealer), Ben 10 (doubling it); pool 20"
    )


def test_five_players_the_dealer_sits_out_and_a_deal_nobody_bid_is_thrown_in(nap_night) -> None:
    five = FOUR + ["Eve"]
    page = nap_night(players=five)
    assert "Deal 1: Ann deals. Who won the bid?" in page.text
    # said once, not three times (prompt, status, bidders' legend; issue 20, item 14)
    assert "Ann deals and sits this deal out (still pays and is paid)." in page.text
    assert page.text.count("sits") == 1 and "holds no cards" not in page.text
    assert re.findall(r'name="bidder" value="([^"]+)"', page.html) == ["Ben", "Cat", "Dan", "Eve"]
    assert re.search(r'<button type="submit" name="result" value="thrown_in"[^>]*>Nobody bid: thrown in</button>', page.html)
    response = page.deal(None, result="thrown_in")
    assert response.status_code == 303
    assert page.flash() == "Thrown in: nobody bid: nothing paid"
    assert page.nets(five) == [0, 0, 0, 0, 0] and page.dealer() == "Ben"
    # the sitting-out dealer still pays: Cat makes 1 against the four others, Ben included
    page.deal("Cat", 1, "made")
    assert page.nets(five) == [-1, -1, 4, -1, -1]


def test_undo_puts_the_deal_back(nap_night) -> None:
    page = nap_night()
    page.deal("Cat", 2, "made")
    page.undo()
    assert page.nets() == [0, 0, 0, 0] and page.dealer() == "Ann"
    assert "Deal 1: Ann deals. Who won the bid?" in page.text
    assert f"Undid #" in page.text


# --- refusals: a clear message, a 4xx, nothing changed ----------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"bidder": "Zed", "bid": "2", "result": "made"}, "'Zed' is not a player of this game"),
        ({"bidder": "Cat", "bid": "wellington", "result": "made"}, "Wellington is not played in this game"),
        ({"bidder": "Cat", "bid": "7", "result": "made"}, "'7' is not a bid"),
        ({"bid": "2", "result": "made"}, "Tap who won the bid first."),
        ({"bidder": "Cat", "result": "made"}, "Tap what Cat bid."),
        ({"bidder": "Cat", "bid": "2"}, "Tap Made or Failed"),
        ({"bidder": "Cat", "bid": "2", "result": "made", "revoke": "Ann"}, "Ann revoked: a revoke abandons the deal"),
        ({"bidder": "Cat", "bid": "2", "result": "revoke"}, "Tap who revoked"),
        ({"bidder": "Cat", "bid": "2", "result": "made", "led": "Cat"}, "Cat is the bidder"),
        ({"bidder": "Cat", "bid": "2", "result": "made", "widow": "y"}, "taking the widow is only for Widow Nap"),
        ({"bidder": "Cat", "bid": "2", "result": "made", "peeks": "Ben"}, "peeking at the widow is only for Peep Nap"),
        ({"bidder": "Cat", "bid": "2", "result": "thrown_in"}, "with 2 to 4 players the dealer must bid"),
        ({"bidder": "Cat", "bid": "2", "result": "made", "wrong_cards": "maybe"}, "wrong-hand answers"),
    ],
)
def test_a_deal_the_rules_or_the_form_refuse_is_told_and_changes_nothing(nap_night, app, data, message) -> None:
    page = nap_night()
    before = events(app)
    response = page.post("deal", data)
    assert response.status_code == 422, response.status_code
    assert message in page.text, page.text[:1500]
    assert events(app) == before
    page.refresh()
    assert page.nets() == [0, 0, 0, 0] and page.dealer() == "Ann"


def test_a_refused_deal_is_shown_again_as_tapped_with_penalties_open(nap_night) -> None:
    page = nap_night()
    response = page.deal("Cat", 2, "made", led="Cat")
    assert response.status_code == 422
    assert "Cat is the bidder: a bidder who leads out of turn takes the card back" in page.text
    # what was tapped is still tapped, and the penalties are open to fix
    assert 'name="bidder" value="Cat" checked' in page.html and 'name="bid" value="2" checked' in page.html
    assert 'name="led" value="Cat" checked' in page.html
    assert '<details class="extras" open>' in page.html
    # fixed: Ann led out of turn, not Cat.  Ann pays Cat 3; Cat made 2: 2 from each other player
    response = page.deal("Cat", 2, "made", led="Ann")
    assert response.status_code == 303
    assert page.nets() == [-5, -2, 9, -2]


def test_the_dealer_who_sits_out_cannot_bid_and_an_exchange_is_at_most_five(nap_night, app) -> None:
    page = nap_night(players=FOUR + ["Eve"], variant="purchase")
    before = events(app)
    response = page.deal("Ann", 2, "made")
    assert response.status_code == 422
    assert "Ann deals this time and holds no cards, so cannot bid" in page.text
    response = page.deal("Ben", 2, "made", exchanged_1="9")
    assert response.status_code == 422 and "Ben exchanges 0 to 5 cards, not '9'." in page.text
    assert events(app) == before


def test_a_doubled_submit_is_answered_already_recorded_and_counts_once(nap_night, app) -> None:
    page = nap_night()
    before = events(app)
    stamp = page.stamp("deal")
    data = {"bidder": "Cat", "bid": "2", "result": "made"}
    assert page.post("deal", data, stamp).status_code == 303
    assert page.post("deal", data, stamp).status_code == 303
    assert page.flash().startswith("Already recorded:")
    assert page.nets() == [-2, -2, 6, -2]
    assert events(app) == before + 1


def test_a_doubled_submit_names_the_deal_it_already_recorded(nap_night) -> None:
    page = nap_night()
    stamp = page.stamp("deal")
    data = {"bidder": "Cat", "bid": "2", "result": "made"}
    page.post("deal", data, stamp)
    page.post("deal", data, stamp)
    assert page.flash() == f"Already recorded: Cat made 2: +6; Ann, Ben, Dan {MINUS}2 each"


def test_a_stale_screen_is_refused_with_409(nap_night, app) -> None:
    page = nap_night()
    old = page.stamp("deal")
    page.deal("Cat", 2, "made")
    before = events(app)
    response = page.post("deal", {"bidder": "Ben", "bid": "3", "result": "made"}, {**old, "request_key": "x" * 20})
    assert response.status_code == 409
    assert events(app) == before
    page.refresh()
    assert page.nets() == [-2, -2, 6, -2]


def test_no_such_action_for_nap(nap_night) -> None:
    page = nap_night()
    response = page.client.post(f"{page.url}/declare", data={**page.stamp("deal"), "nobody": "1"})
    assert response.status_code in (400, 404)


# --- the rules on the next-game screen ------------------------------------------------------


def test_the_next_game_screen_offers_nap_with_its_rules(client, start_night) -> None:
    page = start_night()
    html = client.get(f"{page.url}/next-game?game=nap").get_data(as_text=True)
    assert '<option value="nap">Nap</option>' in html or '<option selected value="nap">Nap</option>' in html
    variants = re.findall(r'<option[^>]*value="(plain|widow|pool|peep|purchase)"', html)
    assert variants == ["plain", "widow", "pool", "peep", "purchase"]
    # the defaults of RULES-NAP.md: Misère on, Wellington and Blücher off, stake 1
    assert re.search(r'<input checked id="misere"', html)
    assert re.search(r'<input id="wellington"', html) and re.search(r'<input id="blucher"', html)
    assert re.search(r'id="stake"[^>]*value="1"', html)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"stake": "0"}, "Number must be between 1 and 1000000."),
        ({"stake": "1.5"}, "Enter a whole number"),
        ({"blucher": "y"}, "Blücher is only played together with Wellington"),
        ({"variant": "strip"}, "the variant is one of plain, widow, pool, peep, purchase, not 'strip'"),
    ],
)
def test_bad_nap_rules_are_refused_and_no_game_starts(client, start_night, app, changes, message) -> None:
    page = start_night()
    html = client.get(f"{page.url}/next-game?game=nap").get_data(as_text=True)
    form = {**stamp_of(html), "game": "nap", "players": FOUR, "first_dealer": "Ann", "variant": "plain",
            "misere": "y", "stake": "1", **changes}
    response = client.post(f"{page.url}/next-game", data=form)
    assert response.status_code == 422
    assert message in htmllib.unescape(response.get_data(as_text=True))
    page.refresh()
    assert "Tonight's 2nd game" not in page.html


def test_nap_seats_at_most_six(client, app) -> None:
    seven = {f"seat_{i}": name for i, name in enumerate(FOUR + ["Eve", "Fay", "Gus"], start=1)}
    url = client.post("/nights", data=night_form(**seven)).headers["Location"]
    html = client.get(f"{url}/next-game?game=nap").get_data(as_text=True)
    form = {**stamp_of(html), "game": "nap", "players": FOUR + ["Eve", "Fay", "Gus"], "first_dealer": "Ann",
            "variant": "plain", "misere": "y", "stake": "1"}
    response = client.post(f"{url}/next-game", data=form)
    assert response.status_code == 422
    said = htmllib.unescape(response.get_data(as_text=True))
    assert "Nap needs 2 to 6 players, not 7" in said


def test_the_rules_of_the_last_nap_game_are_offered_again(nap_night, client) -> None:
    page = nap_night(variant="pool", stake=3, wellington=True)
    html = client.get(f"{page.url}/next-game?game=nap").get_data(as_text=True)
    assert re.search(r'<option selected value="pool">', html)
    assert re.search(r'id="stake"[^>]*value="3"', html) and re.search(r'<input checked id="wellington"', html)


# --- the night's other pages ----------------------------------------------------------------


def test_the_report_lists_each_deal_and_the_pool_returned(nap_night, client) -> None:
    page = nap_night(variant="pool")
    page.deal("Cat", 2, "made")
    # antes 2 each (pool 8); Cat made 2: +6 −2 = +4; the others −2 −2 = −4.  At the report the
    # game is not over: its unwon pool of 8 goes back, 2 to each: Ann −2, Ben −2, Cat +6, Dan −2
    report = json.loads(client.get(f"{page.url}/report.json").get_data(as_text=True))
    assert {p["name"]: p["net_chips"] for p in report["players"]} == {"Ann": -2, "Ben": -2, "Cat": 6, "Dan": -2}
    html = client.get(f"{page.url}/report").get_data(as_text=True)
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert f"Cat made 2: +6; Ann, Ben, Dan {MINUS}2 each" in text


def test_a_night_file_with_a_nap_game_imports_and_plays_on_at_the_table(client) -> None:
    document = {
        "format": "companion-night/2",
        "players": FOUR,
        "games": [
            {"game": "napalm", "first_dealer": "Ann", "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 5},
             "stages": []},
            # Pool Nap, Ann deals first: antes 2 each (pool 8); Cat bids 2 and makes it
            {"game": "nap", "first_dealer": "Ann", "rules": {"variant": "pool"},
             "deals": [{"bidder": "Cat", "bid": 2, "made": True}]},
        ],
    }
    response = client.post(
        "/import", data={"file": (io.BytesIO(json.dumps(document).encode()), "night.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303, response.get_data(as_text=True)[:1000]
    page = NapPage(client, response.headers["Location"])
    # Ann −2 −2 = −4, Ben −4, Cat −2 +6 = +4, Dan −4; pool 8; Ben deals deal 2 and adds 2
    assert page.nets() == [-4, -4, 4, -4]
    assert "Deal 2: Ben deals. Who won the bid?" in page.text and "takes the pool: 10 chips" in page.text
    page.deal("Dan", "nap", "made")
    # Ben adds 2 (pool 10); Dan made Nap: 10 from each other player, and the pool of 10:
    # Ann −4 −10 = −14; Ben −4 −2 −10 = −16; Cat +4 −10 = −6; Dan −4 +30 +10 = +36
    assert page.nets() == [-14, -16, -6, 36]
    assert page.flash().endswith("Dan takes the pool of 10")


def test_the_players_page_shows_the_pool_each_players_share_and_the_deals(nap_night, client, app) -> None:
    page = nap_night(variant="pool")
    page.deal("Cat", 2, "made")  # antes 2 each (pool 8); Cat +6 −2 = +4; the others −4
    with app.app_context():
        from companion.db.models import Night

        viewer = db.session.scalar(db.select(Night.viewer_key))
    client.get(f"/p/{viewer}/me?name=Cat")  # "This is me": Cat
    html = client.get(f"/p/{viewer}").get_data(as_text=True)
    text = htmllib.unescape(" ".join(re.sub(r"<[^>]+>", " ", html).split()))
    assert "Cat : 2 in the pool, +4 chips" in text, text[:3000]
    assert "Pool 8, paid in by Ann 2, Ben 2, Cat 2, Dan 2." in text
    assert f"Deal 1 · Cat made 2: +6; Ann, Ben, Dan {MINUS}2 each" in text
    assert "Deal 2: Ben deals. Who won the bid?" in text
