"""Chips and money, kept exact.

Chips are counted as ``int`` and money is ``decimal.Decimal``; a float never
appears, because a binary float cannot hold 0.05 exactly and a settle-up that
is off by a cent is a settle-up people argue about.

A chip value has at most :data:`MAX_DECIMAL_PLACES` decimal places, so any
number of chips times a chip value is an exact Decimal with at most that many
places, and the money plan balances to the last digit by construction.
Rounding happens only in :func:`format_money`, for display.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext
from typing import Any

from companion.values.reading import trimmed

__all__ = [
    "MAX_DECIMAL_PLACES",
    "chips_text",
    "format_money",
    "money_from_file",
    "parse_chip_value",
    "signed",
    "to_money",
]

#: The finest chip value a game can use (0.0001).  Four places cover every real
#: currency's smallest unit and fractions of a cent some games use, and keep the
#: amounts short enough to read.
MAX_DECIMAL_PLACES = 4

# A plain decimal number: "1", "0.25", ".5", "2.", optionally with a leading
# "+".  No exponents, no digit separators, ASCII digits only, so what a person
# typed is what they get.
_PLAIN_NUMBER = re.compile(r"\+?(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?")

_EXAMPLE = "for example 0.25"


def parse_chip_value(text: str) -> Decimal:
    """Read what one chip is worth from what a person typed.

    Returns the value as an exact Decimal without trailing fractional zeros
    (``"0.250"`` gives ``Decimal("0.25")``, ``"10"`` gives ``Decimal("10")``).
    Zero is allowed: a friendly game plays for nothing.

    Raises :class:`ValueError` with a sentence the person can act on when the
    text is empty, not a plain number, negative, not finite, or finer than
    :data:`MAX_DECIMAL_PLACES` places; a comma as decimal separator is refused
    with a hint rather than guessed at, because "1,000" means a thousand to
    some people and one to others.  Raises :class:`TypeError` for a non-str.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_chip_value expects text, got {type(text).__name__}")
    stripped = trimmed(text)  # ASCII spaces only, as companion.values.reading reads every number
    if not stripped:
        raise ValueError(f"Enter what one chip is worth, {_EXAMPLE}.")
    if stripped.startswith("-"):
        raise ValueError(f"A chip value can't be negative (you entered {stripped!r}).")
    match = _PLAIN_NUMBER.fullmatch(stripped)
    if match is None or not (match["int"] or match["frac"]):
        if "," in stripped and _PLAIN_NUMBER.fullmatch(stripped.replace(",", ".", 1)):
            suggestion = stripped.replace(",", ".", 1).lstrip("+")
            raise ValueError(
                f"Use a dot for decimals: write {suggestion}, not {stripped}."
            )
        if _is_non_finite(stripped):
            raise ValueError(
                f"A chip value must be an ordinary number such as 0.25, not {stripped!r}."
            )
        raise ValueError(
            f"{stripped!r} is not a number; enter what one chip is worth, {_EXAMPLE}."
        )
    whole = match["int"].lstrip("0") or "0"
    fraction = (match["frac"] or "").rstrip("0")
    if len(fraction) > MAX_DECIMAL_PLACES:
        smallest = "0." + "0" * (MAX_DECIMAL_PLACES - 1) + "1"
        raise ValueError(
            f"A chip value can have at most {MAX_DECIMAL_PLACES} decimal places "
            f"(you entered {stripped}); the smallest step is {smallest}."
        )
    return Decimal(f"{whole}.{fraction}" if fraction else whole)


def money_from_file(raw: Mapping[str, Any]) -> tuple[Decimal, str]:
    """A file's ``chip_value`` (a decimal written as a string) and ``currency``, checked.

    Read as the night's form reads them (:func:`parse_chip_value`; empty: chips only);
    ValueError says which key is wrong and how to write it.
    """
    chip_value = raw.get("chip_value", "0")
    if isinstance(chip_value, bool) or not isinstance(chip_value, (str, int)):
        raise ValueError("'chip_value' must be a decimal written as a string, e.g. \"0.25\"")
    if isinstance(chip_value, int):  # a JSON number: 0 or more, as the text would be
        chip_value = str(chip_value)
    try:  # the form's reader: "1_0", "\u0660.\u0662\u0665" and "\uff11" are refused here as there
        value = parse_chip_value(chip_value if trimmed(chip_value) else "0")  # empty: chips only, as the form
    except ValueError as error:
        raise ValueError(f"'chip_value': {error}") from None
    currency = raw.get("currency", "")
    if not isinstance(currency, str) or len(currency) > 8:
        raise ValueError("'currency' must be a short text such as \"EUR\" or \"$\"")
    return value, currency


