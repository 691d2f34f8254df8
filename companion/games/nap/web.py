"""Nap's screens: its rules' fields, and the table's one action, a deal, in three taps.

The deal form (action ``deal``): tap who won the bid (a radio toggle), tap the bid (a
radio toggle), tap **Made** or **Failed** (the submit buttons ``result=made|failed``).
Everything else a deal may hold sits in a ``<details>`` one tap away, in the same form:
Widow Nap's widow, Peep Nap's peeks, Purchase Nap's exchanged cards, and the penalties
(lead out of turn, revoke, a wrong number of cards).  A revoke abandons the deal, so it
has its own button (``result=revoke``); with 5 or 6 players a deal nobody bid on is
thrown in with one button (``result=thrown_in``).

:meth:`NapScreens.action` only reads the form into a :class:`~.table.Deal`: whether the
deal is legal *now* is the engine's to say (``services.record`` verifies it against
the fold), so a doubled tap is answered "Already recorded" however the table moved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wtforms import BooleanField, RadioField, SelectField, StringField
from wtforms.validators import InputRequired, NumberRange

from companion.web.forms import ActionForm, MultiCheckboxField, WholeNumberField
from ...values.reading import Unreadable, shown, trimmed, whole_number
from ..protocol import IllegalAction
from ..web import BaseScreens
from .table import BIDS, MAX_EXCHANGE, MAX_PLAYERS, MAX_STAKE, VARIANTS, Deal, Penalty, Table
from .view import VARIANT_TITLES, NapView, view

#: the form's value of each bid ("2", "misere", …) → the engine's bid (2, "misere", …)
BID_VALUES: dict[str, int | str] = {str(bid): bid for bid in BIDS}
RESULTS = ("made", "failed", "revoke", "thrown_in")
WRONG_CARDS_CHOICES = [
    ("", "No"),
    ("other", "Another player's hand was wrong"),
    ("bidder_over", "The bidder held too many cards"),
]


class NapRulesFields:
    """Nap's rules as form fields (the next-game screen mixes them in)."""

    variant = SelectField(
        "Variant",
        choices=[(key, VARIANT_TITLES[key]) for key in VARIANTS],
        default="plain",
        validate_choice=False,  # the game's rules say which, in a sentence (Rules: "the variant is one of …")
    )
    misere = BooleanField("Misère may be bid (3 chips, ranks between 3 and 4)", default=True)
    wellington = BooleanField("Wellington may be bid (10 / 10)", default=False)
    blucher = BooleanField("Blücher may be bid (10 / 20; needs Wellington)", default=False)
    stake = WholeNumberField(
        "Stake (multiplies every amount)",
        default=1,
        validators=[InputRequired("enter the stake, a whole number from 1"), NumberRange(min=1, max=MAX_STAKE)],
    )


def _exchange_field(seat: int) -> SelectField:
    return SelectField(
        f"Seat {seat + 1}", choices=[(str(n), str(n)) for n in range(MAX_EXCHANGE + 1)], default="0",
        validate_choice=False,
    )


class DealForm(ActionForm):
    """One deal, as the scorekeeper taps it after the last trick (choices set per table)."""

    bidder = RadioField("Who won the bid?", choices=[], validate_choice=False)
    bid = RadioField("The bid", choices=[], validate_choice=False)
    result = StringField()  # the submit button tapped: made, failed, revoke or thrown_in
    widow = BooleanField("Took the widow (Nap)")
    peeks = MultiCheckboxField("Peeked at the widow card", choices=[], validate_choice=False)
    led = MultiCheckboxField("Led out of turn", choices=[], validate_choice=False)
    revoke = RadioField("Who revoked?", choices=[], validate_choice=False, default="")
    wrong_cards = RadioField("A wrong number of cards?", choices=WRONG_CARDS_CHOICES, validate_choice=False, default="")

    def exchange_fields(self, players: tuple[str, ...]) -> list[tuple[str, Any]]:
        """(player, field) for each seat of the game."""
        return [(name, self[f"exchanged_{seat}"]) for seat, name in enumerate(players)]


# exchanged cards (Purchase Nap), one field per seat of the game: ``exchanged_0`` is its first player
for _seat in range(MAX_PLAYERS):
    setattr(DealForm, f"exchanged_{_seat}", _exchange_field(_seat))


def _set_choices(form: DealForm, v: NapView) -> DealForm:
    form.bidder.choices = [(name, name) for name in v.bidders]
    form.bid.choices = [(b.value, b.title) for b in v.bids]
    form.peeks.choices = [(name, name) for name in v.holders]
    form.led.choices = [(name, name) for name in v.holders]
    form.revoke.choices = [("", "Nobody"), *((name, name) for name in v.holders)]
    for name, field in form.exchange_fields(v.players):
        field.label.text = name
    return form


