"""The web layer is one blueprint per feature (issue 24), and splitting it changed no address.

The pages are in companion/web/pages/, the HTTP machinery they share in companion/web/plumbing/
(issue 37, item 5), and the machinery imports no page.  A blueprint imports no other: what two
features share has a module of its own (plumbing/links.py, plumbing/this_browser.py, pages/standings.py,
pages/ledger_pages.py, forms.py), so each feature can be read, and changed, alone.  Each blueprint's
pages are in its own folder of templates/.  The addresses are the ones phones have bookmarked and the tests
use: the list below is every route the app had before the split, with its methods, and the
group's pages added since.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "companion" / "web"
PAGES = WEB / "pages"
PLUMBING = WEB / "plumbing"


def blueprint_name(path: Path) -> str | None:
    """The name of the blueprint ``path`` defines (``Blueprint("name", …)``), or None."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Blueprint":
            first = node.args[0]
            assert isinstance(first, ast.Constant)
            return str(first.value)
    return None


BLUEPRINTS = {path.stem: name for path in sorted(WEB.rglob("*.py")) if (name := blueprint_name(path)) is not None}


def web_modules_imported(path: Path) -> set[str]:
    """The modules of companion/web that ``path`` imports, at any depth of it, each by its own name
    (``companion.web.pages.table`` is "table"; ``from companion.web.plumbing import qr`` is "qr")."""
    folders = {"pages", "plumbing"}
    found: set[str] = set()

    def add(dotted: str) -> None:
        parts = dotted.split(".")[2:]
        while parts and parts[0] in folders:
            parts = parts[1:]
        if parts:
            found.add(parts[0])

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("companion.web"):
            module = node.module or ""
            if module in {"companion.web", *(f"companion.web.{f}" for f in folders)}:
                found.update(alias.name for alias in node.names if alias.name not in folders)
            else:
                add(module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("companion.web."):
                    add(alias.name)
    return found


def test_every_feature_has_its_blueprint():
    assert BLUEPRINTS == {
        "home": "home", "table": "table", "history": "history", "share": "share", "night_setup": "setup",
        "next_game": "next_game", "players": "players", "report": "report", "bank": "bank", "bonus": "bonus",
        "choice": "choice", "groups": "groups", "display": "display",
    }


def test_no_blueprint_imports_another():
    for module in BLUEPRINTS:
        others = web_modules_imported(PAGES / f"{module}.py") & (set(BLUEPRINTS) - {module})
        assert not others, f"web/{module}.py imports the blueprints {sorted(others)}"


def test_every_blueprint_is_a_page_module():
    assert all((PAGES / f"{module}.py").is_file() for module in BLUEPRINTS)


def test_the_machinery_imports_no_page():
    pages = {p.stem for p in PAGES.glob("*.py")} - {"__init__"}
    for path in sorted(PLUMBING.glob("*.py")):
        imported = web_modules_imported(path) & pages
        assert not imported, f"web/plumbing/{path.name} imports the pages {sorted(imported)}"


def test_the_check_would_catch_a_blueprint_imported(tmp_path: Path):
    bad = tmp_path / "bad.py"
    bad.write_text("from companion.web.pages import home\nfrom companion.web.pages.table import render_table\n"
                   "def f():\n    import companion.web.pages.bonus\n")
    assert web_modules_imported(bad) == {"home", "table", "bonus"}


#: a template's name as a view gives it: "<folder>/<page>.html"
TEMPLATE = re.compile(r"[a-z_]+/[a-z_]+\.html")


def test_each_blueprint_renders_the_pages_of_its_own_folder():
    for module, name in BLUEPRINTS.items():
        tree = ast.parse((PAGES / f"{module}.py").read_text(encoding="utf-8"))
        pages = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and TEMPLATE.fullmatch(n.value)}
        assert pages, module
        assert {page.split("/")[0] for page in pages} == {name}, (module, pages)


