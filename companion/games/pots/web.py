"""The fixed-stake pot games' screens: their rules' fields, and the table's forms and actions.

The table screen (``templates/games/pots/table.html``) asks for the current pot's winner
with one big button per player: the usual deal is one tap after the antes (they ride in
that tap's record).  A split, high-low, a carried pot, chips into a pot and a sale are each
one tap away.  Every form is checked here and again by the engine; whatever is wrong comes
back as :class:`IllegalAction` with a sentence for the scorekeeper (the layer shows it, 422).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wtforms import HiddenField, SelectField, StringField, SubmitField
from wtforms.validators import InputRequired, NumberRange, Optional

from companion.web.forms import ActionForm, MultiCheckboxField, WholeNumberField
from ..protocol import IllegalAction, and_
from ..web import BaseScreens
from .engine import MAX_CHIPS, Carry, HighLow, IntoPot, PotTable, Sale, Win
from .presets import PRESETS, TITLES
from .view import PotsView, pot_label, stakes_text, view

#: the presets in the order the screen offers them, each by what players call it
PRESET_CHOICES = [(key, TITLES[key]) for key in PRESETS]
FAT_ONE = "tips_to_the_fat_one"


def _uses(preset: str, key: str) -> Any:
    return PRESETS.get(preset, {}).get(key)


class PotsRulesFields:
    """A pot game's rules as form fields: which preset first, then what a group changes in it."""

    preset = SelectField("Which pot game", choices=PRESET_CHOICES, default="fixed", validate_choice=False)
    ante = WholeNumberField(
        "Ante (chips from each player every deal)",
        default=1,
        validators=[InputRequired("give the ante (0 for none)"), NumberRange(min=0, max=MAX_CHIPS)],
    )
    stake_a = WholeNumberField(
        "Tips to the Fat One: pot A",
        default=2,
        validators=[InputRequired("give pot A's stake"), NumberRange(min=1, max=MAX_CHIPS)],
    )
    stake_b = WholeNumberField(
        "pot B",
        default=3,
        validators=[InputRequired("give pot B's stake"), NumberRange(min=2, max=MAX_CHIPS)],
    )
    sale_limit = WholeNumberField(
        "NASDAQ: sale limit (empty: none)",
        validators=[Optional(), NumberRange(min=0, max=MAX_CHIPS)],
    )

    def preset_uses(self, key: str) -> Any:
        """What the chosen preset sets ``key`` to (the rules template shows only the fields it uses)."""
        return _uses(str(getattr(self, "preset").data or "fixed"), key)


# --- the table's forms (each posts to one action of the layer's one route) -------------------


class WinForm(ActionForm):
    """The current pot's winner (a button per player), or several ticked players splitting it."""

    pot = HiddenField()
    winner = StringField()  # the button's value: one tap
    tied = MultiCheckboxField("Who tied", choices=[], validate_choice=False)
    split = SubmitField("Record the split")


class HighLowForm(ActionForm):
    pot = HiddenField()
    high = MultiCheckboxField("Best high hand", choices=[], validate_choice=False)
    low = MultiCheckboxField("Best low hand", choices=[], validate_choice=False)
    record = SubmitField("Record high-low")


class CarryForm(ActionForm):
    pot = HiddenField()


class IntoPotForm(ActionForm):
    chips = WholeNumberField(
        "Chips", validators=[InputRequired("how many chips?"), NumberRange(min=1, max=MAX_CHIPS)]
    )
    reason = SelectField("For", choices=[], default="bet", validate_choice=False)
    pot = SelectField("Into", choices=[], validate_choice=False)
    player = StringField()  # the button's value: who puts them in


class SaleForm(ActionForm):
    pot = HiddenField()
    seller = SelectField("Seller", choices=[], validate_choice=False)
    buyer = SelectField("Buyer", choices=[], validate_choice=False)
    price = WholeNumberField(
        "Price (chips)", validators=[InputRequired("what was the price?"), NumberRange(min=1, max=MAX_CHIPS)]
    )
    record = SubmitField("Record the sale")


