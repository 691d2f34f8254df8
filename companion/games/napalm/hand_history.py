"""The hand-history file: a night of Napalm as JSON (``napalm-hand-history/1``).

The format is documented in ``docs/hand-history.md``; this module is its one
reader and writer.  Reading is strict: every key is known, every value has the
type the format says, and a wrong entry is reported with where it is
("stages[4] (game 1, hand 2, stage 2): …"), so a person can fix the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from companion.money.amounts import money_from_file
from companion.money.settle import settle_up
from companion.values import limits
from companion.values.reading import Unreadable, json_document, unknown_key

from ..protocol import RecordError
from .closing import close_night
from .table import (
    Challenge,
    Declare,
    IllegalAction,
    Phase,
    Rules,
    Showdown,
    Table,
    UNFINISHED_POT_CHOICES,
)

FORMAT = "napalm-hand-history/1"

#: A file larger than this is refused before it is parsed (a 12-hour night is ~100 KB).
MAX_BYTES = 2_000_000
#: Nesting deeper than this is refused: the format itself is three levels deep.
MAX_DEPTH = 8


_RULE_KEYS = {"ante", "ante_every", "tokens_to_win"}
_SETTING_KEYS = {"chip_value", "currency", "unfinished_pot"}
_TOP_KEYS = {"format", "rules", "players", "first_dealer", "stages", "name", "carried_in"}
_STAGE_KEYS = {"stage", "yes", "challengers", "winners", "cards", "in_progress"}


class HistoryError(RecordError):
    """A hand-history file that cannot be read; the message says where it is wrong."""


@dataclass(frozen=True)
class Settings:
    """The night's money settings, kept beside the game rules in a file's ``rules``."""

    chip_value: Decimal = Decimal("0")
    currency: str = ""
    unfinished_pot: str = "return_antes"


@dataclass(frozen=True)
class History:
    """A parsed file: the table it describes and the settings that go with it.

    Read as a night of one game of Napalm (:meth:`companion.games.napalm.game.Napalm.read_legacy`),
    it says what the night file reader asks of an older format: its ``name``, the game's
    ``state`` and ``rules`` (a JSON object, ``unfinished_pot`` included), the night's money
    and what ``flask replay`` prints for it.
    """

    table: Table
    settings: Settings = field(default_factory=Settings)
    name: str | None = None

    @property
    def state(self) -> Table:
        return self.table

    @property
    def rules(self) -> dict[str, Any]:
        """The game's rules as the night stores them: the file's, and its unfinished-pot choice."""
        return {**asdict(self.table.rules), "unfinished_pot": self.settings.unfinished_pot}

    @property
    def chip_value(self) -> Decimal:
        return self.settings.chip_value

    @property
    def currency(self) -> str:
        return self.settings.currency

    @property
    def carried_in(self) -> dict[str, int]:
        return self.table.carried_in

    def replay_summary(self) -> dict[str, Any]:
        """What ``flask replay`` prints for this file (:func:`replay_summary`)."""
        return replay_summary(self)


def loads(text: str | bytes) -> History:
    """Parse and replay a hand-history file's text."""
    return from_dict(decode(text))


def decode(text: str | bytes) -> Any:
    """A file's JSON, refused before anything is replayed when it is too large, malformed or too deep."""
    try:
        return json_document(text, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH, what="a hand history")
    except Unreadable as error:
        raise HistoryError(str(error)) from None


def from_dict(data: Any) -> History:
    """Replay a decoded hand-history document into a :class:`Table`."""
    if not isinstance(data, dict):
        raise HistoryError("the file must hold one JSON object")
    if (unknown := unknown_key(data, _TOP_KEYS)) is not None:
        raise HistoryError(f"unknown key '{unknown}' at the top level")
    if data.get("format") != FORMAT:
        raise HistoryError(f"'format' must be \"{FORMAT}\"")
    rules, settings = _rules(data.get("rules", {}))
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise HistoryError("'players' must be a list of names, in seating order")
    first_dealer = data.get("first_dealer")
    if first_dealer is not None and not isinstance(first_dealer, str):
        raise HistoryError("'first_dealer' must be a player's name")
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise HistoryError("'name' must be text")
    _check_storable(data, name, players, settings)
    carried_in = _carried_in(data.get("carried_in", {}))
    try:
        table = Table(players, first_dealer, rules)
    except IllegalAction as error:
        raise HistoryError(str(error)) from None
    if carried_in:
        try:
            table = Table(table.players, table.first_dealer, rules, carried_in)
        except IllegalAction as error:
            raise HistoryError(f"'carried_in': {error}") from None
    play_stages(table, data.get("stages", []))
    return History(table=table, settings=settings, name=name)


