"""The premise head (``theorem_rag.retrieval.premise_head``) on hand-made proof graphs in a real database: what it
reads (only proofs of the training split, never the query statement's own, never the holdout's), what it finds,
and that a head fitted on the training split learns a graph's pattern."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from db_helpers import make_embedding
from theorem_rag.errors import InputError
from theorem_rag.records import Document, Theorem
from theorem_rag.retrieval.premise_head import FEATURES, PremiseHead, candidates, fit_head
from theorem_rag.retrieval.retriever import TheoremRetriever
from theorem_rag.training.pairs import in_training_split

pytestmark = pytest.mark.db

DIM = 8
WORDS = ("sheaf", "ring", "module", "scheme", "group", "field", "ideal", "stack", "topos", "limit", "cover", "graph",
         "lattice", "metric", "norm", "curve", "orbit", "knot", "flow", "code")  # fmt: skip


def split_ids(prefix: str, train: bool, n: int) -> list[str]:
    """``n`` ids ``prefix0``, ``prefix1``, ... that are (or are not) in the training split of proof references."""
    found = (f"{prefix}{i}" for i in itertools.count())
    return list(itertools.islice((i for i in found if in_training_split(i) == train), n))


def statement(i: str, doc: str, line: int, text: str, *, refs=(), section=("S",), kind="lemma") -> Theorem:
    return Theorem(id=i, source="g", kind=kind, doc_id=doc, body_latex=text, file=f"{doc}.tex", line=line,
                   section=section, proof_refs=tuple(refs))  # fmt: skip


def load(store, theorems, docs=("g:ch", "g:other")) -> TheoremRetriever:
    from digest_vectors import text_vector

    store.upsert_documents([Document(id=d, source="g", title=d) for d in docs])
    store.upsert_theorems(theorems)
    store.vector_space("toy", DIM)
    store.write_vectors("toy", [t.id for t in theorems], np.stack([text_vector(t.body_latex, DIM) for t in theorems]))
    store.build_index("toy")
    return TheoremRetriever(store, make_embedding(DIM), "toy", k=5, mode="premises")


def head(holdout=(), **weights: float) -> PremiseHead:
    return PremiseHead(tuple(weights.get(f, 0.0) for f in FEATURES), 0.0, frozenset(holdout))


@pytest.fixture
def graph(store):
    """Section S of g:ch: two citers of the training split cite P; the query q cites X (no one else does); H (held
    out in some tests) cites Y; O (outside the split) cites Z. P, X, Y, Z live in g:other."""
    c1, c2, h = split_ids("g:c", True, 3)
    (o,) = split_ids("g:o", False, 1)
    (q,) = split_ids("g:q", True, 1)  # in the split: only the rule for the query's own proof keeps it unread
    other = [statement(f"g:{n}", "g:other", k, f"Unrelated {WORDS[10 + k]} statement number {k}.", section=("T",))
             for k, n in enumerate("PXYZ")]  # fmt: skip
    chapter = [
        statement(c1, "g:ch", 1, "A sheaf on a ring is a module.", refs=["g:P"]),
        statement(c2, "g:ch", 2, "A scheme over a field has an ideal.", refs=["g:P"]),
        statement(h, "g:ch", 3, "Every stack has a topos.", refs=["g:Y"]),
        statement(o, "g:ch", 4, "Every limit has a cover.", refs=["g:Z"]),
        statement(q, "g:ch", 5, "Every group of a graph has an orbit.", refs=["g:X"]),
    ]
    retriever = load(store, chapter + other)
    return retriever, {"c1": c1, "c2": c2, "h": h, "o": o, "q": q}


def features_of(retriever, head_, query) -> dict[str, dict[str, float]]:
    text, exclude = retriever._premise_query(query)
    ranked, kept = retriever.premise_text_ranking(text, exclude)
    found = candidates(retriever.store, head_, ranked, kept)
    return {i: dict(zip(FEATURES, row)) for i, row in zip(found.ids, found.x)}


def test_votes_count_only_proofs_the_head_may_read(graph):
    retriever, who = graph
    f = features_of(retriever, head(), who["q"])
    assert who["q"] not in f  # the statement itself is never a candidate
    assert f["g:P"]["section_votes"] == pytest.approx(np.log1p(2)) and f["g:P"]["cited_by"] == pytest.approx(np.log1p(2))
    # The query statement's own proof is never read (it is what an evaluation asks for).
    assert f["g:X"]["section_votes"] == 0 and f["g:X"]["cited_by"] == 0
    # Nor a proof outside the training split.
    assert f["g:Z"]["section_votes"] == 0 and f["g:Z"]["cited_by"] == 0
    # H's proof is read unless H is held out.
    assert f["g:Y"]["section_votes"] == pytest.approx(np.log1p(1))
    held = features_of(retriever, head(holdout=[who["h"]]), who["q"])
    assert held["g:Y"]["section_votes"] == 0 and held["g:Y"]["cited_by"] == 0
    assert held["g:P"]["section_votes"] == pytest.approx(np.log1p(2))


def test_place_in_the_document(graph):
    retriever, who = graph
    f = features_of(retriever, head(), who["q"])
    assert f[who["o"]]["before_pivot"] == 1.0 and f[who["o"]]["just_before_pivot"] == 1.0  # the statement before Q
    assert f[who["c1"]]["before_pivot"] == pytest.approx(1 / 4) and f[who["c1"]]["just_before_pivot"] == 0.0
    assert f["g:P"]["same_document"] == 0.0 and f[who["c1"]]["same_section"] == 1.0


def test_the_stored_head_ranks_premises(graph, store):
    retriever, who = graph
    text_only = [h.theorem_id for h in retriever.search(who["q"], k=5)]
    store.save_premise_head(head(section_votes=5.0).to_dict())
    found = retriever.search(who["q"], k=5)
    assert found[0].theorem_id == "g:P" and found[0].theorem is not None
    assert [h.rank for h in found] == [1, 2, 3, 4, 5] and who["q"] not in [h.theorem_id for h in found]
    assert text_only[0] != "g:P"  # so the head moved it
    assert [h.theorem_id for h in retriever.with_options(premise_head=False).search(who["q"], k=5)] == text_only
    store.save_premise_head(None)
    assert [h.theorem_id for h in retriever.search(who["q"], k=5)] == text_only


def test_with_filters_the_head_only_reorders(graph, store):
    retriever, who = graph
    store.save_premise_head(head(section_votes=5.0, before_pivot=1.0).to_dict())
    got = retriever.search(who["q"], k=10, filters={"doc_id": ["g:ch"]})
    assert {h.theorem.doc_id for h in got} == {"g:ch"} and "g:P" not in [h.theorem_id for h in got]
    assert got[0].theorem_id == who["o"]  # just before Q


def test_a_head_of_other_features_is_refused(store):
    with pytest.raises(InputError, match="refit"):
        PremiseHead.from_dict({**head().to_dict(), "features": ["text_rank"], "weights": [1.0]})
    with pytest.raises(InputError, match="weights"):
        PremiseHead((1.0,), 0.0)


def test_a_fitted_head_learns_the_graph_and_holds_out(store):
    """Three chapters where every proof cites the statement just before: fitted on the training split, the head
    finds it for statements outside the split, which text alone does not."""
    docs = ["g:a", "g:b", "g:c"]
    rng = np.random.default_rng(0)
    theorems = []
    for d in docs:
        prev = None
        for line in range(1, 26):
            i = f"{d}:{line}"
            words = " ".join(rng.choice(WORDS, size=4, replace=False))
            theorems.append(statement(i, d, line, f"Lemma on {words}.", refs=[prev] if prev else []))
            prev = i
    retriever = load(store, theorems, docs)
    citing = [t for t in theorems if t.proof_refs]
    held = next(t.id for t in citing if in_training_split(t.id))
    fitted = fit_head(retriever.with_options(premise_head=False), store, holdout=[held], queries=0, l2=0.1)
    train = [t for t in citing if in_training_split(t.id) and t.id != held]
    assert fitted.meta["queries"] == len(train) and fitted.holdout == {held}
    assert fitted.weights[FEATURES.index("just_before_pivot")] + fitted.weights[FEATURES.index("before_pivot")] > 1
    store.save_premise_head(fitted.to_dict())
    outside = [t for t in citing if not in_training_split(t.id)]
    assert len(outside) >= 5
    top = [retriever.search(t.id, k=1)[0].theorem_id for t in outside]
    text = [retriever.with_options(premise_head=False).search(t.id, k=1)[0].theorem_id for t in outside]
    expected = [t.proof_refs[0] for t in outside]
    assert top == expected
    assert sum(a == b for a, b in zip(text, expected)) < len(expected) / 2
