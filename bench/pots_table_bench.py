"""The fixed-stake pot games' table screen, measured in taps through the real page.

Run: .venv/bin/python bench/pots_table_bench.py   (prints plain lines; see bench/README.md)

Each deal is played by reading the table screen's HTML as served and submitting one of its
forms as a browser would (its hidden fields, the ticked toggles, the pressed button's name
and value).  A tap is a button pressed, a toggle ticked, or a folded section (``<details>``)
opened; typing a number into a field counts as one tap too.  Nothing is posted that is not
on the page.

- The usual fixed-stake deal (High Card, 4 players, ante 1): the winner's button (goal 1
  after the antes, which ride in that tap's record).
- Tips to the Fat One's deal: one tap per pot, A to E.
- The rarer endings: a carried pot, a split between two, NASDAQ's high-low, a sale.
"""

from __future__ import annotations

import re
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from pages import TablePage  # noqa: E402
from table_bench import make_app  # noqa: E402  (one bench app for every bench)

FOUR = ["Ann", "Ben", "Cat", "Dan"]


class Forms(HTMLParser):
    """Every form of a page: its action, its controls, its buttons, and the <details> it sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self.details: list[str] = []
        self._form: dict | None = None
        self._button: dict | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:  # type: ignore[type-arg]
        a = dict(attrs)
        if tag == "details":
            self.details.append(a.get("class") or "")
        elif tag == "form":
            self._form = {"action": a.get("action"), "fields": [], "boxes": [], "selects": {}, "buttons": [],
                          "details": self.details[-1] if self.details else None}
        elif self._form is None:
            return
        elif tag == "input":
            kind = a.get("type", "text")
            if kind == "checkbox":
                self._form["boxes"].append((a["name"], a["value"]))
            else:
                self._form["fields"].append((a["name"], a.get("value") or ""))
        elif tag == "select":
            self._select = a["name"]
        elif tag == "option" and self._select:
            if "selected" in a or self._select not in self._form["selects"]:
                self._form["selects"][self._select] = a["value"]
        elif tag == "button":
            self._button = {"name": a.get("name"), "value": a.get("value"), "text": ""}

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button["text"] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "details" and self.details:
            self.details.pop()
        elif tag == "select":
            self._select = None
        elif tag == "button" and self._button is not None and self._form is not None:
            self._form["buttons"].append(self._button)
            self._button = None
        elif tag == "form" and self._form is not None:
            self.forms.append(self._form)
            self._form = None


class Scorekeeper:
    """Taps the table screen's buttons and counts every tap."""

    def __init__(self, page: TablePage) -> None:
        self.page = page
        self.taps = 0

    def tap(self, button_text: str, tick: dict[str, list[str]] | None = None, typed: dict[str, str] | None = None) -> None:
        parser = Forms()
        parser.feed(self.page.html)
        for form in parser.forms:
            button = next((b for b in form["buttons"] if " ".join(b["text"].split()) == button_text), None)
            if button is not None:
                break
        else:
            raise AssertionError(f"no button {button_text!r} on the page")
        data: dict[str, list[str]] = {}
        for name, value in form["fields"]:
            data.setdefault(name, []).append((typed or {}).get(name, value))
        for name, value in form["selects"].items():
            data[name] = [(typed or {}).get(name, value)]
        self.taps += len(typed or {})  # one tap per field typed into (or list chosen from)
        for name, values in (tick or {}).items():
            for value in values:
                assert (name, value) in form["boxes"], f"no toggle {name}={value}"
                data.setdefault(name, []).append(value)
                self.taps += 1
        if form["details"] is not None:
            self.taps += 1  # open the folded section first
        if button["name"]:
            data[button["name"]] = [button["value"] or ""]
        self.taps += 1
        response = self.page.client.post(form["action"], data=data)
        assert response.status_code == 303, response.get_data(as_text=True)[:500]
        self.page.refresh()
        assert 'class="errors"' not in self.page.html

    def counted(self, play) -> int:  # type: ignore[no-untyped-def]
        before = self.taps
        play()
        return self.taps - before


def start(client, preset: str, players: list[str], **rules: str) -> TablePage:  # type: ignore[no-untyped-def]
    response = client.post("/nights", data={
        **{f"seat_{i + 1}": n for i, n in enumerate(FOUR)}, "first_dealer": "1", "ante": "1", "ante_every": "1",
        "tokens_to_win": "5", "chip_value": "", "currency": "EUR", "unfinished_pot": "return_antes",
    })
    page = TablePage(client, response.headers["Location"])
    html = client.get(f"{page.url}/next-game?game=pots").get_data(as_text=True)
    stamp = {k: re.search(rf'name="{k}"[^>]*value="([^"]+)"', html).group(1) for k in ("version", "request_key")}  # type: ignore[union-attr]
    form = {"game": "pots", "players": players, "first_dealer": players[0], "preset": preset, "ante": "1",
            "stake_a": "2", "stake_b": "3", "sale_limit": "", **rules}
    assert client.post(f"{page.url}/next-game", data={**stamp, **form}).status_code == 303
    page.refresh()
    return page


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp))
        client = app.test_client()

        keeper = Scorekeeper(start(client, "high_card", FOUR))
        usual = [keeper.counted(lambda: keeper.tap(f"{w} won")) for w in ("Cat", "Ann", "Dan")]
        assert len(set(usual)) == 1
        print(f"taps per usual fixed-stake deal after the antes (High Card, 4 players): {usual[0]} (goal 1)")
        print(f"taps to carry the pot to the next deal: {keeper.counted(lambda: keeper.tap('Nobody won: carry the pot to the next deal (everyone antes again)'))}")
        split = keeper.counted(lambda: keeper.tap("Record the split", tick={"tied": ["Ann", "Ben"]}))
        print(f"taps to split a pot between two: {split}")

        keeper = Scorekeeper(start(client, "tips_to_the_fat_one", ["Ann", "Ben"]))
        deal = keeper.counted(lambda: [keeper.tap(f"{w} won") for w in ("Ann", "Ben", "Ann", "Ann", "Ben")])
        assert "Deal 2" in keeper.page.html
        print(f"taps per Tips to the Fat One deal (five pots): {deal} (one per pot)")

        keeper = Scorekeeper(start(client, "nasdaq", FOUR, sale_limit="5"))
        sale = keeper.counted(lambda: keeper.tap("Record the sale", typed={"seller": "Ben", "buyer": "Cat", "price": "12"}))
        high_low = keeper.counted(lambda: keeper.tap("Record high-low", tick={"high": ["Ann"], "low": ["Cat"]}))
        print(f"taps for a NASDAQ sale (seller, buyer, price, record): {sale}")
        print(f"taps for a high-low split, one high and one low: {high_low}")


if __name__ == "__main__":
    main()
