"""Dealer's choice by dice: the Bonus Round's grid, its rolls and its bonus payments (RULES-POKER.md).

The group fills a grid of games: 36 cells for two six-sided dice of different
colours read in order (first die, then second: 2-5 is not 5-2), or 20 cells for
a 20-sided die; a game may fill several cells.  Before a deal the dealer rolls:
the app rolls with a cryptographic random source (``secrets.SystemRandom()``),
shows the cell's game, and the roll goes into the night's log (:meth:`Roll.to_dict`)
so anyone can check it later.  Tests pass a seeded ``random.Random`` instead.

Bonus payments are fixed amounts, each a set of balanced transfers:
*everyone pays the dealer N* (a bonus hit), *the dealer pays everyone N* (an
anti-bonus), and the **lucky number**: a player's number for the night;
whoever rolls it pays that player N, and when that player rolls it, everyone
pays them N.  A cell of the grid may be marked as a bonus, so the payments of a
roll are worked out from the app's own roll (:func:`payments_for_roll`).

Pure: no Flask, no database.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.games.protocol import IllegalAction, RecordError
from companion.games.fold import Transfer
from companion.games.protocol import and_
from companion.values.reading import unknown_key

DICE = {"2d6": 36, "d20": 20}
BONUS_KINDS = ("everyone_pays_dealer", "dealer_pays_everyone")
MAX_GAME_NAME = 40
MAX_BONUS_CHIPS = 1_000_000


class RandomSource(Protocol):
    """What a roll needs of a random source (``secrets.SystemRandom``, ``random.Random``)."""

    def randint(self, a: int, b: int) -> int: ...


def cell_label(dice: str, faces: Sequence[int]) -> str:
    """How players say a roll: "2-5" (first die, then second) or "17"."""
    return "-".join(str(f) for f in faces) if dice == "2d6" else str(faces[0])


def cell_index(dice: str, faces: Sequence[int]) -> int:
    """The 0-based cell of ``faces``: row = first die, column = second die; a d20's face − 1."""
    check_faces(dice, faces)
    if dice == "2d6":
        return (faces[0] - 1) * 6 + (faces[1] - 1)
    return faces[0] - 1


def check_faces(dice: str, faces: Sequence[int]) -> tuple[int, ...]:
    if dice not in DICE:
        raise IllegalAction(f"the dice are one of {', '.join(DICE)}")
    count, top = (2, 6) if dice == "2d6" else (1, 20)
    if (
        not isinstance(faces, (tuple, list))
        or len(faces) != count
        or any(isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= top for f in faces)
    ):
        shape = "two faces, each 1 to 6" if dice == "2d6" else "one face, 1 to 20"
        raise IllegalAction(f"a {dice} roll is {shape}")
    return tuple(faces)


def _from_label(dice: str, label: object) -> tuple[int, ...]:
    if not isinstance(label, str):
        raise IllegalAction("a cell is written like \"2-5\" (two dice) or \"17\" (a d20)")
    try:
        faces = tuple(int(part) for part in label.split("-"))
    except ValueError:
        raise IllegalAction(f"'{label[:10]}' is not a cell: write it like \"2-5\" or \"17\"") from None
    return check_faces(dice, faces)


@dataclass(frozen=True)
class Bonus:
    """A cell that is a bonus payment: ``kind`` one of :data:`BONUS_KINDS`, ``chips`` each."""

    kind: str
    chips: int


