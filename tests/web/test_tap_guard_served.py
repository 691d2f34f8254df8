"""The tap guard's figure as served to people: 1 s after the tap that opened a screen (companion/web/plumbing/tap_guard.py).

The browser tests try the guard's mechanism at a longer figure (tests/browser/phone.py, HURRIED_TAP_GUARD_MS):
on a loaded machine Chromium may deliver a thumb's second tap more than a second late.  What a phone is
served is this figure, read off the page as the script reads it (``data-tap-guard`` on the body).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion import create_app


@pytest.mark.app_makes_the_database
def test_a_screen_is_served_to_ignore_taps_for_one_second_unless_the_setting_says_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COMPANION_TAP_GUARD_MS", raising=False)
    config = {"TESTING": True, "SECRET_KEY": "a-secret-key-long-enough-for-the-tests-0123456789",
              "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'guard.sqlite'}"}
    page = create_app(config).test_client().get("/about-nothing")  # any page: a 404 is one too
    assert re.search(r'<body[^>]* data-tap-guard="1000"', page.text), page.text[:400]

    monkeypatch.setenv("COMPANION_TAP_GUARD_MS", "0")  # the setting that turns both guards off
    page = create_app(config).test_client().get("/about-nothing")
    assert re.search(r'<body[^>]* data-tap-guard="0"', page.text)
