"""The retriever fuses its rankings by the method it is given (theorem_rag.retrieval.fusion): "ranks+scores" by
default, "ranks" (reciprocal rank fusion alone) on request; an unknown method is a clear error."""

from __future__ import annotations

import pytest

from theorem_rag.errors import InputError

pytestmark = [pytest.mark.db, pytest.mark.models]

QUERIES = ["every finite group of prime order is cyclic", "Nakayama lemma", "a continuous function on a compact set"]


def expected_order(rankings, k, weights, method):
    """The fused order as fusion.py's docstrings define it, written out apart from its code: for each ranking (its
    ids at their first place, ranks from 1), rank fusion adds ``w / (k + rank)`` and the scores add ``w`` times the
    score min-max scaled over that ranking (all equal: 1); "ranks+scores" sums the two, each divided by its best; ties
    go to the rank fusion's order (its score, then first appearance)."""
    rrf, scaled = {}, {}  # in order of first appearance
    for ranking, w in zip(rankings, weights):
        first = {}
        for rank, (doc, score) in enumerate(ranking, start=1):
            first.setdefault(doc, (rank, score))
        lo = min((score for _, score in first.values()), default=0.0)
        spread = max((score for _, score in first.values()), default=0.0) - lo
        for doc, (rank, score) in first.items():
            rrf[doc] = rrf.get(doc, 0.0) + w / (k + rank)
            scaled[doc] = scaled.get(doc, 0.0) + w * ((score - lo) / spread if spread > 0 else 1.0)
    by_ranks = sorted(rrf, key=lambda d: -rrf[d])  # a stable sort: ties stay in order of first appearance
    if method == "ranks":
        return by_ranks
    top_rrf, top_scaled = max(rrf.values()), max(scaled.values())
    return sorted(by_ranks, key=lambda d: -(rrf[d] / top_rrf + scaled[d] / top_scaled))


@pytest.mark.parametrize("method", ["ranks+scores", "ranks"])
def test_the_retriever_ranks_by_its_fusion(tiny_search, monkeypatch, method):
    from theorem_rag.retrieval import retriever as r

    seen = []
    fuse = r.fuse

    def spy(rankings, k, weights, method):
        seen.append((rankings, k, list(weights), method))
        return fuse(rankings, k=k, weights=weights, method=method)

    monkeypatch.setattr(r, "fuse", spy)
    search = tiny_search.with_options(understand=False, fusion=method)  # no routing, no tie-breaks
    for query in QUERIES:
        ids = [h.theorem_id for h in search.search(query, k=8)]
        rankings, k, weights, used = seen.pop()
        assert used == method and len(rankings) == 2  # the dense ranking and the full-text one
        assert ids == expected_order(rankings, k, weights, method)[:8]
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


def test_the_retriever_calls_its_fusion_helpers_through_its_own_module(tiny_search, monkeypatch):
    """Experiments replace ``fusion_score`` and ``matched_share`` on the retriever module by setattr
    (benchmarks/experiments/2026-12-06-research-panel/variants.py): defined in ``candidates``, they must still be
    looked up there when the retriever calls them."""
    from theorem_rag.retrieval import retriever as r

    calls = {"fusion_score": 0, "matched_share": 0}

    def counted(name):
        real = getattr(r, name)

        def spy(arg):
            calls[name] += 1
            return real(arg)

        return spy

    for name in calls:
        monkeypatch.setattr(r, name, counted(name))
    tiny_search.with_options(understand=False).search(QUERIES[0], k=5)  # a long query: its full-text weight is a share
    assert calls["fusion_score"] > 0 and calls["matched_share"] == 1
