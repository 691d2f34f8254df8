"""Every group command, given bad values, refuses with a sentence and writes nothing.

The group is :mod:`service.group_support`'s "Fridays" at version 7 (members Ann, Ben, Dan, Cat;
N1 and N2 in EUR, N3 chips only).  Each refusal below is checked against a snapshot of every
group's and night's version and every table's row count (:func:`everything`), taken before and
after: a refused command leaves all of it as it was.  Names are read as a table reads a player's
(24 characters at most, not empty, nothing a database cannot store); amounts by the app's one
reader of each kind (whole chips; money as a chip value is read: digits and one dot, at most four
decimal places).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal as D
from typing import Any

import pytest

from companion import service
from companion.group.file import MAX_BYTES, GroupFileError
from companion.group.members import MemberError, UnknownMember
from companion.group.tab import MAX_PAYMENT, Overpayment, TabPayment
from companion.night.file import Money
from companion.values.reading import Unreadable
from service.group_support import CHIPS, EUR25, everything, group, group_of_three, poker

IBAN = {"iban": "DE89 3704 0044 0532 0130 00", "holder": "Ann Lee", "bic": ""}
#: one character of the IBAN above changed: its check digits (89) no longer match (ISO 13616, mod 97)
BAD_IBAN = {"iban": "DE89 3704 0044 0532 0130 01", "holder": "Ann Lee", "bic": ""}


def paying(payer: str, payee: str, unit: str | None, amount: Any) -> Callable[[int], Any]:
    """A payment typed into a form, read by the service's reader, then paid through the tab at version 7."""
    return lambda group_id: service.pay_tab(group_id, [service.read_payment(payer, payee, unit, amount)], 7, None)


