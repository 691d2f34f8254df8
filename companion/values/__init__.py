"""The bottom layer: how a value the app is given is read, and what a night's row can store.

Every layer above reads a number or a text through :mod:`companion.values.reading` and checks
what a night's row may hold with :mod:`companion.values.limits`; this package imports nothing
of the app but itself, so the reader can sit below money and the games that use it.
"""
