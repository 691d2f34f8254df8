"""Rummy scores' screens: the stake, and a deal in two steps: who went out, the points left in each hand."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wtforms import RadioField
from wtforms.validators import InputRequired, NumberRange, Optional

from companion.web.forms import ActionForm, WholeNumberField
from companion.games.protocol import IllegalAction
from companion.games.web import BaseScreens

from .game import MAX_POINTS, Deal, RummyTable


class RummyRulesFields:
    stake = WholeNumberField("Stake (chips a point)", default=1,
                             validators=[InputRequired(), NumberRange(min=1, max=100)])


class DealForm(ActionForm):
    winner = RadioField("Who went out?", choices=[], validate_choice=False)

    def points_fields(self) -> list[Any]:
        return [field for field in self if field.name.startswith("left_")]


def deal_form(players: tuple[str, ...], formdata: Any = True) -> DealForm:
    """The deal form of a table of ``players``: one field of points per seat (the winner's left empty)."""
    fields = {
        f"left_{seat}": WholeNumberField(name, validators=[Optional(), NumberRange(min=0, max=MAX_POINTS)])
        for seat, name in enumerate(players)
    }
    form_class = type("RummyDealForm", (DealForm,), fields)
    return form_class(formdata=None) if formdata is None else form_class()


@dataclass(frozen=True)
class RummyView:
    prompt: str
    dealer: str
    deal: int
    players: tuple[str, ...]
    stake: int


class RummyScreens(BaseScreens):
    kind = "rummy"
    rules_fields = RummyRulesFields
    templates_folder = str(Path(__file__).parent / "templates")

    def describe_rules(self, rules: Mapping[str, Any]) -> str:
        return f"stake {rules.get('stake', 1)} a point"

    def view(self, state: RummyTable) -> RummyView:
        return RummyView(f"Deal {state.deal_number}: {state.dealer} deals. Who went out?", state.dealer,
                         state.deal_number, state.players, state.rules.stake)

    def forms(self, state: RummyTable) -> dict[str, Any]:
        return {"deal": deal_form(state.players, formdata=None)}

    def bind(self, name: str, state: RummyTable, repeated: tuple[str, Mapping[str, Any]] | None = None) -> Any:
        return deal_form(state.players) if name == "deal" else None

    def action(self, name: str, form: Any, state: RummyTable) -> Deal:
        winner = form.winner.data
        if winner not in state.players:
            raise IllegalAction("tap who went out")
        left = []
        for seat, player in enumerate(state.players):
            points = form[f"left_{seat}"].data
            if player == winner:
                continue
            if points is None:
                raise IllegalAction(f"enter the points left in {player}'s hand (0 if none)")
            left.append((player, points))
        return Deal(winner, tuple(left))


SCREENS = RummyScreens()
