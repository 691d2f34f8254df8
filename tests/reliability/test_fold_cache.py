"""The fold cache is bounded (issue 15, item 4): a process that serves 1,000 nights keeps the
folds of the most recently used few, and its memory stays flat."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from companion import service as services
from companion.service import store
from companion.extensions import db
from companion.service.lru import LRU
from companion.db.models import Night
from companion.games.napalm import Declare
from security.support import PLAYERS, RULES, SETTINGS, napalm_night

CAP = 40


def seat_nights(app, count: int) -> list[tuple[int, str]]:
    """``count`` nights with one action each (so their standings are kept), as (id, players' link)."""
    made = []
    with app.app_context():
        for i in range(count):
            night = napalm_night(f"Night {i}", PLAYERS, "Ann", RULES, SETTINGS)
            made.append((night.id, night.viewer_key))
        for night_id, _ in made:
            services.record(night_id, Declare(("Ben",)), 0)
        db.session.remove()
    return made


@pytest.mark.engine_independent  # the fold cache and the memory are the process's: the same on any database
def test_serving_a_thousand_nights_keeps_the_cache_at_its_cap_and_memory_flat(make_app):
    app = make_app(FOLD_CACHE_SIZE=CAP)
    nights = seat_nights(app, 1000)
    services.clear_cache()
    client = app.test_client()

    def serve(batch: list[tuple[int, str]]) -> None:
        for _, viewer in batch:
            assert client.get(f"/p/{viewer}").status_code == 200

    serve(nights[:200])  # warm up: templates, pools, the first CAP folds
    gc.collect()
    tracemalloc.start()
    try:
        serve(nights[200:400])
        gc.collect()
        after_400 = tracemalloc.get_traced_memory()[0]
        serve(nights[400:])
        gc.collect()
        after_1000 = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(store._cache) == CAP
    assert len(store._derived) <= CAP * store.DERIVED_PER_NIGHT
    # 600 more nights served: what stays in memory grows by far less than 600 folds would take
    # (one fold with its standings is tens of KB; 600 of them would be well over 5 MB)
    print(f"fold cache: {len(store._cache)} folds; traced memory after 400 nights {after_400:,} B, after 1,000 {after_1000:,} B")
    assert after_1000 - after_400 < 1_000_000, (after_400, after_1000)


def test_the_least_recently_used_night_is_the_one_forgotten(make_app):
    app = make_app(FOLD_CACHE_SIZE=3)
    nights = seat_nights(app, 4)
    services.clear_cache()
    with app.app_context():
        first, second, third, fourth = (db.session.get(Night, night_id) for night_id, _ in nights)
        for night in (first, second, third):
            services.table_for(night)
        services.table_for(first)  # used again: now second is the oldest
        services.table_for(fourth)
        assert [n.id in store._cache for n in (first, second, third, fourth)] == [True, False, True, True]
        # a forgotten night is rebuilt from its log, the same as before
        assert services.table_for(second).pot == services.table_for(first).pot == 4


def test_the_lru_map_keeps_its_capacity_and_refuses_none():
    lru: LRU[str, int] = LRU(2)
    lru["a"], lru["b"] = 1, 2
    assert lru.get("a") == 1
    lru["c"] = 3
    assert ("a" in lru, "b" in lru, "c" in lru, len(lru)) == (True, False, True, 2)
    lru.resize(1)
    assert ("a" in lru, "c" in lru) == (False, True)
    with pytest.raises(ValueError):
        LRU(0)
