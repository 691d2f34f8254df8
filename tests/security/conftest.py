"""Fixtures for the security tests (helpers live in ``security/support.py``)."""

from __future__ import annotations

import pytest
from flask import Flask

from security.support import Site


@pytest.fixture
def site(app: Flask) -> Site:
    return Site(app)
