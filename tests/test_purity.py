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
        *PACKAGE.joinpath("money").rglob("*.py"),
        *PACKAGE.joinpath("night").rglob("*.py"),
        *PACKAGE.joinpath("report").rglob("*.py"),
        PACKAGE / "web" / "qr.py",
        PACKAGE / "reading.py",
    ]
)
IMPURE_SIBLINGS = {"db", "extensions", "service", "web", "cli"}
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


#: The layers outside companion/games/ that must know no game by name (docs/adding-a-game.md):
#: they may import the games' protocol (companion.games.base) and the registry, never a game.
GAME_AGNOSTIC = [*PACKAGE.joinpath("report").rglob("*.py"), PACKAGE / "web" / "report.py"]
GAME_PACKAGES = sorted(
    p.name for p in PACKAGE.joinpath("games").iterdir() if p.is_dir() and (p / "__init__.py").exists()
)


def game_packages_imported(path: Path) -> set[str]:
    """The game packages ``path`` imports, absolutely or relatively, at any depth of the module."""
    found: set[str] = set()
    here = ["companion", *path.resolve().relative_to(PACKAGE).parts[:-1]] if path.is_relative_to(PACKAGE) else ["companion"]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative to the module's package (a stray file counts as in companion/)
                package = here[: len(here) - node.level + 1]
                base = ".".join([*package, base] if base else package)
            modules = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[:2] == ["companion", "games"] and len(parts) > 2 and parts[2] in GAME_PACKAGES:
                found.add(parts[2])
    return found


@pytest.mark.parametrize("path", GAME_AGNOSTIC, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_report_layer_imports_no_game_package(path: Path) -> None:
    assert GAME_PACKAGES and not game_packages_imported(path)


#: Every module of the app outside companion/games/: the whole layer knows no game by name.  It
#: reaches the games through the registry (companion.games), their protocol (companion.games.base,
#: companion.games.fold) and the screens' registry (companion.games.web), never a game's package.
OUTSIDE_THE_GAMES = sorted(p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] != "games")


def test_the_layers_outside_the_games_are_every_module_but_the_games():
    names = {str(p.relative_to(PACKAGE)) for p in OUTSIDE_THE_GAMES}
    assert {"service/recording.py", "web/forms.py", "night/standings.py", "night/file.py", "cli.py",
            "report/night_chart.py", "web/common.py", "web/table.py"} <= names
    assert not any(name.startswith("games") for name in names)


@pytest.mark.parametrize("path", OUTSIDE_THE_GAMES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_outside_companion_games_imports_a_game_package(path: Path) -> None:
    assert GAME_PACKAGES and not game_packages_imported(path)


def test_the_game_check_would_catch_a_game_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from .games.napalm.closing import close_night\nfrom .games import nap\n"
        "import companion.games.pots.engine\nfrom .games.base import GameClosing\n"
        "def f():\n    from companion.games.betting import game\n"
    )
    assert game_packages_imported(bad) == {"napalm", "nap", "pots", "betting"}
