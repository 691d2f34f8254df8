"""The append-only log every game's table keeps: verify, ask, act, and undo by appending.

Shaped like pokerkit's ``State`` and python-chess's ``Board``: ``verify(action)``
raises :class:`IllegalAction` with a sentence a scorekeeper understands (or
returns the outcome), ``is_legal(action)`` asks, ``push(action)`` acts and
appends a frozen record, and :class:`Void` (the ``pop`` of python-chess) undoes
the latest live action *by appending* a record that reverses it, so the history
keeps every line.  Each game says only what is its own: how an action resolves
(:meth:`FoldTable._resolve`), what its records hold (:meth:`FoldTable._record`) and,
if it likes, what must hold after every action (:meth:`FoldTable._check`); undoing a
record gives back its chips and tokens unless the game says otherwise
(:meth:`FoldTable._undo`).

Pure: no Flask, no database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Generic, Protocol, TypeVar, cast

from .protocol import IllegalAction

#: The pot or pool as one side of a :class:`Transfer` (player names are never empty).
POT = None


@dataclass(frozen=True)
class Transfer:
    """Chips from ``payer`` to ``payee``: a player's name, or :data:`POT` (the game's pot or pool).

    Every game's records carry these, and everything outside the game reads only them:
    the fold's conservation check, the report's breakdown, the history's lines and the
    night's chart.  ``reason`` is the game's word for it ("ante", "side bet", "made",
    "undo"); ``pot`` names which pot in a game of several (a pot game's "A" … "E"), "" else.
    """

    payer: str | None
    payee: str | None
    chips: int
    reason: str
    pot: str = ""

    def reversed(self) -> Transfer:
        """The transfer that gives these chips back (what an undo records)."""
        return Transfer(self.payee, self.payer, self.chips, "undo", self.pot)


@dataclass(frozen=True)
class Void:
    """Undo the latest live action; the voided record stays in the log, marked."""


class Dealt(Protocol):
    """What every game's position has: the seat (0-based) of who deals now."""

    dealer: int


class FoldRecord(Protocol):
    """What every record of a game's log has: the fold, the report, the history and the chart read these.

    ``seq`` its number in the game's log (1-based); ``action`` what was pushed; ``summary``
    the sentence the history shows; ``transfers`` the chips it moved; ``voids`` for an
    undo, the seq it undid (None else); ``game``, which game to a target of a game that
    plays several (Napalm's games to its token target; 1 otherwise), and ``tokens``,
    (player, change) pairs of a game that keeps tokens besides chips (none otherwise).
    :class:`BaseRecord` has them all.
    """

    seq: int
    action: Any
    summary: str
    transfers: tuple[Transfer, ...]
    voids: int | None
    game: int
    tokens: tuple[tuple[str, int], ...]


@dataclass(frozen=True, kw_only=True)
class BaseRecord:
    """The members every game's record has (:class:`FoldRecord`), each but the first three defaulted.

    A game's record subclasses it (``@dataclass(frozen=True)``) and adds what is its own (the
    deal, its dealer, a pool); these are keyword-only, so a game's own fields may come without
    defaults, and a record is made with keywords.
    """

    seq: int
    action: Any
    summary: str
    transfers: tuple[Transfer, ...] = ()
    voids: int | None = None
    game: int = 1
    tokens: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, kw_only=True)
class BaseOutcome:
    """What a table's :meth:`FoldTable._resolve` returns: the position after the action and its effects.

    A game whose outcome holds more (Napalm's tokens and game won, Nap's pool won) subclasses it.
    """

    position: Any
    transfers: tuple[Transfer, ...] = ()
    summary: str = ""


P = TypeVar("P", bound=Dealt)  # a game's position: frozen, everything the rules need to go on
R = TypeVar("R")  # a game's record: a frozen :class:`BaseRecord`


