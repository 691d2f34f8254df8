"""The list of past nights names each night's games as played, in words fit for every game (issue 23).

Napalm counts games to a token target inside it; a Nap or pot game does not, so a night of one is
named by its game and nothing more ("0 games finished, one unfinished" was Napalm's wording for all).

* **Napalm**, ante 1, 1 token wins, Ann deals (RULES.md): antes 1 each (pot 4); Ben alone says Yes:
  his token wins game 1 and its pot at once.  Game 2, Ben deals: antes 1 each (pot 4), nobody
  says Yes at stage 1; the night ends there and each ante comes back.  Ben +3, the others −1:
  three payments to Ben, none marked paid.  (A game with no hand yet is not listed, as in the
  report: there is nothing in it.)
* **Pool Nap** and **High Card**: the nights of tests/web/test_report_words.py (Dan is paid by three,
  Ben by Ann and Cat).
* **Napalm, then Nap**: the Napalm night above, then Nap started from the table.
"""

from __future__ import annotations

import re
from html import unescape

from pages import TablePage
from web.test_report_words import NAP_NIGHT, POT_NIGHT, imported


def night_lines(client) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Each listed night's name and its line of games and payments."""
    html = client.get("/nights").get_data(as_text=True)
    cards = re.findall(r'<li class="night-card">(.*?)</li>\s*(?=<li class="night-card">|</ul>\s*<h2)', html, re.S)
    out = {}
    for card in cards:
        name = re.search(r'class="button"[^>]*>([^<]*)</a>', card).group(1)
        line = re.findall(r'<p class="muted">(.*?)</p>', card, re.S)[0]
        out[unescape(name)] = " ".join(unescape(re.sub(r"<[^>]+>", " ", line)).split())
    return out


def napalm_night(start_night, name: str) -> TablePage:  # type: ignore[no-untyped-def]
    page = start_night(name=name, tokens_to_win="1")
    page.declare("Ben")  # pot 4; Ben's lone Yes is his first token, and 1 wins
    page.declare()  # game 2's first hand: antes 1 each, nobody says Yes at stage 1
    return page


def test_each_night_is_listed_by_its_games_as_played(start_night, client, app):
    napalm_night(start_night, "Napalm night")
    for document in (NAP_NIGHT, POT_NIGHT):
        keeper, _ = imported(client, app, document)
        client.get(f"{keeper}/report")
    lines = night_lines(client)
    assert lines["Napalm night"] == "Napalm (1 game finished, one unfinished) · 0 of 3 payments marked paid"
    assert lines["Nap at Ann's"] == "Pool Nap · 0 of 3 payments marked paid"
    assert lines["High Card at Ben's"] == "High Card · 0 of 2 payments marked paid"
    said = " ".join(lines.values())
    assert "0 games finished" not in said


def test_a_night_of_napalm_then_nap_names_both_in_order(start_night, client):
    page = napalm_night(start_night, "Two games")
    html = client.get(f"{page.url}/next-game").get_data(as_text=True)
    stamp = {name: re.search(rf'name="{name}"[^>]*value="([^"]+)"', html).group(1) for name in ("version", "request_key")}
    response = client.post(f"{page.url}/next-game", data={
        **stamp, "game": "nap", "players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": "Cat",
        "variant": "plain", "stake": "1", "misere": "y",
    })
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    # Napalm's game 2 stopped with its antes returned; Nap has nothing recorded: Ben +3 still, and Nap is no
    # game of the night yet (issue 35)
    assert night_lines(client)["Two games"] == (
        "Napalm (1 game finished, one unfinished) · 0 of 3 payments marked paid"
    )
    page.refresh()
    assert page.post("deal", {"bidder": "Dan", "bid": "2", "result": "made"}).status_code == 303
    assert night_lines(client)["Two games"].startswith("2 games: Napalm (1 game finished, one unfinished), Nap · ")


def test_a_players_page_counts_games_won_only_on_nights_that_have_games_to_win(start_night, client, app):
    keeper, _ = imported(client, app, NAP_NIGHT)
    client.get(f"{keeper}/report")
    page = client.get("/players/Dan").get_data(as_text=True)
    assert "Games won" not in page and ">Won<" not in page  # Nap has no games inside it to win
    assert "Pool Nap" in page
    napalm_night(start_night, "Napalm night")
    page = client.get("/players/Dan").get_data(as_text=True)
    assert "<dt>Games won</dt><dd>0</dd>" in page  # Dan won none of Napalm's games; Ben won the one
    assert client.get("/players/Ben").get_data(as_text=True).count("<dt>Games won</dt><dd>1</dd>") == 1
    assert re.search(r"Napalm \(1 game finished, one unfinished\)", page)
