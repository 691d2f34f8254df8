"""A small thread-safe least-recently-used map: what a process keeps per night stays bounded.

The fold cache (services) kept one entry per night a process had ever served; a
long-running server that sees many nights would grow without end.  This keeps the
``capacity`` most recently used entries and forgets the oldest one beyond that.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A dict-like map of at most ``capacity`` entries; reading or writing one makes it the newest."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("an LRU map keeps at least one entry")
        self.capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            try:
                self._items.move_to_end(key)
            except KeyError:
                return default
            return self._items[key]

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def setdefault(self, key: K, value: V) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            self._items[key] = value
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
            return value

    def pop(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            return self._items.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def resize(self, capacity: int) -> None:
        """Keep at most ``capacity`` entries from now on (the newest ones)."""
        if capacity < 1:
            raise ValueError("an LRU map keeps at least one entry")
        with self._lock:
            self.capacity = capacity
            while len(self._items) > capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
