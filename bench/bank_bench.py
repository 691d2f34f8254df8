"""The chip bank, the Bonus Round and dealer's choice through the web, measured.

Run: .venv/bin/python bench/bank_bench.py   (prints plain lines; see bench/README.md)

- Taps (a button pressed or a link followed, through the real forms and links):
  the whole table's buy-in from the table screen (goal 2: its "Bank" link, "Everyone buys
  in"), and the dealer's next game from the table (goal 3: its "Dealer's choice" link, the
  game, "Start this game").  A link missing from the table's HTML fails the bench.
- Server time, on a 7-player night after 150 hands (a long log) with the whole bank
  played: recording a cash-out (POST, then the cash-out cancelled so the bank stays put),
  the bank page (GET), and a Bonus Round roll (POST), medians of many runs.
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from html import unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from companion.service import bank as bank_service
from companion import service as services  # noqa: E402
from companion.extensions import db  # noqa: E402
from companion.games.napalm import Phase, Table  # noqa: E402
from companion.games.napalm import hand_history  # noqa: E402
from companion.db.models import Night  # noqa: E402
from table_bench import make_app  # noqa: E402  (one bench app for every bench)

SEVEN = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]


def night_form() -> dict[str, str]:
    return {
        **{f"seat_{i + 1}": n for i, n in enumerate(SEVEN)},
        "first_dealer": "1", "ante": "1", "ante_every": "1", "tokens_to_win": "99",
        "chip_value": "0.25", "currency": "EUR", "unfinished_pot": "return_antes",
    }


def stamp(html: str, action: str) -> dict[str, str]:
    form = re.search(rf'action="{re.escape(action)}"[^>]*>(.*?)</form>', html, re.S)
    assert form, f"no form posting to {action}"
    version = re.search(r'name="version"[^>]*value="(\d+)"', form.group(1))
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', form.group(1))
    assert version and key
    return {"version": version.group(1), "request_key": key.group(1)}


def follow_link(client, html: str, text: str) -> str:  # type: ignore[no-untyped-def]
    """Follow the link whose text is ``text`` on ``html`` (one tap); fail if the page has none."""
    links = [href for href, shown in re.findall(r'<a href="([^"]+)"[^>]*>(.*?)</a>', html) if unescape(shown) == text]
    assert links, f"no {text!r} link on the page"
    return client.get(unescape(links[0])).get_data(as_text=True)


def buy_in_taps(client, table: str) -> int:  # type: ignore[no-untyped-def]
    html = client.get(table).get_data(as_text=True)
    html, taps = follow_link(client, html, "Bank"), 1
    chips = re.search(r'name="chips" value="(\d+)"', html)  # "Everyone buys in": the amount is prefilled
    assert chips and chips.group(1) == "100"
    response = client.post(f"{table}/bank/everyone", data={**stamp(html, f"{table}/bank/everyone"), "chips": chips.group(1)})
    taps += 1
    assert response.status_code == 303, response.status_code
    assert "Everyone bought in 100 chips" in client.get(response.headers["Location"]).get_data(as_text=True)
    return taps


def next_game_taps(client, table: str) -> int:  # type: ignore[no-untyped-def]
    html = client.get(table).get_data(as_text=True)
    html, taps = follow_link(client, html, "Dealer's choice"), 1
    offer = re.search(r'class="button big primary" data-game="([^"]+)"(?: data-offer="[^"]+")? href="([^"]+)"', html)
    assert offer, "no game offered first"
    html = client.get(offer.group(2).replace("&amp;", "&")).get_data(as_text=True)
    taps += 1
    form = re.search(r'<form method="post" action="[^"]*/next-game" class="night next-game">(.*?)</form>', html, re.S)
    assert form
    data: list[tuple[str, str]] = []
    for tag in re.findall(r"<input[^>]*>", form.group(1)):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and ('type="checkbox"' not in tag or " checked" in tag):
            data.append((name.group(1), value.group(1) if value else ""))
    for name, options in re.findall(r'<select[^>]*name="([^"]+)"[^>]*>(.*?)</select>', form.group(1), re.S):
        chosen = re.search(r'<option selected value="([^"]*)"|<option value="([^"]*)" selected', options)
        if chosen:
            data.append((name, chosen.group(1) or chosen.group(2)))
    from werkzeug.datastructures import MultiDict

    response = client.post(f"{table}/next-game", data=MultiDict(data))  # "Start this game", the defaults as shown
    taps += 1
    assert response.status_code == 303, client.get(response.headers["Location"]).get_data(as_text=True)[-800:]
    assert "Game 2 of the night" in client.get(response.headers["Location"]).get_data(as_text=True)
    return taps


def long_night(hands: int = 150) -> str:
    table = Table(SEVEN, "Ann", None)
    played, turn = 0, 0
    while played < hands:
        start_hand = (table.game_number, table.hand_number)
        while (table.game_number, table.hand_number) == start_hand:
            turn += 1
            if table.phase is Phase.DECLARE:
                table.declare([SEVEN[turn % 7], SEVEN[(turn + 3) % 7]] if turn % 3 else [])
            elif table.phase is Phase.CHALLENGE:
                table.challenge([])
            else:
                table.showdown(winners=[table.yes[turn % len(table.yes)]])
        played += 1
    return hand_history.dumps(table)


def median_ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:.2f} ms ({len(samples)} runs)"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        client = app.test_client()
        table = client.post("/nights", data=night_form()).headers["Location"]
        taps = buy_in_taps(client, table)
        print(f"taps for a whole table's buy-in from the table, 7 players: {taps} (goal 2)")
        table = client.post("/nights", data=night_form()).headers["Location"]
        taps = next_game_taps(client, table)
        print(f"taps for the dealer's next game from the table: {taps} (goal 3)")

        with app.app_context():
            night = services.import_history(long_night())
            key, night_id = night.keeper_key, night.id
            version = night.version
            for kind, payload in (
                ("settle_on", {"on": "bank"}),
                ("all_buy_in", {"chips": 100}),
                *((("cash_out", {"player": p, "chips": 100})) for p in SEVEN[1:]),
                ("bonus_grid", {"grid": {"dice": "d20", "cells": [f"Game {i}" for i in range(1, 21)],
                                         "bonuses": {"20": {"kind": "everyone_pays_dealer", "chips": 2}}},
                                "lucky_chips": 1}),
            ):
                bank_service.record(night_id, kind, payload, version, None)
                version += 1
        url = f"/k/{key}"
        runs = 101
        cash_out, bank_page, rolls = [], [], []
        for _ in range(runs):
            html = client.get(f"{url}/bank").get_data(as_text=True)
            data = {**stamp(html, f"{url}/bank/player"), "player": "Ann", "action": "cash_out", "chips": "100"}
            start = time.perf_counter()
            response = client.post(f"{url}/bank/player", data=data)
            cash_out.append(time.perf_counter() - start)
            assert response.status_code == 303, response.status_code
            start = time.perf_counter()
            html = client.get(f"{url}/bank").get_data(as_text=True)
            bank_page.append(time.perf_counter() - start)
            seq = re.search(r'data-seq="(\d+)"', html)
            assert seq
            form = re.search(rf'<form[^>]*/bank/cancel"[^>]*>((?:(?!</form>).)*name="seq" value="{seq.group(1)}".*?)</form>', html, re.S)
            assert form
            response = client.post(f"{url}/bank/cancel", data={**stamp(form.group(0), f"{url}/bank/cancel"), "seq": seq.group(1)})
            assert response.status_code == 303
        for _ in range(runs):
            html = client.get(f"{url}/bonus").get_data(as_text=True)
            data = {**stamp(html, f"{url}/bonus/roll"), "roller": "Ben"}
            start = time.perf_counter()
            response = client.post(f"{url}/bonus/roll", data=data)
            rolls.append(time.perf_counter() - start)
            assert response.status_code == 303, response.status_code
        with app.app_context():
            events = db.session.get(Night, night_id).version
        print(f"record a cash-out after 150 hands, 7 players ({events} events at the end): {median_ms(cash_out)}")
        print(f"the bank page on that night: {median_ms(bank_page)}")
        print(f"a Bonus Round roll on that night: {median_ms(rolls)}")


if __name__ == "__main__":
    main()