REFUSED: list[tuple[str, Callable[[int], Any], type[Exception], str]] = [
    # the group's name: 80 characters at most, not empty, storable
    ("a group's name too long", lambda g: service.open_group("F" * 81), Unreadable, "at most 80"),
    ("a group's name of spaces", lambda g: service.open_group("   "), Unreadable, "cannot be empty"),
    ("a group's name with a NUL", lambda g: service.open_group("Fri\x00days"), Unreadable, "cannot be stored"),
    ("a group's name not text", lambda g: service.open_group(7), Unreadable, "must be text"),  # type: ignore[arg-type]
    # members' names: 24 characters at most (a player's), not empty, storable, one person each
    ("a member's name too long", lambda g: service.add_member(g, "A" * 25, 7, None), Unreadable, "at most 24"),
    ("a member's name empty", lambda g: service.add_member(g, "", 7, None), Unreadable, "cannot be empty"),
    ("a member's name with a NUL", lambda g: service.add_member(g, "Eve\x00", 7, None), Unreadable, "cannot be stored"),
    ("a member's name with a broken character", lambda g: service.add_member(g, "Eve\ud800", 7, None), Unreadable, "cannot be stored"),
    ("a member's name not text", lambda g: service.add_member(g, None, 7, None), Unreadable, "must be text"),  # type: ignore[arg-type]
    ("a name a member goes by", lambda g: service.add_member(g, " ANN ", 7, None), MemberError, "is already 'Ann'"),
    ("a rename of nobody", lambda g: service.rename_member(g, "Zoe", "Zed", 7, None), UnknownMember, "'Zoe'"),
    ("a rename too long", lambda g: service.rename_member(g, "Ann", "A" * 25, 7, None), Unreadable, "at most 24"),
    ("a rename to another member", lambda g: service.rename_member(g, "Ann", "ben", 7, None), MemberError, "merge the two"),
    ("a merge of nobody", lambda g: service.merge_members(g, "Ann", "Zoe", 7, None), UnknownMember, "'Zoe'"),
    ("a merge of a member with itself", lambda g: service.merge_members(g, "Ann", "ann", 7, None), MemberError, "nothing to merge"),
    # Ann and Dan both played N1: they cannot be one person
    ("a merge of two who played one night", lambda g: service.merge_members(g, "Ann", "Dan", 7, None), MemberError, "both played"),
    # pay handles: one of the four kinds, read by its reader
    ("a handle of the wrong kind", lambda g: service.set_handle(g, "Ann", "bitcoin", {"username": "ann"}, 7, None), service.IllegalAction, "not 'bitcoin'"),
    ("an IBAN with a bad checksum", lambda g: service.set_handle(g, "Ann", "iban", BAD_IBAN, 7, None), Unreadable, "check digits"),
    ("an IBAN without its holder", lambda g: service.set_handle(g, "Ann", "iban", {**IBAN, "holder": " "}, 7, None), Unreadable, "holder"),
    ("a PayPal.Me name with a control character", lambda g: service.set_handle(g, "Ann", "paypal", {"username": "ann\x07"}, 7, None), Unreadable, "letters A-Z and digits"),
    ("a handle given as text", lambda g: service.set_handle(g, "Ann", "paypal", "ann", 7, None), Unreadable, "its fields"),  # type: ignore[arg-type]
    ("a handle of nobody", lambda g: service.set_handle(g, "Zoe", "paypal", {"username": "zoe"}, 7, None), UnknownMember, "'Zoe'"),
    ("a handle removed that was never set", lambda g: service.remove_handle(g, "Ann", "venmo", 7, None), service.IllegalAction, "gives no venmo"),
    # nights kept: a night that exists
    ("a night that does not exist", lambda g: service.keep_night(g, 999_999, 7, None), service.IllegalAction, "does not exist"),
    ("a night id beyond any row", lambda g: service.keep_night(g, 2**40, 7, None), service.IllegalAction, "does not exist"),
    ("a night id as text", lambda g: service.keep_night(g, "1", 7, None), service.IllegalAction, "does not exist"),  # type: ignore[arg-type]
    ("a night id true", lambda g: service.keep_night(g, True, 7, None), service.IllegalAction, "does not exist"),
    ("a night already kept", lambda g: service.keep_night(g, 1, 7, None), service.IllegalAction, "already kept"),
    # a night opened in the group: its name and players as any night's
    ("a new night's name too long", lambda g: service.open_night_in_group(g, "N" * 81, ["Ann", "Cat"], CHIPS, poker("Ann")), service.IllegalAction, "longer than 80"),
    ("a new night's player too long", lambda g: service.open_night_in_group(g, "N5", ["Ann", "C" * 25], CHIPS, poker("Ann")), service.IllegalAction, "longer than 24"),
    ("a new night's player with a NUL", lambda g: service.open_night_in_group(g, "N5", ["Ann", "Cat\x00"], CHIPS, poker("Ann")), service.IllegalAction, "cannot be stored"),
    ("a new player added who did not play", lambda g: service.open_night_in_group(g, "N5", ["Ann", "Cat"], CHIPS, poker("Ann"), add_new=("Zoe",)), service.IllegalAction, "did not play"),
    # payments through the tab, as typed: whole chips, money with at most four places, above zero
    ("a payment typed with a comma", paying("Dan", "Ben", "EUR", "3,00"), Unreadable, "a dot"),
    ("a payment given as a float", paying("Dan", "Ben", "EUR", 3.0), Unreadable, "written in digits"),
    ("a negative payment", paying("Dan", "Ben", "EUR", "-3.00"), Unreadable, "not “-3.00”"),
    ("a payment of nothing", paying("Dan", "Ben", "EUR", "0.00"), Unreadable, "more than zero"),
    ("a payment with five places", paying("Dan", "Ben", "EUR", "0.00001"), Unreadable, "at most 4 decimal places"),
    ("a payment in exponent form", paying("Dan", "Ben", "EUR", "3e2"), Unreadable, "not “3e2”"),
    ("a huge payment", paying("Dan", "Ben", "EUR", "1" * 40), Unreadable, "at most 99,999,999.9999"),
    ("a payment of part of a chip", paying("Ann", "Cat", None, "2.5"), Unreadable, "whole number of chips"),
    ("a chips payment of other digits", paying("Ann", "Cat", None, "\u0663"), Unreadable, "digits 0-9"),
    ("a payment by nobody", paying("Zoe", "Ben", "EUR", "1.00"), UnknownMember, "'Zoe'"),
    ("a payer's name too long", paying("D" * 25, "Ben", "EUR", "1.00"), Unreadable, "at most 24"),
    ("a payment to oneself by another spelling", paying("Dan", " DAN", "EUR", "1.00"), service.IllegalAction, "one member"),
    # Ben is owed 3.00 EUR (N2): Dan cannot pay him 3.01
    ("a payment larger than owed", paying("Dan", "Ben", "EUR", "3.01"), Overpayment, "Ben is owed only 3.00 EUR: less than the 3.01 EUR paid"),
    ("a payment made by hand far too large", lambda g: service.pay_tab(g, [TabPayment("Dan", "Ben", "EUR", MAX_PAYMENT + 1)], 7, None), Unreadable, "at most"),
    ("a payment made by hand with a NUL", lambda g: service.pay_tab(g, [TabPayment("Dan\x00", "Ben", "EUR", D(1))], 7, None), Unreadable, "cannot be stored"),
    ("no payment", lambda g: service.pay_tab(g, [], 7, None), service.IllegalAction, "at least one"),
    ("a payment that is not one", lambda g: service.pay_tab(g, [("Dan", "Ben", "EUR", "1")], 7, None), Unreadable, "who paid whom"),  # type: ignore[list-item]
    ("a payment in a currency of no night", paying("Dan", "Ben", "USD", "1.00"), service.IllegalAction, "counted in USD"),
    ("a payment in a currency spelled otherwise", paying("Dan", "Ben", "eur", "1.00"), service.IllegalAction, "(EUR, chips)"),
    ("a confirmer who is nobody", lambda g: service.pay_tab(g, [TabPayment("Dan", "Ben", "EUR", D(1))], 7, None, confirmed_by="Zoe"), UnknownMember, "'Zoe'"),
    # links
    ("a link that is neither", lambda g: service.rotate_group_link(group(g), "keeper"), service.IllegalAction, "organiser's or the members'"),
]


