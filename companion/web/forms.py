"""The forms: every value a person can submit, checked before it reaches a rule.

Each form that changes the table carries the table's version when the form was
shown and a request key made with the form, so that a stale screen or a doubled
tap records nothing twice (see :func:`companion.service.recording.record`).  The web
layer's forms all live here; each game's own forms (its actions, its rules) live in
its folder under companion/games/, built on :class:`ActionForm` and the fields here.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TypeVar

from flask import has_request_context, request
from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileRequired
from wtforms import (
    HiddenField,
    IntegerField,
    SelectField,
    SelectMultipleField,
    StringField,
    SubmitField,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional, Regexp, StopValidation, ValidationError
from wtforms.widgets import CheckboxInput, ListWidget

from companion import service
from companion.money.amounts import parse_chip_value
from companion.values.reading import MAX_DIGITS, Unreadable, name as read_name, text, whole_number
from companion.games import GAMES
from companion.games.protocol import MAX_NAME_LENGTH
from companion.night.play import MAX_SEATED as MAX_PLAYERS

KEY_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"
#: a longer name is refused with this message, never cut (the field has no maxlength: issue 14, item 7)
NAME_TOO_LONG = f"a name is at most {MAX_NAME_LENGTH} characters: shorten it"
#: more than any text field takes (each has its own Length): the request's own size bounds it
MAX_FORM_TEXT = 1_000_000


class WholeNumberField(IntegerField):
    """A whole number read by :func:`companion.values.reading.whole_number`, as every way in reads one.

    WTForms' own reading took ``int()``'s word for it ("1_000", "\u0663", "\U0001d7cf") and its
    NumberRange turned a 400-digit number into a float that overflowed: a 500.  A field whose
    NumberRange starts at 0 or more takes no minus sign ("-0" included); the range itself is
    left to NumberRange and its message.
    """

    UNREADABLE = f"Enter a whole number in digits 0-9, at most {MAX_DIGITS} of them."

    def _signed(self) -> bool:
        return not any(isinstance(v, NumberRange) and v.min is not None and v.min >= 0 for v in self.validators)

    def process_formdata(self, valuelist: list[str]) -> None:
        if not valuelist or valuelist[0] == "":
            self.data = None
            return
        try:
            self.data = whole_number(valuelist[0], "the number", low=None if self._signed() else 0)
        except Unreadable:
            self.data = None
            raise ValueError(self.UNREADABLE) from None


def readable(form: FlaskForm, field: StringField) -> None:
    """Text no database stores (a NUL, a broken character) is this field's error, as every way in
    refuses it (companion.values.reading.text); the field's Length says how long it may be."""
    try:
        text(field.data or "", "this field", max_length=MAX_FORM_TEXT)
    except Unreadable as error:
        raise ValidationError(str(error)) from None


def left_out(form: FlaskForm, field: WholeNumberField) -> None:
    """An optional whole number left out (or sent empty): nothing more to check.

    WTForms' ``Optional`` also takes text of spaces alone (a tab, a full-width or no-break space) for
    nothing, and drops the field's reading error with it: such a version was ignored where every
    other form refuses it.  Here anything written is read as :class:`WholeNumberField` reads it.
    """
    if not field.raw_data or field.raw_data[0] == "":
        field.errors[:] = []
        raise StopValidation()


def named(what: str):  # type: ignore[no-untyped-def]
    """A validator of a field that holds a name: read by the one reader of a name (companion.values.reading.name),
    so a control character or a mark that changes the direction of text is this field's error (``what`` says
    whose name), as a file or the service refuses it; what no database stores too (as :func:`readable`)."""

    def read(form: FlaskForm, field: StringField) -> None:
        try:
            read_name(field.data or "", what, max_length=MAX_FORM_TEXT)
        except Unreadable as error:
            raise ValidationError(str(error)) from None

    return read


A_PLAYERS_NAME = named("a player's name")


def seat_number(value: str | None) -> int | None:
    """A seat's number 1 to MAX_PLAYERS as a form sends it (first dealer, ↑), or None for anything else."""
    try:
        return whole_number(value, "a seat", low=1, high=MAX_PLAYERS)
    except Unreadable:
        return None


