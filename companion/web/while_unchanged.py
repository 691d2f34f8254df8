"""What a read gave, kept per key while the change watch says nothing was committed since.

The players' poll (web/live_poll.py: a night's version by its players' link) and the pages
answered early (web/early_pages.py: a group's stamp, a browser's nights) each skip their one
read while nothing changed.  Both keep the value with the generation of the change watch
(db/change_watch.py) taken *before* the read: while the generation is the same, the same
read would give the same.  When the watch is unsure (None, or it fails) they read; a read
that gives None (an unknown link, a failed read) is never kept, so the app decides it every
time.  Which generation serves is the caller's: the polls' (a moment late for another
process's commit on PostgreSQL: a phone polls again 0.8 s later) or the pages' (never late).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from flask import Flask

from companion.db.change_watch import ChangeWatch, watch_of
from companion.extensions import db

Value = TypeVar("Value")

#: ``get``'s generation when none is given: take it now
NOW: Any = object()


class WhileUnchanged(Generic[Value]):
    """``get(key, read)``: ``read()``'s value, read again for ``key`` only when the generation moved on."""

    def __init__(self, app: Flask, generation_of: Callable[[ChangeWatch], Hashable | None], bound: int) -> None:
        self.app = app
        self.generation_of = generation_of
        self.bound = bound
        self._watch: ChangeWatch | None = None
        self._lock = threading.Lock()
        #: by key: (the generation it was read at, the value)
        self._kept: dict[Hashable, tuple[Hashable, Value]] = {}

    def generation(self) -> Hashable | None:
        """The watch's generation now; None when it is unsure or fails (read)."""
        try:
            return self.generation_of(self.watch())
        except Exception:  # noqa: BLE001 - whatever went wrong with the watch, the database still answers
            return None

    def get(self, key: Hashable, read: Callable[[], Value | None], generation: Hashable | None = NOW) -> Value | None:
        """``read()``'s value for ``key``, kept while the generation stays the same.

        ``generation``: one this caller took before (:meth:`generation`), so that the reads one request makes
        share one look at the watch; taken before any of them, it is never later than what they read.
        """
        if generation is NOW:
            generation = self.generation()
        if generation is not None:
            kept = self._kept.get(key)
            if kept is not None and kept[0] == generation:
                return kept[1]
        value = read()
        if value is not None and generation is not None:
            if len(self._kept) >= self.bound:
                self._kept.clear()  # bounded; the next requests read again
            self._kept[key] = (generation, value)
        return value

    def watch(self) -> ChangeWatch:
        """The app's database's change watch (made on first use, in the app's context)."""
        if self._watch is None:
            with self._lock:
                if self._watch is None:
                    with self.app.app_context():
                        self._watch = watch_of(db.engine)
        return self._watch

    def __len__(self) -> int:
        return len(self._kept)
