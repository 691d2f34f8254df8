"""Each game's screens: the web part of a game plug-in (its forms and templates).

The pure part of a game (:mod:`companion.games.protocol`) knows nothing of the web;
this is where a game says how its rules are asked for on a phone, what its table
screen asks the scorekeeper to record, and how each of its actions is read from a
form.  The night's views ask the game at hand through :data:`SCREENS`, by the
game's short name, and never name a game themselves.

:data:`SCREENS` is derived from the one registry (:data:`companion.games.GAMES`): an
installed game's screens are its package's ``web.py``'s ``SCREENS``, found by its name;
a game registered from elsewhere gave its own with :func:`companion.games.register`.
A game's screens subclass :class:`BaseScreens`, which gives every member a default.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Protocol

from jinja2 import BaseLoader, Environment, FileSystemLoader, TemplateNotFound
from wtforms.fields.core import UnboundField

from . import GAMES, GIVEN_SCREENS, INSTALLED
from .protocol import IllegalAction


class GameScreens(Protocol):
    """What the web layer needs of a game, besides its pure :class:`~companion.games.protocol.GameKind`."""

    kind: str
    #: a class holding the WTForms fields of the game's rules, mixed into the forms that ask for them
    rules_fields: type
    #: the template that renders those fields (``templates/games/<kind>/rules.html``)
    rules_template: str
    #: the table screen's "what to record now" section (``templates/games/<kind>/table.html``)
    table_template: str
    #: macros the common pages call: status, columns, cells, mine, recent_line, notes, where
    parts_template: str
    #: the folder of the templates of a game kept outside the app, which the app's ``games/<kind>/…``
    #: names then mean (None: an installed game's, in the app's ``templates/games/<kind>/``)
    templates_folder: str | None

    def rules_from_form(self, form: Any) -> dict[str, Any]:
        """The rules the fields say, as the JSON object the game reads (it checks them)."""

    def fill_rules(self, form: Any, rules: Mapping[str, Any]) -> None:
        """Show ``rules`` in the fields (a form shown for the first time)."""

    def describe_rules(self, rules: Mapping[str, Any]) -> str:
        """The rules in a few words for the report's heading ("ante 1, 5 tokens")."""

    def view(self, state: Any) -> Any:
        """Pure data the game's templates show; has ``prompt`` and ``dealer`` at least."""

    def forms(self, state: Any) -> dict[str, Any]:
        """The action forms shown now (``formdata=None``), by action name; the layer stamps each."""

    def shown_now(self, state: Any) -> tuple[str, ...]:
        """The names of the forms the screen shows at this moment (a refused form not among them is told at the top)."""

    def offers(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """The game under names of its own (a pot game's presets), by offer key: (name, rules)."""

    def bind(self, name: str, state: Any, repeated: tuple[str, Mapping[str, Any]] | None) -> Any | None:
        """The form posted to action ``name``, read from the request; None: no such action.

        ``repeated`` is the event already recorded under this submit's request key, if
        any (a doubled tap), so the form can be rebuilt as it was shown.  Raises
        IllegalAction when the action cannot be taken now.
        """

    def action(self, name: str, form: Any, state: Any) -> Any:
        """The engine's action for a valid ``form``; IllegalAction for what the scorekeeper must fix."""


class NoRulesFields:
    """The rules' fields of a game without rules to choose."""


@dataclass(frozen=True)
class TableView:
    """The least a game's view holds: who deals and what the screen asks now."""

    dealer: str
    prompt: str


class BaseScreens:
    """A game's screens with every member of :class:`GameScreens` defaulted: a game gives its differences.

    Templates are found by convention from the kind (``games/<kind>/rules.html``,
    ``table.html``, ``parts.html``); the rules' fields are read and filled one for one
    with the rules' keys of the same names.
    """

    kind: ClassVar[str] = ""
    rules_fields: ClassVar[type] = NoRulesFields
    templates_folder: ClassVar[str | None] = None

    @property
    def rules_template(self) -> str:
        return f"games/{self.kind}/rules.html"

    @property
    def table_template(self) -> str:
        return f"games/{self.kind}/table.html"

    @property
    def parts_template(self) -> str:
        return f"games/{self.kind}/parts.html"

    def rule_names(self) -> list[str]:
        """The names of the rules' fields, in the order the class declares them."""
        return [name for name, value in vars(self.rules_fields).items() if isinstance(value, UnboundField)]

    def rules_from_form(self, form: Any) -> dict[str, Any]:
        """Each rules field's value under its own name (the game checks them)."""
        return {name: form[name].data for name in self.rule_names()}

    def fill_rules(self, form: Any, rules: Mapping[str, Any]) -> None:
        """Each rule into the field of its name."""
        for name in self.rule_names():
            if name in rules:
                form[name].data = rules[name]

    def describe_rules(self, rules: Mapping[str, Any]) -> str:
        """Nothing to add to the game's title in the report's heading, by default."""
        return ""

    def view(self, state: Any) -> Any:
        """Who deals and what to record: the dealer's deal."""
        return TableView(state.dealer, f"{state.dealer} deals.")

    def forms(self, state: Any) -> dict[str, Any]:
        """No forms: a game with actions gives its own."""
        return {}

    def shown_now(self, state: Any) -> tuple[str, ...]:
        """Every form :meth:`forms` gives, by default."""
        return tuple(self.forms(state))

    def offers(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """None: the game is offered once, by its title."""
        return {}

    def bind(self, name: str, state: Any, repeated: tuple[str, Mapping[str, Any]] | None = None) -> Any | None:
        """No such action, by default."""
        return None

    def action(self, name: str, form: Any, state: Any) -> Any:
        raise IllegalAction(f"no such action: {name[:30]}")


def _screens_of(kind: str) -> GameScreens:
    """The screens of the registered game ``kind``: given with it, or its package's ``web.py``'s ``SCREENS``."""
    if kind in GIVEN_SCREENS:
        return GIVEN_SCREENS[kind]  # type: ignore[no-any-return]
    if kind not in INSTALLED:
        raise KeyError(kind)
    return importlib.import_module(f"{__package__}.{kind}.web").SCREENS  # type: ignore[no-any-return]


class _Screens(MutableMapping[str, GameScreens]):
    """Every registered game's screens, by the game's short name: read from the registry each time,
    so a game registered later (the tests' own) is there too.

    Setting a kind's screens gives them to it (as :func:`companion.games.register` does); deleting
    them withdraws them, and the game is then one the app cannot show at the table (a night file
    holding it is refused whole).
    """

    def __init__(self) -> None:
        self._withdrawn: set[str] = set()

    def __getitem__(self, kind: str) -> GameScreens:
        if kind not in GAMES or kind in self._withdrawn:
            raise KeyError(kind)
        return _screens_of(kind)

    def __setitem__(self, kind: str, screens: GameScreens) -> None:
        GIVEN_SCREENS[kind] = screens
        self._withdrawn.discard(kind)

    def __delitem__(self, kind: str) -> None:
        if kind not in self:
            raise KeyError(kind)
        self._withdrawn.add(kind)

    def __iter__(self) -> Iterator[str]:
        return (k for k in GAMES if (k in GIVEN_SCREENS or k in INSTALLED) and k not in self._withdrawn)

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: every game's screens, by the game's short name (the same names as :data:`companion.games.GAMES`)
SCREENS: MutableMapping[str, GameScreens] = _Screens()


def offers_of(kind: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """The games a kind is played as under names of their own (a pot game's presets), by offer key:
    ``(name, rules)``; {} for a game offered once by its title."""
    return SCREENS[kind].offers() if kind in SCREENS else {}


#: between a game's kind and one of its offers in a game list's value ("pots:high_card")
PICK_SEPARATOR = ":"


def game_picks() -> list[tuple[str, str]]:
    """Every game a list offers, each once, by the name the group plays it under: ``(value, name)``.

    A game with offers of its own (a pot game's presets) is listed once per offer, its value
    ``kind:offer``; any other once by its title, its value its kind.  A game is never offered
    twice (once by its kind and again by its offers), and each value says which fields to show.
    """
    picks: list[tuple[str, str]] = []
    for kind in GAMES:
        if kind not in SCREENS:
            continue
        listed = offers_of(kind)
        if not listed:
            picks.append((kind, GAMES[kind].title))
        picks += [(pick_of(kind, key), name) for key, (name, _rules) in listed.items()]
    return picks


def pick_of(kind: str, offer: str | None) -> str:
    """A game list's value for ``kind`` played as its ``offer`` (None: the kind itself)."""
    return f"{kind}{PICK_SEPARATOR}{offer}" if offer else kind


def read_pick(value: str | None) -> tuple[str, str | None]:
    """``(kind, offer or None)`` from a game list's value (:func:`pick_of`); the caller checks both."""
    kind, _, offer = str(value or "").partition(PICK_SEPARATOR)
    return kind, offer or None


def offer_matching(kind: str, rules: Mapping[str, Any]) -> str | None:
    """The first of ``kind``'s offers whose rules ``rules`` hold (a pot game's preset), else its first
    offer; None for a game without offers.  The game a next-game screen shows when none was named."""
    listed = offers_of(kind)
    for key, (_name, offered) in listed.items():
        if all(rules.get(name) == value for name, value in offered.items()):
            return key
    return next(iter(listed), None)


def rules_text(kind: str, rules: Mapping[str, Any]) -> str:
    """``describe_rules`` of the game's screens ("" for a kind no longer registered)."""
    return SCREENS[kind].describe_rules(rules) if kind in SCREENS else ""


class GameTemplates(BaseLoader):
    """Jinja's loader for the templates of a game kept outside the app (its ``templates_folder``).

    An installed game's templates are the app's own (``templates/games/<kind>/``); a game
    registered from elsewhere says where its templates are, and this loader, after the app's,
    finds ``games/<kind>/table.html`` there as ``table.html``.
    """

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        parts = template.split("/")
        if len(parts) >= 3 and parts[0] == "games" and parts[1] in SCREENS:
            folder = SCREENS[parts[1]].templates_folder
            if folder is not None:
                return FileSystemLoader(str(Path(folder))).get_source(environment, "/".join(parts[2:]))
        raise TemplateNotFound(template)