def _sentence_name(value: Any) -> str:
    return str(value)[:24]


def deal_from_form(form: DealForm, players: tuple[str, ...]) -> Deal:
    """The deal the form says; IllegalAction with a sentence when it says nothing whole.

    Only the form's shape is checked here (a result tapped, a bidder and a bid given, a
    revoke not tapped as Made): who may bid or peek *now* is the engine's to say.
    """
    result = (form.result.data or "").strip()
    if result not in RESULTS:
        raise IllegalAction("Tap Made or Failed to record the deal.")
    peeks = tuple(form.peeks.data or ())
    exchanged = []
    for name, field in form.exchange_fields(players):
        raw = field.data or "0"
        try:
            count = whole_number(raw if trimmed(raw) else "0", "cards", low=0, high=MAX_EXCHANGE)
        except Unreadable:
            raise IllegalAction(f"{name} exchanges 0 to {MAX_EXCHANGE} cards, not '{shown(raw, 10)}'.") from None
        if count:
            exchanged.append((name, count))
    if result == "thrown_in":
        # the button says it: nobody bid, so a bidder or bid tapped before it does not count
        penalties = bool(form.led.data) or bool(form.revoke.data) or bool(form.wrong_cards.data) or form.widow.data
        if penalties:
            raise IllegalAction(
                "A thrown-in deal has no penalties, widow or wrong hands: clear them under "
                "“Penalties and extras”, or record who won the bid."
            )
        return Deal(bidder=None, peeks=peeks, exchanged=tuple(exchanged))
    bidder = form.bidder.data
    if not bidder:
        raise IllegalAction("Tap who won the bid first.")
    raw_bid = form.bid.data
    if not raw_bid:
        raise IllegalAction(f"Tap what {_sentence_name(bidder)} bid.")
    if raw_bid not in BID_VALUES:
        raise IllegalAction(f"'{_sentence_name(raw_bid)}' is not a bid: tap one of the bids shown.")
    penalties = [Penalty("lead_out_of_turn", name) for name in form.led.data or ()]
    revoker = form.revoke.data or ""
    wrong = form.wrong_cards.data or None
    if wrong is not None and wrong not in ("other", "bidder_over"):
        raise IllegalAction("Choose one of the wrong-hand answers shown.")
    if result == "revoke":
        if not revoker:
            raise IllegalAction("Tap who revoked, then “Record the revoke”.")
        penalties.append(Penalty("revoke", revoker))
        made = None
    else:
        if revoker:
            raise IllegalAction(
                f"{_sentence_name(revoker)} revoked: a revoke abandons the deal, so tap “Record the revoke”, "
                "not Made or Failed."
            )
        made = result == "made"
    return Deal(
        bidder=bidder,
        bid=BID_VALUES[raw_bid],
        made=made,
        widow=bool(form.widow.data),
        peeks=peeks,
        exchanged=tuple(exchanged),
        penalties=tuple(penalties),
        wrong_cards=wrong,
    )


class NapScreens(BaseScreens):
    """Its rules' fields are read and filled by name (the base's); a deal is its one action."""

    kind = "nap"
    rules_fields = NapRulesFields

    # --- rules -----------------------------------------------------------------------

    def describe_rules(self, rules: Mapping[str, Any]) -> str:
        """The rules in a few words for the report: "Pool Nap with Misère, stake 2"."""
        title = VARIANT_TITLES.get(str(rules.get("variant", "plain")), "Nap")
        extra = [name for key, name in (("misere", "Misère"), ("wellington", "Wellington"), ("blucher", "Blücher"))
                 if rules.get(key, key == "misere")]
        text = title + (" with " + " and ".join(extra) if extra else "")
        stake = rules.get("stake", 1)
        return text + (f", stake {stake}" if stake != 1 else "")

    # --- the table ---------------------------------------------------------------------

    def view(self, state: Table) -> NapView:
        return view(state)

    def forms(self, state: Table) -> dict[str, ActionForm]:
        return {"deal": _set_choices(DealForm(formdata=None), view(state))}

    def bind(
        self, name: str, state: Table, repeated: tuple[str, Mapping[str, Any]] | None = None
    ) -> ActionForm | None:
        """The deal form read from the request (a repeated submit reads the same way: see :meth:`action`)."""
        if name != "deal":
            return None
        return _set_choices(DealForm(), view(state))

    def action(self, name: str, form: Any, state: Table) -> Deal:
        if name != "deal":  # pragma: no cover - bind() answers None first
            raise IllegalAction("no such action")
        return deal_from_form(form, state.players)


NAP_SCREENS = SCREENS = NapScreens()
