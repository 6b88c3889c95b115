"""Fusion of several rankings into one, pure: reciprocal rank fusion, and the same beside the rankings' scores.

>>> reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]], k=60)[0][0]
'a'
>>> fuse([[("a", 0.9), ("b", 0.5), ("c", 0.1)], [("c", 8.0), ("a", 1.0)]], k=60)[0][0]
'a'
"""

from __future__ import annotations

from collections.abc import Sequence

from theorem_rag.errors import InputError

# How rankings are fused: "ranks", reciprocal rank fusion alone; "ranks+scores", reciprocal rank fusion plus the
# rankings' own scores (each ranking's scores min-max scaled, weighted alike), the two each divided by its best.
FUSIONS = ("ranks", "ranks+scores")


def check_fusion(method: str) -> str:
    """``method`` if it is one of :data:`FUSIONS`, else a clear error."""
    if method not in FUSIONS:
        raise InputError(f"fusion must be one of {', '.join(FUSIONS)}; got {method!r}")
    return method


def _weights(n: int, weights: Sequence[float] | None) -> Sequence[float]:
    if weights is None:
        return [1.0] * n
    if len(weights) != n:
        raise ValueError(f"{len(weights)} weights for {n} rankings")
    if any(w < 0 for w in weights):
        raise InputError("rrf weights must be >= 0")
    return weights


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str | None]], k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[str, float]]:
    """Fuse rankings (best first) into one: ``score(d) = sum_i w_i / (k + rank_i(d))`` with ranks from 1.

    Ties break by first appearance (earlier ranking, then earlier rank), so the result is deterministic.
    A duplicate id inside one ranking counts once, at its best rank. ``None`` holds a place: a statement outside the
    ranking's candidates that it is placed among (its rank counts for those after it; it gets nothing).

    >>> reciprocal_rank_fusion([["x", "y"], ["y"]], weights=[1.0, 2.0])[0][0]
    'y'
    >>> reciprocal_rank_fusion([["x"], [None, None, "y"]])
    [('x', 0.01639344262295082), ('y', 0.015873015873015872)]
    """
    if k < 0:
        raise InputError(f"rrf k must be >= 0, got {k}")
    weights = _weights(len(rankings), weights)
    scores: dict[str, float] = {}
    order: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights):
        seen: set[str] = set()
        for rank, doc in enumerate(ranking, start=1):
            if doc is None or doc in seen:  # None: a place held by a statement outside the ranking
                continue
            seen.add(doc)
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank)
            order.setdefault(doc, len(order))
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))


def score_fusion(rankings: Sequence[Sequence[tuple[str | None, float]]],
                 weights: Sequence[float] | None = None) -> dict[str, float]:  # fmt: skip
    """Weighted sum of the rankings' scores, each ranking's min-max scaled over its own candidates (its best 1, its
    last 0; a ranking whose scores are all equal gives each 1); a candidate a ranking lacks gets 0 from it. Rankings
    are ``(id, score)`` pairs best first; a duplicate id counts once, at its first place. A ``(None, score)`` pair
    is a statement outside the ranking that it is placed among: it counts in the scale and gets nothing.

    >>> score_fusion([[("a", 0.9), ("b", 0.5), ("c", 0.1)], [("c", 8.0)]], weights=[1.0, 0.5])
    {'a': 1.0, 'b': 0.5, 'c': 0.5}
    >>> score_fusion([[(None, 0.9), ("b", 0.5), ("c", 0.1)]])
    {'b': 0.5, 'c': 0.0}
    """
    weights = _weights(len(rankings), weights)
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights):
        first: dict[str, float] = {}
        held = [s for doc, s in ranking if doc is None]  # places held by statements outside the ranking
        for doc, s in ranking:
            if doc is not None:
                first.setdefault(doc, s)  # each id at its first place
        if not first:
            continue
        hi, lo = max([*first.values(), *held]), min([*first.values(), *held])
        for doc, s in first.items():
            scaled = (s - lo) / (hi - lo) if hi > lo else 1.0
            scores[doc] = scores.get(doc, 0.0) + weight * scaled
    return scores


def fuse(rankings: Sequence[Sequence[tuple[str | None, float]]], k: int = 60, weights: Sequence[float] | None = None,
         method: str = "ranks+scores") -> list[tuple[str, float]]:  # fmt: skip
    """Fuse ``(id, score)`` rankings (best first) by ``method`` (:data:`FUSIONS`), best first.

    "ranks" is :func:`reciprocal_rank_fusion` of the ids. "ranks+scores" adds :func:`score_fusion` to it, each
    divided by its best (so the first of either counts 1): rank fusion alone cannot tell a candidate far ahead of the
    others in one ranking from one just ahead, and puts a statement found by both rankings in the middle before one
    found first by one of them and not at all by the other; the scores keep those margins. Ties break by the rank
    fusion's order.

    >>> dense, text = [("a", 0.9), ("b", 0.5), ("c", 0.45)], [("c", 1.0), ("b", 0.6), ("d", 0.55)]
    >>> [d for d, _ in fuse([dense, text], k=60, method="ranks")]  # b: just behind the first of each
    ['c', 'b', 'a', 'd']
    >>> [d for d, _ in fuse([dense, text], k=60)]  # a: far ahead in one
    ['c', 'a', 'b', 'd']
    """
    check_fusion(method)
    ranked = reciprocal_rank_fusion([[doc for doc, _ in r] for r in rankings], k=k, weights=weights)
    if method == "ranks" or not ranked:
        return ranked
    scored = score_fusion(rankings, weights)
    top_rank = ranked[0][1] or 1.0
    top_score = max(scored.values(), default=0.0) or 1.0
    order = {doc: i for i, (doc, _) in enumerate(ranked)}
    both = [(doc, r / top_rank + scored.get(doc, 0.0) / top_score) for doc, r in ranked]
    return sorted(both, key=lambda item: (-item[1], order[item[0]]))
