"""Napalm's screens: the fields of its rules (the table screen is still ``templates/table/show.html``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wtforms import SelectField
from wtforms.validators import InputRequired, NumberRange

from ...forms import WholeNumberField
from .closing import LABELS as UNFINISHED_LABELS


class NapalmRulesFields:
    """Napalm's rules as form fields: the night's setup and the next-game screen both mix them in."""

    ante = WholeNumberField("Ante (chips)", default=1, validators=[InputRequired(), NumberRange(min=0, max=1_000_000)])
    ante_every = SelectField("Ante on", choices=[("1", "every hand"), ("2", "every other hand")], default="1")
    tokens_to_win = WholeNumberField(
        "Tokens to win", default=5, validators=[InputRequired(), NumberRange(min=1, max=99)]
    )
    unfinished_pot = SelectField(
        "Pot of an unfinished game at the end of the night",
        choices=list(UNFINISHED_LABELS.items()),
        default="return_antes",
    )


class NapalmScreens:
    kind = "napalm"
    rules_fields = NapalmRulesFields
    rules_template = "games/napalm/rules.html"

    def rules_from_form(self, form: Any) -> dict[str, Any]:
        return {
            "ante": form.ante.data,
            "ante_every": int(form.ante_every.data),
            "tokens_to_win": form.tokens_to_win.data,
            "unfinished_pot": form.unfinished_pot.data,
        }

    def fill_rules(self, form: Any, rules: Mapping[str, Any]) -> None:
        form.ante.data = rules["ante"]
        form.ante_every.data = str(rules["ante_every"])
        form.tokens_to_win.data = rules["tokens_to_win"]
        form.unfinished_pot.data = rules["unfinished_pot"]


NAPALM_SCREENS = NapalmScreens()
