"""Recording at the table: a game's action, and a settle-up payment marked paid (at the night, or through the
group's tab: :func:`tab_cleared_entry`, the check of the night event the group's service appends).

Views translate a request into a call here and the result into a page; rule errors come
back as :class:`~companion.games.protocol.IllegalAction`, stale or doubled submits as
:class:`~companion.service.uow.StaleTable` / :class:`~companion.service.uow.KeyConflict`,
and nothing is written unless the whole action is legal and the table is still at the
version the scorekeeper saw: each command here is its own check (the game's rules, the
bank's cashed-out players, a night carried on), run inside a unit of work that does the rest.
"""

from __future__ import annotations

from typing import Any

from companion.db.models import Night
from companion.games import GAMES, IllegalAction
from companion.games.night_kinds import TAB_CLEARED
from companion.night.paid import refuse_payment
from companion.night.play import NightPlay
from companion.service.bank import refuse_moving_cashed_out, verify
from companion.service.group_nights import refuse_paid_beyond_open
from companion.service.group_views import refuse_paid_where_blocked
from companion.service.history import describe_ledger_event
from companion.service.nights import refuse_on_a_carried_night
from companion.service.store import play_for
from companion.service.uow import Command, Decide, Entry, Recorded, UnitOfWork

Action = Any  # a game's action: whatever its GameKind encodes


def record(
    night_id: int,
    action: Action,
    expected_version: int,
    request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Record an action of the game at the table, once, if legal and the table is still at ``expected_version``.

    The action is written as the event of the game at the table when the form was
    shown; had another game started since, the version says so (StaleTable).
    """
    with UnitOfWork() as uow:
        night = uow.night(night_id)
        game = play_for(night).current.setup.kind  # the game at the table (a game taken back is not)
        kind, payload = GAMES[game].to_event(action)
        command = Command(night_id, kind, payload, expected_version, request_key, recorded_by)
        return uow.append(command, _at_the_table(kind, payload))


def _at_the_table(kind: str, payload: dict[str, Any]) -> Decide:
    def decide(night: Night, play: NightPlay) -> Entry:
        current = play.current
        if kind not in current.game.event_kinds:
            raise IllegalAction(f"unknown event kind {kind!r}")
        action = current.game.from_event(kind, payload)
        summary = current.state.verify(action).summary
        # a player cashed out: nothing may move their chips (issue 20, item 2)
        refuse_moving_cashed_out(night, current.state, action)
        refuse_on_a_carried_night(night)
        return Entry(payload, summary, game=night.games[current.number - 1])  # loaded with the night (selectin)

    return decide


def mark_paid(
    night_id: int,
    payer: str,
    payee: str,
    amount: int,
    expected_version: int,
    request_key: str | None = None,
    recorded_by: str = "scorekeeper",
) -> Recorded:
    """Record that a settle-up payment was made (a ledger event; the game ignores it)."""
    payload = {"payer": payer, "payee": payee, "chips": amount}
    command = Command(night_id, "paid", payload, expected_version, request_key, recorded_by)
    with UnitOfWork() as uow:
        return uow.append(command, lambda night, _play: Entry(payload, _verify_payment(night, payload)))


def _verify_payment(night: Night, payload: dict[str, Any]) -> str:
    verify(night, "paid", payload)  # refused while the night settles on counts the bank cannot balance yet
    payer, payee, chips = payload.get("payer"), payload.get("payee"), payload.get("chips")
    refuse_payment(night.players, payer, payee, chips)  # the check a night file's "paid" passes too
    refuse_paid_where_blocked(night)  # a night of a group: nothing in a unit its tab cannot count (issue 35)
    refuse_paid_beyond_open(night, payer, payee, chips)  # a night of a group: never settled twice
    return describe_ledger_event("paid", payload)


def tab_cleared_entry(night: Night, payload: dict[str, Any]) -> Entry:
    """The ``tab_cleared`` event the group's tab appends to ``night`` (``docs/group.md``), checked as the night
    checks it: read strictly (:func:`companion.night.tab.read`: every key known, the player seated, the amount
    in the night's unit and never zero); nothing else of it is the night's to refuse (the group decided it
    against all its nights).  The group's service calls it as a unit of work's ``decide``::

        uow.append(Command(night.id, TAB_CLEARED, payload, version, key, "group"),
                   lambda night, _play: tab_cleared_entry(night, payload))
    """
    return Entry(payload, verify(night, TAB_CLEARED, payload))
