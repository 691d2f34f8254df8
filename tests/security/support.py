"""What the security tests share: nights seated through the service layer, a legal
submit for every route, and snapshots that tell whether a request changed anything.

Imported as ``security.support`` (``tests/`` is on the path, as for ``pages``).
"""

from __future__ import annotations

import io
import os
import re
import secrets
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from companion.service import bank as bank_service
from companion import service as services
from companion.service.uow import KEY_BYTES
from companion.extensions import db
from companion.db.models import Event, GroupNight, KeeperLink, Night
from companion.games.napalm import Declare, Rules, Showdown, Table
from companion.games.napalm import hand_history
from companion.games.napalm.game import NAPALM
from companion.night.file import Money
from pages import night_form

EXTERNAL_DB = bool(os.environ.get("COMPANION_TEST_DATABASE_URL"))

PLAYERS = ["Ann", "Ben", "Cat", "Dan"]  # Ann deals first
RULES = Rules(ante=1, ante_every=1, tokens_to_win=5)
SETTINGS = hand_history.Settings(chip_value=Decimal("0.25"), currency="EUR", unfinished_pot="return_antes")

#: What must already be recorded for each route's submit to be legal.
BEFORE: dict[str, tuple[Any, ...]] = {
    "table.challenge": (Declare(("Ann",)),),  # the dealer alone said Yes
    "table.showdown": (Declare(("Ben", "Cat")),),
    "table.cards": (Declare(("Ben", "Cat")),),
    "table.undo": (Declare(()),),
    "report.paid": (Declare(("Ben", "Cat")), Showdown(winners=("Cat",))),  # Ben owes Cat
    "report.carry": (Declare(("Ben",)),),  # the ante makes a pot of 4 for the next night
}
#: Night ledger events (companion.service.bank) a route needs recorded first: (kind, payload).
D20_GRID = {"grid": {"dice": "d20", "cells": [f"Game {i}" for i in range(1, 21)], "bonuses": {}}, "lucky_chips": 1}
LEDGER_BEFORE: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "bank.cancel": (("all_buy_in", {"chips": 100}),),
    "bonus.roll": (("bonus_grid", D20_GRID),),
    "bonus.lucky": (("bonus_grid", D20_GRID),),
}
#: The settings a route needs, when not :data:`SETTINGS`.
SETTINGS_FOR = {"report.carry": replace(SETTINGS, unfinished_pot="carry")}
#: Routes whose submit starts a new night from this one rather than changing it.
STARTS_A_NIGHT = {"report.carry"}

KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@dataclass(frozen=True)
class NightRef:
    id: int
    keeper: str
    viewer: str
    #: a second keeper phone's own link ("Ben's phone", issue 39), and another phone's link taken back (not
    #: compared: a night's links are its first scorekeeper link and its players' link)
    phone: str = field(default="", compare=False)
    gone: str = field(default="", compare=False)


def one_character_off(key: str) -> str:
    """``key`` with its middle character replaced by another URL-safe one."""
    i = len(key) // 2
    other = KEY_ALPHABET[(KEY_ALPHABET.index(key[i]) + 1) % len(KEY_ALPHABET)]
    return key[:i] + other + key[i + 1 :]


def history_file(name: str = "Imported") -> bytes:
    table = Table(PLAYERS, "Ann", RULES)
    table.push(Declare(("Ben",)))
    return hand_history.dumps(table, SETTINGS, name).encode()


def napalm_night(
    name: str, players: list[str], first_dealer: str, rules: Rules, settings: hand_history.Settings, request_key: str | None = None
) -> Night:
    """A new night whose first game is Napalm with ``rules``, its money and unfinished-pot choice ``settings``'s
    (the chip value and currency are the night's; what an unfinished pot does is Napalm's rule)."""
    return services.open_night(
        name, players, Money(settings.chip_value, settings.currency),
        {"kind": "napalm", "players": None, "first_dealer": first_dealer,
         "rules": {**NAPALM.rules_to_dict(rules), "unfinished_pot": settings.unfinished_pot}},
        request_key,
    )