#: every route of the app before the split into one blueprint per feature: (rule, methods)
ROUTES = {
    ("/", "GET"), ("/healthz", "GET"), ("/import", "POST"), ("/nights", "POST"), ("/nights", "GET"),
    ("/sw.js", "GET"), ("/static/<path:filename>", "GET"), ("/players/<path:name>", "GET"),
    ("/k/<key>", "GET"), ("/k/<key>/<action>", "POST"), ("/k/<key>/take-back", "POST"),
    ("/k/<key>/history", "GET"), ("/k/<key>/export.json", "GET"),
    ("/k/<key>/share", "GET"), ("/k/<key>/players-qr.svg", "GET"), ("/k/<key>/rotate", "POST"),
    ("/k/<key>/setup", "GET POST"), ("/k/<key>/next-game", "GET POST"),
    ("/k/<key>/bank", "GET"), ("/k/<key>/bank/setting", "POST"), ("/k/<key>/bank/everyone", "POST"),
    ("/k/<key>/bank/player", "POST"), ("/k/<key>/bank/cancel", "POST"), ("/k/<key>/bank/cancel", "GET"),
    ("/k/<key>/bonus", "GET"), ("/k/<key>/bonus/grid", "GET POST"), ("/k/<key>/bonus/roll", "POST"),
    ("/k/<key>/bonus/lucky", "POST"), ("/k/<key>/choice", "GET"),
    ("/k/<key>/report", "GET"), ("/k/<key>/report.csv", "GET"), ("/k/<key>/report.json", "GET"),
    ("/k/<key>/paid", "POST"), ("/k/<key>/carry", "POST"),
    ("/p/<key>", "GET"), ("/p/<key>/live", "GET"), ("/p/<key>/me", "GET"),
    ("/p/<key>/report", "GET"), ("/p/<key>/report.csv", "GET"), ("/p/<key>/report.json", "GET"),
    # the group's pages (issue 25): made from the home page, the organiser's and the members' links,
    # and a night kept in a group from its scorekeeper's link
    ("/groups", "GET"), ("/groups", "POST"), ("/groups/import", "POST"),
    ("/g/<key>", "GET"), ("/g/<key>/members/add", "POST"), ("/g/<key>/members/rename", "POST"),
    ("/g/<key>/members/merge", "POST"), ("/g/<key>/handles", "POST"), ("/g/<key>/handles/remove", "POST"),
    ("/g/<key>/tab/paid", "POST"), ("/g/<key>/tab/settle", "POST"), ("/g/<key>/members-qr.svg", "GET"),
    # each payment and correction asks first (issue 35): the same address, by GET; a night taken out, put back
    ("/g/<key>/tab/paid", "GET"), ("/g/<key>/tab/settle", "GET"),
    ("/g/<key>/nights/out", "GET"), ("/g/<key>/nights/out", "POST"),
    ("/g/<key>/nights/back", "GET"), ("/g/<key>/nights/back", "POST"),
    ("/g/<key>/rotate", "POST"), ("/g/<key>/export.json", "GET"), ("/g/<key>/new-night", "GET"),
    ("/g/<key>/nights", "POST"), ("/m/<key>", "GET"),
    # a member's own link: "I got it" for a payment to them alone (issue 35, item 7); made on the organiser's page
    ("/y/<key>", "GET"), ("/y/<key>/got-it", "GET"), ("/y/<key>/got-it", "POST"),
    ("/g/<key>/members/link", "POST"), ("/g/<key>/member-qr.svg", "GET"),
    ("/k/<key>/group", "GET"), ("/k/<key>/group", "POST"),
    # the live pages pushed by Server-Sent Events, beside the poll (issue 37)
    ("/p/<key>/stream", "GET"), ("/m/<key>/stream", "GET"), ("/g/<key>/stream", "GET"),
    # another keeper phone's own link, made and taken back (issue 39, docs/keepers.md)
    ("/k/<key>/phones", "POST"), ("/k/<key>/phones/take-back", "GET"), ("/k/<key>/phones/take-back", "POST"),
    # the table display's own link, made and taken back on the share page, and its page (issue 39, docs/display.md)
    ("/k/<key>/display", "POST"), ("/d/<key>", "GET"), ("/d/<key>/live", "GET"), ("/d/<key>/stream", "GET"),
}


def test_the_addresses_are_the_ones_the_app_always_had(app):
    routes = {(rule.rule, " ".join(sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})))
              for rule in app.url_map.iter_rules()}
    assert routes == ROUTES


def test_a_bank_address_is_not_taken_for_a_table_action(client, start_night):
    """``/k/<key>/<action>`` is the table's; the pages beside it keep their own addresses."""
    page = start_night()
    for path in ("share", "history", "setup", "next-game", "bank", "bonus", "choice", "bonus/grid"):
        assert client.get(f"{page.url}/{path}").status_code == 200, path