def play_stages(table: Table, stages: Any) -> None:
    """Replay a file's ``stages`` into ``table``; HistoryError says which entry is wrong and why."""
    if not isinstance(stages, list):
        raise HistoryError("'stages' must be a list")
    if len(stages) > limits.MAX_STAGES:  # refused before replaying: a night holds far fewer
        raise HistoryError(
            f"the file holds {len(stages):,} stages; a night holds at most {limits.MAX_STAGES:,} "
            "(a 12-hour night is about 450)"
        )
    for index, entry in enumerate(stages):
        where = (
            f"stages[{index}] (game {table.game_number}, hand {table.hand_number}, stage {int(table.stage)})"
        )
        try:
            _play(table, entry, last=index == len(stages) - 1)
        except (IllegalAction, HistoryError) as error:
            raise HistoryError(f"{where}: {error}", index) from None
    records = len(table.live_records())
    if records > limits.MAX_RECORDS:
        raise HistoryError(
            f"the file's stages make {records:,} records; a night holds at most {limits.MAX_RECORDS:,}"
        )


def _check_storable(data: dict[str, Any], name: str | None, players: list[str], settings: Settings) -> None:
    """The checks a night's row needs, the same for /import and ``flask replay`` (companion.values.limits)."""
    problem = limits.night_fields_problem(name or "", players, settings.currency, settings.chip_value)
    if problem is None and limits.unstorable(data):
        problem = limits.unstorable_message("the file")
    if problem is not None:
        raise HistoryError(problem)


def _rules(raw: Any) -> tuple[Rules, Settings]:
    if not isinstance(raw, dict):
        raise HistoryError("'rules' must be an object")
    if (unknown := unknown_key(raw, _RULE_KEYS | _SETTING_KEYS)) is not None:
        raise HistoryError(f"unknown rule '{unknown}'")
    kwargs = {k: raw[k] for k in _RULE_KEYS if k in raw}
    try:
        rules = Rules(**kwargs)
    except IllegalAction as error:
        raise HistoryError(f"rules: {error}") from None
    try:
        value, currency = parse_money(raw)
    except HistoryError as error:
        raise HistoryError(f"rules: {error}") from None
    unfinished = raw.get("unfinished_pot", "return_antes")
    if unfinished not in UNFINISHED_POT_CHOICES:
        raise HistoryError(f"rules: 'unfinished_pot' must be one of {', '.join(UNFINISHED_POT_CHOICES)}")
    return rules, Settings(chip_value=value, currency=currency, unfinished_pot=unfinished)


def parse_money(raw: Mapping[str, Any]) -> tuple[Decimal, str]:
    """A file's ``chip_value`` (a decimal written as a string) and ``currency``, checked."""
    try:
        return money_from_file(raw)
    except ValueError as error:
        raise HistoryError(str(error)) from None


def _carried_in(raw: Any) -> dict[str, int]:
    """The ``carried_in`` object: each contributor's chips in the pot carried in (checked by the table)."""
    if not isinstance(raw, dict):
        raise HistoryError("'carried_in' must map each contributor to their chips in the carried pot, e.g. {\"Ann\": 2}")
    for name, chips in raw.items():
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 1:
            shown = json.dumps(chips) if chips is None or isinstance(chips, (bool, int, float, str)) else "a list or object"
            raise HistoryError(f"'carried_in': {name}'s chips must be a whole number, 1 or more, not {shown[:30]}")
    return raw


