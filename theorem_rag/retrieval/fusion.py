"""Reciprocal rank fusion of several rankings, pure.

>>> reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]], k=60)[0][0]
'a'
"""

from __future__ import annotations

from collections.abc import Sequence

from theorem_rag.errors import InputError


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]], k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Fuse rankings (best first) into one: ``score(d) = sum_i w_i / (k + rank_i(d))`` with ranks from 1.

    Ties break by first appearance (earlier ranking, then earlier rank), so the result is deterministic.
    A duplicate id inside one ranking counts once, at its best rank.

    >>> reciprocal_rank_fusion([["x", "y"], ["y"]], weights=[1.0, 2.0])[0][0]
    'y'
    """
    if k < 0:
        raise InputError(f"rrf k must be >= 0, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    if any(w < 0 for w in weights):
        raise InputError("rrf weights must be >= 0")
    scores: dict[str, float] = {}
    order: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights):
        seen: set[str] = set()
        for rank, doc in enumerate(ranking, start=1):
            if doc in seen:
                continue
            seen.add(doc)
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank)
            order.setdefault(doc, len(order))
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