@pytest.mark.parametrize(("what", "command", "error", "said"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_bad_value_is_refused_and_nothing_is_written(app, what, command, error, said):
    with app.app_context():
        group_id, _ = group_of_three()
        before = everything()
        with pytest.raises(error) as refused:
            command(group_id)
        assert said in str(refused.value)
        assert isinstance(refused.value, service.GROUP_REFUSALS)
        assert everything() == before


def test_a_payment_in_chips_against_nights_played_for_money_is_refused(app):
    """A group of N1 alone (EUR at 0.25): Dan owes Ann 8 chips there, but the tab counts N1 in euros (2.00),
    not in chips; a group of N3 alone (chips only): Ann owes Cat 5 chips, not euros."""
    with app.app_context():
        group_id, _ = group_of_three()
        exported = service.export_group(group(group_id))
        euros = service.import_group(json.dumps(_only_night(exported, 0, "Euros")))
        chips = service.import_group(json.dumps(_only_night(exported, 2, "Chips")))
        before = everything()
        with pytest.raises(service.IllegalAction, match=r"no night of the group is counted in chips: .* \(EUR\)"):
            service.pay_tab(euros.id, [TabPayment("Dan", "Ann", None, D(8))], 5, None)
        with pytest.raises(service.IllegalAction, match=r"no night of the group is counted in EUR: .* \(chips\)"):
            service.pay_tab(chips.id, [TabPayment("Ann", "Cat", "EUR", D(5))], 5, None)
        assert everything() == before
        # what each does take: Dan's 2.00 EUR to Ann, Ann's 5 chips to Cat; each group holds its four member
        # records and its night kept (version 5), and the payment's record makes 6
        assert service.pay_tab(euros.id, [TabPayment("Dan", "Ann", "EUR", D("2.00"))], 5, None).version == 6
        assert service.pay_tab(chips.id, [TabPayment("Ann", "Cat", None, D(5))], 5, None).version == 6


def _only_night(exported: str, index: int, name: str) -> dict[str, Any]:
    """The group file ``exported`` with its ``index``-th night alone, under another name."""
    document = json.loads(exported)
    document["nights"], document["name"] = [document["nights"][index]], name
    return document


FILES: list[tuple[str, Callable[[], str | bytes], str]] = [
    ("not JSON", lambda: "{not json", "not valid JSON"),
    ("JSON but not an object", lambda: "[]", "one JSON object"),
    ("an unknown key", lambda: json.dumps({"format": "companion-group/1", "name": "F", "members": [], "nights": [], "extra": 1}), "'extra'"),
    ("another format", lambda: json.dumps({"format": "companion-night/2"}), "this is not a group file"),
    ("a later version", lambda: json.dumps({"format": "companion-group/2"}), "'format' must be"),
    ("a file too large", lambda: b" " * (MAX_BYTES + 1), "larger than"),
    ("bytes that are not UTF-8", lambda: b'{"format": "\xff"}', "not valid JSON"),
]


@pytest.mark.parametrize(("what", "data", "said"), FILES, ids=[f[0] for f in FILES])
def test_a_group_file_that_cannot_be_read_stores_nothing(app, what, data, said):
    with app.app_context():
        group_of_three()
        before = everything()
        with pytest.raises(GroupFileError) as refused:
            service.import_group(data())
        assert said in str(refused.value)
        assert everything() == before


def test_a_new_night_opened_in_the_group_with_a_bad_chip_value_is_refused(app):
    with app.app_context():
        group_id, _ = group_of_three()
        before = everything()
        with pytest.raises(service.IllegalAction):
            service.open_night_in_group(group_id, "N5", ["Ann", "Cat"], Money(D("-0.25"), "EUR"), poker("Ann"))
        with pytest.raises(service.IllegalAction):
            service.open_night_in_group(group_id, "N5", ["Ann", "Cat"], Money(EUR25.chip_value, "EUR\x00"), poker("Ann"))
        assert everything() == before
