"""Page drivers shared by the web tests: the scorekeeper's screen as a phone uses it."""

from __future__ import annotations

import re

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
