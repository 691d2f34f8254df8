"""The games of a night: start the next one, take back one started by mistake, set up the first, offer the next.

A night is played as a row of games, the last one at the table.  Starting a game and taking
one back are events of the night's log, written by the unit of work like every action
(once per request key, only at the version the scorekeeper saw); the first game's setup
may change until the night's first action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.db.models import Night
from companion.games import IllegalAction, game_kind, title_of
from companion.games.night_kinds import GAME_STARTED, GAME_TAKEN_BACK
from companion.night import file as nightfile
from companion.night.play import GameSetup, NightPlay, set_up_game, validate_seating
from companion.service.bank import refuse_closing_onto_cashed_out, refuse_reopening_onto_cashed_out
from companion.service.history import describe_take_back, started_summary
from companion.service.nights import check_night_fields, continuation_of, game_row, refuse_on_a_carried_night
from companion.service.store import play_for, played_games, setup_from_payload
from companion.service.uow import Command, Decide, Entry, Recorded, StaleTable, UnitOfWork

#: what the app fills in when a game starts: its number in the night (a repeat of the start asked
#: for the game it started, not one more after it)
NUMBERED = ("position",)
#: what the app fills in when a game is taken back: which game that number is
NAMED = ("kind",)


def start_game(
    night_id: int,
    kind: str,
    players: Sequence[str] | None,
    first_dealer: str | None,
    rules: Mapping[str, Any] | None,
    expected_version: int,
    request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Start the night's next game; the game at the table stops (its closing applies from then on).

    Checked against the seating and the game's rules before anything is written;
    once per request key, and only at the version the scorekeeper saw, like every
    action.  The game's row and the ``game`` event that starts it are written together.
    """
    with UnitOfWork() as uow:
        night = uow.night(night_id)
        setup, *_ = set_up_game(tuple(night.players), kind, players, first_dealer, rules)
        command = Command(night_id, GAME_STARTED, setup.as_dict(), expected_version, request_key, recorded_by,
                          NUMBERED)
        return uow.append(command, _started(setup.as_dict()))


def _started(said: dict[str, Any]) -> Decide:
    def decide(night: Night, play: NightPlay) -> Entry:
        payload = {**said, "position": len(night.games) + 1}
        summary = _verify_start(play, payload)
        refuse_closing_onto_cashed_out(night, play.current)  # the stopped game's pot goes back: not to a cashed-out player
        refuse_on_a_carried_night(night)
        return Entry(payload, summary, game=game_row(payload["position"], setup_from_payload(payload)))

    return decide


def _verify_start(play: NightPlay, payload: Mapping[str, Any]) -> str:
    if payload.get("position") != len(play.games) + 1:
        raise IllegalAction("another game started since this screen was shown")
    play.verify_start(setup_from_payload(payload))
    return started_summary(payload, play)  # with what became of the last game's pot


def take_back_game(
    night_id: int, position: int, expected_version: int, request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Take back the game at the table, started by mistake with nothing recorded in it: an event,
    like every correction (its row and its start stay); the game before it is at the table again."""
    command = Command(night_id, GAME_TAKEN_BACK, {"position": position}, expected_version, request_key, recorded_by,
                      NAMED)
    with UnitOfWork() as uow:
        return uow.append(command, _taken_back(position))


def _taken_back(position: int) -> Decide:
    def decide(night: Night, play: NightPlay) -> Entry:
        kind = night.games[position - 1].kind if 0 < position <= len(night.games) else ""
        payload = {"position": position, "kind": kind}
        summary = _verify_take_back(play, payload)
        # the game before it reopens its pot: not with a cashed-out player's chips
        refuse_reopening_onto_cashed_out(night, play.played()[-2])
        refuse_on_a_carried_night(night)
        return Entry(payload, summary)

    return decide


def _verify_take_back(play: NightPlay, payload: Mapping[str, Any]) -> str:
    position = payload.get("position")
    if isinstance(position, bool) or not isinstance(position, int):
        raise IllegalAction("say which game to take back")
    played = play.verify_take_back(position)
    if payload.get("kind") != played.setup.kind:
        raise IllegalAction("another game is at the table since this screen was shown")
    return describe_take_back(payload, play)


def update_setup(
    night: Night,
    name: str,
    players: list[str],
    first_dealer: str | None,
    rules: Mapping[str, Any],
    money: nightfile.Money,
    expected_version: int,
) -> None:
    """Change seating, money and the first game's rules (a JSON object), allowed only before the first action."""
    night_id, shown_at = night.id, night.version
    if shown_at != 0 or expected_version != 0:
        raise IllegalAction("play has started: the seating and rules can no longer change")
    with UnitOfWork() as uow:
        uow.night_changed_for_its_group(night_id)  # its name shows on the group's pages, at no new version
        night = uow.night(night_id)  # the caller's night, locked and read afresh
        if night.version != 0:  # the first action landed since the caller read it
            raise StaleTable(night.version)
        check_night_fields(name, players, money)
        continued = continuation_of(night)
        if continued is not None:
            raise IllegalAction(
                f"this night's pot was carried into \u201c{continued.name}\u201d: its setup can no longer change"
            )
        game = night.first_game
        seated = validate_seating(players)
        game_rules = dict(rules)
        # a contributor not seated any more takes their share of the carried pot back in the
        # previous night's settle-up; the rest stays in this night's pot (issue 14, item 16)
        folded = {p.casefold() for p in seated}
        carried = {n: c for n, c in (game.carried_in or {}).items() if n.strip().casefold() in folded}
        setup, *_ = set_up_game(seated, game.kind, None, first_dealer, game_rules, carried or None)
        night.name = name.strip() or night.name
        night.players = list(seated)
        night.chip_value = money.chip_value
        night.currency = money.currency
        game.players = list(setup.players)
        game.first_dealer = setup.first_dealer
        game.rules = dict(setup.rules)
        game.carried_in = dict(setup.carried_in) if setup.carried_in else None  # the names as seated now
        uow.compare_and_set(night, 0, 0)  # still before the first action, as the form was made
        uow.forget_fold_on_commit(night_id)
        uow.commit()


def next_game_defaults(
    night: Night, kind: str, offer: Mapping[str, Any] | None = None, named: str | None = None
) -> GameSetup:
    """What the next game of ``kind`` starts with unless the scorekeeper changes it.

    The rules of the last game of that kind tonight (else the game's defaults),
    everyone seated (or those the game picks, when its rules limit the players:
    ``default_players``), and the deal where the game at the table would pass it next.
    ``offer`` is one of the game's offers (a pot game's preset: ``{"preset": "nasdaq"}``):
    the last game played with it, else the game's defaults with it.  ``named`` is the name
    the group played it under (``title_of``: a poker variant, "Pool Nap"): the last game
    played under that name, else the game's defaults (dealer's choice offers each by name).
    """
    game = game_kind(kind)
    offer = dict(offer or {})
    earlier = [
        g for g in played_games(night)
        if g.kind == game.kind and all(g.rules.get(key) == value for key, value in offer.items())
        and (named is None or title_of(g.kind, g.rules) == named)
    ]
    rules = dict(earlier[-1].rules) if earlier else game.rules_to_dict(game.rules_from_dict(offer))
    current = play_for(night).current
    seated = tuple(night.players)
    dealer = current.game.next_dealer(current.state)
    players = tuple(game.default_players(seated, dealer, game.rules_from_dict(rules)))
    if dealer not in players and players:
        dealer = players[0]
    return GameSetup(game.kind, players, dealer, rules)
