"""Every registered game passes the same checks (as OpenSpiel runs its API tests over every registered game).

The games are the installed ones and the tests' own Rummy scores (``tests/games/rummy/``,
registered by the ``rummy`` fixture).  Each is played at random from its own strategy
(``random_action``), with an undo now and then, and checked against what every game of a
night must keep:

* chips are conserved: the players' nets plus the chips in the middle (put in by the
  transfers of the live records and not taken out) sum to zero, each player's net is what
  the transfers of the live records give, and the game's close sums to minus what it carries;
* every event round-trips through JSON, ``to_event`` and ``from_event``, and the events
  replayed into a fresh table give the same table;
* the night file round-trips: ``write_records`` → ``read_records`` into a fresh table gives
  the same nets and the same records;
* an undo restores the position, the nets and what may be undone;
* played to its end (its ``finishing_action`` pushed until it has none), its closing settles
  every chip left in the middle, carries only when the game carries, and says what it did, and
  the transfers it gives for the report's closing line add up to what it settled;
* the game's event kinds are none of the night's own;
* a part of the report of its own, when it declares one, is the ``report.py`` of its folder,
  found there by the report layer and imported by none of the game's other modules;
* through the web layer, the table, the players' page, the history and the report answer 200.

A new game gets all of this by being registered.  A few seconds per game.
"""

from __future__ import annotations

import ast
import inspect
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion import service as services
from companion.extensions import db
from companion.games import GAMES, INSTALLED, NIGHT_KINDS, RegistrationError, register, unregister
from companion.games.protocol import GameKind
from companion.games.basegame import BaseGame
from companion.games.fold import POT, Void
from companion.db.models import Night
from companion.night.file import Money
from companion.report.parts import own_report_part
from games.rummy.game import GAME as RUMMY
from seating import NAMES, players_for

#: every game the suite runs over: the registry's, and the tests' own
KINDS = [*GAMES, RUMMY.kind]
ACTIONS = 60


@pytest.fixture(autouse=True)
def _registered(rummy: GameKind) -> Iterator[None]:
    """Every test here runs with the tests' own game registered beside the installed ones."""
    yield


def play(kind: str, seed: int, actions: int = ACTIONS, check: Any = None) -> Any:
    """A table of ``kind`` after ``actions`` random legal actions (about one in seven an undo)."""
    game = GAMES[kind]
    players = players_for(game)
    state = game.new_state(players, players[1], game.rules_from_dict({}), None)
    rng = random.Random(seed)
    for _ in range(actions):
        action = Void() if state.can_void() and rng.random() < 1 / 7 else game.random_action(state, rng)
        if action is None:  # the game is over, no action is legal now: undo its last, or stop
            if not state.can_void():
                break
            action = Void()
        state.push(action)
        if check is not None:
            check(game, state)
    return state


def in_the_middle(state: Any) -> int:
    """Chips put into the pot or pool by the live records and not taken out again."""
    return sum(
        (t.chips if t.payee is POT else 0) - (t.chips if t.payer is POT else 0)
        for record in state.live_records()
        for t in record.transfers
    )


def chips_are_conserved(game: GameKind, state: Any) -> None:
    net = dict(state.net_chips)
    carried_in = sum(state.carried_in.values())
    assert sum(net.values()) + in_the_middle(state) - carried_in == 0
    from_transfers = {name: 0 for name in state.players}
    for record in state.live_records():
        for t in record.transfers:
            assert t.chips > 0 and isinstance(t.chips, int)
            if t.payer is not POT:
                from_transfers[t.payer] -= t.chips
            if t.payee is not POT:
                from_transfers[t.payee] += t.chips
    assert from_transfers == net
    closing = game.close(state, state.rules)
    assert sum(closing.net.values()) + closing.carried_total == 0


@pytest.mark.parametrize("kind", KINDS)
def test_random_legal_play_keeps_chips_conserved(kind: str) -> None:
    state = play(kind, seed=1, check=chips_are_conserved)
    assert state.live_records(), "the game's strategy played something"


#: more finishing actions than any game needs to end: one that never stops is a fault
FINISHING = 500


def finish(game: GameKind, state: Any) -> int:
    """Push the game's finishing actions until it has none (its end); how many it took."""
    for count in range(FINISHING):
        action = game.finishing_action(state)
        if action is None:
            return count
        state.push(action)
    raise AssertionError(f"{game.kind}: still a finishing action after {FINISHING}")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", (9, 10, 11))
