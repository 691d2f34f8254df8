"""Fixed-stake pot games (RULES-POKER.md): one engine, presets as rules, pure.

Nothing here imports Flask, SQLAlchemy or WTForms (``tests/test_layers.py``).
"""

from .engine import (
    POT,
    Action,
    Carry,
    HighLow,
    IntoPot,
    PotTable,
    Record,
    Rules,
    Sale,
    Transfer,
    Void,
    Win,
    close_table,
    fat_one_stakes,
    sale_split,
)
from .presets import PRESETS, TITLES

__all__ = [
    "POT",
    "PRESETS",
    "TITLES",
    "Action",
    "Carry",
    "HighLow",
    "IntoPot",
    "PotTable",
    "Record",
    "Rules",
    "Sale",
    "Transfer",
    "Void",
    "Win",
    "close_table",
    "fat_one_stakes",
    "sale_split",
]
