"""The base class every game of the night subclasses: a default for every member of the protocol,
:class:`~companion.games.protocol.GameKind` (``protocol.py``).

Modelled on python-chess's ``chess.variant``: a game is only its differences.  A game
subclasses :class:`BaseGame`, names itself (``kind``, ``title``), gives its rules
dataclass, its table (a :class:`~companion.games.fold.FoldTable`) and its event codec,
and overrides what its rules make different (an unfinished pot, a dealer that moves
mid-deal, a night-file format of its own).  Every optional capability is declared here
with its default, so the rest of the app calls it and never asks whether a game has it:

============================  ============================================================
member                        default
============================  ============================================================
``records_key``               ``"deals"``
``event_kinds``               ``{"void"}`` (the framework's undo)
``min_players/max_players``   2 / 7
``rules_class``               :class:`NoRules` (a game without rules)
``records_chips``             True (False: the chips on the table settle, the app keeps the bank)
``has_report_part``           False (the report breaks the game down by its transfers)
``report_part_extends``       False (its own part of the report is made from every record each time)
``report_vocabulary``         ``NEUTRAL``: the report's columns and words for any game
``legacy_formats``            none (``read_legacy`` reads an older file format of the game's own)
``title_of(rules)``           ``title``
``default_players(...)``      everyone seated
``rules_from_dict(raw)``      the rules dataclass's fields: unknown keys refused, types checked
``rules_to_dict(rules)``      ``asdict`` (tuples as lists)
``new_state(...)``            ``table(players, first_dealer, rules)``; a carried pot refused
``to_event/from_event``       ``Void`` as ``"void"``; the rest is the game's
``write_records_from``        each live action as its event, ``{"kind": …, "payload": {…}}``
``write_records(state)``      ``write_records_from(state, 0)``, the records alone
``read_records``              the records ``write_records`` wrote, replayed
``close(state, rules)``       the net, nothing carried
``closing_transfers(...)``    what the close moves, given back out of the pot (the report's closing line)
``carries_over(rules)``       False
``live_actions(state)``       the actions of the live records
``next_dealer(state)``        the dealer now
``replay_extras(state)``      nothing
``random_action(state, rng)`` none: every game gives one (the conformance suite plays it)
``finishing_action(state)``   None: no action ends the game, its closing settles it
============================  ============================================================

Pure: no Flask, SQLAlchemy or WTForms (``tests/test_layers.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import random
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from ..values.reading import unknown_key
from .protocol import GameClosing, GameState, IllegalAction, RecordError
from .fold import POT, Transfer, Void
from .vocabulary import NEUTRAL, ReportVocabulary


@dataclass(frozen=True)
class NoRules:
    """The rules of a game that has none to choose."""


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: what each field type accepts, and how its refusal is said
_CHECKS: dict[Any, tuple[Any, str]] = {
    int: (_whole, "a whole number"),
    bool: (lambda v: isinstance(v, bool), "true or false"),
    str: (lambda v: isinstance(v, str), "text"),
}


@functools.cache
def _rule_fields(rules_class: type) -> tuple[Mapping[str, Any], tuple[str, ...]]:
    """A rules class's fields' types and names, worked out once per class.

    ``typing.get_type_hints`` evaluates every annotation anew on each call (a tenth of
    folding a night once, as every game start reads its rules); a dataclass's fields and
    their types never change once the class is made, so the answer is the same each time.
    Read only: the same mapping is handed to every caller.
    """
    return types.MappingProxyType(typing.get_type_hints(rules_class)), tuple(f.name for f in dataclasses.fields(rules_class))


class BaseGame:
    """A kind of game with every member of :class:`~companion.games.protocol.GameKind` defaulted."""

    #: short name, as in a night file's ``"game"`` and the database; also its package's name
    kind: ClassVar[str] = ""
    #: what players call it
    title: ClassVar[str] = ""
    records_key: ClassVar[str] = "deals"
    event_kinds: ClassVar[frozenset[str]] = frozenset({"void"})
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 7
    #: the frozen dataclass of its rules: its fields are the keys a night file's ``"rules"`` may hold
    rules_class: ClassVar[type] = NoRules
    #: a field's own refusal, when "must be a whole number" is not what a person needs to read
    rule_messages: ClassVar[Mapping[str, str]] = {}
    #: the table class :meth:`new_state` builds: ``table(players, first_dealer, rules)``
    table: ClassVar[type | None] = None
    #: whether the app records every chip (False: the chips on the table settle each pot)
    records_chips: ClassVar[bool] = True
    #: whether it has a part of the report of its own: ``report_part(number, title, state, rules,
    #: closing, carried_on)`` in the ``report`` module of its folder, the report layer's part of the
    #: game, which the report finds by the game's package and the rules never import (see
    #: ``docs/adding-a-game.md``); False: the report breaks it down from its transfers
    has_report_part: ClassVar[bool] = False
    #: whether its own part of the report takes ``memo=`` (what it kept at the night's earlier
    #: version, by game number) to extend its sums by the records since rather than add up every
    #: record again (issue 22; ``build_night_report`` in ``companion/report/parts.py``); declared,
    #: never worked out from the function's signature
    report_part_extends: ClassVar[bool] = False
    #: the columns and words of its part of the report (:mod:`companion.games.vocabulary`): by
    #: default neutral ones, "won/lost" and chips paid into and taken out of a pot
    report_vocabulary: ClassVar[ReportVocabulary] = NEUTRAL
    #: older file formats of its own that hold one game as a whole night (Napalm's
    #: ``napalm-hand-history/1``), read by :meth:`read_legacy`; none by default
    legacy_formats: ClassVar[frozenset[str]] = frozenset()

    # --- rules --------------------------------------------------------------------------

    def checked_rules(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The rules given in ``raw``, refused by name when unknown or of the wrong type.

        Only the keys given are returned (the rules class fills in the rest); a list
        for a ``tuple`` field becomes a tuple.
        """
        if not isinstance(raw, Mapping):
            raise IllegalAction("'rules' must be an object")
        hints, known = _rule_fields(self.rules_class)
        if (unknown := unknown_key(raw, known)) is not None:
            raise IllegalAction(f"unknown rule '{unknown[:30]}'")
        values: dict[str, Any] = {}
        for key in known:
            if key not in raw:
                continue
            value, (ok, words) = raw[key], self._check_of(hints[key])
            if isinstance(value, list) and typing.get_origin(hints[key]) is tuple:
                value = tuple(value)
            if not ok(value):
                raise IllegalAction(self.rule_messages.get(key) or f"'{key}' must be {words}")
            values[key] = value
        return values

    @staticmethod
    def _check_of(hint: Any) -> tuple[Any, str]:
        """The check and the words for a field of type ``hint`` (int, bool, str, X | None, tuple[int, ...])."""
        if hint in _CHECKS:
            return _CHECKS[hint]
        args = typing.get_args(hint)
        if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
            inner = [a for a in args if a is not type(None)]
            if len(inner) == 1 and inner[0] in _CHECKS:
                check, words = _CHECKS[inner[0]]
                return (lambda v: v is None or check(v)), f"{words} or null"
        if typing.get_origin(hint) is tuple and args and args[0] in _CHECKS:
            check, words = _CHECKS[args[0]]
            plural = {"a whole number": "whole numbers", "true or false": "true or false", "text": "texts"}[words]
            return (lambda v: isinstance(v, tuple) and all(check(x) for x in v)), f"a list of {plural}"
        return (lambda v: True), ""

    def rules_from_dict(self, raw: Mapping[str, Any]) -> Any:
        """Its rules from a JSON object, defaults filled in; IllegalAction names the field at fault."""
        values = self.checked_rules(raw)
        try:
            return self.rules_class(**values)
        except (TypeError, ValueError) as error:
            if isinstance(error, IllegalAction):
                raise
            raise IllegalAction(f"rules: {error}") from None

    def rules_to_dict(self, rules: Any) -> dict[str, Any]:
        """Every rule, as a night file writes it (a tuple as a list)."""
        return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(rules).items()}

    def title_of(self, rules: Any) -> str:
        """What players call a game played with ``rules`` (a pot game's preset); its title by default."""
        return self.title

    def default_players(self, seated: Sequence[str], dealer: str, rules: Any) -> tuple[str, ...]:
        """Who plays unless the scorekeeper changes it: everyone seated, by default."""
        return tuple(seated)

    # --- the fold -----------------------------------------------------------------------

    def new_state(
        self, players: Sequence[str], first_dealer: str | None, rules: Any, carried_in: Mapping[str, int] | None = None
    ) -> GameState:
        """A fresh table; a pot carried in from another night is refused (only a game that carries says otherwise)."""
        if carried_in:
            raise IllegalAction(f"{self.title} cannot start with a pot carried in from another night")
        if self.table is None:
            raise NotImplementedError(f"{type(self).__name__} names no table class")
        return self.table(players, first_dealer, rules)

    def to_event(self, action: Any) -> tuple[str, dict[str, Any]]:
        """An action as a stored event; the base knows only the undo, ``("void", {})``."""
        if isinstance(action, Void):
            return "void", {}
        raise IllegalAction(f"{self.title} has no action {type(action).__name__}")

    def from_event(self, kind: str, payload: Mapping[str, Any]) -> Any:
        """A stored event back into an action; the base knows only ``"void"``."""
        if kind == "void":
            return Void()
        raise IllegalAction(f"unknown event {str(kind)[:20]!r}")

    def write_records(self, state: Any) -> list[Any]:
        """Its live records as a night file holds them (undone ones left out): :meth:`write_records_from` 0.

        A game says how its records are written once, in :meth:`write_records_from`; the
        conformance suite checks that the two agree for every game.
        """
        return [record for _, record in self.write_records_from(state, 0)]

    def write_records_from(self, state: Any, start: int) -> list[tuple[int, Any]]:
        """The file's records from live record ``start`` on, each with the index of its first live record.

        By default each live action is one record, as its event: ``{"kind": …, "payload": {…}}``.
        """
        out = []
        for index, record in enumerate(state.live_records_from(start), start=start):
            kind, payload = self.to_event(record.action)
            out.append((index, {"kind": kind, "payload": payload}))
        return out

    def read_records(self, state: Any, records: Any) -> None:
        """Replay records :meth:`write_records` wrote; RecordError names the record at fault."""
        if not isinstance(records, list):
            raise RecordError(f"'{self.records_key}' must be a list", None)
        for index, record in enumerate(records):
            where = f"{self.records_key}[{index}]"
            if not isinstance(record, Mapping) or set(record) != {"kind", "payload"}:
                raise RecordError(f'{where}: a record must be {{"kind": …, "payload": {{…}}}}', index)
            if record["kind"] == "void" or not isinstance(record["payload"], Mapping):
                raise RecordError(f"{where}: 'kind' must be an action of {self.title}", index)
            try:
                state.push(self.from_event(record["kind"], record["payload"]))
            except IllegalAction as error:
                raise RecordError(f"{where}: {error}", index) from None

    def live_actions(self, state: Any) -> list[Any]:
        """The actions that count, in order (undone ones and the undos left out): what an import stores."""
        return [record.action for record in state.live_records()]

    def close(self, state: Any, rules: Any) -> GameClosing:
        """The game as the settle-up counts it: its net, nothing left over, nothing carried."""
        return GameClosing(net=dict(state.net_chips))

    def closing_transfers(self, state: Any, closing: GameClosing) -> tuple[Transfer, ...]:
        """The chips ``closing`` (what :meth:`close` gave) moves beyond the table's nets, as the game
        says them: the report shows them as the closing's own line of the game, in its words.

        Each is a :class:`~companion.games.fold.Transfer`: from the pot or pool (:data:`POT`) to a
        player for chips given back, a player's to the pot for chips paid in, from one player to
        another for chips settled between them (a game that turns points into chips when it stops).
        By default every chip the closing moves is given back out of the pot or pool (or paid into
        it): ``Transfer(POT, name, chips, "returned")``.  Per player they must add up to the closing's
        net less the table's (the conformance suite checks it for every game)."""
        net = state.net_chips
        out = []
        for name in state.players:
            back = closing.net.get(name, 0) - net.get(name, 0)
            if back:
                out.append(Transfer(POT, name, back, "returned") if back > 0 else Transfer(name, POT, -back, "returned"))
        return tuple(out)

    def carries_over(self, rules: Any) -> bool:
        """Whether chips left in an unfinished game go on to the next night: never, by default."""
        return False

    def next_dealer(self, state: Any) -> str:
        """Who deals next if play goes on: by default the deal has passed already (the dealer now)."""
        return str(state.dealer)

    def replay_extras(self, state: Any) -> dict[str, Any]:
        """What ``flask replay`` adds besides ``net_chips``: nothing, by default."""
        return {}

    def warm_up(self) -> None:
        """Load what the first action would load: nothing, by default."""

    def read_legacy(self, data: Any) -> Any:
        """An older file of the game's own (one of :attr:`legacy_formats`): none by default."""
        raise RecordError(f"{self.title} reads no older file format")

    # --- a strategy, for the conformance suite ------------------------------------------------

    def random_action(self, state: Any, rng: random.Random) -> Any:
        """A legal action now, chosen with ``rng`` (never an undo), or None when no action is legal
        now (a game of a fixed number of deals, all played): how the conformance suite
        (``tests/games/test_conformance.py``) plays the game at random.  Every game gives one."""
        raise NotImplementedError(f"{type(self).__name__} gives no random_action")

    def finishing_action(self, state: Any) -> Any:
        """The action that takes the game on to its end now, or None: no action now.

        What a table does when the players stop (the last round's score taken, the points
        turned into chips by an action of the game's own), pushed again and again until None,
        after which :meth:`close` settles the game as it stands.  None by default: a game whose
        :meth:`close` settles whatever is left (an unwon pool returned, a pot carried) needs no
        action to end.  The conformance suite plays every game to its end this way and checks
        its closing."""
        return None
