"""What every game of a night is to the rest of the app: one protocol, pure.

A night is the players seated tonight and the games they play, one after
another.  Each game is a plug-in, as OpenSpiel registers games by short name
behind one State API: a package under :mod:`companion.games` whose pure part
implements :class:`GameKind` (rules, the fold of its actions, its event codec,
its records in a night file, the closing of an unfinished game, and if it likes
its own part of the end-of-night report), and whose web
part (forms and templates) implements :class:`companion.games.web.GameScreens`.
The ledger, the night, the report and the web layer only ever talk to these
two protocols, so adding a game is one package and its name in the registry's list
(:data:`companion.games.INSTALLED`).  :class:`companion.games.basegame.BaseGame` and
:class:`companion.games.web.BaseScreens` give every member a default: a game is its differences.

This module is the protocol (what the rest of the app may call), with what it speaks in
(:class:`IllegalAction`, :class:`RecordError`, :class:`GameClosing`) and the seat checks every
game shares (:func:`validate_names`, :func:`dealer_seat`, :func:`seat_of`, :func:`seats_named`);
``basegame.py`` is the base class a game subclasses.

Nothing here imports Flask, SQLAlchemy or WTForms (``tests/test_layers.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .vocabulary import ReportVocabulary


#: The longest player's name: it must fit a 360-px phone's table row.
MAX_NAME_LENGTH = 24


class IllegalAction(ValueError):
    """An action (or a setup) the rules do not allow now; the message is for the scorekeeper."""


class RecordError(ValueError):
    """A game's records in a night file that cannot be replayed.

    ``index`` is the 0-based position of the record at fault (None: the game as a
    whole), and the message names the field, so the night file's reader can say
    "games[1] (nap) deals[4]: 'bid' …" and a person can fix the file.
    """

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


@dataclass(frozen=True)
class GameClosing:
    """A game as it counts in the night's settle-up once it is over or stopped.

    ``net`` are the closing balances of the game's players (they sum to minus
    what is carried); ``carried`` is who owns the chips set aside for the next
    night (each contributor's chips, empty for most games); ``note`` says in
    words what happened to an unfinished pot or pool ("" when nothing was left).
    """

    net: dict[str, int]
    carried: dict[str, int] = field(default_factory=dict)
    note: str = ""

    @property
    def carried_total(self) -> int:
        return sum(self.carried.values())


@runtime_checkable
class GameState(Protocol):
    """One game's fold: what the night needs of any game's table.

    ``verify(action)`` raises :class:`IllegalAction` or returns an outcome with a
    ``summary``; ``push(action)`` acts and appends a frozen record (with ``seq``
    and ``summary``) to the log; an undo is an action that appends too.
    """

    players: tuple[str, ...]
    first_dealer: str

    @property
    def version(self) -> int: ...

    @property
    def net_chips(self) -> dict[str, int]: ...

    @property
    def log(self) -> tuple[Any, ...]: ...

    def verify(self, action: Any) -> Any: ...

    def is_legal(self, action: Any) -> bool: ...

    def push(self, action: Any, number: int | None = None) -> Any: ...

    def can_void(self) -> bool: ...

    # declared by :class:`~companion.games.fold.FoldTable`, with their defaults there

    @property
    def dealer(self) -> str:
        """Who deals now."""

    @property
    def carried_in(self) -> dict[str, int]:
        """Each contributor's chips in a pot carried in from the night before ({} by default)."""

    def live_records(self) -> list[Any]:
        """The records that count (neither undone nor undos), each a :class:`~companion.games.fold.FoldRecord`."""

    def live_records_from(self, start: int) -> list[Any]:
        """The live records from the ``start``-th on (0-based)."""

    @property
    def live_count(self) -> int:
        """How many records count."""

    def live_kept_since(self, version: int, live_count: int) -> int:
        """Of the ``live_count`` records that counted when the log held ``version`` records, how many still do."""

    def number_of(self, seq: int) -> int:
        """The number record ``seq`` is shown by in the night (``seq`` itself in a game on its own)."""


class GameKind(Protocol):
    """A kind of game: its rules, its fold, its events and its records in a night file.

    Every method is pure: values in, values out.  :class:`companion.games.basegame.BaseGame`
    gives every member a default; a game overrides only what is its own.

    How the end-of-night report shows the game is the game's to say, optionally: a kind that
    declares ``has_report_part`` keeps, in the ``report`` module of its folder, a function
    ``report_part(number, title, state, rules, closing, carried_on)`` returning its own
    :class:`companion.report.model.GamePart`.  That module is the report layer's part of the game
    (as ``web.py`` is the web layer's): it may import the report, the game's rules never import
    it, and the report finds it by the game's package
    (:func:`companion.report.parts.own_report_part`).  ``number`` is the game's place in the
    night, 0 for the night's only game with nothing beside it; ``closing`` is what :meth:`close`
    gave; ``carried_on`` the pot the next night took on, by contributor (None before that night
    exists).  A kind without it is broken down by the transfers of its live records
    (:func:`companion.report.parts.transfer_part`).
    """

    #: short name, as in a night file's ``"game"`` and the database (``"napalm"``)
    kind: str
    #: what players call it (``"Napalm"``)
    title: str
    #: the key of its records in a night file's game entry (``"stages"``, ``"deals"``)
    records_key: str
    #: the kinds of event its actions are stored as
    event_kinds: frozenset[str]
    min_players: int
    max_players: int
    #: whether the app records every chip (False: the chips on the table settle each pot)
    records_chips: bool
    #: whether it has its own part of the report (see above)
    has_report_part: bool
    #: whether that part takes ``memo=`` to extend what it kept at an earlier version (see above)
    report_part_extends: bool
    #: the columns and words of its part of the report (:mod:`companion.games.vocabulary`;
    #: a game that declares none of its own: ``NEUTRAL``)
    report_vocabulary: ReportVocabulary
    #: the older file formats of its own that hold one game as a whole night (``format`` values)
    legacy_formats: frozenset[str]

    def read_legacy(self, data: Any) -> Any:
        """A document of one of :attr:`legacy_formats`, replayed (``nightfile.LegacyFile``); RecordError says where."""

    def title_of(self, rules: Any) -> str:
        """What players call a game played with ``rules`` (its ``title`` unless its rules name it)."""

    def default_players(self, seated: Sequence[str], dealer: str, rules: Any) -> tuple[str, ...]:
        """Who plays unless the scorekeeper changes it (everyone seated unless the rules take fewer)."""

    def random_action(self, state: GameState, rng: Any) -> Any:
        """A legal action now, chosen with ``rng`` (None: none is legal now): the game's strategy for the conformance suite."""

    def finishing_action(self, state: GameState) -> Any:
        """The action that takes the game on to its end now, or None: no action now (its :meth:`close` settles it)."""

    def rules_from_dict(self, raw: Mapping[str, Any]) -> Any:
        """Its rules from a JSON object, defaults filled in; IllegalAction names the field at fault."""

    def rules_to_dict(self, rules: Any) -> dict[str, Any]:
        """Its rules as a JSON object (every key, so a file says what was played)."""

    def new_state(
        self, players: Sequence[str], first_dealer: str | None, rules: Any, carried_in: Mapping[str, int] | None
    ) -> GameState:
        """A fresh fold; IllegalAction when the seating does not suit the game."""

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        """An action as a stored event: its kind and a JSON payload."""

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        """A stored event back into an action (IllegalAction when it is not one of this game's)."""

    def read_records(self, state: GameState, records: Any) -> None:
        """Replay a night file's records into ``state``; RecordError says which and why."""

    def write_records(self, state: GameState) -> list[Any]:
        """The live records of ``state`` as a night file writes them (undone ones left out)."""

    def write_records_from(self, state: GameState, start: int) -> list[tuple[int, Any]]:
        """The night file's records from live record ``start`` on, each with the index of its first live record.

        ``start`` is 0 or the index this gave a record: where a record begins.  What a night
        file written after an action rewrites: the records from the one holding the last live
        record unchanged since (:mod:`companion.night.file_text`); :meth:`write_records` is
        these records from 0.
        """

    def close(self, state: GameState, rules: Any) -> GameClosing:
        """The game as the settle-up counts it, its unfinished pot dealt with by its rules."""

    def closing_transfers(self, state: GameState, closing: GameClosing) -> tuple[Any, ...]:
        """The chips ``closing`` moves beyond the table's nets, as transfers in the game's words (the report's closing line)."""

    def replay_extras(self, state: GameState) -> dict[str, Any]:
        """What ``flask replay`` adds to this game's entry besides ``net_chips``."""

    def warm_up(self) -> None:
        """Load now what the game's first action would otherwise load (a served worker, before its first request)."""

    def live_actions(self, state: GameState) -> list[Any]:
        """The actions that count, in order (undone ones and the undos left out): what an import stores."""

    def carries_over(self, rules: Any) -> bool:
        """Whether, under ``rules``, chips left in an unfinished game go on to the next night."""

    def next_dealer(self, state: GameState) -> str:
        """Who deals next if play goes on (in the night's next game, or the next night)."""


def and_(names: Sequence[str]) -> str:
    """"Ann", "Ann and Ben", "Ann, Ben and Cat": names as a sentence lists them (a game's and the night's)."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def seat_order(seated: Sequence[str], chosen: Sequence[str]) -> tuple[str, ...]:
    """``chosen`` (names of seated players, matched ignoring case) in seat order; IllegalAction otherwise."""
    folded = {name.casefold(): name for name in seated}
    picked: list[str] = []
    for name in chosen:
        if not isinstance(name, str) or name.strip().casefold() not in folded:
            raise IllegalAction(f"'{name}' is not seated tonight")
        canonical = folded[name.strip().casefold()]
        if canonical in picked:
            raise IllegalAction(f"{canonical} is listed twice among the game's players")
        picked.append(canonical)
    return tuple(name for name in seated if name in picked)


#: what a name not at the table is, by default: "the seller 'Zed' is not playing this game"
NOT_PLAYING = "is not playing this game"


def find_seat(players: Sequence[str], name: object) -> int | None:
    """The seat of ``name`` among ``players``: the exact name, else the name ignoring case and runs of
    spaces (a seated name has single spaces: :func:`validate_names`); None when nobody seated has it."""
    if isinstance(name, str):
        for seat, player in enumerate(players):
            if player == name:
                return seat
        folded = " ".join(name.split()).casefold()
        for seat, player in enumerate(players):
            if player.casefold() == folded:
                return seat
    return None


def seat_of(players: Sequence[str], name: object, role: str = "player", absent: str = NOT_PLAYING) -> int:
    """The seat of ``name`` (:func:`find_seat`); IllegalAction "``role`` 'Zed' ``absent``" when nobody seated has it."""
    seat = find_seat(players, name)
    if seat is None:
        raise IllegalAction(f"{role} '{str(name)[:40]}' {absent}")
    return seat


def seats_named(players: Sequence[str], names: object, role: str, absent: str = NOT_PLAYING) -> tuple[str, ...]:
    """The players ``names`` names, as seated and in seat order; IllegalAction for a name not seated
    (:func:`seat_of`), one named twice, or ``names`` not a list."""
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise IllegalAction(f"{role} must be a list of players")
    seats: list[int] = []
    for name in names:
        seat = seat_of(players, name, role, absent)
        if seat in seats:
            raise IllegalAction(f"{players[seat]} is listed twice among {role}")
        seats.append(seat)
    return tuple(players[s] for s in sorted(seats))


def dealer_seat(players: Sequence[str], first_dealer: str | None) -> int:
    """The seat of ``first_dealer`` among ``players`` (the first player's when None); IllegalAction otherwise."""
    if first_dealer is None:
        return 0
    if first_dealer not in players:
        raise IllegalAction(f"{str(first_dealer)[:30]} is not playing this game")
    return list(players).index(first_dealer)


def validate_names(players: Sequence[str], least: int, most: int, who: str) -> tuple[str, ...]:
    """Check a seating: ``least`` to ``most`` distinct, non-empty names (case-insensitively distinct).

    Runs of spaces inside a name become one; ``who`` names what needs the players
    ("Napalm", "A night", "this game") in the message for a wrong count ("needs 2 players"
    when ``least`` and ``most`` are one number, as a two-player game's are).
    """
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise IllegalAction("players must be a list of names")
    names = []
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise IllegalAction("every player needs a name")
        name = " ".join(name.split())
        if len(name) > MAX_NAME_LENGTH:
            raise IllegalAction(f"the name '{name[:MAX_NAME_LENGTH]}…' is longer than {MAX_NAME_LENGTH} characters")
        names.append(name)
    if not least <= len(names) <= most:
        wanted = f"{least}" if least == most else f"{least} to {most}"
        raise IllegalAction(f"{who} needs {wanted} players, not {len(names)}")
    seen: dict[str, str] = {}
    for name in names:
        if name.casefold() in seen:
            raise IllegalAction(f"two players are called '{name}'; give each a different name")
        seen[name.casefold()] = name
    return tuple(names)
