"""Napalm (Whipsaw) as a pure library: cards, rankings, the table and its log.

Nothing here imports Flask, SQLAlchemy or WTForms (a test checks it): values in,
values out, so every rule can be tested in microseconds and reused by any front end.
"""

from .table import (
    POT,
    Action,
    Challenge,
    Declare,
    GameResult,
    IllegalAction,
    Phase,
    Position,
    Record,
    Rules,
    Showdown,
    Stage,
    Table,
    Transfer,
    Void,
)

__all__ = [
    "POT",
    "Action",
    "Challenge",
    "Declare",
    "GameResult",
    "IllegalAction",
    "Phase",
    "Position",
    "Record",
    "Rules",
    "Showdown",
    "Stage",
    "Table",
    "Transfer",
    "Void",
]
