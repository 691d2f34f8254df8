"""The night's own event kinds: what a night records beside its games, in one pure list.

A night's log holds two sorts of event.  A game's events are stored tagged with their
game and read back by that game alone; the night's own (the start and the taking back
of a game, a settle-up payment, the bank's, the Bonus Round's) are stored untagged and
read by the night whatever game is at the table.  The game registry
(:func:`companion.games.register`) refuses a game whose event kinds include one of
these: recording an event first offers its kind to the game at the table, so a game
that claimed ``"paid"`` would swallow every settle-up payment (``docs/adding-a-game.md``).

Pure, and imports nothing, so the registry can check against it without loading the
service layer.
"""

from __future__ import annotations

#: the event that starts the next game of a night (tagged with that game)
GAME_STARTED = "game"
#: the event that takes back a game started by mistake (a night event)
GAME_TAKEN_BACK = "game_taken_back"
#: a settle-up payment marked made
PAID = "paid"
#: part of a player's balance on the night settled through the group's tab (companion.group.tab)
TAB_CLEARED = "tab_cleared"
#: the night settles on the tally or on chip counts
MODE_KIND = "settle_on"
#: the chip bank's events (companion.night.ledger)
BANK_KINDS = ("buy_in", "rebuy", "all_buy_in", "cash_out", "bank_cancel")
#: the Bonus Round's events (companion.night.ledger)
BONUS_KINDS = ("bonus_grid", "bonus_roll", "bonus_lucky")
#: a night's ledger events (no game's): settle-up payments, the setting and the bank's
LEDGER_KINDS = (PAID, MODE_KIND, *BANK_KINDS, TAB_CLEARED)

#: every kind the night records itself: no game may use one of these
NIGHT_KINDS: frozenset[str] = frozenset((GAME_STARTED, GAME_TAKEN_BACK, *LEDGER_KINDS, *BONUS_KINDS))
