"""A slogan the LLM failed to write leaves no slogan behind: never the one written for the statement's old text.

The LLM is the local OpenAI-compatible stub (tests/slogan_llm_stub.py), answering the first build and failing
every request of the second; the embedder gives digest vectors, so each vector names the text it was made from.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import replace

import numpy as np
import pytest

from digest_vectors import CountingEmbedder, text_vector
from slogan_llm_stub import StubLLM
from theorem_rag.db.store import TheoremStore
from theorem_rag.indexing.ingest import build_index
from theorem_rag.records import Document, Hit, Theorem
from theorem_rag.slogans.llm_writer import LLMSloganWriter

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
pytestmark = pytest.mark.db

DOC = Document(id="x:notes", source="x", title="Notes")
LEMMA = Theorem(id="x:lem", source="x", kind="lemma", doc_id="x:notes", label="lem",
                body_latex=r"Every Noetherian ring has finitely many minimal primes.")  # fmt: skip
OTHER = Theorem(id="x:def", source="x", kind="definition", doc_id="x:notes", label="def",
                body_latex=r"A ring is Artinian if descending chains of ideals stabilise.")  # fmt: skip
EDITED = replace(LEMMA, body_latex=r"Every Noetherian local ring of dimension zero is Artinian.")


def reply(messages: list[dict]) -> str:
    user = messages[-1]["content"]
    if "dimension zero" in user:
        return "Zero-dimensional Noetherian local rings are Artinian."
    return "Noetherian rings have finitely many minimal primes." if "minimal" in user else "Artinian rings."


def _build(store, stub, theorems):
    writer = LLMSloganWriter("openai/stub-model", api_base=stub.api_base, max_retries=0, backoff=0.01)
    return build_index(store, CountingEmbedder(), theorems, [DOC], writer=writer, space="dg_slogan", progress=False,
                       build_hnsw=False)  # fmt: skip


def _state(store, ids):
    slogans = {h.theorem_id: h.slogan for h in store.hydrate([Hit(i, 1.0) for i in ids])}
    return slogans, dict(store.iter_vectors("dg_slogan", list(ids)))


def test_a_failed_slogan_clears_the_old_one_and_matches_a_fresh_build(store, pg_dsn):
    with StubLLM(reply) as up:
        _build(store, up, [LEMMA, OTHER])
    slogans, _ = _state(store, [LEMMA.id])
    assert slogans[LEMMA.id] == "Noetherian rings have finitely many minimal primes."

    with StubLLM(reply, fail_first=100) as down:
        report = _build(store, down, [EDITED, OTHER])
        assert down.calls == 1  # the other slogan came from the cache
    assert (report.slogans_failed, report.slogans_cached, report.embedded) == (1, 1, 1)
    slogans, vectors = _state(store, [LEMMA.id, OTHER.id])
    assert slogans == {LEMMA.id: None, OTHER.id: "Artinian rings."}
    # the vector is the LaTeX's (no slogan to embed), and the stored slogan says nothing else
    np.testing.assert_allclose(vectors[LEMMA.id], text_vector(EDITED.text, 16), atol=1e-6)

    with TheoremStore(pg_dsn, table=f"fresh_{uuid.uuid4().hex[:8]}") as fresh:
        fresh.migrate()
        with StubLLM(reply) as up:  # the definition's slogan in this index's cache, as in the first one's
            _build(fresh, up, [OTHER])
        with StubLLM(reply, fail_first=100) as down:
            _build(fresh, down, [EDITED, OTHER])
        want_slogans, want_vectors = _state(fresh, [LEMMA.id, OTHER.id])
    assert slogans == want_slogans
    for tid, vec in want_vectors.items():
        np.testing.assert_allclose(vectors[tid], vec, atol=1e-6)


@pytest.mark.slow
@pytest.mark.models
def test_on_ray_too_a_failed_slogan_clears_the_old_one(pg_dsn):
    """The same two builds with the Ray engine (a local ``ray.init``) and the bundled model: the failed slogan is
    cleared there too, and the vector is the edited LaTeX's."""
    ray = pytest.importorskip("ray", reason='the Ray build needs Ray: pip install "theorem-rag[ray]"')
    from corpus_build.ray_engine import init_ray
    from theorem_rag.config import DEFAULT_EMBED_MODEL
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ray_build import RayBuildOptions, build_index_ray

    table = f"rayslogan_{uuid.uuid4().hex[:8]}"

    def build(stub, theorems):
        writer = {"spec": "openai/stub-model", "api_base": stub.api_base, "max_retries": 0}
        return build_index_ray(pg_dsn, theorems, [DOC], space="minilm_slogan", table=table, writer=writer,
                               embed_backend="torch", options=RayBuildOptions(batch_size=8),
                               build_hnsw=False)  # fmt: skip

    init_ray(num_cpus=2, object_store_mb=200)
    try:
        with StubLLM(reply) as up:
            build(up, [LEMMA, OTHER])
        with StubLLM(reply, fail_first=100) as down:
            report = build(down, [EDITED, OTHER])
    finally:
        ray.shutdown()
    assert (report.slogans_failed, report.slogans_cached, report.embedded) == (1, 1, 1)
    with TheoremStore(pg_dsn, table=table) as store:
        slogans = {h.theorem_id: h.slogan for h in store.hydrate([Hit(i, 1.0) for i in (LEMMA.id, OTHER.id)])}
        vector = dict(store.iter_vectors("minilm_slogan", [LEMMA.id]))[LEMMA.id]
    assert slogans == {LEMMA.id: None, OTHER.id: "Artinian rings."}
    want = Embedder(DEFAULT_EMBED_MODEL, backend="torch").embed_documents([EDITED.text])[0]
    np.testing.assert_allclose(vector, want, atol=1e-5)
