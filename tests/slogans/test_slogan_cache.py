"""The slogan caches: one row type, one contract (first write wins), run against the memory and database caches."""

from __future__ import annotations

import pytest

from theorem_rag.records import Theorem
from theorem_rag.slogans.cache import MemorySloganCache, SloganCache, SloganRow, StoreSloganCache, slogan_key
from theorem_rag.slogans.offline import OfflineSloganWriter
from theorem_rag.slogans.writer import write_slogans

THEOREMS = [Theorem(id=f"x:{i}", source="x", kind="lemma", doc_id="d", body_latex=f"Fact number {i}.")
            for i in range(5)]


@pytest.fixture(params=["memory", pytest.param("database", marks=pytest.mark.db)])
def make_cache(request):
    """A factory of caches that share one backing store: a second cache object sees what the first wrote."""
    if request.param == "memory":
        shared = MemorySloganCache()
        return lambda: shared
    store = request.getfixturevalue("store")
    return lambda: StoreSloganCache(store)


def test_row_key_is_derived_and_checked():
    k = slogan_key("h", "litellm", "v2", "m")
    assert k != slogan_key("h", "litellm", "v2", "m2") and k != slogan_key("hl", "itellm", "v2", "m")
    assert SloganRow("h", "litellm", "v2", "m", "S.").key == k
    with pytest.raises(ValueError, match="empty slogan"):
        SloganRow("h", "w", "v", "m", "  ")
    with pytest.raises(ValueError, match="does not match"):
        SloganRow("h", "w", "v", "m", "S.", key="forged")


def test_contract_get_put_and_first_write_wins(make_cache):
    cache = make_cache()
    assert isinstance(cache, SloganCache)
    first = SloganRow("h1", "llm-body", "llm-1", "m", "First slogan.", 10, 5, 0.25)
    other = SloganRow("h2", "llm-body", "llm-1", "m", "Other slogan.")
    assert cache.get_many([first.key]) == {}
    cache.put_many([first, other])
    cache.put_many([])
    cache.put_many([SloganRow("h1", "llm-body", "llm-1", "m", "A later, different slogan.")])
    again = make_cache()
    assert again.get_many([first.key, other.key, "absent"]) == {first.key: "First slogan.", other.key: "Other slogan."}
    assert again.get_many([SloganRow("h1", "llm-body", "llm-1", "other-model", "x").key]) == {}


def test_rerun_reads_the_cache_and_writes_nothing(make_cache):
    first = write_slogans(THEOREMS, OfflineSloganWriter(), make_cache(), progress=False, flush_every=2)
    assert first.stats.written == 5
    again = write_slogans(THEOREMS, OfflineSloganWriter(), make_cache(), progress=False)
    assert (again.stats.cached, again.stats.written) == (5, 0)
    assert again.slogans == first.slogans == {f"x:{i}": f"Lemma. Fact number {i}." for i in range(5)}


@pytest.mark.db
def test_database_rows_round_trip_with_their_costs(store):
    row = SloganRow("h1", "llm-body", "llm-1", "m", "Slogan.", 12, 7, 0.5)
    assert store.cache_slogans([row]) == 1
    assert store.cached_slogans([row.key]) == {row.key: row}