class KnownFieldsOnly:
    """A form that refuses a field it does not have (a ``seat_8``) instead of dropping it unseen."""

    def validate(self, extra_validators=None) -> bool:  # type: ignore[no-untyped-def]
        valid = super().validate(extra_validators)  # type: ignore[misc]
        known = {field.name for field in self} | {"csrf_token"}  # type: ignore[attr-defined]
        unknown = sorted(set(request.form) | set(request.files)) if has_request_context() else []
        unknown = [name for name in unknown if name not in known]
        if unknown:
            shown = ", ".join(name[:30] for name in unknown[:3])
            self.form_errors.append(f"This form has no field {shown}; nothing was saved.")  # type: ignore[attr-defined]
            return False
        return valid


class MultiCheckboxField(SelectMultipleField):
    """A list of toggles: one large tap target per player."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


class ActionForm(FlaskForm):
    """The version and key that make a submit safe to repeat."""

    version = WholeNumberField(validators=[InputRequired("the form has no table version"), NumberRange(min=0)])
    request_key = StringField(
        validators=[InputRequired("the form has no request key"), Regexp(KEY_PATTERN, message="bad request key")]
    )


Form = TypeVar("Form", bound=ActionForm)


def fresh(form: Form, version: int) -> Form:
    """``form`` stamped for the screen about to be shown: the night's ``version`` and a new request key."""
    form.version.data = version
    form.request_key.data = service.new_key()
    return form


class UndoForm(ActionForm):
    pass


class PaidForm(ActionForm):
    payer = StringField(validators=[InputRequired(), Length(max=MAX_NAME_LENGTH)])
    payee = StringField(validators=[InputRequired(), Length(max=MAX_NAME_LENGTH)])
    chips = WholeNumberField(validators=[InputRequired(), NumberRange(min=1, max=10**9)])


def picked_another_game(kind: str, button: str, name: str | None = None) -> str:
    """What a submit is told when it picked ``kind`` from the list while the page showed another game's rules.

    Nothing starts: the rules on the page were not the picked game's, and starting it with
    rules nobody saw (or the shown game instead) is the wrong game at the table (issue 20, item 5).
    """
    return f"You picked {name or GAMES[kind].title}: nothing has started yet. Its rules are below now: check them and tap {button} again."


class NextGameForm(ActionForm):
    """Start the night's next game: which, who plays it, who deals first; its rules are mixed in per game."""

    game = SelectField("Game", choices=[])
    #: the game whose rules the page showed: a submit that picked another game shows that one's instead
    rules_of = HiddenField()
    show_rules = SubmitField("Show its rules")
    players = MultiCheckboxField("Who plays", choices=[], validate_choice=True)
    first_dealer = SelectField("First dealer", choices=[])
    submit = SubmitField("Start this game")


def next_game_form_class(rules_fields: type) -> type[NextGameForm]:
    """The next-game form with one game's rule fields (see :mod:`companion.games.web`)."""
    return type(f"NextGameForm_{rules_fields.__name__}", (NextGameForm, rules_fields), {})


class CarryForm(ActionForm):
    """ "Start the next night with this pot": the version of the night it was shown for, and a key."""


class KeeperPhoneForm(FlaskForm):
    """Give another phone a keeper link of its own: its name, read by the one name reader (service.keepers);
    the request key makes a doubled tap make one link."""

    name = StringField("Its name", validators=[InputRequired("name the phone (\u201cBen's phone\u201d)"),
                                              Length(max=MAX_FORM_TEXT)])
    request_key = HiddenField(validators=[InputRequired("the form has no request key"),
                                          Regexp(KEY_PATTERN, message="bad request key")])


class TakeBackForm(ActionForm):
    """Take back a keeper phone's link, once confirmed: which phone (``first``, or the phone's number)."""

    phone = HiddenField(validators=[InputRequired("say which phone's link to take back"),
                                    Regexp(r"^(first|[0-9]{1,9})$", message="say which phone's link to take back")])


class RotateForm(FlaskForm):
    which = SelectField(choices=[("viewer", "players' link"), ("keeper", "scorekeeper's link")])


class DisplayLinkForm(FlaskForm):
    """Make (or replace) the night's table display link, or take it back (docs/display.md)."""

    do = SelectField(choices=[("new", "make a new display link"), ("take-back", "take the display link back")])


