"""A build that adds many vectors to a space rebuilds its HNSW index over all of them instead of inserting each
into the graph (issue 56: mathlib's 279,000 declarations joining a space of 35,000 statements); a small addition is
inserted into the index as it stands. Which of the two happened is read from the index's identity in PostgreSQL (a
rebuilt index is a new relation), and every statement is found by a dense search after either."""

from __future__ import annotations

import pytest

from digest_vectors import CountingEmbedder
from theorem_rag.indexing.ingest import REBUILD_SHARE, build_index
from theorem_rag.records import Document, Theorem
from theorem_rag.slogans.offline import OfflineSloganWriter

pytestmark = pytest.mark.db
SPACE = "dg_slogan"


def _theorems(start: int, n: int) -> list[Theorem]:
    return [Theorem(id=f"t:{i}", source="t", kind="lemma", body_latex=f"Statement number {i} about rings.",
                    doc_id=f"t:{i}") for i in range(start, start + n)]  # fmt: skip


def _build(store, theorems: list[Theorem]):
    documents = [Document(t.doc_id, t.source) for t in theorems]
    return build_index(store, CountingEmbedder(), theorems, documents, writer=OfflineSloganWriter(), space=SPACE,
                       progress=False)  # fmt: skip


def _index_oid(store) -> int:
    with store.connection() as conn:
        return conn.execute("SELECT to_regclass(%s)::oid", [store.names.hnsw_index(SPACE)]).fetchone()[0]


def test_a_large_addition_rebuilds_the_index_and_a_small_one_inserts_into_it(store):
    _build(store, _theorems(0, 8))
    first = _index_oid(store)
    assert first is not None
    _build(store, _theorems(8, 1))  # 1 new vector: at most REBUILD_SHARE of the 8 the space holds
    assert _index_oid(store) == first
    many = int(9 * REBUILD_SHARE) + 3
    report = _build(store, _theorems(9, many))
    assert report.embedded == many and report.index_built
    rebuilt = _index_oid(store)
    assert rebuilt is not None and rebuilt != first
    found = store.search_dense(SPACE, _vector(store, "t:12"), k=1)
    assert [h.theorem_id for h in found] == ["t:12"]


def _vector(store, theorem_id: str):
    return dict(store.iter_vectors(SPACE))[theorem_id]
