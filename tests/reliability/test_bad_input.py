"""Every route and every form field, tried with malformed, oversized, wrong-typed and hostile values.

The routes come from ``app.url_map`` and the fields from the forms and links the
pages themselves render, so a route or a field added later is covered without
touching this file.  The pages are those of nights made through the app's own
forms (waiting for a declaration, a challenge and a showdown; a game started by
mistake, to take back; a finished night with a payment to mark and a pot to
carry; a night with the bank and the Bonus Round) and of a group imported through
the home page (its organiser's and members' pages, with a tab to mark paid).  A
one-tap GET form (the report's *Mark paid*) is followed once, to reach the form
it asks to confirm.  Each value goes in alone, the rest of the route's own form as
a browser would send it; a path's ``key`` is the link of its kind (a night's
scorekeeper link for ``/k/``, its players' link for ``/p/``, its table display's for ``/d/``, the group's
organiser link for ``/g/`` and its members' link for ``/m/``), read again after
any request that may have replaced it.

Each path argument takes every value; each form field and query parameter every other one, the fields
of a route sharing them out (:func:`half_of`), so every route meets every value.

Whatever comes in, the answer is never a 500: it is a refusal (4xx) that says why
and changed nothing in the database, or an acceptance whose page shows the value
escaped; and every answer's headers are ones a real server can send (Latin-1).
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import func, select

from companion import service as services
from companion.extensions import db
from companion.db.models import Group, GroupNight, MemberLink, Night
from group.three_nights import group_document
from pages import BankPage, TablePage, night_form
from reliability.harness import backend_name, record_figures

XSS = "<script>alert(1)</script>"
XSS_ATTR = '"><img src=x onerror=alert(1)>'

#: (label, value): text goes in as UTF-8, bytes go in raw (percent-encoded as they are).
HOSTILE: list[tuple[str, str | bytes]] = [
    ("empty", ""),
    ("spaces", "  \t "),
    ("script tag", XSS),
    ("attribute breakout", XSS_ATTR),
    ("sql quote", "' OR '1'='1"),
    ("sql drop", "1; DROP TABLE event; --"),
    ("sql union", "Ann' UNION SELECT keeper_key FROM night --"),
    ("unicode", "ñandú 🃏 日本語 Ωμέγα"),
    ("right-to-left override", "\u202eAnn"),
    ("zero-width", "A\u200bnn"),
    ("NUL", "\x00"),
    ("embedded NUL", "Ann\x00Ben"),
    ("header injection", "x\r\nSet-Cookie: pwned=1"),
    ("negative", "-1"),
    ("huge negative", "-99999999999999999999"),
    ("huge number", "9" * 400),
    ("float overflow", "1e309"),
    ("not a number", "NaN"),
    ("infinity", "Infinity"),
    ("hex", "0x1F"),
    ("fraction", "1.5"),
    ("superscript digit", "²"),
    ("arabic-indic digit", "٣"),
    ("json literal", "null"),
    ("json object", '{"a": [1, 2]}'),
    ("template", "{{ 7*7 }}{% raw %}"),
    ("format string", "%s%s%n%x"),
    ("path traversal", "../../instance/secret_key"),
    ("oversized", "A" * 5000),
    ("far too long", "Ж" * 60_000),
    ("invalid utf-8", b"\xff\xfe\xfd"),
    ("utf-8 surrogate", b"\xed\xa0\x80"),
]
#: Values that also go into URL paths (the far too long ones are for bodies).
PATH_HOSTILE = [(label, value) for label, value in HOSTILE if label != "far too long"]

#: The values whose fate can depend on the database engine, once the app has accepted them: NUL (PostgreSQL
#: refuses it in text), bytes that are not UTF-8, numbers past a column's range or with more places than it
#: keeps, NaN and infinities (a numeric column of PostgreSQL takes them), text past a column's length
#: (PostgreSQL enforces VARCHAR's, SQLite does not), text compared by a unique index (collations differ) and
#: the SQL-looking ones.  The others are refused or passed through by the app's own readers before any
#: statement is made, the same code on either engine: they are swept on SQLite only (docs/ci.md).
ENGINE_SENSITIVE = frozenset({
    "NUL", "embedded NUL", "invalid utf-8", "utf-8 surrogate",
    "negative", "huge negative", "huge number", "float overflow", "not a number", "infinity", "fraction",
    "oversized", "far too long",
    "unicode", "right-to-left override", "zero-width",
    "sql quote", "sql drop", "sql union",
})
assert ENGINE_SENSITIVE <= {label for label, _value in HOSTILE}


def hostile_values(backend: str, values: list[tuple[str, str | bytes]]) -> list[tuple[str, str | bytes]]:
    """Every value on SQLite; on PostgreSQL the engine-sensitive ones, the rest being the app's own code."""
    return values if backend == "sqlite" else [(label, value) for label, value in values if label in ENGINE_SENSITIVE]



