"""What query understanding adds to a ranking, given the store: the statements to put first and the extra texts
to search. Used by :class:`~theorem_rag.retrieval.retriever.TheoremRetriever`; the rules themselves are pure, in
:mod:`theorem_rag.query_understanding`.

- the paper asked for by arXiv id, DOI or title: its statements first, in source order;
- "definition of X" / "what is a X": definitions named X (or with X in their name) first; a bare term: only a
  definition named exactly so;
- a short query that full-text search does not find, with a statement name close to it by trigram similarity:
  that name is searched too ("did you mean").

>>> route_title("decomposing a factorial into large factors", [("p1", "Decomposing a factorial into large factors")])
'p1'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from theorem_rag.filters import Filters
from theorem_rag.query import query_tokens
from theorem_rag.query_understanding.intent import title_key
from theorem_rag.query_understanding.plan import QueryPlan

MIN_TITLE_WORDS = 3
# Definitions matching the term asked for: this many candidates, of which the fused ranking's best PROMOTED go first.
PROMOTE_POOL = 20
PROMOTED = 2
# A query that contains a title routes to it only when it is little more than the title ("the paper X", "X pdf"):
# a statement that mentions "the Chinese remainder theorem" is not asking for that entry.
MAX_EXTRA_WORDS = 3
TYPO_MAX_TOKENS = 6


@dataclass
class Routing:
    """Statement ids to put first (``front``, in this order; then ``promote``, in the order of the fused ranking),
    the papers routed to, and a close name for a misspelt query."""

    front: list[str] = field(default_factory=list)
    promote: list[str] = field(default_factory=list)
    extra_texts: list[str] = field(default_factory=list)
    did_you_mean: str | None = None
    papers: list[str] = field(default_factory=list)


def route_title(query: str, titles: Sequence[tuple[str, str]]) -> str | None:
    """The id of the document whose title the query is (or contains whole), titles of three words or more."""
    key = title_key(query)
    if len(key.split()) < MIN_TITLE_WORDS:
        return None
    best = None
    for doc_id, title in titles:
        tkey = title_key(title)
        if len(tkey.split()) < MIN_TITLE_WORDS:
            continue
        if key == tkey:
            return doc_id
        extra = len(key.split()) - len(tkey.split())
        if extra <= MAX_EXTRA_WORDS and f" {tkey} " in f" {key} " and (best is None or len(tkey) > best[1]):
            best = (doc_id, len(tkey))
    return best[0] if best else None


def route(store: Any, plan: QueryPlan, filters: Filters, k: int) -> Routing:
    """The routing of one plan (database look-ups only; no ranking)."""
    out = Routing()
    docs = store.documents_by_identifier(plan.arxiv_id, plan.doi) if (plan.arxiv_id or plan.doi) else []
    if not docs:
        doc = route_title(plan.original, store.document_titles())
        docs = [doc] if doc else []
    for doc in docs:
        out.papers.append(doc)
        out.front += [t.id for t in store.theorems_of(doc, limit=k) if _admissible(t, filters)]
    if plan.definition_of:
        out.promote += store.definitions_named(plan.definition_of, exact=False, k=PROMOTE_POOL, filters=filters)
    elif plan.bare_term:
        out.promote += store.definitions_named(plan.text, exact=True, k=PROMOTE_POOL, filters=filters)
    return out


def did_you_mean(store: Any, plan: QueryPlan, lexical_empty: bool) -> str | None:
    """A statement name close to a short query that full-text search did not find (pg_trgm), else None."""
    if not lexical_empty or plan.variants or plan.formula or len(query_tokens(plan.text)) > TYPO_MAX_TOKENS:
        return None
    names = store.similar_names(plan.text, k=1)
    if names and names[0][0].lower() != plan.text.lower():
        return names[0][0]
    return None


def _admissible(theorem: Any, filters: Filters) -> bool:
    return all(not values or getattr(theorem, name) in values
               for name, values in (("source", filters.source), ("kind", filters.kind), ("doc_id", filters.doc_id)))  # fmt: skip
