"""Money, whatever the game: exact chips and ``Decimal`` amounts, and settle-up plans.

Game-agnostic by design: a game (``companion.games.napalm`` today) turns its events
into chip balances; this package only turns balances into money and into who
pays whom, and every plan it makes balances to the chip.
"""
