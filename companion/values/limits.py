"""What a night's row can hold, checked the same way for every way a night comes in.

The form, ``/import`` and ``flask replay`` all read a night through these checks
(the hand-history reader applies them itself), so a file that one refuses the
others refuse too.  Pure: no Flask, no database; each caller turns the message
into its own error.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Any

#: A longer name or a larger chip value is refused with a message, never cut short or
#: left to the database (see :class:`~companion.db.models.Night`).
MAX_NIGHT_NAME = 80
MAX_CHIP_VALUE = Decimal("99999999.9999")  # Numeric(12, 4)
#: What one night may hold.  A 12-hour night of 150 hands is about 450 stages and 1,000
#: records; these leave four to five times that, and keep every page of a night quick (the
#: history page lists every record: about a second at the bound, docs/reliability.md).  A
#: file with more stages, or whose stages make more records, is refused (the stages before
#: it is replayed); recording refuses an action beyond MAX_RECORDS (settle-up payments get
#: RECORDS_FOR_SETTLING more, so a full night can still be settled).  See
#: docs/hand-history.md, "Limits".
MAX_STAGES = 2_000
MAX_RECORDS = 5_000
#: what a record made through the night's first link says recorded it (``Event.recorded_by``'s default)
FIRST_PHONE = "scorekeeper"
#: how the history, the report and a refusal name the first link's phone
FIRST_PHONE_WORDS = "the first phone"
#: what else a record's ``recorded_by`` holds that is no phone: a night file's import, a group's organiser
NOT_A_PHONE = {"import": "the import of a night file", "organiser": "the group's organiser"}
#: a phone's name: short enough for a button and the history's line (``recorded_by`` holds 40)
MAX_PHONE_NAME = 30
RECORDS_FOR_SETTLING = 100
#: Text no database stores faithfully: NUL (PostgreSQL refuses it) and lone surrogates (not UTF-8).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


#: What no name holds (issue 36, item 3): the control characters (C0, DEL and C1: a tab and a line end
#: too, which no one-line field sends) and the marks that change the direction of text around them
#: (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069): a name shown beside others must read
#: as typed, and one name must never show as another ("\u202eAnn" shows as "nnA").
NOT_IN_A_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def unnamable(value: str) -> str | None:
    """The first character of ``value`` that no name holds (:data:`NOT_IN_A_NAME`), or None."""
    found = NOT_IN_A_NAME.search(value)
    return found[0] if found else None


def unnamable_message(what: str, character: str) -> str:
    code = f"U+{ord(character):04X}"
    if unicodedata.category(character) == "Cc":
        return f"{what} contains a control character ({code}), which a name cannot hold: type it without it"
    return f"{what} contains a mark that changes the direction of text ({code}), which a name cannot hold: type it without it"


def unstorable(value: Any) -> bool:
    """Whether ``value`` (text, or lists and objects of it) holds text that cannot be stored."""
    if isinstance(value, str):
        return UNSTORABLE.search(value) is not None
    if isinstance(value, dict):
        return any(unstorable(key) or unstorable(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(unstorable(item) for item in value)
    return False


def unstorable_message(what: str) -> str:
    return f"{what} contains characters that cannot be stored (a NUL or a broken character)"


def night_fields_problem(name: str, players: list[str], currency: str, chip_value: Decimal) -> str | None:
    """Why a night with these fields cannot be stored, or None when it can."""
    for value, what in ((name, "the night's name"), (list(players), "a player's name"), (currency, "the currency")):
        if unstorable(value):
            return unstorable_message(what)
    # the rule of every name (companion.values.reading.name), for the night's name, each seat and the currency
    for value, what in ((name, "the night's name"), *((p, "a player's name") for p in players), (currency, "the currency")):
        if isinstance(value, str) and (character := unnamable(value)) is not None:
            return unnamable_message(what, character)
    if len(name.strip()) > MAX_NIGHT_NAME:
        return f"the night's name is longer than {MAX_NIGHT_NAME} characters"
    if not Decimal(0) <= Decimal(chip_value) <= MAX_CHIP_VALUE:
        return f"a chip can be worth at most {MAX_CHIP_VALUE:,}"
    return None
