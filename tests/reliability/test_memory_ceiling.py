"""What a process keeps is bounded by weight, not by the number of nights (issue 21, item 2).

One process serving nights at the file bound (2,000 stages, which ``/import`` takes
without a link) grew to 1,447 MB at 320 nights: the fold cache kept 256 nights whatever
their size.  It now keeps at most ``FOLD_CACHE_EVENTS`` events in its folds (and twice
that in what it derives from them, eight times until issue 37), so a visitor importing from many addresses
and opening every page cannot push it past that.  The process's memory itself is
measured by ``bench/memory_bench.py`` (figures in docs/reliability.md).
"""

from __future__ import annotations

import pytest

from companion import service as services
from companion.service import store
from companion.values import limits
from companion.service.lru import LRU
from reliability.heavy_nights import every_page, import_from, night_at_the_bound

#: the ceiling for this test: room for two nights at the bound (2 x 2,001 = 4,002 events), not three
CEILING = 5_000


def test_imports_at_the_bound_from_many_addresses_never_push_the_cache_past_its_ceiling(make_app):
    app = make_app(FOLD_CACHE_EVENTS=CEILING, IMPORT_LIMIT=20)  # the shipped per-address limit
    services.clear_cache()
    client = app.test_client()
    data = night_at_the_bound()
    seen_nights = []
    for number in range(1, 5):
        address = f"127.0.1.{number}"  # a visitor with no link, from another address each time
        keeper, viewer = import_from(client, address, data)
        for url in every_page(keeper, viewer, limits.MAX_STAGES):
            assert client.get(url, environ_base={"REMOTE_ADDR": address}).status_code in (200, 303), url
            folds, derived = services.cache_weight()
            assert folds <= CEILING and derived <= CEILING * store.DERIVED_EVENTS_PER_EVENT, (number, url, folds, derived)
        seen_nights.append(number)
        # the night just read is kept (a fold of 2,000 stages weighs 2,001: its events and one);
        # with 4 nights imported the cache holds at most 2 folds, where it held all 4 before
        folds, _ = services.cache_weight()
        assert folds == 2_001 * min(number, 2), (number, folds)
        assert len(store._cache) == min(number, 2)
    assert seen_nights == [1, 2, 3, 4]


def test_what_is_derived_from_nights_weighs_at_most_twice_the_events_the_folds_may_hold(make_app):
    make_app(FOLD_CACHE_EVENTS=1_000)  # derived values: 2 x 1,000 = 2,000 events at most
    services.clear_cache()
    for night_id in range(1, 11):
        store.keep_derived("standings", night_id, 300, ("standings of night", night_id))
    # each weighs 301 (its 300 events and one): six weigh 1,806; a seventh would make 2,107 > 2,000,
    # so the four kept first are forgotten, the oldest first
    _, derived = services.cache_weight()
    assert derived == 1_806
    assert [store.derived("standings", n, 300) for n in (4, 5)] == [None, ("standings of night", 5)]


def test_the_lru_map_forgets_the_oldest_entries_beyond_its_weight_and_keeps_none_heavier_than_it():
    lru: LRU[str, int] = LRU(10, weigh=lambda value: value, weight_limit=10)
    lru["a"], lru["b"] = 4, 5  # 4 + 5 = 9, under 10
    assert (lru.weight, len(lru)) == (9, 2)
    lru["c"] = 3  # 9 + 3 = 12 > 10: the oldest, "a" (4), goes; 5 + 3 = 8 stay
    assert ("a" in lru, "b" in lru, "c" in lru, lru.weight) == (False, True, True, 8)
    lru["b"] = 1  # replaced, not added, and now the newest: 3 + 1 = 4
    assert lru.weight == 4
    lru["huge"] = 11  # heavier than the whole map may be: not kept, nothing else dropped
    assert ("huge" in lru, lru.weight, len(lru)) == (False, 4, 2)
    lru.resize(10, weight_limit=3)  # 4 > 3: "c" (3, now the oldest) goes, leaving 1
    assert ("b" in lru, "c" in lru, lru.weight) == (True, False, 1)
    assert lru.pop("b") == 1 and lru.weight == 0
    with pytest.raises(ValueError):
        LRU(1, weight_limit=0)
