"""The night file: a night of several games as JSON (``companion-night/2``), and older formats read as one.

The format is documented in ``docs/night-file.md``; this module is its one reader
and writer.  Each game's records are read and written by that game
(:meth:`~companion.games.GameKind.read_records`), so this module knows no game by
name.  A game may also read an older file format of its own that holds one game of
it as a whole night (it declares the formats in ``legacy_formats`` and reads them
with ``read_legacy``: Napalm's ``napalm-hand-history/1``): such a file is a night
with that one game (:attr:`NightFile.legacy` keeps what the game read, so ``flask
replay`` prints exactly what it always printed for one).

Reading is strict: every key known, every value of the type the format says, and a
wrong entry reported with the game, record and field
("games[1] (napalm): stages[4] (game 1, hand 2, stage 2): …").  Pure.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from companion.games import GAMES, GameKind, GameState, IllegalAction, RecordError
from companion.money.amounts import money_from_file
from companion.money.settle import Payment, settle_up
from companion.night import ledger as night_ledger
from companion.night import paid as night_paid
from companion.night.play import GameSetup, NightPlay, set_up_game, validate_seating
from companion.values import limits
from companion.values.reading import Unreadable, json_document, phone_name, shown, unknown_key

FORMAT = "companion-night/2"
_TOP_KEYS = {"format", "name", "players", "money", "games", *night_ledger.FILE_KEYS, night_paid.FILE_KEY}
_MONEY_KEYS = {"chip_value", "currency"}
MAX_CHIP_VALUE = limits.MAX_CHIP_VALUE
_GAME_KEYS = {"game", "players", "first_dealer", "rules", "carried_in", "taken_back", "recorded_by"}
#: a key of a game's ``recorded_by``: the index of a record in the game's list, in decimal, as JSON writes it
_RECORD_INDEX = re.compile(r"0|[1-9][0-9]*")
#: A file larger than this is refused before it is parsed (a 12-hour night is ~100 KB).
MAX_BYTES = 2_000_000
#: Nesting deeper than this is refused: no format the app reads is deeper than eight levels.
MAX_DEPTH = 8


class NightFileError(RecordError):
    """A night file that cannot be read; the message says where it is wrong."""


@dataclass(frozen=True)
class Money:
    chip_value: Decimal = Decimal("0")
    currency: str = ""


class LegacyFile(Protocol):
    """What a game's reader of an older format of its own gives (its ``read_legacy``): one game as a night."""

    name: str | None

    @property
    def state(self) -> GameState: ...

    @property
    def rules(self) -> Mapping[str, Any]: ...  # the game's rules as a JSON object, as a night stores them

    @property
    def chip_value(self) -> Decimal: ...

    @property
    def currency(self) -> str: ...

    @property
    def carried_in(self) -> Mapping[str, int]: ...  # a pot carried in from a previous night ({}: none)

    def replay_summary(self) -> dict[str, Any]: ...  # what ``flask replay`` prints for such a file


@dataclass(frozen=True)
class NightFile:
    """A read night file: its name, seating, money and the fold of its games."""

    name: str | None
    play: NightPlay
    money: Money
    #: what the game read, when the file was one of a game's older formats (``napalm-hand-history/1``)
    legacy: LegacyFile | None = None
    #: the night's ledger events (the bank, the Bonus Round: companion.night.ledger), in order
    ledger_events: tuple[tuple[str, dict[str, Any]], ...] = ()
    #: the settle-up payments marked paid (companion.night.paid), in the order recorded
    paid: tuple[Payment, ...] = ()
    #: which phone recorded each game's records, by the game's place in ``play.games``: the index of a record
    #: in the game's list → the keeper phone's name, for the records not made by the first phone (none: {})
    recorded_by: tuple[Mapping[int, str], ...] = ()

    @property
    def players(self) -> tuple[str, ...]:
        return self.play.seated


def decode(text: str | bytes) -> Any:
    """A file's JSON, refused before anything is replayed when it is too large, malformed or too deep."""
    try:
        return json_document(text, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH, what="a night file")
    except Unreadable as error:
        raise NightFileError(str(error)) from None


def legacy_formats() -> dict[str, GameKind]:
    """Every older format a registered game reads as a night of one game of it, and that game."""
    # declared only by the games that have an older format of their own
    return {fmt: game for game in GAMES.values() for fmt in game.legacy_formats}


def loads(text: str | bytes) -> NightFile:
    """Read a night file (v2, or a game's older format) and replay every game in it."""
    data = decode(text)
    game = legacy_formats().get(data.get("format")) if isinstance(data, dict) else None
    if game is not None:
        return from_legacy(game, game.read_legacy(data))
    return from_dict(data)