def test_played_to_its_end_its_closing_settles_every_chip(kind: str, seed: int) -> None:
    """Random play, then the game's finishing actions until it has none (its end), then its closing: it
    changes nothing at the table, gives the same twice, settles every player (every chip left in the
    middle given back or carried, carried only by a game that carries), says what it did in words
    whenever it moved a chip, and its ``closing_transfers`` (the report's closing line) give each
    player what it settled."""
    game = GAMES[kind]
    state = play(kind, seed, actions=(seed - 8) * 25)  # 25, 50 and 75 actions: stopped mid-way, most likely
    finish(game, state)
    chips_are_conserved(game, state)
    assert game.finishing_action(state) is None, "at its end, no action now"
    before = (state.version, dict(state.net_chips), state.position)
    closing = game.close(state, state.rules)
    assert (state.version, dict(state.net_chips), state.position) == before and game.close(state, state.rules) == closing
    assert set(closing.net) == set(state.players) and all(isinstance(c, int) for c in closing.net.values())
    assert all(chips > 0 for chips in closing.carried.values())
    if not game.carries_over(state.rules):
        assert not closing.carried
    settled = {name: closing.net[name] - state.net_chips[name] for name in state.players}
    left = in_the_middle(state) - sum(state.carried_in.values())
    assert sum(settled.values()) + closing.carried_total == left, "every chip in the middle settled or carried"
    if any(settled.values()) or closing.carried:
        assert closing.note, "a closing that moves chips says so"
    # what the closing moved, as the game says it (the report's closing line), gives each player that
    moved = dict.fromkeys(state.players, 0)
    for t in game.closing_transfers(state, closing):
        assert isinstance(t.chips, int) and t.chips > 0 and t.payer != t.payee
        for name, sign in ((t.payer, -1), (t.payee, 1)):
            if name is not POT:
                moved[name] += sign * t.chips
    assert moved == settled


@pytest.mark.parametrize("kind", KINDS)
def test_every_event_round_trips_and_replays_to_the_same_table(kind: str) -> None:
    game = GAMES[kind]
    state = play(kind, seed=2)
    fresh = game.new_state(state.players, state.first_dealer, state.rules, None)
    for record in state.log:
        event_kind, payload = game.to_event(record.action)
        assert event_kind in game.event_kinds
        stored = json.loads(json.dumps(payload))  # as the database and a night file keep it
        action = game.from_event(event_kind, stored)
        assert game.to_event(action) == (event_kind, payload)
        fresh.push(action)
    assert fresh.net_chips == state.net_chips
    assert fresh.position == state.position
    assert [r.summary for r in fresh.log] == [r.summary for r in state.log]


@pytest.mark.parametrize("kind", KINDS)
def test_the_night_file_round_trips(kind: str) -> None:
    game = GAMES[kind]
    state = play(kind, seed=3)
    records = json.loads(json.dumps(game.write_records(state)))
    fresh = game.new_state(state.players, state.first_dealer, state.rules, None)
    game.read_records(fresh, records)
    assert fresh.net_chips == state.net_chips
    assert game.close(fresh, fresh.rules) == game.close(state, state.rules)
    assert game.write_records(fresh) == records
    assert [game.to_event(a) for a in game.live_actions(fresh)] == [game.to_event(a) for a in game.live_actions(state)]


@pytest.mark.parametrize("kind", KINDS)
def test_its_records_written_from_any_record_are_the_tail_of_the_whole_file(kind: str) -> None:
    """``write_records_from(state, i)`` from any record's first live record ``i`` is the file's records from
    that record on, and ``write_records`` is it from 0: what a night file written after an action relies on
    when it writes only its last records again (companion/night/file_text.py)."""
    game = GAMES[kind]

    def check(game: GameKind, state: Any) -> None:
        whole = game.write_records(state)
        written = game.write_records_from(state, 0)
        assert [record for _, record in written] == whole
        starts = [index for index, _ in written]
        assert starts == sorted(set(starts)) and all(0 <= i < state.live_count for i in starts)
        for number, start in enumerate(starts):
            assert game.write_records_from(state, start) == written[number:]

    play(kind, seed=7, check=check)


