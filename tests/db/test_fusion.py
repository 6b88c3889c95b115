"""The retriever fuses its rankings by the method it is given (theorem_rag.retrieval.fusion): "ranks+scores" by
default, "ranks" (reciprocal rank fusion alone) on request; an unknown method is a clear error."""

from __future__ import annotations

import pytest

from theorem_rag.errors import InputError
from theorem_rag.retrieval.fusion import fuse, reciprocal_rank_fusion

pytestmark = [pytest.mark.db, pytest.mark.models]

QUERIES = ["every finite group of prime order is cyclic", "Nakayama lemma", "a continuous function on a compact set"]


@pytest.mark.parametrize("method", ["ranks+scores", "ranks"])
def test_the_retriever_ranks_by_its_fusion(tiny_search, monkeypatch, method):
    from theorem_rag.retrieval import retriever as r

    seen = []

    def spy(rankings, k, weights, method):
        seen.append((rankings, k, list(weights), method))
        return fuse(rankings, k=k, weights=weights, method=method)

    monkeypatch.setattr(r, "fuse", spy)
    search = tiny_search.with_options(understand=False, fusion=method)  # no routing, no tie-breaks
    for query in QUERIES:
        ids = [h.theorem_id for h in search.search(query, k=8)]
        rankings, k, weights, used = seen.pop()
        assert used == method and len(rankings) == 2  # the dense ranking and the full-text one
        expected = (fuse(rankings, k=k, weights=weights) if method == "ranks+scores" else
                    reciprocal_rank_fusion([[x for x, _ in ranking] for ranking in rankings], k=k, weights=weights))
        assert ids == [x for x, _ in expected][:8]
        dense = rankings[0]
        assert all(-1.0 <= s <= 1.0 for _, s in dense) and [s for _, s in dense] == sorted((s for _, s in dense),
                                                                                           reverse=True)


def test_the_default_fusion_and_a_wrong_one(tiny_search):
    from pydantic import ValidationError

    from theorem_rag.config import Settings

    assert tiny_search.retriever.fusion == "ranks+scores" == Settings().fusion
    assert tiny_search.with_options(fusion="ranks").retriever.fusion == "ranks"
    with pytest.raises(InputError, match="fusion must be one of ranks, ranks\\+scores"):
        tiny_search.with_options(fusion="scores")
    with pytest.raises(ValidationError):
        Settings(fusion="borda")