def from_legacy(game: GameKind, old: LegacyFile) -> NightFile:
    """A file of ``game``'s older format, as the game read it: a night with that one game."""
    state = old.state
    setup = GameSetup(game.kind, state.players, state.first_dealer, dict(old.rules), dict(old.carried_in) or None)
    play = NightPlay(state.players)
    played = play.verify_start(setup)
    played.state = state
    played.rules = game.rules_from_dict(old.rules)
    play.games.append(played)
    return NightFile(old.name, play, Money(old.chip_value, old.currency), old)


def from_dict(data: Any) -> NightFile:
    if not isinstance(data, dict):
        raise NightFileError("the file must hold one JSON object")
    if (unknown := unknown_key(data, _TOP_KEYS)) is not None:
        raise NightFileError(f"unknown key '{unknown}' at the top level")
    if data.get("format") != FORMAT:
        older = "".join(f" or \"{fmt}\"" for fmt in sorted(legacy_formats()))
        raise NightFileError(f"'format' must be \"{FORMAT}\"{older}")
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise NightFileError("'name' must be text")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise NightFileError("'players' must be a list of names, in seating order")
    try:
        seated = validate_seating(players)
    except IllegalAction as error:
        raise NightFileError(f"'players': {error}") from None
    money = _money(data.get("money", {}))
    # the checks a night's row needs, the same for /import and flask replay (companion.values.limits)
    problem = limits.night_fields_problem(name or "", list(seated), money.currency, money.chip_value)
    if problem is None and limits.unstorable(data):
        problem = limits.unstorable_message("the file")
    if problem is not None:
        raise NightFileError(problem)
    games = data.get("games")
    if not isinstance(games, list) or not games:
        raise NightFileError("'games' must be a list of the night's games, in the order played (at least one)")
    play = NightPlay(seated)
    recorded_by = tuple(_play_game(play, index, entry) for index, entry in enumerate(games))
    try:
        _, ledger_events = night_ledger.read_file_keys(
            data, seated, money.chip_value, money.currency, play.records_chip_by_chip()
        )
        paid = night_paid.read_file_entries(data[night_paid.FILE_KEY], play.seated) if night_paid.FILE_KEY in data else ()
    except IllegalAction as error:
        raise NightFileError(str(error)) from None
    taken_back = sum(1 for p in play.games if p.taken_back)
    records = (sum(len(p.game.live_actions(p.state)) for p in play.games) + len(play.games) - 1 + taken_back
               + len(ledger_events) + len(paid))
    if records > limits.MAX_RECORDS:
        raise NightFileError(f"the file's games make {records:,} records; a night holds at most {limits.MAX_RECORDS:,}")
    return NightFile(name, play, money, ledger_events=tuple(ledger_events), paid=paid,
                     recorded_by=recorded_by if any(recorded_by) else ())


def _money(raw: Any) -> Money:
    if not isinstance(raw, dict):
        raise NightFileError("'money' must be an object such as {\"chip_value\": \"0.25\", \"currency\": \"EUR\"}")
    if (unknown := unknown_key(raw, _MONEY_KEYS)) is not None:
        raise NightFileError(f"money: unknown key '{unknown}'")
    try:
        chip_value, currency = money_from_file(raw)
    except ValueError as error:
        raise NightFileError(f"money: {error}") from None
    if chip_value > MAX_CHIP_VALUE:
        raise NightFileError(f"money: 'chip_value' must be at most {MAX_CHIP_VALUE:,} (what the database stores)")
    return Money(chip_value, currency)


def _play_game(play: NightPlay, index: int, entry: Any) -> dict[int, str]:
    """Start and replay one game of the file; which phone recorded its records (``recorded_by``, read)."""
    where = f"games[{index}]"
    if not isinstance(entry, dict):
        raise NightFileError(f"{where}: each game must be an object")
    kind = entry.get("game")
    if not isinstance(kind, str) or kind not in GAMES:
        raise NightFileError(f"{where}: 'game' must be one of {', '.join(sorted(GAMES))}")
    game = GAMES[kind]
    where = f"{where} ({kind})"
    if (unknown := unknown_key(entry, _GAME_KEYS | {game.records_key})) is not None:
        raise NightFileError(f"{where}: unknown key '{unknown}'")
    players = entry.get("players")
    if players is not None and (not isinstance(players, list) or not all(isinstance(p, str) for p in players)):
        raise NightFileError(f"{where}: 'players' must be a list of names, in seat order")
    first_dealer = entry.get("first_dealer")
    if first_dealer is not None and not isinstance(first_dealer, str):
        raise NightFileError(f"{where}: 'first_dealer' must be a player's name")
    rules = entry.get("rules", {})
    if not isinstance(rules, dict):
        raise NightFileError(f"{where}: 'rules' must be an object")
    carried_in = _carried_in(where, entry.get("carried_in"))
    if players is not None:
        out_of_order = [p for p in players if p not in play.seated]
        if not out_of_order and list(players) != [p for p in play.seated if p in players]:
            raise NightFileError(f"{where}: 'players' must be listed in seat order")
    try:
        setup, *_ = set_up_game(play.seated, kind, players, first_dealer, rules, carried_in)
        played = play.start(setup)
    except IllegalAction as error:
        raise NightFileError(f"{where}: {error}") from None
    try:
        game.read_records(played.state, entry.get(game.records_key, []))
    except (RecordError, IllegalAction) as error:
        raise NightFileError(f"{where}: {error}") from None
    if "taken_back" in entry:  # started by mistake and taken back (docs/night-file.md)
        if entry["taken_back"] is not True:
            raise NightFileError(f"{where}: 'taken_back' must be true, or left out")
        try:
            play.take_back(played.number)
        except IllegalAction as error:
            raise NightFileError(f"{where}: 'taken_back': {error}") from None
    records = entry.get(game.records_key, [])
    return _recorded_by(where, game.records_key, len(records) if isinstance(records, list) else 0,
                        entry.get("recorded_by", {}))


