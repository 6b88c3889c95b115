"""Long-running readers see what another process changed, through the index's change marker (migration 18).

A search object (what a server holds for its lifetime) and the app's handlers are made and used first, so that
their caches are warm; a second store on the same tables (another process: an ``index build``) then changes the
index. Without a restart, the next search uses the new index kind, routes a title query to the newly ingested paper,
and the app shows a document it had looked up before it existed.
"""

from __future__ import annotations

import numpy as np
import pytest
from db_helpers import DIM, DOCS, THEOREMS, text_vector

from theorem_rag.db.store import TheoremStore
from theorem_rag.ingest import build_index
from theorem_rag.records import Document, Theorem
from theorem_rag.search import TheoremSearch

pytestmark = pytest.mark.db

TITLE = "A Foundation for Synthetic Algebraic Geometry"
PAPER = Document(id="sag", source="papers", title=TITLE, meta={"arxiv_id": "2307.00073"})
PAPER_THEOREMS = [
    Theorem(id="sag:1", source="papers", kind="definition", doc_id="sag", number="1.1",
            body_latex="A scheme is a type with a cover by open affines."),
    Theorem(id="sag:2", source="papers", kind="lemma", doc_id="sag", number="1.2",
            body_latex="Open subschemes of affine schemes are schemes."),
]  # fmt: skip


class DigestEmbedder:
    """Deterministic vectors per text, no model."""

    batch_size, doc_instruction, query_instruction, dim = 8, "", "", DIM
    backend, model_name = "torch", "digest-model"

    def embed_documents(self, texts, *, progress=False) -> np.ndarray:
        return np.stack([text_vector(t) for t in texts])

    embed_queries = embed_documents

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]


def _build(store, theorems, documents, **kwargs):
    from theorem_rag.slogans.offline import OfflineSloganWriter

    return build_index(store, DigestEmbedder(), theorems, documents, writer=OfflineSloganWriter(), space="toy",
                       progress=False, **kwargs)  # fmt: skip


def test_the_marker_moves_with_documents_and_spaces_and_only_then(store, pg_dsn, table_prefix):
    _build(store, THEOREMS, DOCS, dense_index="bit")
    start = store.generation()
    store.upsert_documents(DOCS)  # every document unchanged
    store.vector_space("toy", DIM)  # registered already
    store.upsert_theorems(THEOREMS)  # statements alone: nothing a reader caches
    assert store.generation() == start
    store.upsert_documents([PAPER])
    assert store.generation() == start + 1
    store.set_index_kind("toy", "halfvec")
    assert store.generation() == start + 2
    with TheoremStore(pg_dsn, table=table_prefix) as other:  # another process sees the same marker
        assert other.generation() == start + 2
        other.delete_source("papers")
    assert store.generation() > start + 2


def test_a_long_lived_search_sees_a_new_index_kind_and_a_new_paper(store, pg_dsn, table_prefix):
    _build(store, THEOREMS, DOCS, dense_index="bit")
    search = TheoremSearch(store, DigestEmbedder(), space="toy", k=3, pool=10)
    retriever = search.as_retriever()  # a LlamaIndex query engine holds this for its lifetime
    assert [h.theorem_id for h in search.search(TITLE)][:1] != ["sag:1"]
    assert [n.node.node_id for n in retriever.retrieve(TITLE)][:1] != ["sag:1"]
    assert store.space("toy").index == "bit"

    with TheoremStore(pg_dsn, table=table_prefix) as other:  # another process's index build: a new paper, halfvec
        _build(other, PAPER_THEOREMS, [PAPER], dense_index="halfvec")
        assert other.space("toy").index == "halfvec" and other.has_index("toy")

    hits = search.search(TITLE)
    assert store.space("toy").index == "halfvec"  # the dense search reads the new kind's index
    assert [h.theorem_id for h in hits][:2] == ["sag:1", "sag:2"]  # and routes to the new paper by its title
    assert [n.node.node_id for n in retriever.retrieve(TITLE)][:2] == ["sag:1", "sag:2"]


def test_the_apps_document_cache_forgets_a_miss_when_documents_change(store, pg_dsn, table_prefix):
    from theorem_rag.ui.app import Handlers

    _build(store, THEOREMS, DOCS)
    store.upsert_theorems(PAPER_THEOREMS)  # the statements came first; their document later
    handlers = Handlers(TheoremSearch(store, DigestEmbedder(), space="toy", k=3, pool=10), None)
    hit = handlers.search.get_theorem("sag:1")
    assert handlers.documents_for([hit]) == {}
    with TheoremStore(pg_dsn, table=table_prefix) as other:
        other.upsert_documents([PAPER])
    assert handlers.documents_for([hit]) == {"sag": PAPER}
