"""Rummy scores: the tests' own game, written as docs/adding-a-game.md says and kept outside the app.

Each deal has one winner; every other player pays the winner the points left in their
hand (times the stake).  It is registered only for the tests (``tests/conftest.py``),
with its screens and its templates folder, and plays through the conformance suite and
the web layer like an installed game.
"""