def _name_list(entry: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    if key not in entry:
        return None
    value = entry[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HistoryError(f"'{key}' must be a list of names")
    return tuple(value)


def _play(table: Table, entry: Any, *, last: bool) -> None:
    """Push the actions one stage entry stands for."""
    if not isinstance(entry, dict):
        raise HistoryError("each stage must be an object")
    if (unknown := unknown_key(entry, _STAGE_KEYS)) is not None:
        raise HistoryError(f"unknown key '{unknown}'")
    in_progress = entry.get("in_progress", False)
    if not isinstance(in_progress, bool):
        raise HistoryError("'in_progress' must be true or false")
    if in_progress and not last:
        raise HistoryError("only the last stage can be in progress")
    if "stage" in entry:
        stage = entry["stage"]
        if isinstance(stage, bool) or not isinstance(stage, int):
            raise HistoryError("'stage' must be 1, 2 or 3")
        if stage != int(table.stage):
            raise HistoryError(f"this is stage {int(table.stage)}, not stage {stage}")
    yes = _name_list(entry, "yes")
    if yes is None:
        raise HistoryError("'yes' is missing (write [] when nobody said Yes)")
    challengers = _name_list(entry, "challengers")
    winners = _name_list(entry, "winners")
    cards = entry.get("cards")
    if cards is not None and (
        not isinstance(cards, dict) or not all(isinstance(v, str) for v in cards.values())
    ):
        raise HistoryError("'cards' must map each Yes player to their cards, e.g. {\"Ann\": \"AsKd\"}")
    table.declare(yes)
    if table.phase is Phase.CHALLENGE:
        if challengers is None and in_progress:
            return
        table.challenge(challengers or ())
    elif challengers is not None:
        raise HistoryError("'challengers' is only for a stage where the dealer alone said Yes")
    if table.phase is Phase.SHOWDOWN:
        if winners is None and cards is None:
            if in_progress:
                return
            raise HistoryError("two or more said Yes: give 'winners' or 'cards'")
        table.push(Showdown(winners=winners, cards=None if cards is None else tuple(cards.items())))
    elif winners is not None or cards is not None:
        raise HistoryError("'winners' and 'cards' are only for a stage where two or more said Yes")


def to_dict(table: Table, settings: Settings | None = None, name: str | None = None) -> dict[str, Any]:
    """Export the live actions of ``table`` (voided ones left out) as a hand-history document."""
    settings = settings or Settings()
    stages = stages_of(table)
    rules: dict[str, Any] = {
        "ante": table.rules.ante,
        "ante_every": table.rules.ante_every,
        "tokens_to_win": table.rules.tokens_to_win,
    }
    if settings != Settings():
        rules["chip_value"] = str(settings.chip_value)
        rules["currency"] = settings.currency
        rules["unfinished_pot"] = settings.unfinished_pot
    document: dict[str, Any] = {"format": FORMAT}
    if name:
        document["name"] = name
    document.update(
        {
            "rules": rules,
            "players": list(table.players),
            "first_dealer": table.first_dealer,
        }
    )
    if table.carried_in:
        document["carried_in"] = table.carried_in
    document["stages"] = stages
    return document


def stages_of(table: Table) -> list[dict[str, Any]]:
    """The live actions of ``table`` as a file's ``stages`` (voided ones left out)."""
    return [stage for _, stage in stages_from(table, 0)]


def stages_from(table: Table, start: int) -> list[tuple[int, dict[str, Any]]]:
    """The ``stages`` from live record ``start`` on (a stage's declaration), each with its declaration's index.

    A stage is its declaration and what followed it (the challenge, the showdown); the last is
    marked ``in_progress`` while the table waits for more of it.
    """
    stages: list[tuple[int, dict[str, Any]]] = []
    current: dict[str, Any] | None = None
    for index, record in enumerate(table.live_records_from(start), start=start):
        action = record.action
        if isinstance(action, Declare):
            current = {"stage": int(record.stage), "yes": list(action.yes)}
            stages.append((index, current))
        elif isinstance(action, Challenge):
            assert current is not None, "a stage's records are written from its declaration"
            current["challengers"] = list(action.challengers)
        elif isinstance(action, Showdown):
            assert current is not None, "a stage's records are written from its declaration"
            if action.winners is not None:
                current["winners"] = list(action.winners)
            if action.cards is not None:
                current["cards"] = dict(action.cards)
    if table.phase is not Phase.DECLARE and stages:
        stages[-1][1]["in_progress"] = True
    return stages


def dumps(table: Table, settings: Settings | None = None, name: str | None = None) -> str:
    return json.dumps(to_dict(table, settings, name), indent=2, ensure_ascii=False) + "\n"


def standings(table: Table) -> dict[str, Any]:
    """The replay summary: net chips, tokens, pot, finished games, dealer and next stage."""
    tokens = table.tokens
    return {
        "players": {
            name: {"net_chips": net, "tokens": tokens[name]} for name, net in table.net_chips.items()
        },
        "pot": table.pot,
        "games": [{"winner": g.winner, "pot": g.pot} for g in table.games],
        "dealer": table.dealer,
        "next_stage": int(table.stage),
    }


def replay_summary(parsed: History) -> dict[str, Any]:
    """What ``flask replay`` prints for a hand history: the standings, the unfinished pot
    closed by the file's setting (:mod:`.closing`), and the payments that settle it."""
    table = parsed.table
    summary = standings(table)
    closing = close_night(table, parsed.settings.unfinished_pot)
    summary["unfinished_pot"] = {"choice": closing.choice, "pot": closing.pot, "carried": closing.carried}
    if closing.carried:
        # the next night's file starts with these as its "carried_in"
        summary["unfinished_pot"]["carried_shares"] = closing.carried_shares
    summary["payments"] = [
        {"from": p.payer, "to": p.payee, "chips": p.chips} for p in settle_up(closing.net)
    ]
    if closing.pot:
        summary["note"] = closing.note
    return summary