def half_of(values: list[tuple[str, str | bytes]], index: int) -> list[tuple[str, str | bytes]]:
    """The half of ``values`` the ``index``-th field (or query parameter) of a route is swept with: every other
    value, the even ones for the even fields and the odd ones for the odd.  Every route has at least two fields
    (its stamp's, and the one no form has) and two query parameters, so each value still reaches every route,
    and fields read by one reader (the same whole-number, decimal or name reader for every way in, tested value by
    value in tests/values) meet every value between them: the sweep's POSTs were most of CI's longest file."""
    return values[index % 2::2]


STAMP_FIELDS = ("version", "request_key")


# --- what the pages offer --------------------------------------------------------------------------

#: what a form or a path's key belongs to: ("night", id) or ("group", id)
Target = tuple[str, int]


@dataclass
class FormSeen:
    endpoint: str
    target: Target | None
    fields: dict[str, str]  # name -> the value a browser sends untouched ("" for choices not made)
    multipart: bool = False
    args: dict[str, str] = field(default_factory=dict)  # the action's path arguments but its key


@dataclass
class Surface:
    posts: dict[str, FormSeen] = field(default_factory=dict)
    query: dict[str, set[str]] = field(default_factory=dict)  # endpoint -> query parameter names
    path_values: dict[str, str] = field(default_factory=dict)  # argument name -> a real value
    followed: set[str] = field(default_factory=set)  # endpoints whose one-tap GET form was followed


_FORM = re.compile(r"<form\b([^>]*)>(.*?)</form>", re.S)
#: a select with its options, or another control (an input's tag alone: never up to a later select's end)
_CONTROL = re.compile(r"<(select)\b([^>]*)>(.*?)</select>|<(input|textarea|button)\b([^>]*)>", re.S)


def _attr(attrs: str, name: str) -> str | None:
    found = re.search(rf'\b{name}="([^"]*)"', attrs)
    return html.unescape(found.group(1)) if found else None


