"""A small thread-safe least-recently-used map: what a process keeps per night stays bounded.

The fold cache (companion.service.store) kept one entry per night a process had ever served; a
long-running server that sees many nights would grow without end.  This keeps the
``capacity`` most recently used entries and forgets the oldest one beyond that.

A count of entries alone does not bound memory when entries differ in size: 256 nights
of 2,000 stages take a hundred times what 256 short nights take (issue 21, item 2).
Given ``weigh`` and ``weight_limit``, the map also keeps the sum of its entries'
weights (for the folds: the events folded) at or under the limit, forgetting the
oldest entries first, and never keeps an entry heavier than the limit on its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _one(_value: object) -> int:
    return 1


class LRU(Generic[K, V]):
    """A dict-like map of at most ``capacity`` entries weighing at most ``weight_limit`` in all;
    reading or writing one makes it the newest."""

    def __init__(self, capacity: int, weigh: Callable[[V], int] | None = None,
                 weight_limit: int | None = None) -> None:
        if capacity < 1:
            raise ValueError("an LRU map keeps at least one entry")
        if weight_limit is not None and weight_limit < 1:
            raise ValueError("an LRU map's weight limit is at least 1")
        self.capacity = capacity
        self.weight_limit = weight_limit
        self._weigh = weigh or _one
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    @property
    def weight(self) -> int:
        """The sum of the kept entries' weights (their count when no ``weigh`` was given)."""
        return self._weight

    def get(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            try:
                self._items.move_to_end(key)
            except KeyError:
                return default
            return self._items[key][0]

    def _put(self, key: K, value: V) -> None:
        """Keep ``value`` as the newest entry, then forget the oldest beyond the bounds (lock held)."""
        self._drop(key)
        weight = self._weigh(value)
        if self.weight_limit is not None and weight > self.weight_limit:
            return  # heavier than the whole map may be: rebuilt whenever asked for
        self._items[key] = (value, weight)
        self._weight += weight
        self._shrink()

    def _drop(self, key: K) -> tuple[V, int] | None:
        kept = self._items.pop(key, None)
        if kept is not None:
            self._weight -= kept[1]
        return kept

    def _shrink(self) -> None:
        while len(self._items) > self.capacity or (
            self.weight_limit is not None and self._weight > self.weight_limit
        ):
            _, (_, weight) = self._items.popitem(last=False)
            self._weight -= weight

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._put(key, value)

    def setdefault(self, key: K, value: V) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
            self._put(key, value)
            return value

    def pop(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            kept = self._drop(key)
            return default if kept is None else kept[0]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weight = 0

    def resize(self, capacity: int, weight_limit: int | None = None) -> None:
        """Keep at most ``capacity`` entries weighing at most ``weight_limit`` from now on (the newest ones)."""
        if capacity < 1:
            raise ValueError("an LRU map keeps at least one entry")
        if weight_limit is not None and weight_limit < 1:
            raise ValueError("an LRU map's weight limit is at least 1")
        with self._lock:
            self.capacity = capacity
            self.weight_limit = weight_limit
            self._shrink()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
