"""Page drivers shared by the web tests: the scorekeeper's screen as a phone uses it."""

from __future__ import annotations

import re

from typing import Any

from flask.testing import FlaskClient


FOUR = {"seat_1": "Ann", "seat_2": "Ben", "seat_3": "Cat", "seat_4": "Dan"}


def night_form(**overrides: str) -> dict[str, str]:
    data = {
        "name": "Friday",
        "first_dealer": "1",
        "ante": "1",
        "ante_every": "1",
        "tokens_to_win": "5",
        "chip_value": "0.25",
        "currency": "EUR",
        "unfinished_pot": "return_antes",
        **FOUR,
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


class TablePage:
    """Drives the scorekeeper's screen through the test client, as a phone would."""

    def __init__(self, client: FlaskClient, url: str) -> None:
        self.client = client
        self.url = url
        self.html = ""
        self.refresh()

    @property
    def key(self) -> str:
        return self.url.rsplit("/", 1)[-1]

    def refresh(self) -> str:
        response = self.client.get(self.url)
        assert response.status_code == 200, response.status_code
        self.html = response.get_data(as_text=True)
        return self.html

    def stamp(self, action: str) -> dict[str, str]:
        """The version and request key of the form that posts to ``action``, as shown now."""
        form = re.search(
            rf'action="{re.escape(self.url)}/{action}"[^>]*>(.*?)</form>', self.html, re.S
        )
        assert form, f"no {action} form on the page"
        version = re.search(r'name="version"[^>]*value="(\d+)"', form.group(1))
        key = re.search(r'name="request_key"[^>]*value="([^"]+)"', form.group(1))
        assert version and key
        return {"version": version.group(1), "request_key": key.group(1)}

    def post(self, action: str, data: dict[str, object], stamp: dict[str, str] | None = None):
        payload = {**(stamp or self.stamp(action)), **data}
        response = self.client.post(f"{self.url}/{action}", data=payload)
        if response.status_code == 303:
            self.refresh()
        else:
            self.html = response.get_data(as_text=True)
        return response

    def declare(self, *yes: str):
        if not yes:
            return self.post("declare", {"nobody": "1"})
        return self.post("declare", {"yes": list(yes), "confirm": "1"})

    def challenge(self, *challengers: str):
        if not challengers:
            return self.post("challenge", {"nobody": "1"})
        return self.post("challenge", {"challengers": list(challengers), "confirm": "1"})

    def winner(self, name: str):
        return self.post("showdown", {"winner": name})

    def tie(self, *names: str):
        return self.post("showdown", {"winners": list(names), "tie": "1"})

    def cards(self, **hands: str):
        """Enter each named player's cards in the field the page labels with that name."""
        fields = dict(re.findall(r'class="cardfield">([^<]+?) <input[^>]*name="(cards_\d+)"', self.html))
        assert set(fields) == set(hands), f"card fields are for {sorted(fields)}"
        return self.post("cards", {fields[name]: text for name, text in hands.items()})

    def undo(self):
        return self.post("undo", {})

    def net(self, name: str) -> int:
        row = re.search(rf'data-player="{re.escape(name)}">.*?<td class="num net[^"]*">([-+]?\d+)</td>', self.html, re.S)
        assert row, f"no row for {name}"
        return int(row.group(1))

    def tokens(self, name: str) -> int:
        row = re.search(rf'data-player="{re.escape(name)}">.*?aria-label="(\d+) of \d+ tokens"', self.html, re.S)
        assert row, f"no tokens for {name}"
        return int(row.group(1))

    def pot(self) -> int:
        found = re.search(r'data-pot="(\d+)"', self.html)
        assert found
        return int(found.group(1))

    def dealer(self) -> str:
        found = re.search(r'class="dealer-name">([^<]+)<', self.html)
        assert found
        return found.group(1)


class BankPage:
    """Drives /k/<key>/bank, /bonus and /choice as a phone would (each form's own version and key)."""

    def __init__(self, client: Any, table: TablePage, page: str = "bank") -> None:
        self.client, self.table, self.page = client, table, page
        self.url = f"{table.url}/{page}"
        self.html = ""
        self.status = 0
        self.refresh()

    def refresh(self) -> str:
        response = self.client.get(self.url)
        self.status = response.status_code
        self.html = response.get_data(as_text=True)
        return self.html

    def form(self, action: str, marker: str = "") -> str:
        forms = re.findall(rf'(<form method="post" action="{re.escape(self.table.url)}/{action}"[^>]*>.*?</form>)', self.html, re.S)
        forms = [f for f in forms if marker in f]
        assert forms, f"no {action} form {marker!r} on the page"
        return forms[0]

    def stamp(self, action: str, marker: str = "") -> dict[str, str]:
        form = self.form(action, marker)
        version = re.search(r'name="version"[^>]*value="(\d+)"', form)
        key = re.search(r'name="request_key"[^>]*value="([^"]+)"', form)
        assert version and key
        return {"version": version.group(1), "request_key": key.group(1)}

    def post(self, action: str, data: dict[str, Any], marker: str = "", stamp: dict[str, str] | None = None):
        response = self.client.post(f"{self.table.url}/{action}", data={**(stamp or self.stamp(action, marker)), **data})
        self.status = response.status_code
        self.html = response.get_data(as_text=True)
        if response.status_code == 303:
            self.refresh()
        return response

    # the bank's controls
    def everyone(self, chips: str):
        return self.post("bank/everyone", {"chips": chips})

    def player(self, name: str, action: str, chips: str):
        return self.post("bank/player", {"player": name, "action": action, "chips": chips}, f'data-player="{name}"')

    def cancel(self, seq: int):
        """*Cancel* beside line #``seq`` of the bank's log, then *Yes* on the page that asks first (issue 35)."""
        forms = re.findall(rf'<form method="get" action="{re.escape(self.table.url)}/bank/cancel"[^>]*>(.*?)</form>',
                           self.html, re.S)
        forms = [f for f in forms if f'name="seq" value="{seq}"' in f]
        assert forms, f"no Cancel beside line #{seq}"
        version = re.search(r'name="version"[^>]*value="(\d+)"', forms[0])
        assert version
        asked = self.client.get(f"{self.table.url}/bank/cancel", query_string={"seq": seq, "version": version[1]})
        assert asked.status_code == 200, asked.get_data(as_text=True)
        confirm = asked.get_data(as_text=True)
        assert f"Confirm: cancel #{seq}," in confirm
        key = re.search(r'name="request_key"[^>]*value="([^"]+)"', confirm)
        again = re.search(r'name="version"[^>]*value="(\d+)"', confirm)
        assert key and again
        return self.post("bank/cancel", {"seq": str(seq)}, stamp={"version": again[1], "request_key": key[1]})

    def settle_on(self, on: str):
        return self.post("bank/setting", {"on": on})

    def figure(self, name: str, what: str) -> int | None:
        row = re.search(rf'data-player="{name}">(.*?)</form>', self.html, re.S)
        assert row
        found = re.search(rf"data-{what}(?:=\"[^\"]*\")?>([-+]?\d+|—)<", row.group(1))
        return None if found is None or found.group(1) == "—" else int(found.group(1))

    def plan(self) -> list[str]:
        return re.findall(r'data-payment="([^"]+)"', self.html)