def discover(app, client, pages: list[tuple[str, Target | None]]) -> Surface:  # type: ignore[no-untyped-def]
    """Every form and query parameter the given pages render, keyed by the endpoint they reach.

    A GET form of hidden fields and a button (one tap, as the report's *Mark paid* asks to confirm)
    is followed once per endpoint, so the form its page then shows is found too."""
    adapter = app.url_map.bind("localhost")
    surface = Surface()
    queue = list(pages)
    while queue:
        url, target = queue.pop(0)
        body = client.get(url).get_data(as_text=True)
        for attrs, inner in _FORM.findall(body):
            action = _attr(attrs, "action") or url
            method = (_attr(attrs, "method") or "get").upper()
            path = urllib.parse.urlsplit(action).path
            try:
                endpoint, args = adapter.match(path, method=method)
            except Exception:  # noqa: BLE001 - a form to somewhere else
                continue
            fields: dict[str, str] = {}
            one_tap = method == "GET"
            for found in _CONTROL.finditer(inner):
                tag, control, options = (found[1], found[2], found[3]) if found[1] else (found[4], found[5], "")
                name = _attr(control, "name")
                kind = (_attr(control, "type") or "").lower()
                if tag != "button" and kind not in ("hidden", "submit") and not (tag == "input" and _attr(control, "value")):
                    one_tap = False  # a field to fill in (a text filled in already is sent as shown: Mark paid's amount)
                if not name:
                    continue
                if method == "GET":
                    surface.query.setdefault(endpoint, set()).add(name)
                    fields[name] = _attr(control, "value") or ""
                    continue
                if tag == "button" or kind in ("submit", "checkbox", "radio", "file"):
                    fields.setdefault(name, "")  # known, but not sent unless chosen
                    continue
                if tag == "select":
                    # the option selected, else the first; its value, else its text (as a browser sends it)
                    listed = re.findall(r"<option\b([^>]*)>([^<]*)", options)
                    chosen = next((o for o in listed if re.search(r"\bselected\b", o[0])), listed[0] if listed else None)
                    fields[name] = "" if chosen is None else (
                        _attr(chosen[0], "value") if _attr(chosen[0], "value") is not None else html.unescape(chosen[1]).strip()
                    )
                else:
                    fields[name] = _attr(control, "value") or ""
            if one_tap and fields and endpoint not in surface.followed:
                surface.followed.add(endpoint)
                queue.append((f"{path}?{urllib.parse.urlencode(fields)}", target))
            if method == "POST" and endpoint not in surface.posts:
                multipart = "multipart" in (_attr(attrs, "enctype") or "")
                others = {name: str(value) for name, value in args.items() if name != "key"}
                surface.posts[endpoint] = FormSeen(endpoint, target, fields, multipart, others)
        for href in re.findall(r'href="([^"]*\?[^"]*)"', body):
            href = html.unescape(href)
            parts = urllib.parse.urlsplit(href)
            try:
                endpoint, args = adapter.match(parts.path, method="GET")
            except Exception:  # noqa: BLE001
                continue
            surface.query.setdefault(endpoint, set()).update(urllib.parse.parse_qs(parts.query).keys())
            for name, value in args.items():
                if name != "key":
                    surface.path_values.setdefault(name, str(value))
    return surface


# --- the database before and after -----------------------------------------------------------------


#: every night's row with its games, every group's row and nights, and the number of events and group records,
#: as the database holds them (JSON as stored, no model between): one short read after each refusal
_FINGERPRINT = (
    "SELECT n.id, n.name, n.keeper_key, n.viewer_key, n.players, n.chip_value, n.currency, n.version,"
    " g.first_dealer, g.rules, g.players, g.carried_in FROM night n JOIN game g ON g.night_id = n.id"
    " ORDER BY n.id, g.position",
    "SELECT count(*) FROM event",
    "SELECT id, name, organiser_key, member_key, version FROM home_group ORDER BY id",
    "SELECT group_id, night_id, position FROM group_night ORDER BY id",
    "SELECT count(*) FROM group_record",
    "SELECT count(*) FROM member_link",
)


def fingerprint(app) -> str:  # type: ignore[no-untyped-def]
    """Every night's and group's row, every group's nights, and the number of events and group records:
    what a refused request must leave as it was."""
    with app.app_context(), db.engine.connect() as connection:
        found = [connection.exec_driver_sql(statement).all() for statement in _FINGERPRINT]
    return hashlib.sha256(repr(found).encode()).hexdigest()


@dataclass(frozen=True)
class Keys:
    """A night's or a group's links, by the first part of the addresses they open, and its version."""

    links: dict[str, str]  # "/k/" -> the scorekeeper link, "/p/" the players'; "/g/" the organiser's, "/m/" the members'
    version: int

    def for_rule(self, rule: str) -> str:
        return self.links.get(rule[:3], next(iter(self.links.values())))


def keys_of(app, target: Target) -> Keys:  # type: ignore[no-untyped-def]
    kind, ident = target
    with app.app_context():
        if kind == "group":
            group = db.session.get(Group, ident)
            own = db.session.scalar(select(MemberLink.key).where(MemberLink.group_id == ident).order_by(MemberLink.id.desc()))
            result = Keys({"/g/": group.organiser_key, "/m/": group.member_key, **({"/y/": own} if own else {})},
                          group.version)
        else:
            night = db.session.get(Night, ident)
            display = services.display_key_of(ident)  # the table display's, when the night has one
            result = Keys({"/k/": night.keeper_key, "/p/": night.viewer_key, **({"/d/": display} if display else {})},
                          night.version)
        db.session.remove()
    return result


# --- one request, judged ----------------------------------------------------------------------------


