"""Ranking metrics for one query: Hit@k, MRR@k, Recall@k and nDCG@10, at theorem and at paper level. Pure Python.

Conventions, fixed here so that every configuration is scored alike:

- The ranking is the list as given: position 1 is the first id. Ties in score are not seen here, so a searcher
  must break them deterministically (for example by corpus order) before handing the list over.
- Duplicates count once, at their first occurrence; later copies are dropped before cutting at ``k``.
- ``exclude`` ids are dropped from the ranking before scoring (a query that is itself a corpus statement).
- An empty ranking scores 0 on every metric.
- A relevant id the corpus does not hold is still in the denominator of Recall@k and in the ideal ranking of
  nDCG@k: the query is scored as a miss for it and :func:`missing_relevant` lets the harness count and report such
  queries.
- nDCG is computed at the cut-offs of :data:`NDCG_KS` that are among those asked for (10, the figure Lean search
  engines are compared by), relevance binary.

>>> scores = score_ranking(["a", "b", "a", "c"], relevant={"c"}, ks=(1, 5))
>>> scores["hit@1"], scores["hit@5"], scores["mrr@5"]
(0.0, 1.0, 0.3333333333333333)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence

from theorem_rag.errors import InputError

METRICS = ("hit", "mrr", "recall")
# nDCG is reported at these cut-offs only, when asked for: the table stays one column wider, not four.
NDCG_KS = (10,)
DEFAULT_KS = (1, 5, 10, 20)
PRIMARY_METRIC = "hit@20"
LABELS = {"hit": "Hit", "mrr": "MRR", "recall": "R", "ndcg": "nDCG"}


def primary_metric(ks: Sequence[int]) -> str:
    """The metric a comparison is summed up by: Hit@20, or Hit at the largest k when 20 is not computed.

    >>> primary_metric((1, 5, 10, 20)), primary_metric((1, 3))
    ('hit@20', 'hit@3')
    """
    return PRIMARY_METRIC if 20 in ks else f"hit@{max(ks)}"


def metric_names(ks: Sequence[int]) -> list[str]:
    """The metrics scored at cut-offs ``ks``, in report order: Hit, MRR and Recall at every k, then nDCG.

    >>> metric_names((1, 10))
    ['hit@1', 'hit@10', 'mrr@1', 'mrr@10', 'recall@1', 'recall@10', 'ndcg@10']
    """
    return [f"{m}@{k}" for m in METRICS for k in ks] + [f"ndcg@{k}" for k in ks if k in NDCG_KS]


def metric_label(metric: str) -> str:
    """How reports write a metric.

    >>> metric_label("ndcg@10"), metric_label("recall@20")
    ('nDCG@10', 'R@20')
    """
    name, k = metric.split("@")
    return f"{LABELS[name]}@{k}"


def clean_ranking(ranked: Iterable[str], exclude: Collection[str] = ()) -> list[str]:
    """The ranking with excluded ids dropped and duplicates kept at their first position only.

    >>> clean_ranking(["a", "x", "b", "a"], exclude={"x"})
    ['a', 'b']
    """
    seen: set[str] = set(exclude)
    out = []
    for item in ranked:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def first_relevant_rank(ranked: Sequence[str], relevant: Collection[str]) -> int | None:
    """1-based position of the first relevant id in a cleaned ranking, or None.

    >>> first_relevant_rank(["a", "b", "c"], {"c", "b"})
    2
    """
    for i, item in enumerate(ranked, start=1):
        if item in relevant:
            return i
    return None


def hit_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1.0 when a relevant id is among the first ``k`` of a cleaned ranking, else 0.0.

    >>> hit_at_k(["a", "b"], {"b"}, 1), hit_at_k(["a", "b"], {"b"}, 2)
    (0.0, 1.0)
    """
    rank = first_relevant_rank(ranked[:k], relevant)
    return 0.0 if rank is None else 1.0


def mrr_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Reciprocal rank of the first relevant id within the first ``k``, else 0.0.

    >>> mrr_at_k(["a", "b", "c"], {"c"}, 3), mrr_at_k(["a", "b", "c"], {"c"}, 2)
    (0.3333333333333333, 0.0)
    """
    rank = first_relevant_rank(ranked[:k], relevant)
    return 0.0 if rank is None else 1.0 / rank


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Share of the relevant set found among the first ``k`` of a cleaned ranking (0.0 for an empty set).

    >>> recall_at_k(["a", "b", "c"], {"a", "c", "z"}, 2)
    0.3333333333333333
    """
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & set(relevant)) / len(set(relevant))


