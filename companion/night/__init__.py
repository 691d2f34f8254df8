"""A night as a pure fold: its games in order, its own ledger (bank, Bonus Round, dealer's choice), standings, the night file and its limits."""
