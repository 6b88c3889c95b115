"""QueryBatcher with the real MiniLM model: concurrent single queries share model calls and get their own vectors."""

from __future__ import annotations

import threading
import time

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


class _Gate:
    """An embedder whose first call waits until ``queued()`` holds, so the batches that follow are deterministic."""

    def __init__(self, embedder) -> None:
        self.embedder, self.sizes = embedder, []
        self.queued = lambda: True
        self.entered = threading.Event()

    def __getattr__(self, name):
        return getattr(self.embedder, name)

    def embed_queries(self, texts, **kwargs):
        if not self.entered.is_set():
            self.entered.set()
            deadline = time.monotonic() + 60
            while not self.queued():
                assert time.monotonic() < deadline, "the other requests never queued"
                time.sleep(0.005)
        self.sizes.append(len(texts))
        return self.embedder.embed_queries(texts, **kwargs)


def test_concurrent_queries_share_batches_and_get_their_own_vectors(embedder):
    from theorem_rag.serving.batching import QueryBatcher

    expected = embedder.embed_queries(QUERIES)
    gate = _Gate(embedder)
    batcher = QueryBatcher(gate, max_batch=5)
    # The first query holds the model while the other 11 queue behind it; they then go 5 + 5 + 1.
    gate.queued = lambda: len(batcher._queue) == len(QUERIES) - 1
    got: dict[int, np.ndarray] = {}

    def ask(i: int) -> None:
        got[i] = batcher.embed_queries([QUERIES[i]])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(QUERIES))]
    threads[0].start()
    assert gate.entered.wait(60)
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join(120)
    assert gate.sizes == [1, 5, 5, 1]
    assert (batcher.batches, batcher.batched_queries) == (4, len(QUERIES))
    for i in range(len(QUERIES)):
        assert got[i].shape == (1, embedder.dim)
        np.testing.assert_allclose(got[i][0], expected[i], atol=1e-5)


def test_several_queries_pass_through_and_attributes_delegate(embedder):
    from theorem_rag.serving.batching import QueryBatcher

    batcher = QueryBatcher(embedder)
    np.testing.assert_allclose(batcher.embed_queries(QUERIES[:3]), embedder.embed_queries(QUERIES[:3]), atol=1e-6)
    assert batcher.batches == 0 and batcher.dim == embedder.dim and batcher.model_name == embedder.model_name
    np.testing.assert_allclose(batcher.embed_query(QUERIES[0]), embedder.embed_query(QUERIES[0]), atol=1e-5)


def test_a_failing_batch_raises_in_the_caller_and_the_next_call_works(embedder):
    from theorem_rag.serving.batching import QueryBatcher

    batcher = QueryBatcher(embedder)
    with pytest.raises((TypeError, ValueError)):
        batcher.embed_queries([None])
    assert batcher.embed_queries(["flat base change"]).shape == (1, embedder.dim)
    with pytest.raises(ValueError, match="max_batch"):
        QueryBatcher(embedder, max_batch=0)