def _recorded_by(where: str, records_key: str, count: int, raw: Any) -> dict[int, str]:
    """A game's ``recorded_by``: ``{"<index of a record in its list>": "<a keeper phone's name>"}``, read.

    Each key is the decimal index (``"0"``, ``"12"``: no sign, no leading zero, no other script's digits)
    of a record the game's list holds; each name is read by the one reader of a phone's name, as the share
    page reads it.  A key written twice is refused by the JSON reader already (``json_document``), and one
    index has one spelling, so no record is named twice.
    """
    if not isinstance(raw, dict):
        raise NightFileError(
            f"{where}: 'recorded_by' must be an object naming the phone of a record by its index, "
            "such as {\"0\": \"Ben's phone\"}"
        )
    read: dict[int, str] = {}
    for key, value in raw.items():
        said = shown(str(key), 12)  # as a message may quote it: short, nothing invisible
        if not isinstance(key, str) or not _RECORD_INDEX.fullmatch(key):
            raise NightFileError(
                f"{where}: 'recorded_by': the key '{said}' is no record's index: write the index of a record "
                f"in '{records_key}' in decimal digits, \"0\" for the first"
            )
        if len(key) > 9 or int(key) >= count:  # more digits than any list holds records: int() never reads them
            holds = f"0 to {count - 1}" if count else "none"
            raise NightFileError(
                f"{where}: 'recorded_by': '{said}': '{records_key}' has no record {said} (its records: {holds})"
            )
        try:
            read[int(key)] = phone_name(value, "the phone's name")
        except Unreadable as error:
            raise NightFileError(f"{where}: 'recorded_by': '{key}': {error}") from None
    return read


def _carried_in(where: str, raw: Any) -> dict[str, int] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise NightFileError(f"{where}: 'carried_in' must map each contributor to their chips, e.g. {{\"Ann\": 2}}")
    for name, chips in raw.items():
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 1:
            raise NightFileError(f"{where}: 'carried_in': {name[:30]}'s chips must be a whole number, 1 or more")
    return raw or None


# --- writing -------------------------------------------------------------------------


def to_dict(
    name: str | None, play: NightPlay, money: Money, ledger: night_ledger.NightLedger | None = None,
    records: list[Any] | None = None, paid: Sequence[Payment] = (), recorded_by: Sequence[Mapping[int, str]] = (),
) -> dict[str, Any]:
    """A night as a ``companion-night/2`` document (each game's live records; undone ones left out).

    ``recorded_by``: by the game's place in the night, the index of a record in its list → the phone that
    recorded it (:func:`records_recorded_by`), written under the game's ``recorded_by`` when it names any.

    ``records``, when given, stands in for each game's records, in the order of the night's games
    (what :mod:`companion.night.file_text` writes in their place).  ``paid``: the settle-up payments
    marked paid, in the order recorded (written only when there are some).
    """
    document: dict[str, Any] = {"format": FORMAT}
    if name:
        document["name"] = name
    document["players"] = list(play.seated)
    if money != Money():
        document["money"] = {"chip_value": f"{money.chip_value.normalize():f}", "currency": money.currency}
    games = []
    for played in play.games:
        setup = played.setup
        entry: dict[str, Any] = {
            "game": setup.kind,
            "players": list(setup.players),
            "first_dealer": setup.first_dealer,
            "rules": dict(setup.rules),
        }
        if setup.carried_in:
            entry["carried_in"] = dict(setup.carried_in)
        entry[played.game.records_key] = (
            played.game.write_records(played.state) if records is None else records[played.number - 1]
        )
        phones = recorded_by[played.number - 1] if played.number <= len(recorded_by) else {}
        if phones:
            entry["recorded_by"] = {str(index): phones[index] for index in sorted(phones)}
        if played.taken_back:
            entry["taken_back"] = True
        games.append(entry)
    document["games"] = games
    if ledger is not None:
        document.update(night_ledger.file_keys(ledger))
    if paid:
        document[night_paid.FILE_KEY] = night_paid.file_entries(paid)
    return document


