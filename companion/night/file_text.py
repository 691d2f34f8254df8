"""The night file's text, written by extending the text of an earlier version (issue 22).

The night file (``docs/night-file.md``, :func:`companion.night.file.dumps`) of a long night is
mostly its games' records, and after an action nearly all of them are what they were: a
record added at the end, or the last few changed by an undo.  Writing and encoding the
whole file anew after every action was most of the first download's time on a 2,000-stage
night, and so was comparing every record with the last ones written.  Here each game's
records are kept as written with the live record each begins at; after an action, the live
records that still count are known from the undo stack without reading them
(:meth:`~companion.games.fold.FoldTable.live_kept_since`), and only the records from the one
holding the last of those on are written again
(:meth:`~companion.games.protocol.GameKind.write_records_from`).  The result is the same bytes as
:func:`~companion.night.file.dumps` (a test compares them after many versions, with undos and
games taken back between, and the conformance suite checks every game's
``write_records_from``).  Pure.
"""

from __future__ import annotations

import bisect
import json
import uuid
from collections.abc import Mapping, Sequence
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
class GameWritten:
    """One game's records as last written: at which log length and live count, where each begins, their text."""

    kind: str
    version: int  # the game's log length then
    live_count: int  # how many of its records counted then
    starts: tuple[int, ...]  # the index of the live record each file record begins at
    texts: tuple[str, ...]  # each record as encoded in place, with its indent


@dataclass(frozen=True)
class Written:
    """Each game's records as last written, by the game's number in the night.

    Never changed once made: an earlier version's text may still be read by another request.
    """

    games: tuple[GameWritten, ...] = ()


def _encode(value: Any, depth: int) -> str:
    """``value`` as :func:`json.dumps` with ``indent=2`` writes it ``depth`` levels down a document.

    A JSON text holds no raw line break but those of its layout (a line break in a string is
    written ``\\n``), so shifting each line is the same as encoding it in place.
    """
    text = json.dumps(value, indent=INDENT, ensure_ascii=False)
    return text.replace("\n", "\n" + " " * (INDENT * depth))


#: the indent of a record in its game's list
PAD = " " * (INDENT * RECORDS_DEPTH)


def _records_text(texts: tuple[str, ...], depth: int) -> str:
    """A list of items already encoded and indented, laid out as ``json.dumps(indent=2)`` lays out a list at ``depth - 1``."""
    if not texts:
        return "[]"
    return "[\n" + ",\n".join(texts) + "\n" + " " * (INDENT * (depth - 1)) + "]"


def _game_records(played: Any, earlier: GameWritten | None) -> GameWritten:
    """``played``'s records, those before the last live record unchanged since ``earlier`` kept as they were."""
    state, game = played.state, played.game
    keep = 0  # how many of the earlier records are kept as they were
    begin = 0  # the live record the first one written now begins at
    if earlier is not None and earlier.kind == played.setup.kind and earlier.version <= state.version:
        still = state.live_kept_since(earlier.version, earlier.live_count)
        # the record holding the last live record unchanged is written again: what was added
        # after it may belong to it (a showdown to its stage), and only the last is in progress
        holding = bisect.bisect_right(earlier.starts, still - 1) - 1 if still > 0 else -1
        if holding >= 0:
            keep, begin = holding, earlier.starts[holding]
    written = game.write_records_from(state, begin)
    return GameWritten(
        played.setup.kind,
        state.version,
        state.live_count,
        (earlier.starts[:keep] if keep else ()) + tuple(index for index, _ in written),
        (earlier.texts[:keep] if keep else ()) + tuple(PAD + _encode(record, RECORDS_DEPTH) for _, record in written),
    )


def dumps(
    name: str | None, play: NightPlay, money: nightfile.Money, ledger: night_ledger.NightLedger | None,
    written: Written = Written(), paid: Sequence[Payment] = (), phones: Mapping[int, str] | None = None,
) -> tuple[str, Written]:
    """The night file's text (the bytes :func:`companion.night.file.dumps` writes), and what to extend next time.

    ``phones``: a record's number in the night → the keeper phone that recorded it (those the first phone did
    not); each game's ``recorded_by`` is read off the records' starts kept here, never by writing them again.
    """
    games = tuple(
        _game_records(played, written.games[played.number - 1] if played.number <= len(written.games) else None)
        for played in play.games
    )
    # the rest of the document is small: encoded whole, each game's records in by a mark no value can hold
    mark = f"records {uuid.uuid4().hex}"
    marks = [f"{mark} {number}" for number in range(1, len(games) + 1)]
    recorded_by = tuple(
        nightfile.records_recorded_by(played, game.starts, phones) if phones else {}
        for played, game in zip(play.games, games)
    )
    text = json.dumps(
        nightfile.to_dict(name, play, money, ledger, marks, paid, recorded_by), indent=INDENT, ensure_ascii=False
    )
    for number, game in enumerate(games, start=1):
        text = text.replace(json.dumps(f"{mark} {number}"), _records_text(game.texts, RECORDS_DEPTH), 1)
    return text + "\n", Written(games)
