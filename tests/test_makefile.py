"""Issue 14, item 14: `make run` installs what the app needs to run, and nothing for the tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def dry_run(target: str, tmp_path: Path) -> list[str]:
    """The commands ``make <target>`` would run on a machine with no virtualenv yet."""
    venv = tmp_path / "fresh-venv"
    done = subprocess.run(
        ["make", "-n", target, f"VENV={venv}"], cwd=REPO, capture_output=True, text=True, check=True
    )
    return [line for line in done.stdout.splitlines() if "pip install" in line]


def test_make_run_installs_the_app_alone(tmp_path):
    installs = dry_run("run", tmp_path)
    assert any(line.endswith("-e .") for line in installs), installs
    assert not any("[test]" in line for line in installs), installs


def test_make_test_installs_the_test_tools_too(tmp_path):
    installs = dry_run("test", tmp_path)
    assert any(line.endswith("-e '.[test]'") for line in installs), installs
