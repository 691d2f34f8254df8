"""The rules, the ledger and the QR renderer are pure libraries: no web, no database."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
#: A game's web part (its forms and how its screens read a request) may import Flask and
#: WTForms; every other module of every game under companion/games/ is pure.
WEB_PARTS = {"web.py", "forms.py"}
PURE = sorted(
    [
        *(p for p in PACKAGE.joinpath("games").rglob("*.py") if p.name not in WEB_PARTS),
        *PACKAGE.joinpath("ledger").glob("*.py"),
        PACKAGE / "qr.py",
        PACKAGE / "storable.py",
        PACKAGE / "night.py",
        PACKAGE / "nightfile.py",
        PACKAGE / "night_ledger.py",
        PACKAGE / "standings.py",
        PACKAGE / "report.py",
        PACKAGE / "charts.py",
        PACKAGE / "night_chart.py",
        PACKAGE / "shown_cards.py",
    ]
)
IMPURE_SIBLINGS = {"models", "extensions", "services", "views", "forms", "database", "cli", "security"}
FORBIDDEN = (*IMPURE_SIBLINGS, "flask", "flask_sqlalchemy", "flask_wtf", "flask_migrate", "sqlalchemy", "wtforms", "werkzeug", "jinja2")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module:
            # a relative import must stay inside the pure part of the package
            first = node.module.split(".")[0]
            if first in IMPURE_SIBLINGS:
                names.add(first)
    return names


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_pure_module_imports_no_web_or_database_library(path: Path) -> None:
    assert not imported_modules(path) & set(FORBIDDEN)


def test_the_check_would_catch_a_flask_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from flask import Flask\nimport sqlalchemy.orm\n")
    assert imported_modules(bad) & set(FORBIDDEN) == {"flask", "sqlalchemy"}


def test_every_game_package_is_checked() -> None:
    checked = {p.relative_to(PACKAGE).parts[1] for p in PURE if p.relative_to(PACKAGE).parts[0] == "games" and len(p.relative_to(PACKAGE).parts) > 2}
    packages = {p.name for p in PACKAGE.joinpath("games").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages and checked == packages
