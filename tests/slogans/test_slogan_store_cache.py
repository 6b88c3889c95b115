"""StoreSloganCache: the SloganCache protocol over the real PostgreSQL slogan table."""

from __future__ import annotations

import pytest

from theorem_rag.records import Theorem
from theorem_rag.slogans.cache import SloganCache, StoreSloganCache
from theorem_rag.slogans.offline import OfflineSloganWriter
from theorem_rag.slogans.writer import write_slogans

pytestmark = pytest.mark.db

THEOREMS = [Theorem(id=f"x:{i}", source="x", kind="lemma", doc_id="d", body_latex=f"Fact number {i}.") for i in range(5)]


def test_slogans_persist_in_the_database_and_a_rerun_reads_them(store):
    cache = StoreSloganCache(store)
    assert isinstance(cache, SloganCache)
    first = write_slogans(THEOREMS, OfflineSloganWriter(), cache, progress=False, flush_every=2)
    assert first.stats.written == 5
    again = write_slogans(THEOREMS, OfflineSloganWriter(), StoreSloganCache(store), progress=False)
    assert again.stats.cached == 5 and again.stats.written == 0
    assert again.slogans == first.slogans == {f"x:{i}": f"Lemma. Fact number {i}." for i in range(5)}
