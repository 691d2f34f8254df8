"""A night as a pure fold: the players seated tonight and the games they play, in order.

The night knows no game by name: each game is a :class:`~companion.games.GameKind`
from the registry, set up by a :class:`GameSetup` (its kind, players, first
dealer, rules and any pot carried in), and folded by its own state.  The night's
balances are the sum of every game's closing balances (an unfinished game's pot
or pool dealt with by that game's rules); the service layer keeps one
:class:`NightPlay` per night and the night-file reader builds one the same way,
so the web app and ``flask replay`` cannot disagree.

Pure: no Flask, no database (``tests/test_layers.py``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from companion.games import GameClosing, GameKind, GameState, IllegalAction, game_kind, title_of
from companion.games.protocol import seat_order, validate_names

MIN_SEATED = 2
MAX_SEATED = 7
#: what a game taken back says where the night lists its games
TAKEN_BACK_NOTE = "Taken back: started by mistake, nothing recorded in it."

G = TypeVar("G")


def validate_seating(players: Sequence[str]) -> tuple[str, ...]:
    """The players seated tonight: 2 to 7 distinct names, clockwise."""
    return validate_names(players, MIN_SEATED, MAX_SEATED, "A night")


@dataclass(frozen=True)
class GameSetup:
    """How one game of the night starts, as stored and as a night file says it."""

    kind: str
    players: tuple[str, ...]
    first_dealer: str
    rules: Mapping[str, Any]  # the game's rules as a JSON object, every key filled in
    carried_in: Mapping[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "players": list(self.players),
            "first_dealer": self.first_dealer,
            "rules": dict(self.rules),
            "carried_in": dict(self.carried_in) if self.carried_in else None,
        }


def set_up_game(
    seated: Sequence[str],
    kind: object,
    players: Sequence[str] | None = None,
    first_dealer: str | None = None,
    rules: Mapping[str, Any] | None = None,
    carried_in: Mapping[str, int] | None = None,
) -> tuple[GameSetup, GameKind, Any, GameState]:
    """Check one game's setup against the seating; IllegalAction says what is wrong.

    ``players`` default to everyone seated (else a subset, put in seat order);
    ``first_dealer`` to the game's first player; ``rules`` to the game's defaults.
    Returns the setup as stored (names as seated, rules complete), the game, its
    parsed rules and a fresh state.
    """
    game = game_kind(kind)
    chosen = tuple(seated) if players is None else seat_order(seated, players)
    if not game.min_players <= len(chosen) <= game.max_players:
        raise IllegalAction(
            f"{game.title} needs {game.min_players} to {game.max_players} players, not {len(chosen)}"
        )
    parsed = game.rules_from_dict(rules or {})
    state = game.new_state(chosen, first_dealer, parsed, carried_in)
    setup = GameSetup(
        kind=game.kind,
        players=tuple(state.players),
        first_dealer=state.first_dealer,
        rules=game.rules_to_dict(parsed),
        carried_in=dict(state.carried_in) or None,
    )
    return setup, game, parsed, state


def nothing_recorded(game: GameKind, state: GameState, closing: GameClosing) -> bool:
    """Whether nothing is recorded in a game of the night: no action of its own counts (an undone one and its
    undo do not, as for taking a game back), it started with no pot carried in, and its closing moves no chip.

    Such a game (a first game left for another before its first deal) is no game of the night: its report,
    its list of games and its group's season leave it out (issue 35); its start stays in the night's records
    (its history, its file).  The one definition: :meth:`PlayedGame.recorded` and :func:`of_the_night` read it.

    A game whose chips the app never sees (``records_chips`` False: poker with real betting, its pots settled
    by the chips on the table and counted at the bank) may have been played all night without a record of its
    own: nothing in its records says it was empty, so it always counts.
    """
    return (
        game.records_chips
        and not game.live_actions(state)
        and not state.carried_in
        and not any(closing.net.values())
        and not closing.carried_total
    )


def of_the_night(games: Sequence[G], recorded: Callable[[G], bool]) -> list[G]:
    """The games of a night that count as its games: those of ``games`` (played, in order) with something
    ``recorded`` in them; a night with nothing recorded in any game yet is its game at the table (the last).

    Generic over how a caller holds a game (a :class:`PlayedGame`, or the report's tuple of one), so that the
    night's report and what reads the night beside it (its titles, its charts) always agree."""
    counted = [g for g in games if recorded(g)]
    return counted or list(games[-1:])


@dataclass
class PlayedGame:
    """One game of the night and its fold."""

    number: int  # 1-based, in the order played
    setup: GameSetup
    game: GameKind
    rules: Any
    state: GameState
    #: started by mistake and taken back before anything was recorded in it (see NightPlay.take_back)
    taken_back: bool = False

    @property
    def title(self) -> str:
        return title_of(self.setup.kind, self.setup.rules)

    @property
    def recorded(self) -> bool:
        """Whether something recorded in this game counts (:func:`nothing_recorded`): else it is no game of the night."""
        return not self.taken_back and not nothing_recorded(self.game, self.state, self.close())

    def close(self) -> GameClosing:
        if self.taken_back:  # nothing was recorded in it: it moves no chip
            return GameClosing(net={name: 0 for name in self.setup.players}, note=TAKEN_BACK_NOTE)
        return self.game.close(self.state, self.rules)

    def stopping(self) -> str:
        """What stopping this game now does with its pot or pool, in numbers, as a sentence
        ("Napalm stops: Unfinished game: pot of 4 chips; … returned (Ann 1, …)"): said before
        the next game starts and again when it has (issue 20, item 6)."""
        note = self.close().note
        return f"{self.title} stops: {note}" if note else f"{self.title} stops with nothing left in its pot."


@dataclass
class NightPlay:
    """The fold of a night: its seating and its games, the last one at the table."""

    seated: tuple[str, ...]
    games: list[PlayedGame] = field(default_factory=list)

    @classmethod
    def begin(cls, seated: Sequence[str], first: GameSetup) -> NightPlay:
        night = cls(validate_seating(seated))
        night.start(first)
        return night

    @property
    def current(self) -> PlayedGame:
        """The game at the table: the last one started and not taken back."""
        return self.played()[-1]

    def played(self) -> list[PlayedGame]:
        """The night's games in order, less those taken back (started by mistake)."""
        return [played for played in self.games if not played.taken_back]

    def of_the_night(self) -> list[PlayedGame]:
        """The games of the night as its report and its group count them: the games played with something
        recorded in them (:func:`of_the_night`); a game started and left with nothing in it is none of them."""
        return of_the_night(self.played(), lambda played: played.recorded)

    def shown_number(self, number: int) -> int:
        """The number the night shows game ``number`` (as started) by: its place among the games
        played, a game taken back not counted ("Tonight's 2nd game" and "Game 2 of the night" agree).
        A game taken back keeps the number it was shown by while it was at the table."""
        return number - sum(1 for played in self.games[: number - 1] if played.taken_back)

    def verify_take_back(self, number: int) -> PlayedGame:
        """The game ``number`` as it would be taken back; IllegalAction when it cannot be.

        Only the game at the table, only when a game of the night is before it (the first
        game is changed on the setup screen before play), and only while nothing recorded in
        it counts (an undone record does not): taking it back then changes no chip, and the
        game before it is at the table again exactly as it was (issue 20, item 5).
        """
        current = self.current
        if number != current.number:
            raise IllegalAction("only the game at the table can be taken back (another game started since?)")
        if len(self.played()) < 2:
            raise IllegalAction("the night's first game cannot be taken back")
        if current.game.live_actions(current.state):
            raise IllegalAction(
                f"{current.title} has records: undo them first, then take the game back"
            )
        return current

    def take_back(self, number: int) -> PlayedGame:
        """Take back game ``number``, started by mistake: the game before it is at the table again."""
        played = self.verify_take_back(number)
        played.taken_back = True
        return played

    def verify_start(self, setup: GameSetup) -> PlayedGame:
        """The game ``setup`` would start next; IllegalAction when it cannot."""
        checked, game, rules, state = set_up_game(
            self.seated, setup.kind, setup.players, setup.first_dealer, setup.rules, setup.carried_in
        )
        return PlayedGame(len(self.games) + 1, checked, game, rules, state)

    def start(self, setup: GameSetup) -> PlayedGame:
        """Start the next game (the one before it is over or stopped: its closing applies)."""
        played = self.verify_start(setup)
        self.games.append(played)
        return played

    def game(self, number: int) -> PlayedGame:
        if not 1 <= number <= len(self.games):
            raise IllegalAction(f"this night has no game {number}")
        return self.games[number - 1]

    def action(self, number: int, kind: str, payload: Mapping[str, Any]) -> Any:
        """A stored event of game ``number`` as that game's action."""
        return self.game(number).game.from_event(kind, payload)

    def push(self, number: int, kind: str, payload: Mapping[str, Any], seq: int | None = None) -> Any:
        """Fold one stored event into game ``number``; returns the game's record.

        ``seq`` is the event's number in the night: the game's record is shown by it (one
        numbering for the whole night: issue 20, item 11).
        """
        played = self.game(number)
        return played.state.push(played.game.from_event(kind, payload), seq)

    def closings(self) -> list[GameClosing]:
        return [played.close() for played in self.games]

    def net(self, closings: Sequence[GameClosing] | None = None) -> dict[str, int]:
        """Each seated player's closing balance: the sum over every game of the night."""
        total = {name: 0 for name in self.seated}
        for closing in closings if closings is not None else self.closings():
            for name, chips in closing.net.items():
                total[name] += chips
        return total

    def carried(self, closings: Sequence[GameClosing] | None = None) -> dict[str, int]:
        """Chips set aside for the next night, by contributor in seat order (summed over the games)."""
        total = {name: 0 for name in self.seated}
        for closing in closings if closings is not None else self.closings():
            for name, chips in closing.carried.items():
                total[name] += chips
        return {name: chips for name, chips in total.items() if chips}

    def records_chip_by_chip(self) -> bool:
        """Whether the app records every chip of every game tonight (a game kind says otherwise with
        ``records_chips = False``: poker with real betting); only then can chip counts be checked
        player by player against the tally."""
        return all(played.game.records_chips for played in self.played())

    def left_in_pot(self, closings: Sequence[GameClosing] | None = None) -> dict[str, int]:
        """Per player: chips of theirs left in the middle for the next night, less chips of theirs the
        pot carried in from the night before held; what a carried pot changes in the stacks counted
        at the end of the night (only players for whom it changes something)."""
        change = self.carried(closings)
        carried_in = self.games[0].setup.carried_in if self.games else None
        for name, chips in (carried_in or {}).items():
            change[name] = change.get(name, 0) - chips
        return {name: change[name] for name in self.seated if change.get(name)}

    def snapshot(self) -> NightPlay:
        """A copy whose games' states can be read and verified while the original goes on growing.

        A state's records and positions are frozen, so copying its containers is
        enough (microseconds on a long night).
        """
        games = []
        for played in self.games:
            state = copy.copy(played.state)
            for name, value in vars(played.state).items():
                if isinstance(value, (list, dict, set)):
                    setattr(state, name, value.copy())
            games.append(PlayedGame(played.number, played.setup, played.game, played.rules, state, played.taken_back))
        return NightPlay(self.seated, games)