@dataclass
class Judge:
    app: Any
    client: Any
    figures: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    known: str = ""  # the database's fingerprint after the last request
    #: each night's and group's links and version, read again only after a request that may have changed them
    _keys: dict[Target, Keys] = field(default_factory=dict)

    def keys(self, target: Target) -> Keys:
        """The links and version of a night or a group as they are now."""
        if target not in self._keys:
            self._keys[target] = keys_of(self.app, target)
        return self._keys[target]

    def send(self, label: str, method: str, path: str, body: bytes | None = None, content_type: str | None = None,
             data: Any = None) -> Any:
        before = self.known or fingerprint(self.app)
        kwargs: dict[str, Any] = {}
        if data is not None:
            kwargs.update(data=data, content_type=content_type)
        elif body is not None:
            kwargs.update(data=body, content_type=content_type)
        response = self.client.open(path, method=method, **kwargs)
        self.figures["inputs"] += 1
        self.figures[f"status_{response.status_code // 100}xx"] += 1
        text = response.get_data(as_text=True)
        where = f"{method} {path[:120]} [{label}]"
        if response.status_code >= 500:
            self.failures.append(f"{where}: {response.status_code}")
            self.known = ""
            self._keys.clear()
            return response
        for header, value in response.headers.items():
            try:
                value.encode("latin-1")
            except UnicodeEncodeError:
                self.failures.append(f"{where}: header {header} cannot be sent by a real server: {value[:80]!r}")
        if 400 <= response.status_code < 500:
            self.figures["refused"] += 1
            if not _says_why(response, text):
                self.failures.append(f"{where}: {response.status_code} without a message")
            self.known = fingerprint(self.app)
            if self.known != before:
                self.failures.append(f"{where}: refused with {response.status_code} but the database changed")
        else:
            self.known = "" if method != "GET" else before  # a GET may change nothing either
            if method != "GET":
                self._keys.clear()  # an accepted form may have moved a version or rotated a link
            self.figures["accepted"] += 1
            page = text
            if response.status_code in (301, 302, 303) and response.headers.get("Location", "").startswith("/"):
                page = self.client.get(response.headers["Location"]).get_data(as_text=True)
            if "html" in (response.mimetype or "") or page is not text:
                for raw in (XSS, XSS_ATTR):
                    if raw in page:
                        self.failures.append(f"{where}: the page shows {raw!r} unescaped")
        return response


def _says_why(response: Any, text: str) -> bool:
    if response.is_json:
        payload = response.get_json(silent=True) or {}
        return bool(payload.get("error"))
    return 'role="alert"' in text and len(re.sub(r"<[^>]+>", "", text).strip()) > 0


def swept_names(names: set[str]) -> list[str]:
    """The fields a form's sweep tries: each of them, but of a numbered series read by one reader (the Bonus
    Round's 36 cells ``cell_1-1`` … ``cell_6-6``, the seats ``seat_1`` … ``seat_7``) only the first and the last."""
    series: dict[str, list[str]] = {}
    for name in names:
        series.setdefault(re.sub(r"[0-9]+", "#", name), []).append(name)

    def order(name: str) -> list[int | str]:
        return [int(part) if part.isdigit() else part for part in re.split(r"([0-9]+)", name)]

    kept = set()
    for members in series.values():
        members.sort(key=order)
        kept.update({members[0], members[-1]})
    return sorted(kept)


def _encode(pairs: list[tuple[str, str | bytes]]) -> bytes:
    return urllib.parse.urlencode(pairs).encode("ascii")


# --- the tests --------------------------------------------------------------------------------------


@pytest.fixture
def hostile_app(make_app):  # type: ignore[no-untyped-def]
    app = make_app(PROPAGATE_EXCEPTIONS=False, FAILED_LINK_LIMIT=10**9)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def _stamp(html_text: str) -> dict[str, str]:
    return dict(re.findall(r'name="(version|request_key)"[^>]*value="([^"]+)"', html_text))