def csrf_token_of(html: str) -> str:
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html) or re.search(
        r'value="([^"]+)"[^>]*name="csrf_token"', html
    )
    assert found, "no CSRF token on the page"
    return found.group(1)


#: The actions of the table's one action route (``POST /k/<key>/<action>``, endpoint ``table.act``)
#: that a night of Napalm takes: the security tests see each as a route of its own, ``table.<action>``.
TABLE_ACTIONS = ("declare", "challenge", "showdown", "cards", "undo")


@dataclass(frozen=True)
class ActionRoute:
    """The table's action route for one action name, shaped as the URL rule the tests read."""

    endpoint: str
    rule: str
    methods: frozenset[str]
    arguments: frozenset[str]
    _converters: dict[str, Any]


def routes(app: Flask) -> list[Any]:
    """Every rule of the URL map, with ``table.act`` as one route per action (:data:`TABLE_ACTIONS`)."""
    found: list[Any] = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint != "table.act":
            found.append(rule)
            continue
        for action in TABLE_ACTIONS:
            found.append(ActionRoute(
                f"table.{action}", rule.rule.replace("<action>", action), frozenset(rule.methods or ()),
                frozenset(rule.arguments - {"action"}), {"key": rule._converters["key"]},
            ))
    return found


class Site:
    """The app under test, seen from outside: routes, nights and what they hold."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    # --- nights --------------------------------------------------------------------

    def seat(self, endpoint: str | None = None, name: str = "Friday") -> NightRef:
        """A new night, played up to the point where ``endpoint``'s submit is legal."""
        with self.app.app_context():
            night = napalm_night(name, PLAYERS, "Ann", RULES, SETTINGS_FOR.get(endpoint or "", SETTINGS))
            for version, action in enumerate(BEFORE.get(endpoint or "", ())):
                services.record(night.id, action, version)
            for kind, payload in LEDGER_BEFORE.get(endpoint or "", ()):
                bank_service.record(night.id, kind, payload, db.session.get(Night, night.id).version, None)
            if endpoint == "table.take_back":  # a second game started, with nothing recorded in it
                services.start_game(night.id, "napalm", None, None, None, db.session.get(Night, night.id).version)
            # a second keeper phone, and a third whose link was taken back (issue 39)
            phone = services.make_keeper_link(night.id, "Ben's phone", None)
            gone = services.make_keeper_link(night.id, "Cat's phone", None)
            services.take_back_keeper_link(night.id, gone.id)
            return replace(self.ref(night.id), phone=phone.key or "", gone=gone.key or "")

    def ref(self, night_id: int) -> NightRef:
        with self.app.app_context():
            night = db.session.get(Night, night_id)
            assert night is not None
            return NightRef(night.id, night.keeper_key, night.viewer_key)

    def snapshot(self, night_id: int) -> tuple[Any, ...]:
        """Everything a request could change about one night."""
        with self.app.app_context():
            night = db.session.get(Night, night_id)
            assert night is not None
            events = db.session.scalar(select(func.count()).select_from(Event).where(Event.night_id == night_id))
            # kept in a group (web/pages/groups.py): the night's own row does not change, its group does
            grouped = db.session.scalar(select(func.count()).select_from(GroupNight).where(GroupNight.night_id == night_id))
            # its keeper phones (issue 39): each one's name and link, and whether it was taken back
            phones = [tuple(row) for row in db.session.execute(
                select(KeeperLink.name, KeeperLink.key, KeeperLink.taken_back_at).where(KeeperLink.night_id == night_id)
                .order_by(KeeperLink.id)
            )]
            return (night.version, night.keeper_key, night.viewer_key, night.name, list(night.players), events, grouped,
                    phones, services.display_key_of(night_id))

    def counts(self) -> tuple[int, int]:
        """(nights, events) in the whole database."""
        with self.app.app_context():
            nights = db.session.scalar(select(func.count()).select_from(Night))
            events = db.session.scalar(select(func.count()).select_from(Event))
            return nights, events

    def version(self, night_id: int) -> int:
        return self.snapshot(night_id)[0]

    # --- routes ---------------------------------------------------------------------

    def rules(self) -> dict[str, Any]:
        return {rule.endpoint: rule for rule in routes(self.app)}

    def url(self, endpoint: str, key: str | None = None) -> str:
        rule = self.rules()[endpoint]
        path = rule.rule.replace("<path:filename>", "app.css").replace("<path:name>", "Ann")
        if "<key>" in path:
            assert key is not None
            path = path.replace("<key>", key)
        return path + ("?name=Ben" if endpoint == "players.me" else "")

    def submit(self, endpoint: str, night: NightRef | None = None) -> dict[str, Any]:
        """Form data that the route accepts when sent with the right link (no CSRF token)."""
        stamp = {}
        if night is not None:
            stamp = {"version": str(self.version(night.id)), "request_key": services.new_key()}
        forms: dict[str, dict[str, Any]] = {
            "home.create": night_form(),
            "home.import_night": {"file": (io.BytesIO(history_file()), "night.json"), "name": "Imported"},
            "table.declare": {**stamp, "nobody": "1"},
            "table.challenge": {**stamp, "nobody": "1"},
            "table.showdown": {**stamp, "winner": "Ben"},
            "table.cards": {**stamp, "cards_0": "As Ad", "cards_1": "Ks Kd"},
            "table.undo": {**stamp},
            "table.take_back": {**stamp, "position": "2"},
            "report.carry": {**stamp},
            "share.rotate": {"which": "viewer", "request_key": services.new_key()},
            "share.make_phone": {"name": "Dan's phone", "request_key": services.new_key()},
            "share.display_link": {"do": "new"},
            "share.take_back": {**stamp, "phone": "first"},
            "groups.keep_night": {"name": "Friday group", "request_key": services.new_key()},
            "setup.edit": night_form(name="Renamed"),
            "next_game.start": {**stamp, "game": "napalm", "players": ["Ann", "Ben", "Cat"], "first_dealer": "Ben",
                                "ante": "2", "ante_every": "1", "tokens_to_win": "3", "unfinished_pot": "return_antes"},
        }
        forms.update({
            "bank.setting": {**stamp, "on": "bank"},
            "bank.everyone": {**stamp, "chips": "100"},
            "bank.player": {**stamp, "player": "Ann", "action": "buy_in", "chips": "100"},
            "bank.cancel": {**stamp, "seq": "1"},
            "bonus.grid": {**stamp, "dice": "d20", **{f"cell_{i}": f"Game {i}" for i in range(1, 21)}},
            "bonus.roll": {**stamp, "roller": "Ann"},
            "bonus.lucky": {**stamp, "player": "Ann"},
        })
        if endpoint == "report.paid" and night is not None:
            forms[endpoint] = {**stamp, **self.first_payment(night)}
        return forms.get(endpoint, {})

    def first_payment(self, night: NightRef) -> dict[str, str]:
        """The first unpaid line of the night's settle-up plan, as the "Mark paid" form sends it."""
        from companion.web.pages.report import report_of

        with self.app.app_context():
            line = next(line for line in report_of(db.session.get(Night, night.id)).plan if not line.paid)
            return {"payer": line.payer, "payee": line.payee, "chips": str(line.chips), "view": "plan"}

    def state_changing(self) -> list[str]:
        """Every endpoint that takes a method other than GET, HEAD or OPTIONS, but a group's own
        (:func:`group_route`: tests/security/test_group_links.py tries those with a group's links)."""
        return sorted(
            endpoint
            for endpoint, rule in self.rules().items()
            if set(rule.methods or ()) - {"GET", "HEAD", "OPTIONS"} and not group_route(rule)
        )

    def send(self, client: FlaskClient, method: str, endpoint: str, key: str | None, data: dict | None = None, **kw: Any):
        return client.open(self.url(endpoint, key), method=method, data=data if method == "POST" else None, **kw)


def group_route(rule: Any) -> bool:
    """A route of a group's own (web/pages/groups.py): made from the home page, or reached by a group's two links.

    Keeping a night in a group (``/k/<key>/group``) is a night's route, opened by its scorekeeper link.
    """
    return rule.endpoint.startswith("groups.") and not rule.rule.startswith("/k/")


def random_key() -> str:
    """A well-formed link that was never issued."""
    return secrets.token_urlsafe(KEY_BYTES)