def _chip_value(form: FlaskForm, field: StringField) -> None:
    try:
        field.parsed = parse_chip_value(field.data or "0")
    except ValueError as error:
        raise ValidationError(str(error)) from None


class StartForm(FlaskForm):
    """A form that starts a night carries a key made with the form: sent twice, it starts one night."""

    request_key = HiddenField(validators=[Optional(), Regexp(KEY_PATTERN, message="bad request key")])


class NightBaseForm(KnownFieldsOnly, StartForm):
    """Start a night (or change its setup before play): seats, dealer, money, and the first game.

    The first game's rules are mixed in per game (:func:`night_form_class`): a game's
    rule fields are its own, in its package.
    """

    game = HiddenField()  # the first game's short name (the page's picker sets it)
    #: the game whose rules the page showed: a submit that picked another game shows that one's instead
    rules_of = HiddenField()
    show_rules = SubmitField("Show its rules")
    name = StringField("Name of the night", validators=[Optional(), Length(max=80), named("the night's name")])
    seat_1 = StringField("Seat 1", validators=[Optional(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), A_PLAYERS_NAME])
    seat_2 = StringField("Seat 2", validators=[Optional(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), A_PLAYERS_NAME])
    seat_3 = StringField("Seat 3", validators=[Optional(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), A_PLAYERS_NAME])
    seat_4 = StringField("Seat 4", validators=[Optional(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), A_PLAYERS_NAME])
    seat_5 = StringField("Seat 5", validators=[Optional(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), A_PLAYERS_NAME])
    seat_6 = StringField("Seat 6", validators=[Optional(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), A_PLAYERS_NAME])
    seat_7 = StringField("Seat 7", validators=[Optional(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), A_PLAYERS_NAME])
    first_dealer = SelectField(
        "First dealer", choices=[(str(i), f"Seat {i}") for i in range(1, MAX_PLAYERS + 1)], default="1"
    )
    # none by default: a group that plays for chips only never sees money (issue 14, item 7)
    chip_value = StringField(
        "Value of one chip (empty: chips only)", default="", validators=[Length(max=20), _chip_value]
    )
    currency = StringField("Currency", default="€", validators=[Optional(), Length(max=8), named("the currency")])
    move_up = HiddenField()
    submit = SubmitField("Start the night")

    def validate_first_dealer(self, field: SelectField) -> None:
        """The first dealer is a seated player: an empty seat is refused, never silently seat 1."""
        chosen = field.data or ""
        if seat_number(chosen) is None:
            raise ValidationError("choose the first dealer")
        if self.players() and self.first_dealer_name() is None:
            raise ValidationError(f"seat {chosen} is empty: choose a first dealer who has a name")

    def dealer_options(self) -> list[tuple[str, str, bool]]:
        """(value, label, selected) for the first-dealer list: each seat by its player's name."""
        return [
            (str(i), (f.data or "").strip() or f"Seat {i} (empty)", (self.first_dealer.data or "1") == str(i))
            for i, f in enumerate(self.seat_fields(), start=1)
        ]

    def seat_fields(self) -> list[StringField]:
        return [getattr(self, f"seat_{i}") for i in range(1, MAX_PLAYERS + 1)]

    def players(self) -> list[str]:
        return [f.data.strip() for f in self.seat_fields() if f.data and f.data.strip()]

    def first_dealer_name(self) -> str | None:
        """The name in the chosen seat, counting only filled seats' positions as typed."""
        seat = seat_number(self.first_dealer.data or "1") or 1
        field = self.seat_fields()[seat - 1]
        return field.data.strip() if field.data and field.data.strip() else None

    def chip_value_decimal(self) -> Decimal:
        return getattr(self.chip_value, "parsed", Decimal("0"))


