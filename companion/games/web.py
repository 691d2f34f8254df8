"""Each game's screens: the web part of a game plug-in (its forms and templates).

The pure part of a game (:mod:`companion.games.base`) knows nothing of the web;
this is where a game says how its rules are asked for on a phone.  The night's
views ask the game at hand through :data:`SCREENS`, by the game's short name,
and never name a game themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .nap.web import NAP_SCREENS
from .napalm.web import NAPALM_SCREENS


class GameScreens(Protocol):
    """What the web layer needs of a game, besides its pure :class:`~companion.games.base.GameKind`."""

    kind: str
    #: a class holding the WTForms fields of the game's rules, mixed into the forms that ask for them
    rules_fields: type
    #: the template that renders those fields (``templates/games/<kind>/rules.html``)
    rules_template: str

    def rules_from_form(self, form: Any) -> dict[str, Any]:
        """The rules the fields say, as the JSON object the game reads (it checks them)."""

    def fill_rules(self, form: Any, rules: Mapping[str, Any]) -> None:
        """Show ``rules`` in the fields (a form shown for the first time)."""


#: every game's screens, by the game's short name (the same names as :data:`companion.games.GAMES`)
SCREENS: dict[str, GameScreens] = {
    NAPALM_SCREENS.kind: NAPALM_SCREENS,
    NAP_SCREENS.kind: NAP_SCREENS,
}