def dumps(
    name: str | None, play: NightPlay, money: Money, ledger: night_ledger.NightLedger | None = None,
    paid: Sequence[Payment] = (), phones: Mapping[int, str] | None = None,
) -> str:
    """The night file's text; ``phones``: the keeper phone of each record its number names (:func:`recorded_by_of`)."""
    recorded_by = recorded_by_of(play, phones) if phones else ()
    return json.dumps(
        to_dict(name, play, money, ledger, paid=paid, recorded_by=recorded_by), indent=2, ensure_ascii=False
    ) + "\n"


# --- which phone recorded each record -----------------------------------------------------


def records_recorded_by(played: Any, starts: Sequence[int], phones: Mapping[int, str]) -> dict[int, str]:
    """Which keeper phone recorded each of ``played``'s file records: their index in its list → the phone's name.

    ``starts``: the live record each file record begins at (what ``write_records_from`` gives); ``phones``:
    a record's number in the night (its event's) → the name of the keeper phone that recorded it, for those
    the first phone did not (nor an import).  A file record made of several taps (a Napalm stage: who said
    Yes, who challenged, who won) is said to be recorded by the phone of its first tap: the one that began
    it, which no later tap changes (docs/night-file.md, "Which phone recorded each record").
    """
    if not phones or not starts:
        return {}
    state = played.state
    live = state.live_records()
    out: dict[int, str] = {}
    for index, start in enumerate(starts):
        phone = phones.get(state.number_of(live[start].seq))
        if phone is not None:
            out[index] = phone
    return out


def recorded_by_of(play: NightPlay, phones: Mapping[int, str]) -> tuple[dict[int, str], ...]:
    """Each game's :func:`records_recorded_by`, in the order of the night's games."""
    return tuple(
        records_recorded_by(p, [start for start, _ in p.game.write_records_from(p.state, 0)], phones)
        if phones else {}
        for p in play.games
    )


def action_phones(played: Any, recorded_by: Mapping[int, str]) -> list[str | None]:
    """For each live action of ``played`` (what an import stores, in order), the phone its file record names
    (``recorded_by``: a record's index in the game's list → a phone), or None: every tap of a record takes
    the record's phone."""
    actions = played.game.live_actions(played.state)
    if not recorded_by:
        return [None] * len(actions)
    starts = [start for start, _ in played.game.write_records_from(played.state, 0)]
    return [recorded_by.get(bisect.bisect_right(starts, index) - 1) for index in range(len(actions))]


# --- replay --------------------------------------------------------------------------


def replay_summary(night: NightFile) -> dict[str, Any]:
    """What ``flask replay`` prints for a v2 file: balances, each game, and the fewest payments.

    ``net_chips`` are closing balances: an unfinished game's pot or pool is dealt
    with by its rules, and chips carried to the next night are listed under
    ``carried``, not in the balances.  The night's balances are the sum over its games.
    A file with payments marked paid (``paid``) says of each payment whether one of them marks it
    (``"paid": true``, as the report marks its lines) and lists them all under ``paid``.
    """
    play = night.play
    closings = play.closings()
    net = play.net(closings)
    games = []
    for played, closing in zip(play.games, closings):
        entry: dict[str, Any] = {"game": played.setup.kind, "net_chips": closing.net}
        if played.taken_back:
            entry["taken_back"] = True
        entry.update(played.game.replay_extras(played.state))
        if closing.carried:
            entry["carried"] = closing.carried
        if closing.note:
            entry["note"] = closing.note
        games.append(entry)
    summary: dict[str, Any] = {
        "players": {name: {"net_chips": chips} for name, chips in net.items()},
        "games": games,
    }
    carried = play.carried(closings)
    if carried:
        summary["carried"] = carried
    balances: dict[str, int] | None = net
    # the bank and the Bonus Round: the balances they make, None until the bank balances (a night
    # with Poker with real betting settles on the counts even before anyone bought in)
    if night.ledger_events or not play.records_chip_by_chip():
        balances = night_ledger.replay_extras(
            night.ledger_events, play.seated, net, summary, play.records_chip_by_chip(), play.left_in_pot(closings)
        )
    plan = [] if balances is None else settle_up(balances)
    summary["payments"] = [{"from": p.payer, "to": p.payee, "chips": p.chips} for p in plan]
    if night.paid:  # which of them are paid already, and every payment marked paid (as the report marks them)
        for entry, done in zip(summary["payments"], night_paid.marked(plan, night.paid)):
            entry["paid"] = done
        summary["paid"] = [{"from": p.payer, "to": p.payee, "chips": p.chips} for p in night.paid]
    return summary