@dataclass(frozen=True)
class BonusGrid:
    """The group's grid: ``cells[i]`` is a game's name; ``bonuses`` maps a cell index to its payment."""

    dice: str
    cells: tuple[str, ...]
    bonuses: Mapping[int, Bonus] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.dice not in DICE:
            raise IllegalAction(f"the dice are one of {', '.join(DICE)}")
        if not isinstance(self.cells, tuple) or len(self.cells) != DICE[self.dice]:
            raise IllegalAction(f"a {self.dice} grid has {DICE[self.dice]} cells")
        for index, name in enumerate(self.cells):
            if not isinstance(name, str) or not name.strip() or len(name) > MAX_GAME_NAME:
                label = cell_label(self.dice, self._faces(index))
                raise IllegalAction(f"cell {label} needs a game's name of at most {MAX_GAME_NAME} characters")
        for index, bonus in self.bonuses.items():
            if not isinstance(index, int) or not 0 <= index < len(self.cells):
                raise IllegalAction("a bonus is on one of the grid's cells")
            label = cell_label(self.dice, self._faces(index))
            if bonus.kind not in BONUS_KINDS:
                raise IllegalAction(f"the bonus of cell {label} is one of {', '.join(BONUS_KINDS)}")
            if isinstance(bonus.chips, bool) or not isinstance(bonus.chips, int) or not 1 <= bonus.chips <= MAX_BONUS_CHIPS:
                raise IllegalAction(f"the bonus of cell {label} must be a whole number of chips, 1 or more")

    def _faces(self, index: int) -> tuple[int, ...]:
        return (index // 6 + 1, index % 6 + 1) if self.dice == "2d6" else (index + 1,)

    def game_at(self, faces: Sequence[int]) -> str:
        return self.cells[cell_index(self.dice, faces)]

    def bonus_at(self, faces: Sequence[int]) -> Bonus | None:
        return self.bonuses.get(cell_index(self.dice, faces))

    def to_dict(self) -> dict[str, Any]:
        """The grid as JSON: a 6×6 list of rows (first die) for two dice, a list of 20 for a d20."""
        cells: list[Any] = list(self.cells)
        if self.dice == "2d6":
            cells = [cells[r * 6 : r * 6 + 6] for r in range(6)]
        bonuses = {
            cell_label(self.dice, self._faces(i)): {"kind": b.kind, "chips": b.chips}
            for i, b in sorted(self.bonuses.items())
        }
        return {"dice": self.dice, "cells": cells, "bonuses": bonuses}

    @classmethod
    def from_dict(cls, raw: Any) -> BonusGrid:
        """A grid from JSON, strictly: the cell at fault is named ("cells[2][4] (3-5)")."""
        if not isinstance(raw, Mapping):
            raise IllegalAction("the grid must be an object")
        if (unknown := unknown_key(raw, {"dice", "cells", "bonuses"})) is not None:
            raise IllegalAction(f"unknown key '{unknown}' in the grid")
        dice = raw.get("dice")
        if dice not in DICE:
            raise IllegalAction(f"'dice' must be one of {', '.join(DICE)}")
        rows = raw.get("cells")
        if dice == "2d6":
            if not isinstance(rows, list) or len(rows) != 6 or not all(isinstance(r, list) and len(r) == 6 for r in rows):
                raise IllegalAction("'cells' must be 6 rows of 6 games (row: first die, column: second die)")
            flat = [(f"'cells'[{r}][{c}] ({r + 1}-{c + 1})", rows[r][c]) for r in range(6) for c in range(6)]
        else:
            if not isinstance(rows, list) or len(rows) != 20:
                raise IllegalAction("'cells' must be a list of 20 games (faces 1 to 20)")
            flat = [(f"'cells'[{i}] ({i + 1})", rows[i]) for i in range(20)]
        for where, name in flat:
            if not isinstance(name, str) or not name.strip() or len(name) > MAX_GAME_NAME:
                raise IllegalAction(f"{where} must be a game's name of at most {MAX_GAME_NAME} characters")
        bonuses_raw = raw.get("bonuses", {})
        if not isinstance(bonuses_raw, Mapping):
            raise IllegalAction("'bonuses' must map a cell such as \"1-1\" to its payment")
        bonuses: dict[int, Bonus] = {}
        for label, spec in bonuses_raw.items():
            where = f"'bonuses'.'{str(label)[:10]}'"
            try:
                index = cell_index(dice, _from_label(dice, label))
            except IllegalAction as error:
                raise IllegalAction(f"{where}: {error}") from None
            if not isinstance(spec, Mapping) or set(spec) != {"kind", "chips"}:
                raise IllegalAction(f"{where} must be {{\"kind\": …, \"chips\": …}}")
            try:
                bonuses[index] = Bonus(spec["kind"], spec["chips"])
                cls(dice, tuple(n.strip() for _, n in flat), {index: bonuses[index]})
            except IllegalAction as error:
                raise IllegalAction(f"{where}: {error}") from None
        return cls(dice, tuple(n.strip() for _, n in flat), bonuses)


@dataclass(frozen=True)
class Roll:
    """One roll of the Bonus Round: who rolled, the faces in order, and the game it gave."""

    dice: str
    faces: tuple[int, ...]
    game: str
    roller: str
    #: players the roll's payments leave out: cashed out of the night's bank, so their chips are
    #: counted and may no longer move (a roll after they left the table)
    left_out: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return cell_label(self.dice, self.faces)

    def to_dict(self) -> dict[str, Any]:
        """As the night's log keeps it, so anyone can check the game against the grid later."""
        out: dict[str, Any] = {"dice": self.dice, "faces": list(self.faces), "game": self.game, "roller": self.roller}
        if self.left_out:
            out["left_out"] = list(self.left_out)
        return out


def roll(grid: BonusGrid, roller: str, rng: RandomSource | None = None) -> Roll:
    """Roll the grid's dice (first die first) with ``rng``, by default ``secrets.SystemRandom()``."""
    source: RandomSource = rng if rng is not None else secrets.SystemRandom()
    if grid.dice == "2d6":
        faces: tuple[int, ...] = (source.randint(1, 6), source.randint(1, 6))
    else:
        faces = (source.randint(1, 20),)
    check_faces(grid.dice, faces)
    return Roll(grid.dice, faces, grid.game_at(faces), roller)


# --- bonus payments ------------------------------------------------------------------


def _seated(players: Sequence[str], name: str, role: str) -> str:
    if name not in players:
        raise IllegalAction(f"{role} '{str(name)[:40]}' is not seated tonight")
    return name


def _n(chips: object) -> int:
    if isinstance(chips, bool) or not isinstance(chips, int) or not 1 <= chips <= MAX_BONUS_CHIPS:
        raise IllegalAction(f"a bonus payment must be a whole number of chips, 1 to {MAX_BONUS_CHIPS:,}")
    return chips


def everyone_pays_dealer(players: Sequence[str], dealer: str, chips: int) -> tuple[Transfer, ...]:
    """A bonus hit: every other player pays the dealer ``chips``."""
    _seated(players, dealer, "the dealer")
    n = _n(chips)
    return tuple(Transfer(p, dealer, n, "bonus") for p in players if p != dealer)


def dealer_pays_everyone(players: Sequence[str], dealer: str, chips: int) -> tuple[Transfer, ...]:
    """An anti-bonus: the dealer pays every other player ``chips``."""
    _seated(players, dealer, "the dealer")
    n = _n(chips)
    return tuple(Transfer(dealer, p, n, "anti-bonus") for p in players if p != dealer)


def lucky_payments(
    players: Sequence[str], lucky: Mapping[str, Sequence[int]], roll_: Roll, chips: int
) -> tuple[Transfer, ...]:
    """The lucky numbers a roll hits: whoever rolls a player's number pays that player ``chips``;
    that player rolling it, everyone else pays them ``chips``.  Several owners of one number are
    each paid (so an owner rolling it is paid by all, and pays each other owner)."""
    roller = _seated(players, roll_.roller, "the roller")
    n = _n(chips)
    transfers: list[Transfer] = []
    for owner in players:
        number = lucky.get(owner)
        if number is None or tuple(number) != roll_.faces:
            continue
        if owner == roller:
            transfers.extend(Transfer(p, owner, n, "lucky number") for p in players if p != owner)
        else:
            transfers.append(Transfer(roller, owner, n, "lucky number"))
    return tuple(transfers)


def payments_for_roll(
    grid: BonusGrid,
    roll_: Roll,
    players: Sequence[str],
    lucky: Mapping[str, Sequence[int]] | None = None,
    lucky_chips: int = 1,
) -> tuple[Transfer, ...]:
    """Everything a roll of the app's own pays, recorded automatically: the cell's bonus (the roller
    deals) and the lucky numbers it hits."""
    if roll_.dice != grid.dice or grid.game_at(roll_.faces) != roll_.game:
        raise IllegalAction(f"the roll {roll_.label} ({roll_.game}) is not one of this grid's cells")
    for name in roll_.left_out:
        _seated(players, name, "a player left out")
    if roll_.roller in roll_.left_out:
        raise IllegalAction(f"{roll_.roller} has cashed out, so cannot roll")
    # "everyone" is everyone still at the table: a player left out pays and receives nothing
    at_table = [p for p in players if p not in roll_.left_out]
    transfers: list[Transfer] = []
    bonus = grid.bonus_at(roll_.faces)
    if bonus is not None:
        pay = everyone_pays_dealer if bonus.kind == "everyone_pays_dealer" else dealer_pays_everyone
        transfers.extend(pay(at_table, roll_.roller, bonus.chips))
    if lucky:
        for owner, number in lucky.items():
            _seated(players, owner, "a lucky number's owner")
            check_faces(grid.dice, tuple(number))
        here = {owner: number for owner, number in lucky.items() if owner in at_table}
        transfers.extend(lucky_payments(at_table, here, roll_, lucky_chips))
    return tuple(transfers)


def net_of(transfers: Sequence[Transfer]) -> dict[str, int]:
    """Each player's net chips from ``transfers`` (they sum to zero: every transfer has a payee)."""
    net: dict[str, int] = {}
    for t in transfers:
        assert t.payer is not None and t.payee is not None
        net[t.payer] = net.get(t.payer, 0) - t.chips
        net[t.payee] = net.get(t.payee, 0) + t.chips
    return net


# --- the Bonus Round's log: rolls and lucky numbers, their payments recorded automatically ---------


@dataclass(frozen=True)
class SetLucky:
    """``player``'s lucky number for the rest of the night (the result of the dealer's roll)."""

    player: str
    faces: tuple[int, ...]


@dataclass(frozen=True)
class BonusRecord:
    """One line of the Bonus Round's log: a roll (with what it paid) or a lucky number set."""

    seq: int
    action: Roll | SetLucky
    transfers: tuple[Transfer, ...]
    summary: str


class BonusRound:
    """A night's Bonus Round: the grid, the lucky numbers, and an append-only log of the app's rolls.

    Every roll is recorded with the payments it makes (the cell's bonus, the lucky numbers it
    hits), so the night's balances count them and anyone can check the game against the grid.
    A roll is never undone: the app rolled it, and a re-roll would be a second roll.
    """

    def __init__(self, players: Sequence[str], grid: BonusGrid, lucky_chips: int = 1) -> None:
        if isinstance(players, str) or len(players) < 2 or len(set(players)) != len(players):
            raise IllegalAction("the Bonus Round needs two or more distinct players")
        self.players: tuple[str, ...] = tuple(players)
        self.grid = grid
        self.lucky_chips = _n(lucky_chips)
        self._lucky: dict[str, tuple[int, ...]] = {}
        self._log: list[BonusRecord] = []
        self._net = {name: 0 for name in self.players}

    @property
    def log(self) -> tuple[BonusRecord, ...]:
        return tuple(self._log)

    @property
    def lucky(self) -> dict[str, tuple[int, ...]]:
        return dict(self._lucky)

    @property
    def net_chips(self) -> dict[str, int]:
        return dict(self._net)

    def verify(self, action: Roll | SetLucky) -> tuple[tuple[Transfer, ...], str]:
        """The payments and summary of ``action``, or IllegalAction (nothing changes)."""
        if isinstance(action, SetLucky):
            _seated(self.players, action.player, "the lucky number's owner")
            faces = check_faces(self.grid.dice, action.faces)
            return (), f"{action.player}'s lucky number is {cell_label(self.grid.dice, faces)}."
        if not isinstance(action, Roll):
            raise IllegalAction(f"unknown Bonus Round action {action!r}")
        _seated(self.players, action.roller, "the roller")
        transfers = payments_for_roll(self.grid, action, self.players, self._lucky, self.lucky_chips)
        summary = f"{action.roller} rolled {action.label}: {action.game}."
        bonus = self.grid.bonus_at(action.faces)
        if bonus is not None:
            if bonus.kind == "everyone_pays_dealer":
                summary += f" Bonus: everyone pays {action.roller} {bonus.chips}."
            else:
                summary += f" Anti-bonus: {action.roller} pays everyone {bonus.chips}."
        for owner, number in self._lucky.items():
            if number == action.faces and owner not in action.left_out:
                if owner == action.roller:
                    summary += f" {owner} rolled their own lucky number: everyone pays {owner} {self.lucky_chips}."
                else:
                    summary += f" {owner}'s lucky number: {action.roller} pays {owner} {self.lucky_chips}."
        if action.left_out:
            summary += f" Left out of its payments, cashed out: {and_(action.left_out)}."
        return transfers, summary

    def push(self, action: Roll | SetLucky) -> BonusRecord:
        transfers, summary = self.verify(action)
        if isinstance(action, SetLucky):
            self._lucky[action.player] = tuple(action.faces)
        for t in transfers:
            assert t.payer is not None and t.payee is not None
            self._net[t.payer] -= t.chips
            self._net[t.payee] += t.chips
        record = BonusRecord(len(self._log) + 1, action, transfers, summary)
        self._log.append(record)
        return record

    def roll(self, roller: str, rng: RandomSource | None = None) -> BonusRecord:
        """The app rolls for ``roller`` (``secrets`` unless a source is given) and records it."""
        _seated(self.players, roller, "the roller")
        return self.push(roll(self.grid, roller, rng))

    def to_list(self) -> list[dict[str, Any]]:
        """The log as a night file keeps it: ``{"roller", "faces", "game"}`` or ``{"lucky", "faces"}``."""
        out: list[dict[str, Any]] = []
        for record in self._log:
            action = record.action
            if isinstance(action, SetLucky):
                out.append({"lucky": action.player, "faces": list(action.faces)})
            else:
                entry: dict[str, Any] = {"roller": action.roller, "faces": list(action.faces), "game": action.game}
                if action.left_out:
                    entry["left_out"] = list(action.left_out)
                out.append(entry)
        return out

    def read_list(self, entries: Any) -> None:
        """Replay a file's rolls strictly; RecordError names the entry's index and the field."""
        if not isinstance(entries, list):
            raise RecordError("'rolls' must be a list", None)
        for index, entry in enumerate(entries):
            try:
                self.push(_entry(self.grid, entry))
            except IllegalAction as error:
                raise RecordError(f"rolls[{index}]: {error}", index) from None


def read_entry(grid: BonusGrid, entry: Any) -> Roll | SetLucky:
    """One entry of a file's ``rolls`` as an action, checked against the grid (IllegalAction names the field)."""
    return _entry(grid, entry)


def _entry(grid: BonusGrid, entry: Any) -> Roll | SetLucky:
    if not isinstance(entry, dict):
        raise IllegalAction("each roll must be an object")
    keys = {"lucky", "faces"} if "lucky" in entry else {"roller", "faces", "game", "left_out"}
    if (unknown := unknown_key(entry, keys)) is not None:
        raise IllegalAction(f"unknown key '{unknown}'")
    faces = entry.get("faces")
    if not isinstance(faces, list):
        raise IllegalAction("'faces' must be a list of the dice's faces, first die first")
    try:
        faces_t = check_faces(grid.dice, faces)
    except IllegalAction as error:
        raise IllegalAction(f"'faces': {error}") from None
    if "lucky" in entry:
        if not isinstance(entry["lucky"], str):
            raise IllegalAction("'lucky' must be a player's name")
        return SetLucky(entry["lucky"], faces_t)
    roller, game = entry.get("roller"), entry.get("game")
    if not isinstance(roller, str):
        raise IllegalAction("'roller' must be a player's name")
    left_out = left_out_of(entry.get("left_out", []))
    if game != grid.game_at(faces_t):
        raise IllegalAction(
            f"'game': the grid's cell {cell_label(grid.dice, faces_t)} is {grid.game_at(faces_t)!r}, not {str(game)[:40]!r}"
        )
    return Roll(grid.dice, faces_t, game, roller, left_out)


def left_out_of(raw: Any) -> tuple[str, ...]:
    """A roll's ``left_out`` as stored: a list of players' names (IllegalAction otherwise)."""
    if not isinstance(raw, list) or not all(isinstance(name, str) for name in raw) or len(set(raw)) != len(raw):
        raise IllegalAction("'left_out' must be a list of the players cashed out before the roll")
    return tuple(raw)
