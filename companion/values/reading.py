"""The one reader of each kind of value the app is given: a whole number, a decimal, a text.

A value reaches the app by a form field, a query string or a night file.  Each way
in used to read numbers its own way (``str.isdigit``, ``int()``, ``Decimal()``,
WTForms' ``IntegerField``), and they disagreed: ``int()`` reads ``"1_0"``, ``"\u0663"``
(Arabic-Indic three), ``"\uff11"`` (full-width one) and ``"\U0001d7cf"`` (bold one);
``"\u00b2".isdigit()`` is true but ``int("\u00b2")`` raises; a 5,000-digit number passes
``isdecimal`` and then makes ``int()`` raise (Python refuses more than 4,300 digits);
``Decimal()`` reads ``"\u0660.\u0662\u0665"`` as 0.25.  A value one way in refused, another
stored; some made a 500 (issue 21, items 8 to 12).  Now every way in calls these:

* :func:`whole_number`: a count, a seat, a page, chips;
* :func:`companion.money.amounts.parse_chip_value`: the one decimal the app reads (what a
  chip is worth), the model these follow;
* :func:`decimal_amount`: an amount written as a string ("2.50", "-0.125", "12"), exact;
* :func:`text`: a short text, a variant's name: what no database stores (NUL, a broken
  character) is refused, never stored to be refused later on import;
* :func:`name`: a name (a player's, a member's, a group's, a night's, an account holder's, a
  currency): a text, and no control character nor mark that changes the direction of text;
* :func:`phone_name`: a keeper phone's name ("Ben's phone"), as the share page's form and a night
  file's ``recorded_by`` give it: a name, and none of the words the history uses for something else;
* :func:`iso_date`: a day, as a file writes it (``2025-03-07``): ``date.fromisoformat``
  alone also reads ``20250307`` and ``2025-W10-5``, and other scripts' digits; and
  :func:`night_date`, the day a night was played, from :data:`FIRST_DAY` to a year after today;
* :func:`json_document`: a file's JSON, refused when too large, too deep, or when an object
  names a key twice (``json.loads`` keeps the last one silently), read from UTF-8 only
  (``json.loads`` of bytes also reads UTF-16 and UTF-32, which the web's import refused);
* :func:`unknown_key`: the key of an object (a file's, an event's payload) that its reader
  does not know, the one every strict reader names when it refuses it.

What each accepts, the same everywhere: digits 0-9 only, spaces before and after
ignored (a phone keyboard adds them), one ``+`` in front allowed, a ``-`` only where a
negative number makes sense; no digit separators, no other script's digits, at most
:data:`MAX_DIGITS` digits.  Pure: no Flask; each caller turns :class:`Unreadable` into
its own error (a form field's error, a 400, a night file's message).
"""

from __future__ import annotations

import codecs
import datetime
import json
import re
from collections.abc import Container, Iterable
from decimal import Decimal
from typing import Any

from companion.values.limits import (
    FIRST_PHONE,
    FIRST_PHONE_WORDS,
    MAX_PHONE_NAME,
    NOT_A_PHONE,
    unnamable,
    unnamable_message,
    unstorable,
    unstorable_message,
)

__all__ = [
    "DAYS_AHEAD", "FIRST_DAY", "MAX_DIGITS", "NOT_UTF8", "SPACES", "Unreadable", "decimal_amount", "declared_format",
    "file_text", "iso_date", "json_document",
    "name", "night_date", "phone_name", "shown", "text", "trimmed", "unknown_key", "whole_number",
]

#: More digits than any count at a card table; a longer number is refused before int() sees it.
MAX_DIGITS = 15
#: What is trimmed around a number: ASCII spaces, tabs and line ends, nothing else
#: (a full-width or no-break space is not a space a keyboard adds by accident).
SPACES = " \t\r\n\f\v"
_WHOLE = re.compile(r"(?P<sign>[+-]?)(?P<digits>[0-9]+)")
_DECIMAL = re.compile(r"(?P<sign>[+-]?)(?P<int>[0-9]+)(?:\.(?P<frac>[0-9]+))?")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
#: The first day a night can have been played on: the app keeps nights of a home game, none of them
#: from the last century (year 1, which a file could say, is a typing slip, not a night).
FIRST_DAY = datetime.date(2000, 1, 1)
#: How far past today (UTC) a night's day may lie: a clock set wrong or a time zone ahead, never more
#: than a year.
DAYS_AHEAD = 366


class Unreadable(ValueError):
    """A value that is not what its field takes; the message says what to write instead."""


