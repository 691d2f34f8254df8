"""Each game's screens: the web part of a game plug-in (its forms and templates).

The pure part of a game (:mod:`companion.games.base`) knows nothing of the web;
this is where a game says how its rules are asked for on a phone, what its table
screen asks the scorekeeper to record, and how each of its actions is read from a
form.  The night's views ask the game at hand through :data:`SCREENS`, by the
game's short name, and never name a game themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .betting.web import BETTING_SCREENS
from .nap.web import NAP_SCREENS
from .napalm.web import NAPALM_SCREENS
from .pots.web import POTS_SCREENS


class GameScreens(Protocol):
    """What the web layer needs of a game, besides its pure :class:`~companion.games.base.GameKind`."""

    kind: str
    #: a class holding the WTForms fields of the game's rules, mixed into the forms that ask for them
    rules_fields: type
    #: the template that renders those fields (``templates/games/<kind>/rules.html``)
    rules_template: str
    #: the table screen's "what to record now" section (``templates/games/<kind>/table.html``)
    table_template: str
    #: macros the common pages call: status, columns, cells, mine, recent_line, notes
    parts_template: str

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

    def bind(self, name: str, state: Any, repeated: tuple[str, Mapping[str, Any]] | None) -> Any | None:
        """The form posted to action ``name``, read from the request; None: no such action.

        ``repeated`` is the event already recorded under this submit's request key, if
        any (a doubled tap), so the form can be rebuilt as it was shown.  Raises
        IllegalAction when the action cannot be taken now.
        """

    def action(self, name: str, form: Any, state: Any) -> Any:
        """The engine's action for a valid ``form``; IllegalAction for what the scorekeeper must fix."""


#: every game's screens, by the game's short name (the same names as :data:`companion.games.GAMES`)
SCREENS: dict[str, GameScreens] = {
    NAPALM_SCREENS.kind: NAPALM_SCREENS,
    NAP_SCREENS.kind: NAP_SCREENS,
    POTS_SCREENS.kind: POTS_SCREENS,
    BETTING_SCREENS.kind: BETTING_SCREENS,
}


def offers_of(kind: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """The games a kind is played as under names of their own (a pot game's presets), by offer key:
    ``(name, rules)``; {} for a game offered once by its title."""
    offers = getattr(SCREENS.get(kind), "offers", None)
    return offers() if offers is not None else {}


def rules_text(kind: str, rules: Mapping[str, Any]) -> str:
    """``describe_rules`` of the game's screens, or "" for a game that has none."""
    describe = getattr(SCREENS.get(kind), "describe_rules", None)
    return describe(rules) if describe is not None else ""