def _nights(client) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Six nights made through the app's own forms, each showing forms the others do not: waiting for a
    declaration (before play), a challenge and a showdown; a Nap started by mistake after a game of
    Napalm (*Take back*); a "carry" night whose game was left unfinished with a pot (its report's
    *Mark paid* and *Start the next night with this pot*); and a night with everyone bought in at the
    bank and the Bonus Round's grid filled (the bank's *Cancel*, *Roll* and *Lucky number*)."""
    made: dict[str, str] = {}
    for phase in ("declare", "challenge", "showdown"):
        response = client.post("/nights", data=night_form(name=f"Hostile {phase}"))
        url = response.headers["Location"]
        stamp = _stamp(client.get(url).get_data(as_text=True))
        if phase == "declare":  # a second keeper phone: the share page's *Take back its link* and its confirm
            share = client.get(f"{url}/share").get_data(as_text=True)
            key = re.search(r'name="request_key" type="hidden" value="([^"]+)"', share.split('action="' + url + '/phones"')[1])
            client.post(f"{url}/phones", data={"name": "Ben's phone", "request_key": key[1]})
            client.post(f"{url}/display", data={"do": "new"})  # a table display: its pages are crawled too
        if phase == "challenge":
            client.post(f"{url}/declare", data={**stamp, "yes": ["Ann"], "confirm": "1"})  # Ann deals
        elif phase == "showdown":
            client.post(f"{url}/declare", data={**stamp, "yes": ["Ben", "Cat"], "confirm": "1"})
        made[phase] = url

    table = TablePage(client, client.post("/nights", data=night_form(name="Hostile take back")).headers["Location"])
    table.declare("Ben", "Cat")
    table.winner("Cat")
    table.declare("Dan")
    stamp = _stamp(client.get(f"{table.url}/next-game?game=nap").get_data(as_text=True))
    client.post(f"{table.url}/next-game", data={
        **stamp, "game": "nap", "rules_of": "nap", "players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": "Ben",
        "variant": "plain", "misere": "y", "stake": "1",
    })
    made["take back"] = table.url

    table = TablePage(client, client.post("/nights", data=night_form(name="Hostile carry", unfinished_pot="carry")).headers["Location"])
    table.declare("Ben", "Cat")
    table.winner("Cat")
    table.declare("Dan")
    table.declare()
    table.declare("Ann")  # hand 2 left unfinished with a pot of 8: Ben pays Cat 4 on the plan
    made["carry"] = table.url

    table = TablePage(client, client.post("/nights", data=night_form(name="Hostile bank")).headers["Location"])
    table.declare("Ben", "Cat")
    table.winner("Cat")
    BankPage(client, table).everyone("100")
    cells = {f"cell_{r}-{c}": "Napalm" for r in range(1, 7) for c in range(1, 7)}
    BankPage(client, table, "bonus/grid").post("bonus/grid", {
        "dice": "2d6", "lucky_chips": "1", "bonus_cells": "1-1", "bonus_chips": "2", "anti_cells": "6-6",
        "anti_chips": "3", **cells,
    })
    made["bank"] = table.url
    return made


def _group(client) -> str:  # type: ignore[no-untyped-def]
    """The group of tests/group/three_nights.py (members, ways to pay, three kept nights and a tab still
    owed, Ben's payment of night 2 unmarked), imported through the home page's form; its organiser's page."""
    home = client.get("/").get_data(as_text=True)
    key = re.search(r'action="/groups/import".*?name="request_key" type="hidden" value="([^"]+)"', home, re.S)
    assert key, "no group import form on the home page"
    document = group_document()
    document["nights"][1]["paid"] = []  # Ben's 1.00 EUR to Cat left owed too: two payments in EUR, so
    body = json.dumps(document).encode()  # "Settle everything" is offered
    response = client.post("/groups/import", data={"file": (io.BytesIO(body), "group.json"), "request_key": key[1]},
                           content_type="multipart/form-data")
    assert response.status_code == 303, response.get_data(as_text=True)
    organiser = response.headers["Location"]
    # Cat's own link (its page says "I got it" beside the payments to her), and night 3 taken out of the
    # group (the organiser's page then offers to put it back), each as the organiser's page makes it
    with client.application.app_context():
        group = db.session.scalar(select(Group))
        services.make_member_link(group.id, "Cat", group.version, None)
        night_3 = db.session.scalars(select(GroupNight.night_id).order_by(GroupNight.position)).all()[2]
        services.leave_out_night(group.id, night_3, db.session.get(Group, group.id).version, None)
        db.session.remove()
    return organiser


#: POST routes no crawled page shows a form for, and why; each is swept with every field any form has
WITHOUT_A_FORM: dict[str, str] = {}


def test_no_route_or_field_answers_500_and_a_refusal_says_why_and_changes_nothing(hostile_app):
    app = hostile_app
    client = app.test_client()
    backend = backend_name(app.config["SQLALCHEMY_DATABASE_URI"])
    every_value, path_hostile = hostile_values(backend, HOSTILE), hostile_values(backend, PATH_HOSTILE)
    nights = _nights(client)
    _group(client)
    with app.app_context():
        ids = {n.name: n.id for n in db.session.scalars(select(Night))}
        group_id = db.session.scalar(select(Group.id))
    night_of = {phase: ("night", ids[f"Hostile {phase}"]) for phase in nights}
    group: Target = ("group", group_id)
    for phase, url in nights.items():  # each night is where the app's own forms left it
        assert url.endswith(keys_of(app, night_of[phase]).links["/k/"]), phase
    pages: list[tuple[str, Target | None]] = [("/", None), ("/nights", None)]
    # a form is sent to the first night that shows it
    for target in (*(night_of[p] for p in ("challenge", "showdown", "declare", "take back", "carry", "bank")), group):
        keys = keys_of(app, target)
        for rule in app.url_map.iter_rules():
            if "GET" in rule.methods and rule.arguments == {"key"} and rule.rule[:3] in keys.links:
                pages.append((rule.rule.replace("<key>", keys.for_rule(rule.rule)), target))
    surface = discover(app, client, pages)
    judge = Judge(app, client)

    # a night in play (version 1, waiting for a challenge): what it derives is kept per version, as
    # on a real table, so its routes cost what they cost at a table; the other nights are used
    # for the forms only they show, the group for its own addresses
    default_night = night_of["challenge"]
    without_a_form: set[str] = set()
    kinds = {"/k/": "scorekeeper_links", "/p/": "players_links", "/g/": "organiser_links", "/m/": "members_links",
             "/y/": "own_links"}
    for rule in app.url_map.iter_rules():
        sent_before = judge.figures["inputs"]
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            seen = surface.posts.get(rule.endpoint)
            if rule.rule.startswith(("/g/", "/m/", "/y/")):
                target = group
            else:
                target = seen.target if seen and seen.target and seen.target[0] == "night" else default_night

            def path_with(**override: str) -> str:
                values = {"key": judge.keys(target).for_rule(rule.rule), **surface.path_values,
                          **(seen.args if seen else {})}
                values.setdefault("name", "Ann")
                values.setdefault("filename", "app.css")
                values.update(override)

                def fill(match: re.Match[str]) -> str:
                    return urllib.parse.quote(values.get(match.group(1), "x"), safe="")

                return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", fill, rule.rule)

            def text(value: str | bytes) -> str:
                return value.decode("latin-1") if isinstance(value, bytes) else value

            # the path: every argument, every hostile value
            for argument in sorted(rule.arguments):
                for label, value in path_hostile:
                    judge.send(f"path {argument}={label}", method, path_with(**{argument: text(value)}),
                               body=b"" if method == "POST" else None,
                               content_type="application/x-www-form-urlencoded" if method == "POST" else None)
            # the wrong method
            wrong = "POST" if method == "GET" else "GET"
            if wrong not in rule.methods:
                judge.send("wrong method", wrong, path_with())

            if method == "GET":
                names = sorted(surface.query.get(rule.endpoint, set()) | {"name", "q"})
                for index, name in enumerate(names):
                    for label, value in half_of(every_value, index):
                        if label == "far too long":
                            continue
                        query = urllib.parse.urlencode([(name, value)])
                        judge.send(f"query {name}={label}", "GET", f"{path_with()}?{query}")
                continue

            # a POST: each field alone takes each hostile value, the rest of its own form as a browser
            # sends it; a route no page shows a form for (yet) gets every field any form or link has
            if seen is None:
                without_a_form.add(rule.endpoint)
            baseline = dict(seen.fields) if seen else {
                n: "" for n in {*(n for f in surface.posts.values() for n in f.fields), *(n for q in surface.query.values() for n in q)}
            }
            names = swept_names(set(baseline) | set(STAMP_FIELDS) | {"unexpected_field"})
            judge.figures["series_fields_left_to_their_first_and_last"] += len(baseline.keys() - set(names))
            judge.figures["post_inputs_own_form" if seen else "post_inputs_every_field"] += sum(
                len(half_of(every_value, index)) for index in range(len(names)))
            for index, name in enumerate(names):
                for label, value in half_of(every_value, index):
                    version = judge.keys(target).version
                    form = {k: v for k, v in baseline.items() if v != ""}
                    form.update(version=str(version), request_key=services.new_key())
                    form[name] = value  # type: ignore[assignment]
                    pairs = list(form.items())
                    if name in ("yes", "challengers", "winners"):
                        pairs.append((name, value))  # chosen twice
                    if seen and seen.multipart:
                        data = {k: (v.decode("latin-1") if isinstance(v, bytes) else v) for k, v in pairs}
                        judge.send(f"{name}={label}", "POST", path_with(), data=data, content_type="multipart/form-data")
                    else:
                        judge.send(f"{name}={label}", "POST", path_with(), body=_encode(pairs),
                                   content_type="application/x-www-form-urlencoded")
            # bodies that are not forms at all
            for label, body, content_type in (
                ("json body", b'{"version": 0, "nobody": 1}', "application/json"),
                ("binary body", bytes(range(256)) * 4, "application/octet-stream"),
                ("broken multipart", b"--x\r\nContent-Disposition: form-data; name=\"version\"\r\n\r\n0", "multipart/form-data; boundary=x"),
                ("multipart without boundary", b"garbage", "multipart/form-data"),
                ("no content type", b"version=0&nobody=1", None),
            ):
                judge.send(label, "POST", path_with(), body=body, content_type=content_type)
        judge.figures[f"inputs_on_{kinds.get(rule.rule[:3], 'other_addresses')}"] += judge.figures["inputs"] - sent_before

    assert not judge.failures, f"{len(judge.failures)} bad answers:\n" + "\n".join(judge.failures[:60])
    # a POST route added without a form on any page the sweep crawls is noticed: crawl the page that shows it
    assert without_a_form == set(WITHOUT_A_FORM), (
        f"POST routes no crawled page shows a form for: {sorted(without_a_form - set(WITHOUT_A_FORM))} (make the "
        f"state that shows it in _nights or _group); now shown: {sorted(set(WITHOUT_A_FORM) - without_a_form)}"
    )
    record_figures(
        "bad_input_routes",
        {"routes": len(list(app.url_map.iter_rules())), "post_forms_found": len(surface.posts),
         "post_routes_without_a_form_on_any_page": len(without_a_form), "values": len(every_value),
         **dict(sorted(judge.figures.items())), "server_errors": 0},
        backend,
    )


def _history(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "format": "napalm-hand-history/1",
        "rules": {"ante": 1, "ante_every": 1, "tokens_to_win": 2},
        "players": ["Ann", "Ben", "Cat"],
        "first_dealer": "Ann",
        "stages": [{"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Cat"]}, {"stage": 2, "yes": []}],
    }
    document.update(changes)
    return document


