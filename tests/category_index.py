"""A real ``TheoremSearch`` over three arXiv-style papers for the category filter on every surface.

``arxiv:2401.00001`` is listed in math.AG only, ``arxiv:2401.00002`` in math.AC with a cross-list to math.AG, and
``arxiv:2401.00003`` in math.NT only; all five statements are about curves, so an unfiltered search for "curve"
returns every one of them and a filter is what drops the math.NT paper. Indexed with the bundled MiniLM model and
the offline slogan writer on the session's embedded PostgreSQL; built once per DSN.
"""

from __future__ import annotations

import uuid

from theorem_rag.records import Document, Theorem

QUERY = "smooth projective curve"
# statement id -> document id
STATEMENTS = {
    "arxiv:2401.00001#thm:genus": "arxiv:2401.00001",
    "arxiv:2401.00001#lem:degree": "arxiv:2401.00001",
    "arxiv:2401.00002#thm:ring": "arxiv:2401.00002",
    "arxiv:2401.00003#thm:points": "arxiv:2401.00003",
    "arxiv:2401.00003#lem:count": "arxiv:2401.00003",
}
CATEGORIES = {"arxiv:2401.00001": ["math.AG"], "arxiv:2401.00002": ["math.AC", "math.AG"],
              "arxiv:2401.00003": ["math.NT"]}  # fmt: skip
IN_AG = sorted(t for t, d in STATEMENTS.items() if d != "arxiv:2401.00003")
IN_NT = sorted(t for t, d in STATEMENTS.items() if d == "arxiv:2401.00003")
BODIES = {
    "arxiv:2401.00001#thm:genus": "A smooth projective curve of genus $g$ over an algebraically closed field has "
                                  "a canonical divisor of degree $2g-2$.",
    "arxiv:2401.00001#lem:degree": "A nonconstant morphism of smooth projective curves is finite and surjective.",
    "arxiv:2401.00002#thm:ring": "The local ring of a smooth curve at a closed point is a discrete valuation ring.",
    "arxiv:2401.00003#thm:points": "A smooth projective curve of genus at least two over a number field has "
                                   "finitely many rational points.",
    "arxiv:2401.00003#lem:count": "The number of points of a curve over a finite field satisfies the Hasse-Weil "
                                  "bound.",
}
_BUILT: dict[str, object] = {}


def records() -> tuple[list[Theorem], list[Document]]:
    kinds = {"thm": "theorem", "lem": "lemma"}
    theorems = [Theorem(id=tid, source="arxiv", kind=kinds[tid.split("#")[1][:3]], body_latex=BODIES[tid], doc_id=doc,
                        label=tid.split("#")[1], url=f"https://arxiv.org/abs/{doc.removeprefix('arxiv:')}")
                for tid, doc in STATEMENTS.items()]  # fmt: skip
    documents = [Document(id=doc, source="arxiv", title=f"Paper {doc}", year=2024,
                          url=f"https://arxiv.org/abs/{doc.removeprefix('arxiv:')}",
                          meta={"primary_category": cats[0], "categories": cats})
                 for doc, cats in CATEGORIES.items()]  # fmt: skip
    return theorems, documents


def category_search(dsn: str):
    """A ``TheoremSearch`` over the three papers in the database at ``dsn`` (own table prefix); cached per DSN."""
    if dsn in _BUILT:
        return _BUILT[dsn]
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.db.table_names import space_name
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.search import TheoremSearch
    from theorem_rag.slogans.offline import OfflineSloganWriter

    store = TheoremStore(dsn, table=f"cat_{uuid.uuid4().hex[:8]}")
    embedder = Embedder()
    space = space_name(embedder.model_name, "slogan")
    theorems, documents = records()
    build_index(store, embedder, theorems, documents, writer=OfflineSloganWriter(), space=space, progress=False)
    _BUILT[dsn] = TheoremSearch(store, embedder, space=space, k=10, max_k=50)
    return _BUILT[dsn]
