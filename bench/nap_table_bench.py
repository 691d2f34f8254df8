"""Nap at the table, measured: taps per deal through the real page, page weight, time per deal.

Run: .venv/bin/python bench/nap_table_bench.py   (prints plain lines; see bench/README.md)

- Taps: a deal recorded through the real table screen (the test client), counting what a
  finger does: a toggle tapped (a radio or a checkbox: the page's ``label.toggle``), a
  ``<details>`` opened, a submit button pressed.  Every control is looked up in the page's
  HTML first (a control inside a closed ``<details>`` costs the tap that opens it), and the
  submit posts exactly the controls tapped, so a count below what the page needs would fail.
  Measured: a plain deal (goal 3), a Pool Nap deal with a lead out of turn, a thrown-in deal
  (5 players).
- Page weight: the Nap table screen's HTML plus every asset it loads, raw and gzip.
- Server time: recording one deal (POST, redirect not followed) at the start of a Pool Nap
  game and after 500 deals, median of many runs (each deal undone again).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from pages import TablePage, night_form  # noqa: E402
from table_bench import make_app, page_weight, time_action  # noqa: E402  (one bench app, one timing loop)

FOUR = ["Ann", "Ben", "Cat", "Dan"]
FIVE = FOUR + ["Eve"]


def nap_game(client, players: list[str], variant: str) -> TablePage:  # type: ignore[no-untyped-def]
    """A night started on the home page, then Nap started from "Start the next game"."""
    response = client.post("/nights", data=night_form(**{f"seat_{i}": n for i, n in enumerate(players, 1)}))
    url = response.headers["Location"]
    html = client.get(f"{url}/next-game?game=nap").get_data(as_text=True)
    version = re.search(r'name="version"[^>]*value="(\d+)"', html).group(1)  # type: ignore[union-attr]
    key = re.search(r'name="request_key"[^>]*value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    response = client.post(f"{url}/next-game", data={
        "version": version, "request_key": key, "game": "nap", "players": players,
        "first_dealer": players[0], "variant": variant, "misere": "y", "stake": "1",
    })
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    return TablePage(client, url)


class Finger:
    """Taps the deal form of the page as shown, counting every tap."""

    def __init__(self, page: TablePage) -> None:
        self.page = page
        found = re.search(r'<form method="post" action="[^"]*/deal"[^>]*>(.*?)</form>', page.html, re.S)
        assert found, "no deal form on the table screen"
        self.form = found.group(1)
        closed = re.search(r"<details class=\"extras\"[^>]*>(.*?)</details>", self.form, re.S)
        self.hidden_part = closed.group(1) if closed else ""
        self.opened = False
        self.taps = 0
        self.data: dict[str, list[str]] = {}

    def _reach(self, control: str) -> None:
        assert control in self.form, f"the page has no {control}"
        if control in self.hidden_part and not self.opened:
            self.opened = True
            self.taps += 1  # open "Penalties"

    def toggle(self, name: str, value: str) -> None:
        control = f'name="{name}" value="{value}"'
        self._reach(control)
        assert re.search(rf'<label class="toggle"><input type="(radio|checkbox)" {control}', self.form), control
        self.taps += 1
        self.data.setdefault(name, []).append(value)

    def press(self, value: str) -> str:
        control = f'<button type="submit" name="result" value="{value}"'
        self._reach(control)
        self.taps += 1
        before = self.page.html
        response = self.page.post("deal", {**self.data, "result": value})
        assert response.status_code == 303 and self.page.html != before, response.status_code
        flash = re.search(r'class="flash"[^>]*>(.*?)</', self.page.html, re.S)
        return flash.group(1).strip() if flash else ""


def count_taps(client) -> dict[str, int]:  # type: ignore[no-untyped-def]
    taps = {}
    page = nap_game(client, FOUR, "plain")
    finger = Finger(page)
    finger.toggle("bidder", "Cat")
    finger.toggle("bid", "2")
    said = finger.press("made")
    assert said.startswith("Cat made 2: +6"), said
    taps["a plain deal, 4 players (goal 3)"] = finger.taps

    page = nap_game(client, FOUR, "pool")
    finger = Finger(page)
    finger.toggle("bidder", "Ben")
    finger.toggle("bid", "nap")
    finger.toggle("led", "Cat")
    said = finger.press("made")
    assert said.startswith("Ben made Nap (Cat led out of turn)"), said
    taps["a Pool Nap deal with a lead out of turn"] = finger.taps

    page = nap_game(client, FIVE, "plain")
    finger = Finger(page)
    said = finger.press("thrown_in")
    assert said.startswith("Thrown in"), said
    taps["a thrown-in deal, 5 players"] = finger.taps
    return taps


def time_deals(page: TablePage, runs: int) -> float:
    """Median seconds to record a deal (a failed Nap, recorded then undone)."""
    return time_action(page, "deal", {"bidder": "Cat", "bid": "nap", "result": "failed"}, runs)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), NIGHT_LIMIT=10_000)
        client = app.test_client()
        for what, taps in count_taps(client).items():
            print(f"taps for {what}: {taps}")
        page = nap_game(client, FOUR, "purchase")  # the busiest screen: exchanges and penalties
        raw, zipped, assets = page_weight(client, page.url)
        print(f"Nap table screen weight (Purchase Nap): {raw / 1024:.1f} KB raw, {zipped / 1024:.1f} KB gzip "
              f"(HTML + {len(assets)} assets; goal <= 40 KB)")

        fresh = nap_game(client, FOUR, "pool")
        runs = 51
        start_median = time_deals(fresh, runs)
        long_game = nap_game(client, FOUR, "pool")
        bids = ["1", "2", "3", "misere", "4", "nap"]
        version = int(long_game.stamp("deal")["version"])
        # the robot skips the reload between deals (the form's version goes up by one), so it uses a
        # client of its own: the flash lines it never reads would pile up in the measured phone's session
        robot = app.test_client()
        for i in range(500):
            response = robot.post(f"{long_game.url}/deal", data={
                "version": str(version + i), "request_key": f"bench-deal-{i:06d}",
                "bidder": FOUR[i % 4], "bid": bids[i % 6], "result": "made" if i % 3 else "failed",
            })
            assert response.status_code == 303, response.status_code
        long_game.refresh()
        end_median = time_deals(long_game, runs)
        print(f"record a Pool Nap deal at the start of a game: median {start_median * 1000:.2f} ms ({runs} runs)")
        print(f"record a Pool Nap deal after 500 deals: median {end_median * 1000:.2f} ms ({runs} runs)")
        print(f"ratio end/start: {end_median / start_median:.2f}")


if __name__ == "__main__":
    main()