def ndcg_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Normalised discounted cumulative gain of a cleaned ranking, relevance binary: the sum of 1 / log2(i + 1)
    over the relevant ids at positions i <= ``k``, divided by the same sum for an ideal ranking (the first
    min(|relevant|, k) positions relevant); 0.0 for an empty relevant set.

    >>> ndcg_at_k(["a", "b"], {"b"}, 10), ndcg_at_k(["b", "x", "a"], {"a", "b"}, 10)
    (0.6309297535714575, 0.9197207891481876)
    """
    if not relevant:
        return 0.0
    relevant = set(relevant)
    gain = sum(1.0 / math.log2(i + 1) for i, item in enumerate(ranked[:k], start=1) if item in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), k) + 1))
    return gain / ideal


def score_ranking(
    ranked: Iterable[str],
    relevant: Collection[str],
    ks: Sequence[int] = DEFAULT_KS,
    exclude: Collection[str] = (),
) -> dict[str, float]:
    """Every metric at every k for one query, keyed ``"hit@5"``, ``"mrr@10"``, ``"recall@20"``, and nDCG where
    ``ks`` holds a cut-off of :data:`NDCG_KS` (``"ndcg@10"``).

    >>> score_ranking(["x", "a"], {"a"}, ks=(1,), exclude={"x"})
    {'hit@1': 1.0, 'mrr@1': 1.0, 'recall@1': 1.0}
    """
    _check_ks(ks)
    relevant = set(relevant) - set(exclude)
    cleaned = clean_ranking(ranked, exclude)
    out: dict[str, float] = {}
    for k in ks:
        out[f"hit@{k}"] = hit_at_k(cleaned, relevant, k)
        out[f"mrr@{k}"] = mrr_at_k(cleaned, relevant, k)
        out[f"recall@{k}"] = recall_at_k(cleaned, relevant, k)
    for k in (k for k in ks if k in NDCG_KS):
        out[f"ndcg@{k}"] = ndcg_at_k(cleaned, relevant, k)
    return out


def paper_ranking(ranked: Iterable[str], doc_of: Mapping[str, str], exclude: Collection[str] = ()) -> list[str]:
    """Documents in the order their first statement appears; ids with no known document are skipped.

    >>> paper_ranking(["t1", "t2", "t3"], {"t1": "p", "t2": "p", "t3": "q"})
    ['p', 'q']
    """
    docs = (doc_of.get(t) for t in clean_ranking(ranked, exclude))
    return clean_ranking(d for d in docs if d is not None)


def relevant_papers(
    relevant: Iterable[str], doc_of: Mapping[str, str], explicit: Collection[str] = ()
) -> set[str]:
    """The papers that count at paper level: ``explicit`` when given, else the documents of the relevant theorems.

    >>> sorted(relevant_papers(["t1", "t9"], {"t1": "p"}))
    ['p']
    """
    if explicit:
        return set(explicit)
    return {doc_of[t] for t in relevant if t in doc_of}


def missing_relevant(relevant: Iterable[str], corpus: Collection[str]) -> list[str]:
    """Relevant ids the corpus does not hold: such a query cannot score fully, whatever the searcher does.

    >>> missing_relevant(["a", "b"], {"a"})
    ['b']
    """
    return [r for r in relevant if r not in corpus]


def mean_scores(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean of each metric over queries; an empty list gives an empty dict (n = 0 is reported apart).

    >>> mean_scores([{"hit@1": 1.0}, {"hit@1": 0.0}])
    {'hit@1': 0.5}
    """
    if not rows:
        return {}
    return {key: sum(r[key] for r in rows) / len(rows) for key in rows[0]}


def _check_ks(ks: Sequence[int]) -> None:
    if not ks or any(not isinstance(k, int) or k < 1 for k in ks):
        raise InputError(f"ks must be positive integers, got {list(ks)!r}")


def overlap_at_k(approx: Sequence[str], exact: Sequence[str], k: int) -> float:
    """Share of the exact top ``k`` that an approximate search also returns in its top ``k`` (1.0 if both empty).

    >>> overlap_at_k(["a", "b", "c"], ["a", "c", "d"], 3)
    0.6666666666666666
    """
    truth = set(clean_ranking(exact)[:k])
    if not truth:
        return 1.0
    return len(truth & set(clean_ranking(approx)[:k])) / len(truth)
