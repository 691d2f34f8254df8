"""The report's downloads, ``report.json`` and ``report.csv``: the ``companion-report/2`` format.

One job: to write a :class:`~companion.report.model.Report` as a file another program reads
(docs/report-format.md): the JSON (:func:`report_dict`) and the CSV (:func:`report_csv`), both
in the night's words and with money exact, as plain decimals.  Kept apart from the report's
values because a file format has rules of its own that the pages never need: a version that
changes only with a note in the docs (:data:`FORMAT`), and a CSV a spreadsheet opens without
running a name typed at the table as a formula (:func:`_csv_field`).

Pure (no Flask, no database).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, localcontext
from typing import Any

from companion.games.vocabulary import ReportVocabulary
from .model import Figures, GameLine, Report

__all__ = ["FORMAT", "report_csv", "report_dict"]

#: the version of the report's JSON and CSV (docs/report-format.md): each says it, and it
#: changes only with a new version written down there.  1 was unversioned: every game in
#: Napalm's words; 2 says each game's own words (:mod:`companion.games.vocabulary`).
FORMAT = "companion-report/2"


def _figures_dict(f: Figures, words: ReportVocabulary) -> dict[str, Any]:
    """One player's figures as the JSON writes them: keyed in ``words``, a figure they leave out left out."""
    out: dict[str, Any] = {}
    if words.paid_in is not None:
        out[words.paid_in.key] = f.antes
    if words.between is not None:
        out[words.between.won_key] = dict(f.won_from)
        out[words.between.lost_key] = dict(f.lost_to)
    if words.taken_out is not None:
        out[words.taken_out.key] = f.pots
    if words.returned is not None:
        out[words.returned.key] = f.unfinished
    if words.tokens:
        out["tokens"] = f.tokens
    if f.ledger:  # the Bonus Round's payments, or on chip counts the counts beyond the games
        out["night_ledger"] = f.ledger
    out["net_chips"] = f.net
    return out


def report_dict(report: Report) -> dict[str, Any]:
    """The report as ``report.json`` holds it (:data:`FORMAT`, docs/report-format.md)."""
    words = report.words
    data: dict[str, Any] = {
        "format": FORMAT,
        "night": report.name,
        "chip_value": f"{report.chip_value.normalize():f}",
        "currency": report.currency,
        "words": _words_dict(words),
        "carried_in": dict(report.carried_in),
    }
    if words.pot is not None:
        left: dict[str, Any] = {}
        if report.closing.setting_text:  # a game's setting decided (Napalm's), not its own rules
            left["choice"] = report.closing.choice
        left[words.pot] = report.closing.pot
        left.update(carried=report.closing.carried, carried_shares=report.closing.carried_shares, note=report.closing.note)
        data[f"unfinished_{words.pot}"] = left
    data["games"] = [_line_dict(g) for g in report.games]
    data["players"] = [
        {
            "name": p.name,
            "seat": p.seat,
            **_figures_dict(p.total, words),
            "games_won": p.games_won,
            "money": _plain(p.money),
            "games": [
                {"number": g.number, **_figures_dict(f, words if g.extra else g.words)}
                for g, f in zip(report.games, p.games)
            ],
        }
        for p in report.players
    ]
    data["payments"] = [
        {"from": p.payer, "to": p.payee, "chips": p.chips, "money": _plain(p.money), "paid": p.paid}
        for p in report.plan
    ]
    data["pairwise"] = [
        {
            "from": p.payer,
            "to": p.payee,
            "chips": p.chips,
            "money": _plain(p.money),
            **({words.between.key: p.side_bets} if words.between is not None else {}),
            **({f"through_{words.pot}": p.through_pot} if words.pot is not None else {}),
            **({"ledger": [{"line": s.title, "chips": s.chips} for s in p.ledger]} if p.ledger else {}),
            "paid": p.paid,
        }
        for p in report.pairwise
    ]
    data["recorded_payments"] = [{"from": p.payer, "to": p.payee, "chips": p.chips} for p in report.recorded]
    if report.tab is not None:  # only for a night the group's tab settled part of (companion/report/tab.py)
        tab = report.tab

        def unit(amount: Decimal) -> Any:  # money as a plain decimal, chips (a chips-only night) as an int
            return _plain(amount) if report.chip_value > 0 else int(amount)

        data["tab"] = {
            "cleared": [
                {"player": r.player, "amount": unit(r.amount), "from": r.payer, "to": r.payee, "ref": r.ref}
                for r in tab.records
            ],
            "balances": {name: unit(amount) for name, amount in tab.balances.items()},
            "still_to_pay": [
                {"from": p.payer, "to": p.payee, "chips": p.chips, "money": _plain(p.money)} for p in tab.offers
            ],
            "through_the_tab": [
                {"from": r.payer, "to": r.payee, "amount": unit(r.amount)} for r in tab.rest
            ],
            "settled": tab.settled,
        }
    return data


def _csv_columns(words: ReportVocabulary) -> list[str]:
    """The figures' columns of the CSV, in the night's ``words`` (:func:`report_csv`)."""
    out = []
    if words.paid_in is not None:
        out.append(words.paid_in.key)
    if words.between is not None:
        out += [words.between.won_key, words.between.lost_key]
    if words.taken_out is not None:
        out.append(words.taken_out.key)
    if words.returned is not None:
        out.append(words.returned.key)
    if words.tokens:
        out.append("tokens")
    return out


