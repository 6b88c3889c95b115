"""QueryBatcher with the real MiniLM model: concurrent single queries share model calls and get their own vectors."""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytestmark = pytest.mark.models

QUERIES = [f"statement number {i} about {w}" for i, w in enumerate(
    ["rings", "modules", "schemes", "groups", "fields", "sheaves", "sets", "functions", "spaces", "ideals",
     "primes", "orders"])]  # fmt: skip


@pytest.fixture(scope="module")
def embedder():
    from theorem_rag.embed import Embedder

    return Embedder()


def test_concurrent_queries_get_their_own_vectors(embedder):
    from theorem_rag.api.batching import QueryBatcher

    batcher = QueryBatcher(embedder, max_batch=5)
    expected = embedder.embed_queries(QUERIES)
    got: dict[int, np.ndarray] = {}
    start = threading.Barrier(len(QUERIES))

    def ask(i: int) -> None:
        start.wait()
        got[i] = batcher.embed_queries([QUERIES[i]])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(QUERIES))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, q in enumerate(QUERIES):
        assert got[i].shape == (1, embedder.dim)
        np.testing.assert_allclose(got[i][0], expected[i], atol=1e-5)
    assert batcher.batched_queries == len(QUERIES)
    assert len(QUERIES) / 5 <= batcher.batches <= len(QUERIES)


def test_several_queries_pass_through_and_attributes_delegate(embedder):
    from theorem_rag.api.batching import QueryBatcher

    batcher = QueryBatcher(embedder)
    np.testing.assert_allclose(batcher.embed_queries(QUERIES[:3]), embedder.embed_queries(QUERIES[:3]), atol=1e-6)
    assert batcher.batches == 0 and batcher.dim == embedder.dim and batcher.model_name == embedder.model_name
    np.testing.assert_allclose(batcher.embed_query(QUERIES[0]), embedder.embed_query(QUERIES[0]), atol=1e-5)


def test_a_failing_batch_raises_in_the_caller_and_the_next_call_works(embedder):
    from theorem_rag.api.batching import QueryBatcher

    batcher = QueryBatcher(embedder)
    with pytest.raises((TypeError, ValueError)):
        batcher.embed_queries([None])
    assert batcher.embed_queries(["flat base change"]).shape == (1, embedder.dim)
    with pytest.raises(ValueError, match="max_batch"):
        QueryBatcher(embedder, max_batch=0)
