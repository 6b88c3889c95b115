"""Hand-written records and a tiny deterministic LlamaIndex embedding for database tests."""

from __future__ import annotations

import numpy as np

from theorem_rag.records import Document, Theorem

import digest_vectors

DOCS = [
    Document(id="stacks:algebra", source="stacks", title="Commutative Algebra", year=2020),
    Document(id="paper:1", source="arxiv", title="On finite groups", year=2012, authors=("A. Author",)),
    Document(id="napkin:ch1", source="napkin", title="Groups", year=None),
]

THEOREMS = [
    Theorem(id="stacks:00DV", source="stacks", kind="lemma", doc_id="stacks:algebra", name="Nakayama's lemma",
            body_latex="Let $R$ be a ring, $M$ a finite $R$-module and $I \\subset R$ an ideal with $IM = M$. "
                       "Then there exists $f \\in 1 + I$ with $fM = 0$."),
    Theorem(id="stacks:00FN", source="stacks", kind="definition", doc_id="stacks:algebra", name="Noetherian ring",
            body_latex="A ring $R$ is Noetherian if every ideal of $R$ is finitely generated."),
    Theorem(id="paper:1:thm1", source="arxiv", kind="theorem", doc_id="paper:1", number="1.1",
            body_latex="Every group of prime order $p$ is cyclic."),
    Theorem(id="paper:1:lem2", source="arxiv", kind="lemma", doc_id="paper:1", number="2.3",
            body_latex="A finite subgroup of the multiplicative group of a field is cyclic."),
    Theorem(id="napkin:yoneda", source="napkin", kind="theorem", doc_id="napkin:ch1", name="Yoneda lemma",
            body_latex="For a locally small category $C$ the functor $h$ is fully faithful."),
    Theorem(id="napkin:lagrange", source="napkin", kind="theorem", doc_id="napkin:ch1", name="Lagrange",
            body_latex="The order of a subgroup of a finite group divides the order of the group.",
            meta={"synonyms": ["index theorem"]}),
]  # fmt: skip

SLOGANS = {
    "stacks:00DV": "A finite module equal to its product with an ideal is killed by an element of one plus the ideal.",
    "stacks:00FN": "A ring is Noetherian when all its ideals are finitely generated.",
    "paper:1:thm1": "Groups of prime order are cyclic.",
    "paper:1:lem2": "Finite multiplicative subgroups of fields are cyclic.",
    "napkin:yoneda": "The Yoneda embedding is fully faithful.",
    "napkin:lagrange": "Subgroup orders divide the group order.",
}

DIM = 8


def plan_nodes(plan) -> list[dict]:
    """Every node of an ``EXPLAIN (FORMAT JSON)`` plan, depth first."""
    out, todo = [], [plan[0]["Plan"]]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(reversed(node.get("Plans", [])))
    return out


def text_vector(text: str, dim: int = DIM) -> np.ndarray:
    """A deterministic unit vector for a text (seeded by its digest): same text, same vector."""
    return digest_vectors.text_vector(text, dim)


def theorem_vectors(theorems=THEOREMS) -> np.ndarray:
    return np.stack([text_vector(SLOGANS.get(t.id, t.body_latex)) for t in theorems])


def make_embedding(dim: int = DIM):
    """A LlamaIndex BaseEmbedding that maps a text to :func:`text_vector` (hand-written vectors, no model)."""
    from llama_index.core.base.embeddings.base import BaseEmbedding

    class DigestEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return text_vector(query, dim).tolist()

        def _get_text_embedding(self, text: str) -> list[float]:
            return text_vector(text, dim).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    return DigestEmbedding(model_name="digest")


def load(store, space: str = "toy") -> None:
    """Documents, statements with slogans and their vectors in ``space``, index built."""
    store.upsert_documents(DOCS)
    store.upsert_theorems(THEOREMS, slogans=SLOGANS)
    store.vector_space(space, DIM)
    store.write_vectors(space, [t.id for t in THEOREMS], theorem_vectors())
    store.build_index(space)
