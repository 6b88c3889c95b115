"""Dense search of :class:`~theorem_rag.db.store.TheoremStore` (a mixin beside the space methods of ``vectors``):
a candidate pool from the space's HNSW index (Hamming distance over the quantized vectors, or half-precision cosine),
re-ranked by exact cosine on the stored column; how far the graph is walked (``hnsw.ef_search``) follows the index
kind and the space's maintained size. The exact scan is the reference ranking.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from psycopg import Connection, sql

from theorem_rag.db import counters, sqltext
from theorem_rag.db.names import Names
from theorem_rag.db.vectors import VectorSpace, as_vectors
from theorem_rag.errors import InputError
from theorem_rag.filters import Filters
from theorem_rag.records import Hit

ITERATIVE_SCAN_MODES = ("off", "strict_order", "relaxed_order")
MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search
# Candidates re-ranked by exact cosine when the caller names no pool, per index kind. Hamming distance over bits is
# coarse (on the shared corpora a pool of 1,000 keeps 0.993 of the exact top 20, 500 keeps 0.980); a half-precision
# walk is already in cosine order, so 200 find what 1,000 find (1.000 on the shared corpora, 0.986 at 1M, the same
# walk of ef_search 1,000) and the 800 more rows are read and re-ranked for nothing
# (benchmarks/results/dense_seqscan/, benchmarks/results/scale_index/).
DEFAULT_POOL = {"bit": 1000, "halfvec": 200}
# hnsw.ef_search when the caller names none, per index kind: steps of (the most vectors a space may hold for it, the
# walk), smallest first; a larger space, and a kind not listed, walk MAX_EF_SEARCH. A half-precision walk of 200
# finds the exact top 20 of the Stacks slogans (Recall@20 1.000) on the shared corpora (29k: 7-9 ms against 10-12
# at 400) and at 100k, 400 at 300k (where 200 finds 0.971), but 400 finds 0.977 at 1M, where 1,000 finds 1.000
# (benchmarks/results/ef_search/, benchmarks/results/ef_steps/). The Hamming walk of a bit index needs its pool
# of 1,000 anyway. The count is the space's maintained one, read in the same statement.
EF_SEARCH_STEPS: dict[str, tuple[tuple[int, int], ...]] = {"halfvec": ((100_000, 200), (300_000, 400))}


def _check_ef_search(ef_search: int | None) -> None:
    if ef_search is not None and (isinstance(ef_search, bool) or not isinstance(ef_search, int)
                                  or not 1 <= ef_search <= MAX_EF_SEARCH):  # fmt: skip
        raise InputError(f"ef_search must be an integer in 1..{MAX_EF_SEARCH}, got {ef_search!r}")


class DenseOps:
    """Dense-search methods; the host class provides ``names``, ``connection()`` and ``space()``."""

    names: Names

    def connection(self) -> AbstractContextManager[Connection]:  # pragma: no cover - provided by TheoremStore
        raise NotImplementedError

    def space(self, name: str) -> VectorSpace:  # pragma: no cover - provided by SpaceOps
        raise NotImplementedError

    def _resolve_categories(self, f: Filters) -> Filters:
        """A category filter as the documents listed in it (``meta.categories``), intersected with ``doc_id``."""
        if not f.category:
            return f
        from dataclasses import replace

        with self.connection() as conn:
            docs = {r[0] for r in conn.execute(
                sql.SQL("SELECT id FROM {d} WHERE meta->'categories' ?| %s").format(d=sql.Identifier(self.names.documents)),
                [list(f.category)],
            )}  # fmt: skip
        if f.doc_id:
            docs &= set(f.doc_id)
        # no document in the categories: a document id no row has, so the search returns nothing
        return replace(f, doc_id=tuple(sorted(docs)) or (" no document ",), category=())

    def search_dense(
        self,
        space: str,
        qvec: Any,
        k: int = 10,
        pool: int = 200,
        filters: Filters | dict | None = None,
        ef_search: int | None = None,
        iterative_scan: str = "relaxed_order",
    ) -> list[Hit]:
        """Top ``k`` by exact cosine among a pool of ``pool`` candidates from the HNSW index (by Hamming distance of
        the quantized vectors, or by half-precision cosine: the space's index kind).

        ``ef_search`` (``None``: by the index kind and the space's size, :data:`EF_SEARCH_STEPS`) is raised to the
        pool size (up to 1000) since the index cannot return more candidates than that without iterative scan;
        ``iterative_scan`` ('off', 'strict_order', 'relaxed_order') lets it continue when filters drop candidates.
        Scores are cosine similarities.
        """
        sp = self.space(space)
        q = as_vectors(qvec, sp.dim)[0]
        f = self._resolve_categories(Filters.from_mapping(filters))
        check_k(k, pool)
        _check_ef_search(ef_search)
        if iterative_scan not in ITERATIVE_SCAN_MODES:
            raise InputError(f"iterative_scan must be one of {', '.join(ITERATIVE_SCAN_MODES)}, got {iterative_scan!r}")
        query, params = sqltext.dense_search(self.names, space, sp.dim, sp.half, q, f, k, pool, kind=sp.index)
        with self.connection() as conn, conn.transaction():
            self._walk_settings(conn, sp, pool, ef_search, iterative_scan, unfiltered=f.is_empty)
            rows = conn.execute(query, params).fetchall()
        return [Hit(tid, float(score), rank=i, doc_id=doc, dense_rank=i) for i, (tid, doc, score) in enumerate(rows, 1)]

    def dense_ef_search(self, space: str, pool: int = 200, ef_search: int | None = None) -> int:
        """The ``hnsw.ef_search`` a dense search of ``space`` with this pool walks (what :meth:`search_dense` sets)."""
        _check_ef_search(ef_search)
        with self.connection() as conn, conn.transaction():
            return self._walk_settings(conn, self.space(space), pool, ef_search, "relaxed_order", unfiltered=True)

    def _walk_settings(self, conn: Connection, sp: VectorSpace, pool: int, ef_search: int | None, iterative_scan: str,
                       unfiltered: bool) -> int:  # fmt: skip
        """Set the HNSW walk of a dense search in ``conn``'s transaction (one round trip); returns its ef_search."""
        floor = min(pool, MAX_EF_SEARCH)
        steps = EF_SEARCH_STEPS.get(sp.index) if ef_search is None else None
        if not steps:
            ef, params = sql.SQL("%s"), [max(ef_search or MAX_EF_SEARCH, floor)]
        else:  # the space's maintained count: the walk grows with the index, with no query of its own
            ef = sql.SQL("SELECT CASE {whens} ELSE %s END FROM (SELECT {n} AS n) AS c").format(
                whens=sql.SQL(" ").join(sql.SQL("WHEN c.n <= %s THEN %s") for _ in steps), n=counters.count_of(self.names))
            params = [*(x for most, walk in steps for x in (most, max(walk, floor))), MAX_EF_SEARCH,
                      counters.vectors_key(sp.name)]  # fmt: skip
        # An unfiltered query is served best by the HNSW index at any size; at a few tens of thousands of vectors
        # the planner's estimate for a half-precision index with ef_search 1,000 prefers a sequential scan that
        # computes every distance instead (39 against 15 ms on the shared corpora, the same top 20:
        # benchmarks/results/dense_seqscan/). With filters the planner keeps its choice: a selective filter is
        # cheaper to scan than to walk the graph for.
        # set_config with bound values: SET cannot take parameters (LlamaIndex's hnsw_kwargs bug under psycopg 3).
        row = conn.execute(
            sql.SQL("SELECT set_config('hnsw.ef_search', ({ef})::text, true), set_config('hnsw.iterative_scan', %s, true), "
                    "set_config('enable_seqscan', %s, true)").format(ef=ef),
            [*params, iterative_scan, "off" if unfiltered else "on"],
        ).fetchone()  # fmt: skip
        return int(row[0])

    def exact_search(self, space: str, qvec: Any, k: int = 10, filters: Filters | dict | None = None) -> list[Hit]:
        """The reference ranking: exact cosine over every admissible vector (sequential scan)."""
        sp = self.space(space)
        q = as_vectors(qvec, sp.dim)[0]
        check_k(k, k)
        query, params = sqltext.exact_search(self.names, space, sp.dim, sp.half, q,
                                            self._resolve_categories(Filters.from_mapping(filters)), k)
        with self.connection() as conn:
            rows = conn.execute(query, params).fetchall()
        return [Hit(tid, float(score), rank=i, doc_id=doc, dense_rank=i) for i, (tid, doc, score) in enumerate(rows, 1)]


def check_k(k: int, pool: int) -> None:
    """``k`` a positive integer and ``pool`` an integer of at least ``k``, else an InputError."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < k:
        raise InputError(f"pool must be an integer >= k ({k}), got {pool!r}")