def move_seat_up(form: NightBaseForm) -> bool:
    """The ↑ button beside a seat swaps it with the seat above, without saving (no JavaScript needed)."""
    # The tapped button's value; an empty move_up sent before it (a hidden input an older
    # page carried) must not hide it: that made ↑ start the night instead (issue 14, bug 1).
    move = seat_number(next((v for v in request.form.getlist("move_up") if v), ""))
    if move is None or move < 2:  # "²", "\u0663" or 5,000 digits: not a seat (companion.values.reading)
        return False
    fields = form.seat_fields()
    i = move - 1
    fields[i].data, fields[i - 1].data = fields[i - 1].data, fields[i].data
    dealer = seat_number(form.first_dealer.data) or 1
    if dealer in (i, i + 1):
        form.first_dealer.data = str(i if dealer == i + 1 else i + 1)
    form.move_up.data = ""
    return True


_night_forms: dict[type, type[NightBaseForm]] = {}


def night_form_class(rules_fields: type) -> type[NightBaseForm]:
    """The night's form with one game's rule fields as its first game's (see :mod:`companion.games.web`)."""
    if rules_fields not in _night_forms:
        _night_forms[rules_fields] = type(f"NightForm_{rules_fields.__name__}", (NightBaseForm, rules_fields), {})
    return _night_forms[rules_fields]


class ImportForm(KnownFieldsOnly, StartForm):
    file = FileField(
        "Night file (.json)",
        validators=[FileRequired("choose a file"), FileAllowed(["json"], "a night file ends in .json")],
    )
    name = StringField("Name of the night", validators=[Optional(), Length(max=80), named("the night's name")])


# --- the night's own ledger: the Bank page and the Bonus Round (web/pages/bank.py, web/pages/bonus.py) ---------


class SettingForm(ActionForm):
    """What the night settles on: the chip counts (the bank) or the app's tally."""

    on = HiddenField()


class EveryoneForm(ActionForm):
    """Everyone buys in the same number of chips, in one tap."""

    chips = StringField("Chips each")


class PlayerForm(ActionForm):
    """One player's buy-in, rebuy or cash-out (counted chips)."""

    player = HiddenField()
    chips = StringField("Chips")
    action = HiddenField()


class CancelForm(ActionForm):
    """Cancel one line of the bank's log (a new event: nothing is edited in place)."""

    seq = HiddenField()


class RollForm(ActionForm):
    """The Bonus Round's roll, by the dealer."""

    roller = SelectField("Who rolls (the dealer)", choices=[])


class LuckyForm(ActionForm):
    """A player's lucky number, rolled for them."""

    player = SelectField("Whose lucky number", choices=[])


class GridForm(ActionForm):
    """The Bonus Round's grid: its dice, what a lucky number pays, and its bonus and anti-bonus cells.

    The cells' games are read from the request as posted (``cell_<label>`` and the quick fill):
    how many there are depends on the dice.
    """

    dice = HiddenField()
    lucky_chips = StringField("A lucky number pays", validators=[Length(max=12)])
    bonus_cells = StringField("Bonus cells: everyone pays the dealer", validators=[Length(max=200)])
    bonus_chips = StringField("chips each", validators=[Length(max=12)])
    anti_cells = StringField("Anti-bonus cells: the dealer pays everyone", validators=[Length(max=200)])
    anti_chips = StringField("chips each", validators=[Length(max=12)])


# --- the group's pages (web/pages/groups.py) -------------------------------------------------------------

#: the longest group name a row holds (home_group.name)
MAX_GROUP_NAME = 80


class GroupForm(KnownFieldsOnly, StartForm):
    """Make a group: its name; the request key makes a doubled tap one group."""

    name = StringField(
        "Name of the group",
        validators=[InputRequired("give the group a name"), Length(max=MAX_GROUP_NAME), named("the group's name")],
    )


class GroupImportForm(KnownFieldsOnly, StartForm):
    file = FileField(
        "Group file (.json)",
        validators=[FileRequired("choose a file"), FileAllowed(["json"], "a group file ends in .json")],
    )


def _member_field(label: str) -> StringField:
    return StringField(
        label, validators=[InputRequired(), Length(max=MAX_NAME_LENGTH, message=NAME_TOO_LONG), named("a member's name")]
    )


class MemberForm(KnownFieldsOnly, ActionForm):
    """A new member of the group."""

    name = _member_field("New member's name")


class RenameForm(KnownFieldsOnly, ActionForm):
    member = _member_field("Member")
    new = _member_field("New name")


class MergeForm(KnownFieldsOnly, ActionForm):
    """Two names that are one person: ``merged``'s nights count for ``kept`` from now on."""

    kept = _member_field("Keep")
    merged = _member_field("and count as them")


