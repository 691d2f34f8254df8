"""Every route and every form field, tried with malformed, oversized, wrong-typed and hostile values.

The routes come from ``app.url_map`` and the fields from the forms and links the
pages themselves render (on nights waiting for a declaration, a challenge and a
showdown), so a route or a field added later is covered without touching this
file.  Each value goes in alone, the rest of the form as a browser would send it.

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
from companion.db.models import Event, Game, Night
from pages import night_form
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

STAMP_FIELDS = ("version", "request_key")


# --- what the pages offer --------------------------------------------------------------------------


@dataclass
class FormSeen:
    endpoint: str
    night_id: int | None
    fields: dict[str, str]  # name -> the value a browser sends untouched ("" for choices not made)
    multipart: bool = False


@dataclass
class Surface:
    posts: dict[str, FormSeen] = field(default_factory=dict)
    query: dict[str, set[str]] = field(default_factory=dict)  # endpoint -> query parameter names
    path_values: dict[str, str] = field(default_factory=dict)  # argument name -> a real value


_FORM = re.compile(r"<form\b([^>]*)>(.*?)</form>", re.S)
_CONTROL = re.compile(r"<(input|select|textarea|button)\b([^>]*)>(?:(.*?)</select>)?", re.S)


def _attr(attrs: str, name: str) -> str | None:
    found = re.search(rf'\b{name}="([^"]*)"', attrs)
    return html.unescape(found.group(1)) if found else None


def discover(app, client, pages: list[tuple[str, int | None]]) -> Surface:  # type: ignore[no-untyped-def]
    """Every form and query parameter the given pages render, keyed by the endpoint they reach."""
    adapter = app.url_map.bind("localhost")
    surface = Surface()
    for url, night_id in pages:
        body = client.get(url).get_data(as_text=True)
        for attrs, inner in _FORM.findall(body):
            action = _attr(attrs, "action") or url
            method = (_attr(attrs, "method") or "get").upper()
            path = urllib.parse.urlsplit(action).path
            try:
                endpoint, _ = adapter.match(path, method=method)
            except Exception:  # noqa: BLE001 - a form to somewhere else
                continue
            fields: dict[str, str] = {}
            for tag, control, options in _CONTROL.findall(inner):
                name = _attr(control, "name")
                kind = (_attr(control, "type") or "").lower()
                if not name:
                    continue
                if method == "GET":
                    surface.query.setdefault(endpoint, set()).add(name)
                    continue
                if tag == "button" or kind in ("submit", "checkbox", "radio", "file"):
                    fields.setdefault(name, "")  # known, but not sent unless chosen
                    continue
                if tag == "select":
                    chosen = re.search(r'<option[^>]*value="([^"]*)"[^>]*selected', options) or re.search(
                        r'<option[^>]*value="([^"]*)"', options
                    )
                    fields[name] = html.unescape(chosen.group(1)) if chosen else ""
                else:
                    fields[name] = _attr(control, "value") or ""
            if method == "POST" and endpoint not in surface.posts:
                multipart = "multipart" in (_attr(attrs, "enctype") or "")
                surface.posts[endpoint] = FormSeen(endpoint, night_id, fields, multipart)
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


def fingerprint(app) -> str:  # type: ignore[no-untyped-def]
    """Every night's row and the number of events: what a refused request must leave as it was."""
    with app.app_context():
        rows = db.session.execute(
            select(Night.id, Night.name, Night.keeper_key, Night.viewer_key, Night.players, Game.first_dealer,
                   Game.rules, Game.players, Game.carried_in, Night.chip_value, Night.currency,
                   Night.version).join(Game, Game.night_id == Night.id).order_by(Night.id, Game.position)
        ).all()
        events = db.session.scalar(select(func.count()).select_from(Event))
        db.session.remove()
    return hashlib.sha256(repr((rows, events)).encode()).hexdigest()


def keys_of(app, night_id: int) -> tuple[str, str, int]:  # type: ignore[no-untyped-def]
    with app.app_context():
        night = db.session.get(Night, night_id)
        result = night.keeper_key, night.viewer_key, night.version
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
    #: each night's links and version, read again only after a request that may have changed them
    _keys: dict[int, tuple[str, str, int]] = field(default_factory=dict)

    def keys(self, night_id: int) -> tuple[str, str, int]:
        """(keeper link, viewer link, version) of a night as they are now."""
        if night_id not in self._keys:
            self._keys[night_id] = keys_of(self.app, night_id)
        return self._keys[night_id]

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