def trimmed(value: str) -> str:
    """``value`` without the spaces around it (ASCII only: see :data:`SPACES`)."""
    return value.strip(SPACES)


def shown(value: str, length: int = 20) -> str:
    """``value`` as a message may quote it: at most ``length`` characters, none invisible."""
    cut = "".join(c if c.isprintable() else "\ufffd" for c in value[:length])
    return cut + ("\u2026" if len(value) > length else "")


def whole_number(
    value: object, what: str = "the number", *, low: int | None = 0, high: int | None = None, unit: str = ""
) -> int:
    """Read a whole number written in digits 0-9; :class:`Unreadable` with a sentence otherwise.

    ``low`` and ``high`` bound it (None: no bound); a ``-`` is refused as "cannot be
    negative" when ``low`` is 0 or more, so ``"-0"`` is refused there too.  ``unit``
    ("chips") is named in the messages.
    """
    of = f" of {unit}" if unit else ""
    if not isinstance(value, str):
        raise Unreadable(f"{what} must be a whole number{of} in digits 0-9")
    written = trimmed(value)
    if not written:
        raise Unreadable(f"enter {what} as a whole number{of}")
    match = _WHOLE.fullmatch(written)
    if match is None:
        raise Unreadable(f"{what} must be a whole number{of} in digits 0-9, not \u201c{shown(written)}\u201d")
    if match["sign"] == "-" and low is not None and low >= 0:
        raise Unreadable(f"{what} cannot be negative (you entered {shown(written)})")
    digits = match["digits"].lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise Unreadable(f"{what} has more than {MAX_DIGITS} digits")
    number = -int(digits) if match["sign"] == "-" else int(digits)
    units = f" {unit}" if unit else ""
    if low is not None and high is not None and not low <= number <= high:
        raise Unreadable(f"{what} must be {low:,} to {high:,}{units}")
    if low is not None and number < low:
        raise Unreadable(f"{what} must be at least {low:,}{units}")
    if high is not None and number > high:
        raise Unreadable(f"{what} must be at most {high:,}{units}")
    return number


def decimal_amount(
    value: object, what: str = "the amount", *, places: int, signed: bool = True, zero: bool = True
) -> Decimal:
    """Read an exact amount written as text ("2.50", "-0.125"; with ``places`` 0 a whole number, "12").

    The same digits as :func:`whole_number` (0-9 only, at most :data:`MAX_DIGITS` before the point,
    spaces around ignored, one sign in front: ``-`` only when ``signed``), a point and at most
    ``places`` digits after it (none when ``places`` is 0: chips are whole), no exponent, never a
    float: a JSON number is refused, so "0.1" is never 0.1000000000000000055.  ``zero`` False
    refuses 0 (and "-0").  :class:`Unreadable` says what to write instead.
    """
    example = "\u201c12\u201d" if places == 0 else "\u201c2.50\u201d"
    kind = "a whole number" if places == 0 else "a decimal number"
    if not isinstance(value, str):
        raise Unreadable(f"{what} must be {kind} written as text, such as {example}")
    written = trimmed(value)
    match = _DECIMAL.fullmatch(written)
    if match is None:
        raise Unreadable(f"{what} must be {kind} in digits 0-9, such as {example}, not \u201c{shown(written)}\u201d")
    if match["sign"] == "-" and not signed:
        raise Unreadable(f"{what} cannot be negative (you entered {shown(written)})")
    digits = match["int"].lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise Unreadable(f"{what} has more than {MAX_DIGITS} digits before the point")
    fraction = (match["frac"] or "").rstrip("0")
    if match["frac"] is not None and places == 0:
        raise Unreadable(f"{what} is a whole number, with no point: {shown(written)}")
    if len(fraction) > places:
        raise Unreadable(f"{what} has at most {places} decimal places, not {shown(written)}")
    amount = Decimal(f"{match['sign']}{digits}.{fraction}" if fraction else f"{match['sign']}{digits}")
    if not zero and not amount:
        raise Unreadable(f"{what} is never zero")
    return amount + 0  # "-0" reads as 0


def text(value: object, what: str = "the text", *, max_length: int, collapse: bool = False) -> str:
    """Read a name or a short text: trimmed, ``collapse``-d to single spaces if asked, and checked.

    Refused: what is not text, what no database stores (a NUL, a broken character: the
    same test as :func:`companion.values.limits.unstorable`) and what is longer than
    ``max_length`` once trimmed (never cut short).
    """
    if not isinstance(value, str):
        raise Unreadable(f"{what} must be text")
    if unstorable(value):
        raise Unreadable(unstorable_message(what))
    read = " ".join(value.split()) if collapse else value.strip()
    if len(read) > max_length:
        raise Unreadable(f"{what} is at most {max_length} characters: shorten it")
    return read


