"""Slogans and vectors are keyed on exactly what they were computed from: an edit refreshes what it touches only.

A counting embedder (digest vectors, no model) records every text it embeds, so each test can say exactly what a
rebuild recomputed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from theorem_rag.indexing.ingest import build_index
from theorem_rag.records import Document, Hit, Theorem
from theorem_rag.slogans.offline import OfflineSloganWriter, offline_slogan

from digest_vectors import CountingEmbedder, text_vector

pytestmark = pytest.mark.db

DOC = Document(id="x:notes", source="x", title="Notes")
A = Theorem(id="x:a", source="x", kind="lemma", doc_id="x:notes", label="lemma-spec-open",
            body_latex=r"The map $\Spec(\phi)$ is open.", body_expanded=r"The map $\operatorname{Spec}(\phi)$ is open.")
B = Theorem(id="x:b", source="x", kind="lemma", doc_id="x:notes", label="lemma-flat",
            section=("Algebra", "Flatness"), body_latex=r"Flat modules are torsion free.")
C = Theorem(id="x:c", source="x", kind="definition", doc_id="x:notes", name="Local ring",
            body_latex=r"A ring is local if it has exactly one maximal ideal.", file="a.tex", line=3)


def _build(store, embedder, theorems, field):
    embedder.texts = []
    report = build_index(store, embedder, theorems, [DOC], writer=OfflineSloganWriter(), space=f"dg_{field}",
                         field=field, progress=False, build_hnsw=False)  # fmt: skip
    return report, list(embedder.texts)


def _slogan(store, theorem_id):
    return store.hydrate([Hit(theorem_id, 1.0)])[0].slogan


def _vector(store, space, theorem_id):
    return dict(store.iter_vectors(space, [theorem_id]))[theorem_id]


def test_first_build_embeds_everything_and_a_rerun_nothing(store):
    e = CountingEmbedder()
    report, texts = _build(store, e, [A, B, C], "latex")
    assert report.embedded == 3 and sorted(texts) == sorted(t.text for t in (A, B, C))
    report, texts = _build(store, e, [A, B, C], "latex")
    assert (report.embedded, report.slogans_written, report.slogans_cached, texts) == (0, 0, 3, [])


def test_a_macro_change_refreshes_the_latex_vector_and_the_slogan(store):
    e = CountingEmbedder()
    _build(store, e, [A, B, C], "latex")
    _build(store, e, [A, B, C], "slogan")
    edited = replace(A, body_expanded=r"The map $\mathrm{Spec}(\phi)$ is an open map.")  # \Spec redefined

    report, texts = _build(store, e, [edited, B, C], "latex")
    assert (texts, report.updated) == ([edited.text], 1)
    assert (report.slogans_written, report.slogans_cached) == (1, 2)  # the slogan reads the expanded statement
    np.testing.assert_allclose(_vector(store, "dg_latex", A.id), text_vector(edited.text, 16), atol=1e-6)

    report, texts = _build(store, e, [edited, B, C], "slogan")
    assert (report.slogans_written, texts) == (0, [offline_slogan(edited)])  # cached above, embedded here
    assert _slogan(store, A.id) == offline_slogan(edited)


def test_a_label_change_refreshes_the_slogan_and_its_vector_only(store):
    e = CountingEmbedder()
    _build(store, e, [A, B, C], "latex")
    _build(store, e, [A, B, C], "slogan")
    relabelled = replace(B, label="lemma-flat-torsion-free")
    assert offline_slogan(relabelled) != offline_slogan(B)

    report, texts = _build(store, e, [A, relabelled, C], "slogan")
    assert (report.slogans_written, report.slogans_cached, texts) == (1, 2, [offline_slogan(relabelled)])
    expected = text_vector(offline_slogan(relabelled), 16)
    np.testing.assert_allclose(_vector(store, "dg_slogan", B.id), expected, atol=1e-6)

    report, texts = _build(store, e, [A, relabelled, C], "latex")
    assert (report.embedded, texts) == (0, [])  # the LaTeX did not change: its vector stays


def test_edits_nothing_reads_recompute_nothing(store):
    e = CountingEmbedder()
    _build(store, e, [A, B, C], "latex")
    _build(store, e, [A, B, C], "slogan")
    # Provenance and an outer section: stored, but neither the slogan nor any embedded text reads them.
    moved = [A, replace(B, section=("Commutative algebra", "Flatness")), replace(C, file="b.tex", line=40)]
    report, texts = _build(store, e, moved, "slogan")
    assert (report.updated, report.slogans_written, report.slogans_cached, report.embedded) == (2, 0, 3, 0)
    report, texts = _build(store, e, moved, "latex")
    assert (report.updated, report.embedded, texts) == (0, 0, [])
    assert store.get_theorems([C.id])[C.id].file == "b.tex"  # the record itself is updated


def test_statements_differing_only_in_label_or_section_get_their_own_slogans(store):
    e = CountingEmbedder()
    twins = [replace(B, id="x:b1"), replace(B, id="x:b2", label="lemma-torsion"),
             replace(B, id="x:b3", section=("Modules",))]
    report, texts = _build(store, e, twins, "slogan")
    assert report.slogans_written == 3 and len(set(texts)) == 3
    assert len({_slogan(store, t.id) for t in twins}) == 3


def test_another_token_limit_re_embeds_every_statement_once(store):
    e = CountingEmbedder()
    _build(store, e, [A, B, C], "latex")
    e.hash_tokens = 128  # an embedder that now cuts texts shorter than its model's own limit
    report, texts = _build(store, e, [A, B, C], "latex")
    assert report.embedded == 3 and sorted(texts) == sorted(t.text for t in (A, B, C))
    assert _build(store, e, [A, B, C], "latex")[0].embedded == 0
