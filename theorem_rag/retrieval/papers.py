"""Paper-level results: statements grouped by their document, a paper scored by its best few statements.

``score = s1 + s2/2 + s3/4 + ...`` over a paper's top ``per_paper`` statement scores: one strong match dominates,
several good ones break ties between papers.

>>> hits = [Hit("a", 0.8, rank=1, doc_id="q"), Hit("b", 0.6, rank=2, doc_id="p"), Hit("c", 0.5, rank=3, doc_id="p")]
>>> [(doc, score) for doc, score, _ in group_by_paper(hits, per_paper=3)]
[('p', 0.85), ('q', 0.8)]
"""

from __future__ import annotations

from theorem_rag.records import Hit, PaperHit
from theorem_rag.retrieval.store_protocol import Store


def group_by_paper(hits: list[Hit], per_paper: int) -> list[tuple[str, float, tuple[Hit, ...]]]:
    """(document id, score, its best ``per_paper`` hits) per document of ``hits``, best score first (ties: the
    document whose best hit ranks first)."""
    groups: dict[str, list[Hit]] = {}
    for h in hits:
        groups.setdefault(h.doc_id or "", []).append(h)
    scored = [
        (doc, sum(h.score / 2**i for i, h in enumerate(group[:per_paper])), tuple(group[:per_paper]))
        for doc, group in groups.items()
    ]
    scored.sort(key=lambda x: (-x[1], x[2][0].rank))
    return scored


def rank_papers(store: Store, hits: list[Hit], k: int, per_paper: int) -> list[PaperHit]:
    """The first ``k`` papers of ``hits`` (:func:`group_by_paper`) with their document records."""
    scored = group_by_paper(hits, per_paper)
    docs = store.get_documents([doc for doc, _, _ in scored[:k]])
    return [
        PaperHit(doc, score, rank=i, document=docs.get(doc), hits=group)
        for i, (doc, score, group) in enumerate(scored[:k], 1)
    ]
