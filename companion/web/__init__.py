"""The web layer: blueprints that turn a request into a service call and state into a page.

One blueprint per feature (home, table, history, share, setup, next_game, players, display,
report, bank, bonus, choice, groups), none importing another: what several share is in a
module of its own (links, standings, this_browser, forms, ledger_pages), beside the
HTTP machinery (live_push, kept_pages, post_redirect_get, tap_guard, security, hosts, …).
``wiring.init_app`` registers them and the error pages (``error_pages``).

This file imports nothing.  gunicorn's master imports ``companion.web.plumbing.server`` (and so this
package) before it forks the gevent workers; a lock the app makes at import (the fold's
stripes in service/store.py) made there would be a real OS lock in every worker, where
gevent's patching can no longer reach it: one greenlet waiting on it blocks the whole worker,
and the one holding it, waiting on PostgreSQL, never runs again.
"""
