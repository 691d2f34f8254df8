"""Starting up safely: a real secret key, and session cookies that stay on HTTPS."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from companion import ConfigError, create_app
from security.support import csrf_token_of

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean environment: no key, development mode, an empty instance folder."""
    for name in ("COMPANION_SECRET_KEY", "COMPANION_ENV", "COMPANION_PUBLIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "instance"
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(folder))
    monkeypatch.setenv("COMPANION_DATABASE_URL", f"sqlite:///{tmp_path / 'startup.sqlite'}")
    monkeypatch.setenv("COMPANION_ALLOWED_HOSTS", "192.168.1.20")  # stands for this machine's LAN address
    return folder


def _production(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_ENV", "production")


def test_production_refuses_to_start_without_a_secret_key(instance, monkeypatch):
    _production(monkeypatch)
    with pytest.raises(ConfigError, match="token_urlsafe"):
        create_app()
    assert not (instance / "secret_key").exists()  # it did not quietly make one either


def test_production_refuses_a_short_secret_key(instance, monkeypatch):
    _production(monkeypatch)
    monkeypatch.setenv("COMPANION_SECRET_KEY", "dev")
    with pytest.raises(ConfigError, match="too short"):
        create_app()


def test_production_starts_with_a_key_from_the_environment(instance, monkeypatch):
    _production(monkeypatch)
    monkeypatch.setenv("COMPANION_SECRET_KEY", "e" * 48)
    assert create_app().config["SECRET_KEY"] == "e" * 48


def test_production_starts_with_the_key_the_readme_says_how_to_make(instance, monkeypatch):
    text = README.read_text()
    assert "COMPANION_ENV=production" in text and "refuses to start without a real secret key" in text
    command = re.search(r"`python3 -c '([^']+)' > instance/secret_key`", text)
    assert command, "the README shows how to make a key"
    key = subprocess.run([sys.executable, "-c", command.group(1)], capture_output=True, text=True, check=True).stdout
    instance.mkdir(parents=True)
    (instance / "secret_key").write_text(key)
    _production(monkeypatch)
    app = create_app()
    assert app.config["SECRET_KEY"] == key.strip() and len(key.strip()) >= 43


def test_a_first_run_in_development_makes_a_key_in_the_instance_folder_and_keeps_it(instance):
    first = create_app()
    path = instance / "secret_key"
    key = path.read_text().strip()
    assert first.config["SECRET_KEY"] == key
    assert re.fullmatch(r"[A-Za-z0-9_-]{64}", key)  # 48 random bytes
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert create_app().config["SECRET_KEY"] == key  # the second run reads it back


def test_a_key_in_the_environment_wins_over_the_file(instance, monkeypatch):
    create_app()
    monkeypatch.setenv("COMPANION_SECRET_KEY", "k" * 48)
    assert create_app().config["SECRET_KEY"] == "k" * 48


# --- the session cookie ------------------------------------------------------------------------


def _cookie(app, base_url: str = "http://localhost") -> str:
    """The Set-Cookie header of the first page (the CSRF token puts the session in a cookie)."""
    from companion.extensions import db

    with app.app_context():
        db.create_all()
    response = app.test_client().get("/", base_url=base_url)
    assert response.status_code == 200
    csrf_token_of(response.get_data(as_text=True))
    header = response.headers.get("Set-Cookie")
    assert header and header.startswith("session="), header
    return header


def _flags(header: str) -> set[str]:
    return {part.strip().split("=")[0].lower() for part in header.split(";")[1:]}


def test_production_behind_an_https_address_sends_the_session_cookie_secure_only(instance, monkeypatch):
    _production(monkeypatch)
    monkeypatch.setenv("COMPANION_SECRET_KEY", "s" * 48)
    monkeypatch.setenv("COMPANION_PUBLIC_BASE_URL", "https://poker.example.org")
    app = create_app()
    assert app.config["SESSION_COOKIE_SECURE"] is True
    flags = _flags(_cookie(app))  # even when the proxy in front speaks plain HTTP to us
    assert {"secure", "httponly", "samesite"} <= flags


def test_a_request_that_came_over_https_gets_a_secure_cookie(instance):
    flags = _flags(_cookie(create_app(), base_url="https://192.168.1.20"))
    assert "secure" in flags and "httponly" in flags


def test_on_plain_http_in_the_living_room_the_cookie_still_works(instance, monkeypatch):
    """Phones on the local network use http://192.168…; a Secure cookie would never come back."""
    _production(monkeypatch)
    monkeypatch.setenv("COMPANION_SECRET_KEY", "s" * 48)
    flags = _flags(_cookie(create_app(), base_url="http://192.168.1.20:5000"))
    assert "secure" not in flags and "httponly" in flags
    assert os.environ.get("COMPANION_PUBLIC_BASE_URL") is None