def _bad_files() -> list[tuple[str, bytes]]:
    good = json.dumps(_history()).encode()
    return [
        ("empty", b""),
        ("truncated", good[: len(good) // 2]),
        ("truncated by one byte", good[:-1]),
        ("not json", b"<html><script>alert(1)</script></html>"),
        ("not utf-8", b"\xff\xfe" + good),
        ("top-level array", b"[]"),
        ("top-level string", b'"napalm"'),
        ("nested too deeply", b'{"format": "napalm-hand-history/1", "stages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        ("nested a little too deeply", json.dumps(_history(stages=[[[[[[[[[[{"stage": 1}]]]]]]]]]])).encode()),
        ("far too large", b'{"format": "napalm-hand-history/1", "name": "' + b"x" * 3_000_000 + b'"}'),
        ("just too large", b" " * 2_100_000 + good),
        ("many stages of garbage", json.dumps(_history(stages=[{"stage": 9, "yes": 1}] * 50_000)).encode()),
        ("huge integer", good.replace(b'"ante": 1', b'"ante": ' + b"9" * 5000)),
        ("large integer", good.replace(b'"ante": 1', b'"ante": 100000000000000000000000000000')),
        ("negative ante", good.replace(b'"ante": 1', b'"ante": -5')),
        ("float ante", good.replace(b'"ante": 1', b'"ante": 1e309')),
        ("NaN ante", good.replace(b'"ante": 1', b'"ante": NaN')),
        ("boolean ante", good.replace(b'"ante": 1', b'"ante": true')),
        ("players as text", json.dumps(_history(players="Ann, Ben")).encode()),
        ("one player", json.dumps(_history(players=["Ann"], first_dealer="Ann", stages=[])).encode()),
        ("a hundred players", json.dumps(_history(players=[f"P{i}" for i in range(100)], first_dealer="P0", stages=[])).encode()),
        ("NUL in a name", json.dumps(_history(players=["Ann\u0000", "Ben", "Cat"], first_dealer="Ben", stages=[])).encode()),
        ("lone surrogate in a name", json.dumps(_history(stages=[])).replace('"Cat"', '"\\ud800"').encode()),
        ("lone surrogate in the night's name", json.dumps(_history(name="x")).replace('"x"', '"\\udfff"').encode()),
        ("NUL in the night's name", json.dumps(_history(name="a\u0000b")).encode()),
        ("script in a name", json.dumps(_history(players=[XSS, "Ben", "Cat"], first_dealer="Ben", stages=[{"stage": 1, "yes": [XSS]}])).encode()),
        ("night's name far too long", json.dumps(_history(name="N" * 10_000)).encode()),
        ("chip value too large to store", json.dumps(_history(rules={"ante": 1, "chip_value": "1e50"})).encode()),
        ("chip value twelve digits", json.dumps(_history(rules={"ante": 1, "chip_value": "123456789012"})).encode()),
        ("chip value negative", json.dumps(_history(rules={"chip_value": "-0.25"})).encode()),
        ("chip value NaN", json.dumps(_history(rules={"chip_value": "NaN"})).encode()),
        ("currency too long", json.dumps(_history(rules={"currency": "EUR" * 10})).encode()),
        ("unknown key", json.dumps(_history(extra=1)).encode()),
        ("stage out of order", json.dumps(_history(stages=[{"stage": 3, "yes": []}])).encode()),
        ("cards as a list", json.dumps(_history(stages=[{"stage": 1, "yes": ["Ben", "Cat"], "cards": ["As", "Kd"]}])).encode()),
        ("cards with NUL", json.dumps(_history(stages=[{"stage": 1, "yes": ["Ben", "Cat"], "cards": {"Ben": "As\u0000Kd", "Cat": "2c 3c"}}])).encode()),
        ("cards oversized", json.dumps(_history(stages=[{"stage": 1, "yes": ["Ben", "Cat"], "cards": {"Ben": "As " * 100_000, "Cat": "2c 3c"}}])).encode()),
        ("winner who did not say yes", json.dumps(_history(stages=[{"stage": 1, "yes": ["Ben", "Cat"], "winners": ["Ann"]}])).encode()),
    ]


def test_a_broken_hand_history_file_is_refused_with_a_reason_and_stores_nothing(hostile_app):
    app = hostile_app
    client = app.test_client()
    judge = Judge(app, client)
    tried = 0
    for label, body in _bad_files():
        before = fingerprint(app)
        response = judge.send(
            f"file: {label}", "POST", "/import",
            data={"file": (io.BytesIO(body), "night.json")}, content_type="multipart/form-data",
        )
        tried += 1
        if response.status_code < 400:
            judge.failures.append(f"file: {label}: accepted with {response.status_code}")
        assert fingerprint(app) == before or response.status_code < 400
        expected = 413 if label == "far too large" else 422
        if response.status_code != expected:
            judge.failures.append(f"file: {label}: {response.status_code}, expected {expected}")
    assert not judge.failures, "\n".join(judge.failures)
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Night)) == 0
    record_figures("bad_input_files", {"files": tried, "refused": judge.figures["refused"], "server_errors": 0},
                   backend_name(app.config["SQLALCHEMY_DATABASE_URI"]))