@pytest.mark.parametrize("kind", KINDS)
def test_the_live_records_kept_since_an_earlier_version_are_those_still_live(kind: str) -> None:
    """``live_kept_since(version, count)``: how many of the records live at an earlier version still are, from
    the undo stack alone, is the common start of the two lists of live records, at every pair of versions."""
    game = GAMES[kind]
    seen: list[tuple[int, list[int]]] = []  # (log length, the live records' seqs) after each action

    def check(game: GameKind, state: Any) -> None:
        # the live records by their definition, from the whole log: neither undone nor themselves an undo
        live = [record.seq for record in state.log if record.voids is None and record.seq not in state.voided]
        assert [record.seq for record in state.live_records()] == live and state.live_count == len(live)
        assert [record.seq for record in state.live_records_from(len(live) // 2)] == live[len(live) // 2:]
        seen.append((state.version, live))
        for version, earlier in seen:
            common = 0
            while common < min(len(earlier), len(live)) and earlier[common] == live[common]:
                common += 1
            assert state.live_kept_since(version, len(earlier)) == common, (version, earlier, live)

    play(kind, seed=8, check=check)
    assert any(len(a) > len(b) for (_, a), (_, b) in zip(seen, seen[1:])), "an undo was played"


@pytest.mark.parametrize("kind", KINDS)
def test_an_undo_restores_the_position(kind: str) -> None:
    game = GAMES[kind]
    state = play(kind, seed=4, actions=20)
    rng = random.Random(5)
    for _ in range(10):
        before = (state.position, dict(state.net_chips), state.dealer, len(state.live_records()))
        action = game.random_action(state, rng)
        if action is None:  # the game is over: undo its last action instead, and try again
            state.push(Void())
            continue
        state.push(action)
        state.push(Void())
        assert (state.position, dict(state.net_chips), state.dealer, len(state.live_records())) == before
        if (action := game.random_action(state, rng)) is not None:
            state.push(action)  # and play on


@pytest.mark.parametrize("kind", KINDS)
def test_its_event_kinds_are_none_of_the_nights_own(kind: str) -> None:
    kinds = GAMES[kind].event_kinds
    assert kinds and not kinds & NIGHT_KINDS
    assert not kinds & {"game", "paid", "buy_in", "bonus_roll", "settle_on", "game_taken_back"}


@pytest.mark.parametrize("kind", KINDS)
def test_its_declared_capabilities_answer(kind: str) -> None:
    """Every optional member is declared (BaseGame's default or the game's own), never probed."""
    game = GAMES[kind]
    assert isinstance(game, BaseGame)
    rules = game.rules_from_dict({})
    assert game.rules_from_dict(game.rules_to_dict(rules)) == rules
    assert isinstance(game.title_of(rules), str) and game.title_of(rules)
    assert isinstance(game.records_chips, bool) and isinstance(game.carries_over(rules), bool)
    assert game.default_players(NAMES[:game.max_players], "Ben", rules)
    with pytest.raises(Exception, match="unknown rule 'no_such_rule'"):
        game.rules_from_dict({"no_such_rule": 1})


def test_napalm_has_a_part_of_the_report_of_its_own_and_the_other_games_here_none() -> None:
    """Napalm breaks itself down game by game to its token target; Nap, the pot games, poker with
    real betting and the tests' Rummy are broken down by the report from their records' transfers.
    (A game added later says which it is by ``has_report_part``, checked against its folder below.)"""
    assert GAMES["napalm"].has_report_part
    assert not [kind for kind in ("nap", "pots", "betting", RUMMY.kind) if GAMES[kind].has_report_part]


def imports_of_a_sibling(path: Path, package: str, name: str) -> bool:
    """Whether the module at ``path`` (in ``package``) imports its sibling module ``name``, anywhere in it."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import) and any(alias.name == f"{package}.{name}" for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1 and (base == name or (not base and any(a.name == name for a in node.names))):
                return True
            if node.level == 0 and (base == f"{package}.{name}" or (base == package and any(a.name == name for a in node.names))):
                return True
    return False


@pytest.mark.parametrize("kind", KINDS)
def test_its_own_part_of_the_report_is_found_beside_its_rules_which_never_import_it(kind: str) -> None:
    """Declared by ``has_report_part``; then the report layer finds ``report_part`` in the
    ``report.py`` of the game's folder, and none of the game's other modules imports it."""
    game = GAMES[kind]
    package = type(game).__module__.rpartition(".")[0]
    folder = Path(sys.modules[package].__file__ or "").parent
    own = own_report_part(game)
    assert isinstance(game.has_report_part, bool)
    assert (own is not None) is game.has_report_part is (folder / "report.py").exists()
    if own is not None:
        assert own.__module__ == f"{package}.report" and own.__name__ == "report_part"
    # a part that says it extends what it kept takes the memo it is then given (and only an own part can)
    assert isinstance(game.report_part_extends, bool)
    if game.report_part_extends:
        assert own is not None and "memo" in inspect.signature(own).parameters
    others = [path for path in sorted(folder.glob("*.py")) if path.name != "report.py"]
    assert others and not [path.name for path in others if imports_of_a_sibling(path, package, "report")]


def test_the_sibling_check_would_catch_each_way_of_importing_the_report_part(tmp_path: Path) -> None:
    ways = [
        "from .report import report_part\n",
        "def f():\n    from . import report\n",
        "import companion.games.napalm.report\n",
        "from companion.games.napalm.report import report_part\n",
        "from companion.games.napalm import report\n",
    ]
    for i, text in enumerate(ways):
        path = tmp_path / f"way{i}.py"
        path.write_text(text)
        assert imports_of_a_sibling(path, "companion.games.napalm", "report"), text
    fine = tmp_path / "fine.py"
    fine.write_text("from .reporting import x\nfrom companion.report.model import Figures\n")
    assert not imports_of_a_sibling(fine, "companion.games.napalm", "report")


# --- registration ---------------------------------------------------------------------------------


class Payday(BaseGame):
    """A game that would record its payments under the night's own kind."""

    kind = "payday"
    title = "Payday"
    event_kinds = frozenset({"paid", "void"})


class OtherNap(BaseGame):
    kind = "nap"
    title = "Another Nap"


def test_a_game_with_a_nights_event_kind_is_refused_at_registration_naming_both() -> None:
    with pytest.raises(RegistrationError) as refused:
        register(Payday())
    message = str(refused.value)
    assert "Payday (payday)" in message and "'paid'" in message and "settle-up payment" in message
    assert "payday" not in GAMES


def test_a_second_game_of_the_same_name_is_refused_naming_both() -> None:
    with pytest.raises(RegistrationError) as refused:
        register(OtherNap())
    assert "'nap'" in str(refused.value) and "Nap" in str(refused.value) and "Another Nap" in str(refused.value)
    assert GAMES["nap"].title == "Nap"


def test_a_game_without_every_member_is_refused_at_registration_naming_what_it_lacks() -> None:
    class Bare:
        kind = "bare"
        title = "Bare"
        event_kinds = frozenset({"go"})

    with pytest.raises(RegistrationError, match="'bare' has no records_key, min_players, .*: subclass BaseGame"):
        register(Bare())  # type: ignore[arg-type]
    assert "bare" not in GAMES


def test_two_games_may_share_a_kind_of_event_each_reading_only_its_own() -> None:
    """Nap, poker with real betting and Rummy scores all record "deal" (and every game "void")."""
    assert {"deal", "void"} <= GAMES["nap"].event_kinds & GAMES["betting"].event_kinds & GAMES["rummy"].event_kinds


def test_the_installed_games_are_the_registrys_and_the_tests_game_goes_again() -> None:
    """The registry holds the installed games first, in ``INSTALLED``'s order (the app's own four among
    them, whatever is installed beside them), then a game registered from outside."""
    assert list(GAMES)[: len(INSTALLED)] == list(INSTALLED)
    assert {"napalm", "nap", "pots", "betting"} <= set(INSTALLED)
    unregister(RUMMY.kind)
    assert RUMMY.kind not in GAMES
    register(RUMMY)  # the fixture takes it out again after the test


# --- through the web layer ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_its_table_players_page_history_and_report_render(app: Any, kind: str) -> None:
    game = GAMES[kind]
    players = list(players_for(game))
    with app.app_context():
        night = services.open_night(
            "Conformance", players, Money(), {"kind": kind, "players": None, "first_dealer": players[0], "rules": {},
                                              "carried_in": None}
        )
        rng = random.Random(6)
        for i in range(8):
            night = db.session.get(Night, night.id)
            state = services.table_for(night)
            action = Void() if i == 5 else game.random_action(state, rng)
            if action is None:  # a game over so soon: undo its last action
                action = Void()
            services.record(night.id, action, night.version, services.new_key())
        night = db.session.get(Night, night.id)
        keeper, viewer = night.keeper_key, night.viewer_key
        assert len(services.table_for(night).log) == 8
    client = app.test_client()
    for url in (f"/k/{keeper}", f"/p/{viewer}", f"/k/{keeper}/history", f"/k/{keeper}/report", f"/p/{viewer}/report"):
        response = client.get(url)
        assert response.status_code == 200, (url, response.get_data(as_text=True)[-600:])
