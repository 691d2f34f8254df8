"""Poker with real betting, played under the bank: the chips on the table settle each pot. Pure."""

from .engine import BettingTable, Deal, Record, Rules

__all__ = ["BettingTable", "Deal", "Record", "Rules"]