#: the kinds of pay handle, as the service names them, with the words the page uses
HANDLE_KINDS = (("paypal", "PayPal.Me"), ("revolut", "Revolut"), ("venmo", "Venmo"), ("iban", "Bank transfer (IBAN)"))


class HandleForm(KnownFieldsOnly, ActionForm):
    """A member's pay handle of one kind: a username or link, or an IBAN with its holder (and a BIC)."""

    member = _member_field("Member")
    kind = SelectField("How they are paid", choices=list(HANDLE_KINDS))
    handle = StringField("Username, link or IBAN", validators=[InputRequired(), Length(max=200), readable])
    # banks now check the name against the IBAN before a transfer goes (Verification of Payee): the form says so
    holder = StringField("Account holder's name, as the bank has it (IBAN only)",
                         validators=[Optional(), Length(max=70), named("the account holder's name")])
    bic = StringField("BIC (IBAN only, optional)", validators=[Optional(), Length(max=11), readable])


class RemoveHandleForm(KnownFieldsOnly, ActionForm):
    member = _member_field("Member")
    kind = SelectField(choices=list(HANDLE_KINDS))


def _amount(form: FlaskForm, field: StringField) -> None:
    """An amount paid, read as every decimal of money is (exact, at most four places, a dot)."""
    try:
        field.parsed = parse_chip_value(field.data or "")
    except ValueError as error:
        raise ValidationError(str(error).replace("what one chip is worth", "the amount paid").replace(
            "A chip value", "An amount")) from None
    if not field.parsed:
        raise ValidationError("an amount paid is more than zero")


class TabPaidForm(KnownFieldsOnly, ActionForm):
    """One payment of the tab's plan made, in full or in part (the amount as typed)."""

    payer = _member_field("Payer")
    payee = _member_field("Payee")
    unit = HiddenField()  # the currency, or "" for the chips of chips-only nights
    amount = StringField("Amount", validators=[Length(max=24), _amount])

    def amount_decimal(self) -> Decimal:
        return getattr(self.amount, "parsed", Decimal(0))


class OwnLinkForm(KnownFieldsOnly, ActionForm):
    """A member's own link made, or made anew (the member's name as the page lists it)."""

    member = _member_field("Member")


class NightMoveForm(KnownFieldsOnly, ActionForm):
    """A kept night taken out of the group's season and tab, or put back (its id, as the page named it)."""

    night = HiddenField()


class SettleForm(KnownFieldsOnly, ActionForm):
    """The whole plan of one unit paid ("Settle everything"), as it stood at the form's version."""

    unit = HiddenField()


class KeepNightForm(KnownFieldsOnly, StartForm):
    """Keep a night in a group: a new one (its name), or one whose organiser link is pasted.

    When the night seats names no member goes by, the page asks about each (``name_<i>``): a
    new member (``as_<i>`` empty) or one of the members (``as_<i>`` their name), and carries
    the group's ``version`` it asked at.
    """

    name = StringField("Name of a new group", validators=[Optional(), Length(max=MAX_GROUP_NAME), named("the group's name")])
    link = StringField("Organiser link of the group", validators=[Optional(), Length(max=400), readable])
    #: the group's version the page asked at (a pasted group's); read as every form's version is (left_out)
    version = WholeNumberField(validators=[left_out, NumberRange(min=0)])
    name_1, name_2, name_3, name_4, name_5, name_6, name_7 = (
        HiddenField(validators=[Optional(), Length(max=MAX_NAME_LENGTH)]) for _ in range(MAX_PLAYERS)
    )
    as_1, as_2, as_3, as_4, as_5, as_6, as_7 = (
        StringField(validators=[Optional(), Length(max=MAX_NAME_LENGTH)]) for _ in range(MAX_PLAYERS)
    )

    def answers(self) -> list[tuple[str, str]]:
        """(a night's name no member goes by, "" to add it or the member it is), as answered."""
        out = []
        for i in range(1, MAX_PLAYERS + 1):
            name = (getattr(self, f"name_{i}").data or "").strip()
            if name:
                out.append((name, (getattr(self, f"as_{i}").data or "").strip()))
        return out
