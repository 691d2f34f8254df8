"""Napalm's forms: the fields of its rules (written once) and its table's action forms.

The web part of the game (WTForms, like :mod:`.web`); the app's own forms
(:mod:`companion.web.forms`) are the game-neutral ones, which these build on: a form
that changes the table carries its version and a request key (:class:`ActionForm`).
"""

from __future__ import annotations

from typing import Any

from wtforms import SelectField, StringField, SubmitField
from wtforms.validators import InputRequired, Length, NumberRange

from companion.web.forms import ActionForm, MultiCheckboxField, WholeNumberField
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


class DeclareForm(ActionForm):
    yes = MultiCheckboxField("Who said Yes?", choices=[], validate_choice=True)
    nobody = SubmitField("Nobody said Yes")
    confirm = SubmitField("Record Yes")


class ChallengeForm(ActionForm):
    challengers = MultiCheckboxField("Who challenges?", choices=[], validate_choice=True)
    nobody = SubmitField("No challenge")
    confirm = SubmitField("Record challengers")


class ShowdownForm(ActionForm):
    winner = SelectField(choices=[], validate_choice=False)  # a one-tap single winner
    winners = MultiCheckboxField("Tie between", choices=[], validate_choice=True)
    tie = SubmitField("Record tie")
    all_tied = SubmitField("All tied")  # every Yes tied: one tap (issue 14, item 6)


class CardsForm(ActionForm):
    """The cards each Yes player showed; the fields are added per player at run time."""


def cards_form_class(yes: tuple[str, ...]) -> type[CardsForm]:
    """A form with one card field per Yes player (``cards_0``, ``cards_1`` … in Yes order)."""
    fields: dict[str, Any] = {
        f"cards_{i}": StringField(
            name,
            validators=[InputRequired(f"enter {name}'s cards"), Length(max=40, message="too many characters")],
        )
        for i, name in enumerate(yes)
    }
    return type("StageCardsForm", (CardsForm,), fields)
