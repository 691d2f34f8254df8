"""The night file's text, written by extending the text of an earlier version (issue 22).

The night file (``docs/night-file.md``, :func:`companion.night.file.dumps`) of a long night is
mostly its games' records, and after an action nearly all of them are what they were: a
record added at the end, or the last few changed by an undo.  Encoding the whole file
anew after every action was most of the first download's time on a 2,000-stage night.
Here each game's records are compared with those last written (by their ``repr``, which
tells ``1`` from ``True`` and ``1.0`` and keeps the order of keys, as the JSON text does),
the text of those unchanged is kept, and only the others are encoded.  The result is the
same bytes as :func:`~companion.night.file.dumps` (a test compares them after many versions,
with undos and games taken back between).  Pure.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.money.settle import Payment
from companion.night import file as nightfile
from companion.night import ledger as night_ledger
from companion.night.play import NightPlay

#: where a game's records sit in the file: the document, its "games" list, a game, its records list
RECORDS_DEPTH = 4
INDENT = 2


@dataclass(frozen=True)
class Written:
    """Each game's records as last written (by the game's number in the night): their ``repr`` and their text.

    Never changed once made: an earlier version's text may still be read by another request.
    """

    games: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()


def _encode(value: Any, depth: int) -> str:
    """``value`` as :func:`json.dumps` with ``indent=2`` writes it ``depth`` levels down a document.

    A JSON text holds no raw line break but those of its layout (a line break in a string is
    written ``\\n``), so shifting each line is the same as encoding it in place.
    """
    text = json.dumps(value, indent=INDENT, ensure_ascii=False)
    return text.replace("\n", "\n" + " " * (INDENT * depth))


def _records_text(texts: tuple[str, ...], depth: int) -> str:
    """A list of already encoded items, laid out as ``json.dumps(indent=2)`` lays out a list at ``depth - 1``."""
    if not texts:
        return "[]"
    pad = " " * (INDENT * depth)
    return "[\n" + ",\n".join(pad + text for text in texts) + "\n" + " " * (INDENT * (depth - 1)) + "]"


def dumps(
    name: str | None, play: NightPlay, money: nightfile.Money, ledger: night_ledger.NightLedger | None,
    written: Written = Written(), paid: Sequence[Payment] = (),
) -> tuple[str, Written]:
    """The night file's text (the bytes :func:`companion.night.file.dumps` writes), and what to extend next time."""
    games = []
    for played in play.games:
        records = played.game.write_records(played.state)
        reprs = tuple(repr(record) for record in records)
        old_reprs, old_texts = written.games[played.number - 1] if played.number <= len(written.games) else ((), ())
        same = 0
        for new, old in zip(reprs, old_reprs):
            if new != old:
                break
            same += 1
        texts = old_texts[:same] + tuple(_encode(record, RECORDS_DEPTH) for record in records[same:])
        games.append((reprs, texts))
    # the rest of the document is small: encoded whole, each game's records in by a mark no value can hold
    mark = f"records {uuid.uuid4().hex}"
    marks = [f"{mark} {number}" for number in range(1, len(games) + 1)]
    text = json.dumps(nightfile.to_dict(name, play, money, ledger, marks, paid), indent=INDENT, ensure_ascii=False)
    for number, (_, texts) in enumerate(games, start=1):
        text = text.replace(json.dumps(f"{mark} {number}"), _records_text(texts, RECORDS_DEPTH), 1)
    return text + "\n", Written(tuple(games))
