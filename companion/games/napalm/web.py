"""Napalm's screens: the fields of its rules, its table's forms, and how each form becomes an action.

The table screen asks for one stage at a time: the Yes players, the challenge, the
showdown (winners tapped, or the cards entered and ranked).  Each form is read
into an action of :mod:`.table`; the layer (``views/table.py``) records it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .forms import CardsForm, ChallengeForm, DeclareForm, NapalmRulesFields, ShowdownForm, cards_form_class
from .shown_cards import shown_this_hand, undone_cards
from ..protocol import IllegalAction
from ..web import BaseScreens
from .table import Challenge, Declare, Phase, Showdown, Table
from .view import NapalmView, view


def prefilled_cards(table: Table, yes: tuple[str, ...]) -> CardsForm:
    """The cards form with what each Yes player already showed this hand; ``taken``: others' cards.

    After an undo of this very showdown entered by cards, its cards are back in their
    fields (``given_back``: the screen opens the cards form and says so).
    """
    form = cards_form_class(yes)(formdata=None)
    shown = shown_this_hand(table) if yes else {}
    given_back = undone_cards(table) if yes else {}
    for i, name in enumerate(yes):
        getattr(form, f"cards_{i}").data = given_back.get(name) or shown.get(name, "")
    form.taken = " ".join(cards for name, cards in shown.items() if name not in yes)  # type: ignore[attr-defined]
    form.given_back = bool(given_back)  # type: ignore[attr-defined]
    return form


def _names(names: Any) -> list[tuple[str, str]]:
    return [(n, n) for n in names]


class NapalmScreens(BaseScreens):
    kind = "napalm"
    rules_fields = NapalmRulesFields

    def describe_rules(self, rules: Mapping[str, Any]) -> str:
        return f"ante {rules['ante']}, {rules['tokens_to_win']} tokens"

    def view(self, state: Table) -> NapalmView:
        """What Napalm's templates show besides the night's standings (:mod:`.view`)."""
        return view(state)

    # -- the table's forms ---------------------------------------------------------------

    def forms(self, state: Table) -> dict[str, Any]:
        position = state.position
        declare = DeclareForm(formdata=None)
        declare.yes.choices = _names(state.declaration_order())
        challenge = ChallengeForm(formdata=None)
        challenge.challengers.choices = _names(n for n in state.declaration_order() if n != state.dealer)
        showdown = ShowdownForm(formdata=None)
        showdown.winners.choices = _names(position.yes)
        return {
            "declare": declare,
            "challenge": challenge,
            "showdown": showdown,
            "cards": prefilled_cards(state, position.yes),
        }

    def shown_now(self, state: Table) -> tuple[str, ...]:
        """The forms the screen shows at this phase (a refused form not among them is told at the top)."""
        return {
            Phase.DECLARE: ("declare",),
            Phase.CHALLENGE: ("challenge",),
            Phase.SHOWDOWN: ("showdown", "cards"),
        }[state.position.phase]

    def bind(self, name: str, state: Table, repeated: tuple[str, Mapping[str, Any]] | None) -> Any | None:
        players = _names(state.players)
        if name == "declare":
            form = DeclareForm()
            form.yes.choices = players
        elif name == "challenge":
            form = ChallengeForm()
            form.challengers.choices = players
        elif name == "showdown":
            form = ShowdownForm()
            form.winners.choices = players
        elif name == "cards":
            # a doubled tap on "Rank the cards": its showdown is over, so rebuild the form it was
            # made for, and the service answers "Already recorded" as it does for every other repeat
            yes = None
            if repeated is not None and repeated[0] == "showdown" and isinstance(repeated[1].get("cards"), dict):
                yes = tuple(repeated[1]["cards"])
            if yes is None and state.position.phase is not Phase.SHOWDOWN:
                raise IllegalAction("There is no showdown to enter cards for.")
            form = cards_form_class(yes if yes is not None else state.position.yes)()
        else:
            return None
        return form

    def action(self, name: str, form: Any, state: Table) -> Any:
        if name == "declare":
            if form.nobody.data:
                return Declare(())
            if not form.yes.data:
                raise IllegalAction("tap the players who said Yes, or 'Nobody said Yes'")
            return Declare(tuple(form.yes.data))
        if name == "challenge":
            if form.nobody.data:
                return Challenge(())
            if not form.challengers.data:
                raise IllegalAction("tap who challenged, or 'No challenge'")
            return Challenge(tuple(form.challengers.data))
        if name == "showdown":
            if form.all_tied.data:
                return Showdown(winners=state.position.yes)
            if form.winner.data:  # with others ticked, a tie among them: as many taps as tied players
                return Showdown(winners=(form.winner.data, *(w for w in form.winners.data or () if w != form.winner.data)))
            if not form.winners.data:
                raise IllegalAction("tap the winner, or tick the tied winners and 'Record tie'")
            return Showdown(winners=tuple(form.winners.data))
        if name == "cards":
            fields = sorted((f for f in form if f.name.startswith("cards_")), key=lambda f: int(f.name[6:]))
            return Showdown(cards=tuple((f.label.text, f.data) for f in fields))
        raise IllegalAction("no such action")

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


NAPALM_SCREENS = SCREENS = NapalmScreens()
