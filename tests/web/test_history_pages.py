"""Issue 14, item 12: the history comes in pages of 100 actions, newest first."""

from __future__ import annotations

import re


def _seqs(html: str) -> list[int]:
    return [int(n) for n in re.findall(r"<tr class=\"[^\"]*\">\s*<td>(\d+)</td>", html)]


def test_a_long_history_comes_in_pages_of_a_hundred_newest_first(start_night, client):
    t = start_night()
    for _ in range(205):  # 205 stages where nobody said Yes: actions #1 to #205
        t.declare()
    first = client.get(f"{t.url}/history").get_data(as_text=True)
    assert _seqs(first) == list(range(205, 105, -1))
    assert "Actions 106–205 of 205 (page 1 of 3)" in first
    assert f'href="{t.url}/history?page=2">Older</a>' in first and ">Newer</a>" not in first
    third = client.get(f"{t.url}/history?page=3").get_data(as_text=True)
    assert _seqs(third) == [5, 4, 3, 2, 1]
    assert "Actions 1–5 of 205 (page 3 of 3)" in third and ">Older</a>" not in third
    assert client.get(f"{t.url}/history?page=4").status_code == 404
    assert client.get(f"{t.url}/history?page=abc").status_code == 400
    assert client.get(f"{t.url}/history?page=0").status_code == 400