def report_csv(report: Report, view: str = "plan") -> str:
    """A first line naming the format (:data:`FORMAT`), a header, one row per player, then one per
    payment of ``view``; the figures in the night's words; money exact, as plain decimals."""
    words = report.words
    columns = _csv_columns(words)
    rows: list[list[Any]] = [
        ["format", FORMAT],
        ["row", "player", "to", *columns, "games_won", "net_chips", "money", "currency", "paid"],
    ]
    for p in report.players:
        t = p.total
        cells: list[Any] = []
        if words.paid_in is not None:
            cells.append(t.antes)
        if words.between is not None:
            cells += [t.side_won, t.side_lost]
        if words.taken_out is not None:
            cells.append(t.pots)
        if words.returned is not None:
            cells.append(t.unfinished)
        if words.tokens:
            cells.append(t.tokens)
        rows.append(
            [
                "player", _Text(p.name), "", *cells, p.games_won, p.net_chips, _plain(p.money),
                _Text(report.currency), "",
            ]
        )
    for line in report.lines(view):
        rows.append(
            [
                "payment", _Text(line.payer), _Text(line.payee), *([""] * len(columns)), "",
                line.chips, _plain(line.money), _Text(report.currency), "yes" if line.paid else "no",
            ]
        )
    return "".join(",".join(_csv_field(cell) for cell in row) + "\r\n" for row in rows)


def _words_dict(words: ReportVocabulary) -> dict[str, Any]:
    """What the figures of the JSON are called: each key's meaning is fixed, its name the game's."""
    out: dict[str, Any] = {}
    if words.paid_in is not None:
        out["paid_in"] = words.paid_in.key
    if words.between is not None:
        out["between"] = {"won": words.between.won_key, "lost": words.between.lost_key, "pairwise": words.between.key}
    if words.taken_out is not None:
        out["taken_out"] = words.taken_out.key
    if words.returned is not None:
        out["returned"] = words.returned.key
    out["pot"] = words.pot
    if words.tokens:
        out["tokens"] = "tokens"
    return out


def _line_dict(g: GameLine) -> dict[str, Any]:
    """One line of the report's games as the JSON writes it."""
    out: dict[str, Any] = {"number": g.number, "night_game": g.night_game, "title": g.title}
    if g.extra:
        out.update(night_ledger=True, text=g.text)
        return out
    out["words"] = _words_dict(g.words)
    if g.closing:  # the chips a game's closing settled between players
        out.update(closing=True, text=g.text)
        return out
    if g.text:  # a game broken down by its records
        out.update(records=g.hands, text=g.text, finished=g.finished)
        if g.words.pot is not None:
            out[f"{g.words.pot}_left"] = g.pot
        return out
    out.update(winner=g.winner, pot=g.pot, hands=g.hands, finished=g.finished)
    return out


def _plain(amount: Decimal) -> str:
    """An exact amount in fixed notation with at least two places: "1.25", "-0.05", "30.00", "0.125"."""
    with localcontext() as ctx:
        ctx.prec = max(ctx.prec, len(amount.as_tuple().digits) + abs(amount.as_tuple().exponent) + 3)  # type: ignore[arg-type]
        amount = amount.normalize()
        if amount.as_tuple().exponent > -2:  # type: ignore[operator]
            amount = amount.quantize(Decimal("0.01"))  # exact: it has no finer digit
    return f"{amount:f}"


class _Text(str):
    """A CSV cell of text a person typed (a name, a currency): always quoted, never a formula."""


#: what makes a spreadsheet read a cell as a formula, once NFKC turns "\uff1d" (full-width =) into "="
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
#: what a spreadsheet may split a line on (its locale's list separator, or a choice in its import dialog)
_SEPARATORS = re.compile(r"([,;\t|])")


def _starts_a_formula(text: str) -> bool:
    """Whether a spreadsheet could read ``text`` as a formula: full-width and small forms (\uff1d,
    \ufe66, \uff0b, \uff20…) read as their plain forms, spaces and a quote before them skipped."""
    first = unicodedata.normalize("NFKC", text.lstrip(' "\u3000\u00a0')[:1])
    return first[:1] in _FORMULA_START or text[:1] in _FORMULA_START


def _cell(text: str) -> str:
    """Keep a spreadsheet from reading a name as a formula: a ' before each part that would start one.

    Quoting the cell keeps a "," inside it, but a spreadsheet that splits the file on ";"
    (or a tab) ignores quotes in mid-field: "a;=HYPERLINK(1)" made a cell "=HYPERLINK(1)…".
    So each part after such a separator is defused too: "a;'=HYPERLINK(1)".
    """
    parts = _SEPARATORS.split(text)
    return "".join("'" + part if i % 2 == 0 and _starts_a_formula(part) else part for i, part in enumerate(parts))


def _csv_field(cell: Any) -> str:
    """One CSV field (RFC 4180): text a person typed quoted whatever it holds, so that no separator
    a spreadsheet splits on (",", ";", a tab) makes a second cell of it ("a;=HYPERLINK(1)");
    the app's own labels and numbers hold none and stay bare."""
    if isinstance(cell, _Text):
        return '"' + _cell(str(cell)).replace('"', '""') + '"'
    return str(cell)
