"""The tree is the architecture: each folder of ``companion/`` is a layer, and the imports obey it.

Read from the bottom up (README.md, "Layout"):

* ``values/``: the one reader of each kind of value, and what a night's row may store;
* ``money/``: exact chips and ``Decimal`` money, the settle-up plan;
* ``games/``: the game framework and one folder per game;
* ``night/``: a night as a pure fold, its own ledger (bank, Bonus Round, dealer's choice);
* ``report/`` (and a game's own part of it, ``games/<kind>/report.py``): the end-of-night
  report and its charts;
* ``group/``: a group across nights: its members, season, rivalries, running tab, pay links;
* ``db/`` (and ``extensions.py``): the models, the engine, migrations, backups, brakes;
* ``service/``: the only writer;
* ``web/`` (and each game's web part: ``games/web.py``, ``games/<kind>/web.py`` and
  ``forms.py``): the blueprints, the forms, the page cache and the HTTP machinery;
* ``__init__.py`` and ``cli.py``: the app factory and the command line.

The checks read the source (every ``import``, at any depth of a module, relative ones
resolved), so a function-level import cannot hide an upward one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
#: the layers from the bottom up: a module may import its own layer and the ones below
LAYERS = ("values", "money", "games", "night", "report", "group", "db", "service", "web", "app")
#: the layers that are pure libraries: values in, values out, no web and no database
PURE_LAYERS = {"values", "money", "games", "night", "report", "group"}
#: what a pure module may not import
WEB_OR_DATABASE = {"flask", "flask_sqlalchemy", "flask_wtf", "flask_migrate", "flask_compress", "sqlalchemy", "wtforms", "werkzeug", "jinja2", "alembic"}
#: a game's web part (its forms and how its screens read a request) belongs to the web layer
GAME_WEB_PARTS = {"web.py", "forms.py"}
#: a game's own part of the end-of-night report (games/<kind>/report.py) belongs to the report layer
GAME_REPORT_PART = "report.py"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    """The layer of a module of the app, from its place in the tree alone."""
    parts = module.split(".")[1:]
    if not parts or parts[0] == "cli":
        return "app"
    if parts[0] == "extensions":
        return "db"
    if parts[0] == "games" and len(parts) >= 2 and parts[-1] in {p.removesuffix(".py") for p in GAME_WEB_PARTS}:
        return "web"
    if parts[0] == "games" and len(parts) == 3 and parts[-1] == GAME_REPORT_PART.removesuffix(".py"):
        return "report"
    assert parts[0] in LAYERS, f"{module}: a module outside every layer"
    return parts[0]


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "migrations" not in p.parts}


def imports_of(path: Path, module: str | None = None) -> Iterator[str]:
    """Every module name ``path`` imports, anywhere in it (``from a import b`` yields a and a.b).

    ``module``: the name the file has in the package (its path's, unless a probe says otherwise).
    """
    here = (module or module_name(path)).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
            # ``from companion import service`` imports the service, not the app factory: the
            # root package counts only for a name defined in it (``from companion import create_app``)
            if base != "companion" or any(name not in MODULES for name in names):
                yield base
            yield from names


def app_modules_imported(path: Path, module: str | None = None) -> set[str]:
    """The app's own modules ``path`` imports (a name imported from a module counts as that module)."""
    return {name for name in imports_of(path, module) if name in MODULES}


@pytest.mark.parametrize("module", sorted(MODULES), ids=str)
def test_a_module_imports_only_its_own_layer_and_the_layers_below(module: str) -> None:
    mine = LAYERS.index(layer_of(module))
    above = {name: layer_of(name) for name in app_modules_imported(MODULES[module]) if LAYERS.index(layer_of(name)) > mine}
    assert not above, f"{module} ({layer_of(module)}) imports a layer above it: {above}"


PURE = sorted(name for name in MODULES if layer_of(name) in PURE_LAYERS)


@pytest.mark.parametrize("module", PURE, ids=str)
def test_a_pure_module_imports_no_web_or_database_library(module: str) -> None:
    roots = {name.split(".")[0] for name in imports_of(MODULES[module])}
    assert not roots & WEB_OR_DATABASE


def test_the_purity_check_would_catch_a_flask_import_inside_a_function(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("def f():\n    from flask import Flask\n    import sqlalchemy.orm\n")
    roots = {name.split(".")[0] for name in imports_of(bad, "companion.money.probe")}
    assert roots & WEB_OR_DATABASE == {"flask", "sqlalchemy"}


def test_the_qr_renderer_is_pure_too() -> None:
    """A pure renderer, as python-chess's ``chess.svg`` is, though the web layer is its only user."""
    roots = {name.split(".")[0] for name in imports_of(PACKAGE / "web" / "plumbing" / "qr.py")}
    assert not roots & WEB_OR_DATABASE


def test_the_pure_layers_are_whole_folders() -> None:
    """Every module of values/, money/, night/, report/, group/ and every game's rules is checked, none left out.

    A game's rules are its ``game.py`` (which holds its ``GAME``) and every other module of its folder
    but its web part (``web.py``, ``forms.py``) and its part of the report (``report.py``): the table may
    live in ``game.py`` or in a module of its own, named as the game likes (docs/adding-a-game.md, 1).
    """
    for folder in ("values", "money", "night", "report", "group"):
        files = {module_name(p) for p in PACKAGE.joinpath(folder).rglob("*.py")}
        assert files and files <= set(PURE)
    game_folders = [p for p in PACKAGE.joinpath("games").iterdir() if (p / "__init__.py").exists()]
    assert game_folders
    for folder in game_folders:
        assert f"companion.games.{folder.name}.game" in PURE, f"{folder.name}: no game.py holding its GAME"
        rules = {p.name for p in folder.rglob("*.py")} - GAME_WEB_PARTS - {GAME_REPORT_PART}
        assert {module_name(p) for p in folder.rglob("*.py") if p.name in rules} <= set(PURE)


WEB_MODULES = sorted(name for name in MODULES if layer_of(name) == "web")


@pytest.mark.parametrize("module", WEB_MODULES, ids=str)
def test_a_web_module_reaches_the_data_through_the_service_alone(module: str) -> None:
    """Issue 37, item 3: views translate a request into a service call and its answer into a page; the
    models, the engine and the session are the service's own (``companion.service.NightRow`` names the
    row a page reads)."""
    database = {name for name in app_modules_imported(MODULES[module]) if layer_of(name) == "db"}
    assert not database, f"{module} imports the database layer: {sorted(database)}"


def test_the_service_check_would_catch_a_model_imported_inside_a_view(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("def view():\n    from companion.db.models import Night\n    from companion.extensions import db\n")
    found = {name for name in app_modules_imported(bad, "companion.web.probe") if layer_of(name) == "db"}
    assert {"companion.db.models", "companion.extensions"} <= found


def test_the_layer_check_would_catch_an_upward_import_inside_a_function(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("def f():\n    from companion.service import new_key\n    from ..web import forms\n")
    found = app_modules_imported(bad, "companion.night.probe")
    assert {"companion.service", "companion.web.forms"} <= found
    assert {layer_of(name) for name in found} >= {"service", "web"}


# --- no game by name outside companion/games/ -------------------------------------------

GAME_PACKAGES = sorted(p.name for p in PACKAGE.joinpath("games").iterdir() if (p / "__init__.py").exists())
OUTSIDE_THE_GAMES = sorted(name for name in MODULES if not name.startswith("companion.games"))


def game_packages_imported(path: Path, module: str | None = None) -> set[str]:
    """The game packages ``path`` imports, absolutely or relatively, at any depth of the module."""
    found: set[str] = set()
    for name in imports_of(path, module):
        parts = name.split(".")
        if parts[:2] == ["companion", "games"] and len(parts) > 2 and parts[2] in GAME_PACKAGES:
            found.add(parts[2])
    return found


@pytest.mark.parametrize("module", OUTSIDE_THE_GAMES, ids=str)
def test_no_module_outside_companion_games_imports_a_game_package(module: str) -> None:
    assert GAME_PACKAGES and not game_packages_imported(MODULES[module])


def test_the_game_check_would_catch_a_game_import(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text(
        "from ..games.napalm.closing import close_night\nfrom ..games import nap\n"
        "import companion.games.pots.engine\nfrom ..games.protocol import GameClosing\n"
        "def f():\n    from companion.games.betting import game\n"
    )
    assert game_packages_imported(bad, "companion.report.probe") == {"napalm", "nap", "pots", "betting"}


def test_every_game_package_is_checked() -> None:
    assert set(GAME_PACKAGES) >= {"napalm", "nap", "pots", "betting"}


# --- no import cycle ----------------------------------------------------------------------


def import_graph() -> dict[str, set[str]]:
    """Module → the app's modules it imports (a package's ``__init__`` counts as the package)."""
    return {name: app_modules_imported(path) - {name} for name, path in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def parents_of(module: str) -> set[str]:
    """Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first: those are not cycles of ours."""
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_two_modules_import_each_other_even_through_others() -> None:
    graph = {name: {n for n in targets if n not in parents_of(name)} for name, targets in import_graph().items()}
    assert cycles(graph) == []


def test_the_cycle_check_finds_a_cycle_through_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def writes_of(path: Path) -> list[str]:
    """Where ``path`` commits or writes through the session: ``….commit()``, ``session.add``, ``session.flush()``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"commit", "add", "add_all", "flush"}:
            owner = ast.unparse(node.func.value)
            if node.func.attr == "commit" or owner.endswith("session"):
                found.append(f"{owner}.{node.func.attr}() at line {node.lineno}")
    return found


@pytest.mark.parametrize("module", sorted(name for name in MODULES if layer_of(name) != "service"), ids=str)
def test_only_the_service_commits_or_adds_to_the_session(module: str) -> None:
    """One layer writes (the brief: one unit of work for every command): the web layer asks the service, and
    :mod:`companion.db` describes rows, engines and brakes without committing any."""
    assert not writes_of(MODULES[module]), f"{module} writes outside the service: {writes_of(MODULES[module])}"


def test_the_write_check_would_catch_a_commit_or_an_add_outside_the_service(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("def f(row):\n    db.session.add(row)\n    db.session.commit()\n    connection.commit()\n    things.add(1)\n")
    assert [w.split(" at")[0] for w in writes_of(bad)] == ["db.session.add()", "db.session.commit()", "connection.commit()"]