def name(value: object, what: str = "the name", *, max_length: int, stored: bool = False) -> str:
    """Read a name as :func:`text` reads it (runs of spaces made one), and refused when it holds a control
    character or a mark that changes the direction of text (:data:`companion.values.limits.NOT_IN_A_NAME`).

    The one reader of a name for every way one comes in (a form, a file, ``flask replay``): a group's, a
    night's, a member's, a seated player's, an IBAN holder's, a currency.  An empty name is the caller's
    to refuse (each says what to type).  ``stored``: a name read back from the database, where one
    stored before this rule (issue 36) may hold such a character: read as it was, so that an old group
    still folds; never for a name that comes in.
    """
    read = text(value, what, max_length=max_length, collapse=True)
    if not stored and (character := unnamable(value)) is not None:  # type: ignore[arg-type]  # text() read a str
        raise Unreadable(unnamable_message(what, character))
    return read


def phone_name(value: object, what: str = "the phone's name") -> str:
    """A keeper phone's name (docs/keepers.md), read by :func:`name`, at most :data:`MAX_PHONE_NAME` characters.

    One reader for the share page's *Make a keeper link* and a night file's ``recorded_by``, so that a file
    names no phone the table could not: refused (:class:`Unreadable`, saying what to type) an empty name,
    and the words a record's ``recorded_by`` holds for something else (``scorekeeper``, ``import``,
    ``organiser``) or the history says for one (``the first phone``), in any case: a record named so
    would read as the first phone's, or an import's.
    """
    read = name(value, what, max_length=MAX_PHONE_NAME)
    if not read:
        raise Unreadable("name the phone (\u201cBen's phone\u201d), so the history can say who recorded what")
    if read.casefold() in {FIRST_PHONE, *NOT_A_PHONE, FIRST_PHONE_WORDS}:
        raise Unreadable(f"\u201c{read}\u201d names something else in the history: choose another name")
    return read


def iso_date(
    value: object, what: str = "the date", *, first: datetime.date | None = None, last: datetime.date | None = None
) -> datetime.date:
    """Read a day written as ``YYYY-MM-DD`` (digits 0-9, nothing around it); :class:`Unreadable` otherwise.

    Only the one form a file writes: ``date.fromisoformat`` would also read ``20250307``,
    ``2025-W10-5`` and other scripts' digits, so two spellings of one day could disagree.
    ``first`` and ``last`` (both included) bound it when given.
    """
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        written = f", not \u201c{shown(value)}\u201d" if isinstance(value, str) else ""
        raise Unreadable(f"{what} must be a day written YYYY-MM-DD, such as 2025-03-07{written}")
    try:
        day = datetime.date.fromisoformat(value)
    except ValueError:
        raise Unreadable(f"{what} is no day of the calendar: {value}") from None
    if (first is not None and day < first) or (last is not None and day > last):
        since = f" from {first}" if first is not None else ""
        until = f" to {last}" if last is not None else ""
        raise Unreadable(f"{what} must be a day{since}{until}, not {value}")
    return day


def night_date(value: object, what: str = "the night's date", *, today: datetime.date | None = None) -> datetime.date:
    """The day a night was played, read by :func:`iso_date`: from :data:`FIRST_DAY` to :data:`DAYS_AHEAD` days
    after ``today`` (default: today in UTC).  Year 1 or 9999 is refused, never stored as a night's day."""
    if today is None:
        today = datetime.datetime.now(datetime.timezone.utc).date()
    return iso_date(value, what, first=FIRST_DAY, last=today + datetime.timedelta(days=DAYS_AHEAD))


def unknown_key(mapping: Iterable[object], allowed: Container[object]) -> str | None:
    """The first key of ``mapping`` not in ``allowed``, in sorted order and as text; None when all are known.

    Every strict reader (a night file, a group file, a hand history, an event's payload)
    refuses an object holding a key outside its set, and names one: the first in sorted
    order, so a file names the same key whichever order its keys were written in.  Keys
    are sorted as text, so a key that is not a string (a payload built in Python, never
    JSON) is named rather than making ``sorted`` raise.  The caller raises its own error
    with its own words, cutting the key short where it quotes it.  An empty key ``""`` is
    a key like any other: test the result against None, not for truth.
    """
    return min((str(key) for key in mapping if key not in allowed), default=None)