def _is_non_finite(text: str) -> bool:
    """Whether ``text`` is one of Decimal's spellings of NaN or infinity."""
    try:
        value = Decimal(text)
    except (InvalidOperation, ValueError):
        return False
    return not value.is_finite()


def chips_text(chips: int) -> str:
    """"1 chip", "0 chips", "12 chips": a number of chips as the pages say it."""
    return f"{chips} chip{'' if abs(chips) == 1 else 's'}"


def signed(chips: int) -> str:
    """"+3", "−3", "0": a change of chips as the report and a game's history say it (a true minus sign)."""
    if chips > 0:
        return f"+{chips}"
    if chips < 0:
        return f"\u2212{-chips}"
    return "0"


def to_money(chips: int, chip_value: Decimal) -> Decimal:
    """The exact money worth of ``chips`` (may be negative) at ``chip_value`` each.

    The product is computed with enough precision for every digit, so it is
    exact whatever the sizes (Decimal's default 28 digits would silently round
    a very large product).
    """
    _check_chips(chips, "chips")
    _check_chip_value(chip_value)
    digits = len(str(abs(chips))) + len(chip_value.as_tuple().digits)
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, digits + 1)
        return Decimal(chips) * chip_value


def format_money(amount: Decimal, currency: str) -> str:
    """Show an amount to a person: ``"3.25 €"``, ``"-0.05 USD"``, ``"0.125 €"``.

    The form is ``{sign}{number} {currency}`` with no digit grouping.  Two
    decimals are shown when they say everything; otherwise up to four (the
    finest a chip value can be), so a real amount is never hidden by rounding.
    Anything finer than four places is rounded half-to-even for display only.
    An empty ``currency`` gives just the number.  Zero never shows a sign.
    """
    if isinstance(amount, bool) or not isinstance(amount, Decimal):
        raise TypeError(
            f"format_money expects a Decimal amount, got {type(amount).__name__}"
        )
    if not isinstance(currency, str):
        raise TypeError(f"currency must be text, got {type(currency).__name__}")
    if not amount.is_finite():
        raise ValueError(f"Cannot show {amount} as money.")
    with localcontext() as ctx:
        # Enough precision that quantizing a large amount never fails.
        ctx.prec = max(ctx.prec, max(amount.adjusted(), 0) + MAX_DECIMAL_PLACES + 2)
        finest = Decimal(1).scaleb(-MAX_DECIMAL_PLACES)
        shown = abs(amount).quantize(finest, rounding=ROUND_HALF_EVEN)
        cents = shown.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        number = f"{cents:f}" if cents == shown else _trim_to_two_places(f"{shown:f}")
        sign = "-" if amount < 0 and shown != 0 else ""
    currency = currency.strip()
    return f"{sign}{number} {currency}" if currency else f"{sign}{number}"


def value_text(chips: int, chip_value: Decimal, currency: str) -> str:
    """What ``chips`` are worth, as shown: money, or ``"-12 chips"`` on a chips-only night.

    A group that plays for chips only leaves the chip value empty (0): it sees chips,
    never "0.00" (issue 14, item 7).
    """
    _check_chips(chips, "chips")
    if chip_value == 0:
        return f"{chips} chip" if abs(chips) == 1 else f"{chips} chips"
    return format_money(to_money(chips, chip_value), currency)


def _trim_to_two_places(text: str) -> str:
    """Drop trailing zeros of a fixed-point string, keeping at least two places."""
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0").ljust(2, "0")
    return f"{whole}.{fraction}"


def _check_chips(chips: object, what: str) -> None:
    """Chips are whole ints; a bool or float here is a bug upstream."""
    if isinstance(chips, bool) or not isinstance(chips, int):
        raise TypeError(f"{what} must be an int number of chips, got {type(chips).__name__}")


def _check_chip_value(chip_value: object) -> None:
    """A chip value is a finite, non-negative Decimal (see parse_chip_value)."""
    if not isinstance(chip_value, Decimal):
        raise TypeError(
            f"chip_value must be a Decimal (use parse_chip_value), got {type(chip_value).__name__}"
        )
    if not chip_value.is_finite() or chip_value < 0:
        raise ValueError(f"A chip value must be a finite amount of at least 0, not {chip_value}.")