def _nights(client) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Three nights, waiting for a declaration (before play), a challenge and a showdown."""
    made: dict[str, str] = {}
    for phase in ("declare", "challenge", "showdown"):
        response = client.post("/nights", data=night_form(name=f"Hostile {phase}"))
        url = response.headers["Location"]
        page = client.get(url).get_data(as_text=True)
        stamp = dict(re.findall(r'name="(version|request_key)"[^>]*value="([^"]+)"', page))
        if phase == "challenge":
            client.post(f"{url}/declare", data={**stamp, "yes": ["Ann"], "confirm": "1"})  # Ann deals
        elif phase == "showdown":
            client.post(f"{url}/declare", data={**stamp, "yes": ["Ben", "Cat"], "confirm": "1"})
        made[phase] = url
    return made


def test_no_route_or_field_answers_500_and_a_refusal_says_why_and_changes_nothing(hostile_app):
    app = hostile_app
    client = app.test_client()
    nights = _nights(client)
    with app.app_context():
        ids = {n.name: n.id for n in db.session.scalars(select(Night))}
    night_of = {phase: ids[f"Hostile {phase}"] for phase in nights}
    pages: list[tuple[str, int | None]] = [("/", None), ("/nights", None)]
    for phase in ("challenge", "showdown", "declare"):  # a form is sent to the first night that shows it
        keeper, viewer, _ = keys_of(app, night_of[phase])
        for rule in app.url_map.iter_rules():
            if "GET" in rule.methods and rule.arguments == {"key"}:
                key = keeper if rule.rule.startswith("/k/") else viewer
                pages.append((rule.rule.replace("<key>", key), night_of[phase]))
    surface = discover(app, client, pages)
    judge = Judge(app, client)

    # a night in play (version 1, waiting for a challenge): what it derives is kept per version, as
    # on a real table, so its routes cost what they cost at a table; the other two nights are used
    # for the forms only they show
    default_night = night_of["challenge"]
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            seen = surface.posts.get(rule.endpoint)
            night_id = seen.night_id if seen and seen.night_id else default_night

            def path_with(**override: str) -> str:
                keeper, viewer, _ = judge.keys(night_id)
                values = {"key": keeper if rule.rule.startswith("/k/") else viewer, **surface.path_values}
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
                for label, value in PATH_HOSTILE:
                    judge.send(f"path {argument}={label}", method, path_with(**{argument: text(value)}),
                               body=b"" if method == "POST" else None,
                               content_type="application/x-www-form-urlencoded" if method == "POST" else None)
            # the wrong method
            wrong = "POST" if method == "GET" else "GET"
            if wrong not in rule.methods:
                judge.send("wrong method", wrong, path_with())

            if method == "GET":
                names = sorted(surface.query.get(rule.endpoint, set()) | {"name", "q"})
                for name in names:
                    for label, value in HOSTILE:
                        if label == "far too long":
                            continue
                        query = urllib.parse.urlencode([(name, value)])
                        judge.send(f"query {name}={label}", "GET", f"{path_with()}?{query}")
                continue

            # a POST: each field alone takes each hostile value, the rest as a browser sends it;
            # a route no page shows a form for (yet) gets every field any form or link has
            baseline = dict(seen.fields) if seen else {
                n: "" for n in {*(n for f in surface.posts.values() for n in f.fields), *(n for q in surface.query.values() for n in q)}
            }
            if seen is None:
                judge.figures["post_routes_without_a_form_on_any_page"] += 1
            names = sorted(set(baseline) | set(STAMP_FIELDS) | {"unexpected_field"})
            for name in names:
                for label, value in HOSTILE:
                    _, _, version = judge.keys(night_id)
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

    assert not judge.failures, f"{len(judge.failures)} bad answers:\n" + "\n".join(judge.failures[:60])
    record_figures(
        "bad_input_routes",
        {"routes": len(list(app.url_map.iter_rules())), "post_forms_found": len(surface.posts),
         "values": len(HOSTILE), **dict(sorted(judge.figures.items())), "server_errors": 0},
        backend_name(app.config["SQLALCHEMY_DATABASE_URI"]),
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