def json_document(text: str | bytes, *, max_bytes: int, max_depth: int, what: str) -> Any:
    """A file's JSON, refused before anything reads it when it is too large, malformed or too deep.

    ``what`` names the kind of file in the message ("a night file"): a file larger than
    ``max_bytes`` is refused unparsed, and one nested deeper than ``max_depth`` levels
    (more than its format ever is) is refused after parsing, before it is replayed.  An
    object that names one key twice is refused, naming where (``json.loads`` alone keeps
    the last value and drops the other unseen: two readers of one file could disagree).
    A file's bytes are read as UTF-8 only (:func:`file_text`).
    """
    if len(text) > max_bytes:
        raise Unreadable(f"the file is larger than {max_bytes // 1_000_000} MB; {what} is far smaller")
    try:
        data = json.loads(file_text(text), object_pairs_hook=_object)
    except RecursionError:
        raise Unreadable(f"the file is nested far too deeply to be {what}") from None
    except ValueError as error:
        raise Unreadable(f"not valid JSON: {error}") from None
    _check_objects(data, [], max_depth, what)
    return data


#: How a file in UTF-16 or UTF-32 begins: with its byte order mark.
_OTHER_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
NOT_UTF8 = "the file is not text in UTF-8{why}: save it as UTF-8 and send it again"


def file_text(data: str | bytes) -> str:
    """A file's text: its bytes read as UTF-8 (a UTF-8 byte order mark in front allowed, and dropped).

    The one rule for every way a file comes in (the web's imports, ``flask replay``): ``json.loads``
    of bytes would also read UTF-16 and UTF-32, and a text decoded first as UTF-8 was refused, so one
    file had two answers.  UTF-16 and UTF-32 (a byte order mark, or the NUL bytes they put between
    ASCII letters: JSON holds no NUL) and bytes that are no UTF-8 are refused, saying so.  Text
    already decoded is taken as it is, without a byte order mark in front.  Encoded lone surrogates
    pass here as ``json.loads`` lets them, for the readers to refuse as text no database stores.
    """
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith(_OTHER_BOMS) or b"\x00" in data:
        raise Unreadable(NOT_UTF8.format(why=" (it looks like UTF-16 or UTF-32)"))
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as error:
        raise Unreadable(NOT_UTF8.format(why=f" (byte {error.start + 1:,} is not UTF-8)")) from None


def declared_format(text: str | bytes, *, max_bytes: int) -> Any:
    """What the top-level ``format`` of a file's JSON says, or None when it says nothing (no JSON object, too large).

    Only to choose the reader (a group file or a night file), which then reads the file as
    :func:`json_document` does and refuses it, naming why: a file whose object names a key
    twice still says what it is, so that its own reader refuses it in its own words.
    """
    if len(text) > max_bytes:
        return None
    try:
        data = json.loads(file_text(text))
    except (RecursionError, ValueError):  # Unreadable is a ValueError
        return None
    return data.get("format") if isinstance(data, dict) else None


class _KeyTwice(dict):  # type: ignore[type-arg]
    """An object whose text names a key twice: refused by :func:`_check_objects`, naming where, never returned."""

    twice: str


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, or a :class:`_KeyTwice` naming the first key written twice."""
    read = dict(pairs)
    if len(read) == len(pairs):
        return read
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    twice = _KeyTwice(read)
    twice.twice = key
    return twice


def _where(path: list[str | int]) -> str:
    """Where a value sits in a file, as the readers name it: ``nights[2].night.games[0]``."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else f"{'.' if out else ''}{shown(step, 30)}"
    return out or "the top level"


def _check_objects(value: Any, path: list[str | int], max_depth: int, what: str) -> None:
    """Refuse a value nested deeper than ``max_depth``, and an object that names a key twice (with where)."""
    if len(path) > max_depth:
        raise Unreadable(f"the file is nested too deeply to be {what}")
    if isinstance(value, dict):
        if isinstance(value, _KeyTwice):
            raise Unreadable(
                f"{_where(path)}: the key '{shown(value.twice, 30)}' is written twice; an object names each key once"
            )
        for key, item in value.items():
            path.append(key)
            _check_objects(item, path, max_depth, what)
            path.pop()
    elif isinstance(value, list):
        for index, item in enumerate(value):
            path.append(index)
            _check_objects(item, path, max_depth, what)
            path.pop()
