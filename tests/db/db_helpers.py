"""Hand-written records, a tiny deterministic LlamaIndex embedding, and the counter and rows-read checks of the
database tests."""

from __future__ import annotations

import numpy as np
import psycopg

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


def offline_retriever(store, theorems, documents, space: str = "toy"):
    """A retriever over ``theorems`` with their offline slogans embedded by :func:`make_embedding` in ``space``
    (index built): only query understanding, the name look-up and full-text search can order them by meaning."""
    from theorem_rag.retrieval.retriever import TheoremRetriever
    from theorem_rag.slogans.offline import offline_slogan

    slogans = {t.id: offline_slogan(t) for t in theorems}
    store.upsert_documents(documents)
    store.upsert_theorems(theorems, slogans=slogans)
    store.vector_space(space, DIM)
    store.write_vectors(space, [t.id for t in theorems], [text_vector(slogans[t.id]) for t in theorems])
    store.build_index(space)
    return TheoremRetriever(store, make_embedding(), space=space, k=5, pool=20)


# -- counters and rows read (tests/db/test_counters.py, tests/db/test_bounded_work.py) ----------------------------


def recomputed_counts(store) -> tuple[dict, dict]:
    """The lexicon and counts recomputed from the tables (what the triggers must agree with)."""
    n = store.names
    with store.connection() as conn:
        lexicon = dict(conn.execute(f"SELECT word, ndoc FROM ts_stat('SELECT tsv FROM {n.text}')").fetchall())
        counts = {f"source:{s}": c for s, c in conn.execute(f"SELECT source, count(*) FROM {n.theorems} GROUP BY 1")}
        counts["theorems"] = conn.execute(f"SELECT count(*) FROM {n.theorems}").fetchone()[0]
        counts["documents"] = conn.execute(f"SELECT count(*) FROM {n.documents}").fetchone()[0]
        for (space,) in conn.execute(f"SELECT name FROM {n.spaces}").fetchall():
            counts[f"vectors:{space}"] = conn.execute(f"SELECT count(*) FROM {n.vectors(space)}").fetchone()[0]
    return lexicon, {k: v for k, v in counts.items() if v}


def maintained_counts(store) -> tuple[dict, dict]:
    n = store.names
    with store.connection() as conn:
        lexicon = dict(conn.execute(f"SELECT lexeme, ndoc FROM {n.lexicon}").fetchall())
        counts = dict(conn.execute(f"SELECT key, n FROM {n.counts}").fetchall())
    return lexicon, counts


def text_rows_kept_and_fresh(store) -> tuple[list, list]:
    """The text table's rows, and what they must be: computed afresh from the statements table."""
    from theorem_rag.db import counters

    n = store.names
    with store.connection() as conn:
        kept = conn.execute(f"SELECT * FROM {n.text} ORDER BY id").fetchall()
        fresh = conn.execute(counters.text_rows(n.theorems) + psycopg.sql.SQL(" ORDER BY id")).fetchall()
    return kept, fresh


def formula_counts(store) -> tuple[dict, dict]:
    """The formula keys' counts the triggers keep, and what they must be: per key, the statements that have it (as
    the GIN index of ``formula_keys`` counts them)."""
    n = store.names
    with store.connection() as conn:
        kept = dict(conn.execute(f"SELECT key, ndoc FROM {n.formula_df}").fetchall())
        keys = [r[0] for r in conn.execute(f"SELECT DISTINCT unnest(formula_keys) FROM {n.theorems}")]
        fresh = {k: conn.execute(f"SELECT count(*) FROM {n.theorems} WHERE formula_keys @> ARRAY[%s]", [k]).fetchone()[0]
                 for k in keys}  # fmt: skip
    return kept, fresh


def check_counters(store) -> None:
    lexicon, counts = maintained_counts(store)
    true_lexicon, true_counts = recomputed_counts(store)
    assert lexicon == true_lexicon
    assert counts == true_counts
    kept_keys, fresh_keys = formula_counts(store)
    assert kept_keys == fresh_keys
    kept, fresh = text_rows_kept_and_fresh(store)
    assert kept == fresh


def rows_read(store, tables: list[str]) -> int:
    """Rows PostgreSQL read from ``tables`` (sequential scans plus index fetches) up to now."""
    with store.connection() as conn:
        conn.execute("SELECT pg_stat_force_next_flush()")  # this backend's counters are flushed when it idles
    with psycopg.connect(store.dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0) "
            "FROM pg_stat_user_tables WHERE relname = ANY(%s)",
            [tables],
        ).fetchone()
    return int(row[0])


def plan_rows(store, query, params, relation: str) -> int:
    """Rows the executed plan read from ``relation``: actual rows times loops of every scan node on it."""
    import json

    with store.connection() as conn:
        text = query.as_string(conn)
        plan = conn.execute(psycopg.sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) ") + psycopg.sql.SQL(text), params).fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)

    return int(sum(n["Actual Rows"] * n["Actual Loops"] for n in plan_nodes(plan) if n.get("Relation Name") == relation))


REFERENCE_LONG_QUERY = """
WITH terms AS (
    SELECT l.lexeme, ln(1 + ((SELECT count(*) FROM {t}) - l.ndoc + 0.5) / (l.ndoc + 0.5)) AS idf, to_tsquery('simple', l.lexeme) AS q
    FROM (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', %(q)s))) AS lexeme) AS u JOIN {lx} AS l USING (lexeme)
    WHERE l.lexeme ~ '^[a-z0-9]+$' AND l.ndoc <= 0.2 * (SELECT count(*) FROM {t}) ORDER BY l.ndoc, l.lexeme LIMIT 8),
anyq AS (SELECT to_tsquery('simple', string_agg(lexeme, ' | ')) AS q FROM terms)
SELECT t.id FROM {t} AS t, anyq WHERE t.tsv @@ anyq.q
ORDER BY (SELECT coalesce(sum(idf), 0) FROM terms WHERE t.tsv @@ terms.q) / (SELECT sum(idf) FROM terms)
         + 0.1 * least(ts_rank_cd(t.tsv, anyq.q, 1), 2.0) + CASE WHEN lower(t.name) = lower(%(q)s) THEN 10 ELSE 0 END DESC, t.id
LIMIT 30"""


def long_statements(prefix: str, sizes: list[int], seed: int = 9) -> list[Theorem]:
    """Statements of ``sizes`` distinct rare words each (about 12 bytes of full-text vector per word), with three to
    five of the query words w010...w015 among them."""
    rng = np.random.default_rng(seed)
    return [
        Theorem(id=f"s:{prefix}{i}", source="a", kind="lemma", doc_id="doc1", name=f"Long lemma {prefix} {i}",
                body_latex=" ".join(f"x{j:05d}" for j in rng.choice(90_000, size=size, replace=False))
                + " " + " ".join(rng.choice(["w010", "w011", "w012", "w013", "w014", "w015"], size=3 + i % 3)))
        for i, size in enumerate(sizes)
    ]  # fmt: skip