FORMS: dict[str, type[ActionForm]] = {
    "win": WinForm,
    "carry_over": CarryForm,
    "highlow": HighLowForm,
    "into_pot": IntoPotForm,
    "sale": SaleForm,
}


def _offered(v: PotsView) -> tuple[str, ...]:
    """The actions the rules allow now, in the order the screen shows them."""
    names = ["win"]
    if v.can_carry:
        names.append("carry_over")
    if v.high_low:
        names.append("highlow")
    names.append("into_pot")
    if v.sales:
        names.append("sale")
    return tuple(names)


def _choose(form: ActionForm, v: PotsView) -> ActionForm:
    """Set the choices of ``form``'s lists for the table ``v`` shows (and the current pot)."""
    people = [(name, name) for name in v.players]
    if isinstance(form, WinForm):
        form.tied.choices = people
    elif isinstance(form, HighLowForm):
        form.high.choices = people
        form.low.choices = people
    elif isinstance(form, IntoPotForm):
        form.reason.choices = list(v.into_reasons)
        form.pot.choices = [(p.name, f"{p.label} ({p.chips})") for p in v.open_pots]
    elif isinstance(form, SaleForm):
        form.seller.choices = people
        form.buyer.choices = people
    return form


class PotsScreens(BaseScreens):
    kind = "pots"
    rules_fields = PotsRulesFields

    # --- rules ----------------------------------------------------------------------

    def rules_from_form(self, form: Any) -> dict[str, Any]:
        """The preset, then only what that preset lets the group change (the game checks the rest)."""
        preset = form.preset.data
        if preset not in PRESETS:
            raise IllegalAction(f"choose one of the pot games: {', '.join(TITLES[k] for k in PRESETS)}")
        rules: dict[str, Any] = {"preset": preset}
        if _uses(preset, "stake_rule") == "fat_one":
            # the app works out C, D and E from A and B (and refuses A >= B, naming both)
            rules["stakes"] = [form.stake_a.data, form.stake_b.data]
        else:
            rules["ante"] = form.ante.data
        if _uses(preset, "sales"):
            rules["sale_limit"] = form.sale_limit.data
        return rules

    def fill_rules(self, form: Any, rules: Mapping[str, Any]) -> None:
        preset = rules.get("preset", "fixed")
        form.preset.data = preset
        stakes = list(rules.get("stakes") or [])
        if len(stakes) >= 2 and rules.get("stake_rule") == "fat_one":
            form.stake_a.data, form.stake_b.data = stakes[0], stakes[1]
        if not stakes:
            form.ante.data = rules.get("ante", 1)
        form.sale_limit.data = rules.get("sale_limit")

    def describe_rules(self, rules: Mapping[str, Any]) -> str:
        """A few words for the report's heading: "stakes A 2, B 3, C 4, D 6, E 9", "ante 1, sale limit 5"."""
        stakes = list(rules.get("stakes") or [])
        words = [f"stakes {stakes_text(tuple(stakes))}" if stakes else f"ante {rules.get('ante', 1)}"]
        if rules.get("carry"):
            words.append("a pot nobody wins is carried")
        if rules.get("high_low"):
            words.append("high-low")
        if rules.get("sales"):
            limit = rules.get("sale_limit")
            words.append("no sale limit" if limit is None else f"sale limit {limit}")
        return ", ".join(words)

    # --- the table ------------------------------------------------------------------

    def view(self, state: PotTable) -> PotsView:
        return view(state)

    def forms(self, state: PotTable) -> dict[str, ActionForm]:
        v = view(state)
        forms: dict[str, ActionForm] = {}
        for name in _offered(v):
            form = _choose(FORMS[name](formdata=None), v)
            if hasattr(form, "pot"):
                form.pot.data = v.current.name
            forms[name] = form
        if "sale" in forms:
            sale = forms["sale"]
            sale.seller.data, sale.buyer.data = v.players[0], v.players[1]  # type: ignore[attr-defined]
        return forms

    def offers(self) -> dict[str, tuple[str, dict[str, str]]]:
        """Each preset as an offer of the next-game screen (``?offer=high_card``): its title and rules."""
        return {key: (title, {"preset": key}) for key, title in PRESET_CHOICES}

    def bind(
        self, name: str, state: PotTable, repeated: tuple[str, Mapping[str, Any]] | None = None
    ) -> ActionForm | None:
        """The posted form; ``repeated`` (a doubled tap) skips the checks of the table as it is now,
        so the same action is built again and the service answers "Already recorded"."""
        v = view(state)
        if name not in FORMS or name not in _offered(v):
            return None
        form = _choose(FORMS[name](), v)
        form.repeated = repeated is not None  # type: ignore[attr-defined]
        return form

    def action(self, name: str, form: Any, state: PotTable) -> Any:
        players = state.players
        again = getattr(form, "repeated", False)
        pot = self._pot(form, state, again)
        if name == "win":
            tied = list(form.tied.data or [])
            if form.split.data:
                named = tied + ([form.winner.data] if form.winner.data else [])
                names = _known(players, named, "a split")
                if len(names) < 2:
                    raise IllegalAction("a split needs two or more players: tick everyone who tied")
                return Win(names, pot)
            if not form.winner.data:
                raise IllegalAction("tap the winner, or tick who tied and 'Record the split'")
            return Win(_known(players, [form.winner.data, *tied], "the win"), pot)
        if name == "carry_over":
            return Carry(pot)
        if name == "highlow":
            high = _known(players, form.high.data or [], "the high hand")
            low = _known(players, form.low.data or [], "the low hand")
            if not high or not low:
                raise IllegalAction("tick the best high hand and the best low hand")
            return HighLow(high, low, pot)
        if name == "into_pot":
            if not form.player.data:
                raise IllegalAction("tap the button of the player who puts the chips in")
            (player,) = _known(players, [form.player.data], "chips into the pot")
            reason = form.reason.data or "bet"
            if not again and reason not in dict(view(state).into_reasons):
                allowed = " or ".join(words for _, words in view(state).into_reasons)
                raise IllegalAction(f"chips go into the pot here as {allowed}")
            return IntoPot(player, form.chips.data, reason, pot)
        if name == "sale":
            (seller,) = _known(players, [form.seller.data], "the sale")
            (buyer,) = _known(players, [form.buyer.data], "the sale")
            if seller == buyer:
                raise IllegalAction(f"{seller} cannot buy their own card: choose the buyer")
            return Sale(seller, buyer, form.price.data, pot)
        raise IllegalAction(f"no such action: {name[:30]}")

    @staticmethod
    def _pot(form: Any, state: PotTable, again: bool = False) -> str | None:
        """The pot the form names: None in a one-pot game, else one still open this deal."""
        names = state.rules.pot_names
        if len(names) == 1:
            return None
        chosen = (form.pot.data or "").strip().upper()
        if chosen not in names:
            raise IllegalAction(f"say which pot: {', '.join(state.open_pots)}")
        if not again and chosen not in state.open_pots:
            raise IllegalAction(f"{pot_label(chosen)} has already ended this deal")
        return chosen


def _known(players: tuple[str, ...], names: list[str], what: str) -> tuple[str, ...]:
    """``names`` as players of this game (each once); a name not playing is refused by name."""
    out: list[str] = []
    for name in names:
        if name not in players:
            raise IllegalAction(f"{str(name)[:30] or 'nobody'} is not playing this game: {what} can only name "
                                f"{and_(list(players))}")
        if name not in out:
            out.append(name)
    return tuple(out)


POTS_SCREENS = SCREENS = PotsScreens()
