"""A night as a pure fold: its games in order, its own ledger (bank, Bonus Round, dealer's choice), standings and the night file."""
