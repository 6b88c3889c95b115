"""The kind of a space's HNSW index: binary-quantized (``bit``) or half precision (``halfvec``, a new space's default).

Both are served by their index (EXPLAIN), re-rank by exact cosine, and a space switches kind without re-embedding.
"""

from __future__ import annotations

import numpy as np
import pytest
from db_helpers import THEOREMS, plan_nodes, theorem_vectors

from theorem_rag.db import dense_sql
from theorem_rag.errors import InputError
from theorem_rag.filters import Filters

pytestmark = pytest.mark.db


def _load(store, space: str, index: str = "bit"):
    store.copy_theorems(THEOREMS)
    store.vector_space(space, 8, index=index)
    store.write_vectors(space, [t.id for t in THEOREMS], theorem_vectors())
    store.build_index(space)


def _index_definition(store, space: str) -> str | None:
    with store.connection() as conn:
        row = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [store.names.hnsw_index(space)]).fetchone()
    return row[0] if row else None


def _plan_uses_the_index(store, space: str, qvec) -> bool:
    sp = store.space(space)
    query, params = dense_sql.dense_search(store.names, space, sp.dim, sp.half, np.asarray(qvec, np.float32),
                                         Filters(), 3, 10, kind=sp.index)  # fmt: skip
    with store.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        plan = conn.execute(b"EXPLAIN (FORMAT JSON) " + query.as_bytes(conn), params).fetchone()[0]
    return ("Index Scan", store.names.hnsw_index(space)) in {(n["Node Type"], n.get("Index Name")) for n in plan_nodes(plan)}


@pytest.mark.parametrize("index, ops", [("bit", "bit_hamming_ops"), ("halfvec", "halfvec_cosine_ops")])
def test_each_kind_is_served_by_its_index_and_ranks_by_exact_cosine(store, index, ops):
    _load(store, "toy", index)
    assert store.space("toy").index == index
    assert ops in _index_definition(store, "toy")
    q = theorem_vectors()[2]
    assert _plan_uses_the_index(store, "toy", q)
    dense = store.search_dense("toy", q, k=4, pool=10)
    exact = store.exact_search("toy", q, k=4)
    assert [h.theorem_id for h in dense] == [h.theorem_id for h in exact]
    assert [h.score for h in dense] == pytest.approx([h.score for h in exact], abs=1e-6)


def test_a_space_switches_kind_without_re_embedding(store, pg_dsn, table_prefix):
    from theorem_rag.db.store import TheoremStore

    _load(store, "toy")
    assert "bit_hamming_ops" in _index_definition(store, "toy")
    with store.connection() as conn:
        vectors_before = conn.execute(f"SELECT count(*) FROM {store.names.vectors('toy')}").fetchone()[0]
    store.set_index_kind("toy", "halfvec")
    assert _index_definition(store, "toy") is None and not store.has_index("toy")  # the old index is gone
    store.build_index("toy")
    assert "halfvec_cosine_ops" in _index_definition(store, "toy")
    with store.connection() as conn:
        assert conn.execute(f"SELECT count(*) FROM {store.names.vectors('toy')}").fetchone()[0] == vectors_before
    # the kind is recorded: another store (another process) sees it, and asking for the space again keeps it
    other = TheoremStore(pg_dsn, table=table_prefix)
    try:
        assert other.space("toy").index == "halfvec"
        assert other.vector_space("toy", 8).index == "halfvec"
    finally:
        other.close()
    assert _plan_uses_the_index(store, "toy", theorem_vectors()[0])


def test_unknown_kinds_are_refused(store):
    with pytest.raises(InputError, match="dense index must be one of bit, halfvec"):
        store.vector_space("toy", 8, index="ivfflat")
    _load(store, "toy")
    with pytest.raises(InputError, match="dense index must be one of"):
        store.set_index_kind("toy", "hnsw")
    assert store.space("toy").index == "bit" and store.has_index("toy")


def test_a_new_space_gets_the_default_kind_with_its_denser_graph(store):
    from theorem_rag.db.vectors import DEFAULT_INDEX_KIND, HNSW_PARAMS

    store.copy_theorems(THEOREMS)
    store.vector_space("fresh", 8)
    store.write_vectors("fresh", [t.id for t in THEOREMS], theorem_vectors())
    store.build_index("fresh")
    assert store.space("fresh").index == DEFAULT_INDEX_KIND == "halfvec"
    m, ef = HNSW_PARAMS["halfvec"]
    definition = _index_definition(store, "fresh")
    assert "halfvec_cosine_ops" in definition and f"m='{m}'" in definition and f"ef_construction='{ef}'" in definition
    store.set_index_kind("fresh", "bit")
    store.build_index("fresh")  # each kind its own graph parameters
    assert f"m='{HNSW_PARAMS['bit'][0]}'" in _index_definition(store, "fresh")


@pytest.mark.parametrize("index, pool", [("bit", 1000), ("halfvec", 200)])
def test_the_default_pool_follows_the_index_kind_and_an_explicit_one_wins(store, index, pool):
    """Hamming distance over bits needs a large pool to re-rank; a half-precision walk is already in cosine order."""
    from theorem_rag.retrieval.retriever import TheoremRetriever

    _load(store, "toy", index=index)
    reranked: list[int] = []  # the pool each dense search re-ranked, as the store chose it
    walk = store._walk_settings

    def spy(*args, **kwargs):
        ef, chosen = walk(*args, **kwargs)
        reranked.append(chosen)
        return ef, chosen

    store._walk_settings = spy
    embed = type("E", (), {"get_query_embedding": lambda self, q: theorem_vectors()[0].tolist()})()
    plain = TheoremRetriever(store, embed, "toy", k=3, hybrid=False, understand=False)
    hits = plain.search("Nakayama")
    TheoremRetriever(store, embed, "toy", k=3, pool=77, hybrid=False, understand=False).search("Nakayama")
    assert len(hits) == 3 and reranked == [pool, 77]
    assert plain.pool_for("toy") == pool and store.dense_walk("toy", k=3)[1] == pool
