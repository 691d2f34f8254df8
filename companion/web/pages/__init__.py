"""The pages: one module per blueprint (and what only its pages use), each with its templates' folder.

A view translates a request into a service call and the state it returns into a page; the
HTTP machinery every page shares lives beside, in :mod:`companion.web.plumbing`.
"""
