"""Nap (Napoleon) as a pure library: the table, its deal records and the game plug-in.

Nothing here imports Flask, SQLAlchemy or WTForms (``tests/test_layers.py``):
values in, values out, so every rule is testable in microseconds.
"""

from .table import (
    POOL,
    Action,
    Deal,
    DealError,
    IllegalAction,
    Penalty,
    Position,
    Record,
    Rules,
    Table,
    Transfer,
    Void,
    make_deal,
)

__all__ = [
    "POOL",
    "Action",
    "Deal",
    "DealError",
    "IllegalAction",
    "Penalty",
    "Position",
    "Record",
    "Rules",
    "Table",
    "Transfer",
    "Void",
    "make_deal",
]