class FoldTable(Generic[P, R]):
    """A game's table as a fold over actions: its position, its log and its undo stack."""

    players: tuple[str, ...]
    #: the game's outcome, made with ``position``, ``transfers`` and ``summary`` (and ``tokens``,
    #: for a game that keeps them): what the default :meth:`_undo` returns
    outcome_type: ClassVar[Callable[..., Any]] = BaseOutcome

    def _begin(self, position: P) -> None:
        self._position: P = position
        self._log: list[R] = []
        # (seq of a live action, the position before it): the undo stack
        self._live: list[tuple[int, P]] = []
        self._voided: dict[int, int] = {}
        # the number each record has in the night, when a night numbers them (see :meth:`number_of`)
        self._numbers: list[int] = []

    # --- what a game says -----------------------------------------------------------

    def _resolve(self, action: Any) -> Any:
        """The outcome (with ``position``) of ``action`` now; IllegalAction when the rules forbid it."""
        raise NotImplementedError

    def _undo(self, seq: int, before: P, record: R) -> Any:
        """The outcome of undoing ``record`` (number ``seq``), whose action was pushed at ``before``.

        By default the table goes back to ``before``, each chip of the record is given back
        (the last transfer first) and each token it moved, and the history says "Undid #n: …"
        with the record's own sentence.  A game whose outcome holds more overrides this.
        """
        undone = cast(FoldRecord, record)
        given_back: dict[str, Any] = {}
        if undone.tokens:
            given_back["tokens"] = tuple((name, -change) for name, change in undone.tokens)
        return self.outcome_type(
            position=before,
            transfers=tuple(t.reversed() for t in reversed(undone.transfers)),
            summary=f"Undid #{self.number_of(seq)}: {undone.summary}",
            **given_back,
        )

    def _record(self, seq: int, action: Any, before: P, outcome: Any, voids: int | None) -> R:
        """The frozen record of ``action`` (``voids``: for an undo, the seq it undoes)."""
        raise NotImplementedError

    def _check(self, before: P, outcome: Any) -> None:
        """Raise when ``outcome`` would break an invariant of the game (nothing is pushed then)."""

    # --- reading ----------------------------------------------------------------------

    @property
    def position(self) -> P:
        return self._position

    @property
    def log(self) -> tuple[R, ...]:
        return tuple(self._log)

    @property
    def version(self) -> int:
        """How many records the log holds; a form shown at version v is stale once it grows."""
        return len(self._log)

    @property
    def dealer(self) -> str:
        return self.players[self._position.dealer]

    @property
    def carried_in(self) -> dict[str, int]:
        """Each contributor's chips in a pot this game started with, carried from the night before:
        none by default (a game that can carry a pot over says so with its own)."""
        return {}

    @property
    def voided(self) -> Mapping[int, int]:
        """seq of each voided record → seq of the Void that undid it."""
        return dict(self._voided)

    def number_of(self, seq: int) -> int:
        """The number record ``seq`` is shown by: the night's number of its event (one numbering
        across the night, the bank's included: issue 20, item 11), or ``seq`` itself in a game
        played on its own (a night file read by ``flask replay``, the engines' tests)."""
        return self._numbers[seq - 1] if 0 < seq <= len(self._numbers) else seq

    def live_records(self) -> list[R]:
        """The records that count: neither voided nor themselves a Void."""
        return self.live_records_from(0)

    def live_records_from(self, start: int) -> list[R]:
        """The live records from the ``start``-th on (0-based).

        Read off the undo stack, which holds exactly the live records in order (every action
        but an undo is pushed on it, and an undo takes the newest off): what a long night's
        file writes after an action costs the records written, not the whole log.
        """
        return [self._log[seq - 1] for seq, _ in self._live[start:]]

    @property
    def live_count(self) -> int:
        """How many records count (:meth:`live_records`' length, without making the list)."""
        return len(self._live)

    def live_kept_since(self, version: int, live_count: int) -> int:
        """Of the ``live_count`` records that counted when the log held ``version`` records, how many still do.

        An undo takes the newest live record (the top of the undo stack), and the records
        added since sit above the older ones: each undo since ``version`` of a record from
        before it took one of those, from the top down, so the first ``live_count`` minus
        those undos are the live records they were.  Costs the records added since.
        """
        if not 0 <= version <= len(self._log):
            raise ValueError(f"the log never held {version} records")
        undone = sum(1 for r in self._log[version:] if r.voids is not None and r.voids <= version)  # type: ignore[attr-defined]
        return live_count - undone

    # --- verify / ask / act -----------------------------------------------------------

    def verify(self, action: Any) -> Any:
        """Resolve ``action`` against the current position, or raise :class:`IllegalAction`."""
        if isinstance(action, Void):
            if not self._live:
                raise IllegalAction("there is nothing to undo")
            seq, before = self._live[-1]
            return self._undo(seq, before, self._log[seq - 1])
        return self._resolve(action)

    def is_legal(self, action: Any) -> bool:
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    def push(self, action: Any, number: int | None = None) -> R:
        """Record ``action``; raises :class:`IllegalAction` and changes nothing if it is illegal.

        ``number`` is the record's number in the night (its event's), when the night numbers it.
        """
        outcome = self.verify(action)
        before = self._position
        self._check(before, outcome)
        seq = len(self._log) + 1
        voids = None
        if isinstance(action, Void):
            voids, _ = self._live.pop()
            self._voided[voids] = seq
        else:
            self._live.append((seq, before))
        record = self._record(seq, action, before, outcome, voids)
        self._log.append(record)
        self._numbers.append(seq if number is None else number)
        self._position = outcome.position
        return record

    def void(self) -> R:
        return self.push(Void())

    def can_void(self) -> bool:
        return bool(self._live)
