"""Poker with real betting's screens: the variant's name, and one big button, "Deal played"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wtforms import StringField
from wtforms.validators import Length, Optional

from companion.web.forms import ActionForm, readable
from ..protocol import IllegalAction
from ..web import BaseScreens
from .engine import MAX_VARIANT, BettingTable, Deal


class BettingRulesFields:
    variant = StringField("Which poker (optional, e.g. Texas hold'em)",
                          validators=[Optional(), Length(max=MAX_VARIANT), readable])


class DealForm(ActionForm):
    pass


@dataclass(frozen=True)
class BettingView:
    title: str
    variant: str
    dealer: str
    deal: int
    players: tuple[str, ...]
    prompt: str


def view(state: BettingTable) -> BettingView:
    title = "Poker with real betting"
    return BettingView(title, state.rules.variant, state.dealer, state.deal_number, state.players,
                       f"Deal {state.deal_number}: {state.dealer} deals. Tap when the deal is played.")


class BettingScreens(BaseScreens):
    """The variant's field is read and filled by name (the base's); a deal played is its one action."""

    kind = "betting"
    rules_fields = BettingRulesFields

    def describe_rules(self, rules: Mapping[str, Any]) -> str:
        """The variant is already the game's name (``title_of``): said here is only that it is bet for real."""
        variant = rules.get("variant") or ""
        return "with real betting; the chips on the table settle each pot" if variant else "the chips on the table settle each pot"

    def view(self, state: BettingTable) -> BettingView:
        return view(state)

    def forms(self, state: BettingTable) -> dict[str, ActionForm]:
        return {"deal": DealForm(formdata=None)}

    def bind(self, name: str, state: BettingTable,
             repeated: tuple[str, Mapping[str, Any]] | None = None) -> ActionForm | None:
        if name != "deal":
            return None
        form = DealForm()
        form.repeated = repeated  # type: ignore[attr-defined]
        return form

    def action(self, name: str, form: Any, state: BettingTable) -> Any:
        if name != "deal":
            raise IllegalAction(f"no such action: {name[:30]}")
        repeated = getattr(form, "repeated", None)
        if repeated is not None:
            return Deal(repeated[1].get("dealer"))
        return Deal(state.dealer)


BETTING_SCREENS = SCREENS = BettingScreens()
