"""Dense search of :class:`~theorem_rag.db.store.TheoremStore` (a mixin beside the space methods of ``vectors``):
a candidate pool from the space's HNSW index (Hamming distance over the quantized vectors, or half-precision cosine),
re-ranked by exact cosine on the stored column; how far the graph is walked (``hnsw.ef_search``) follows the index
kind and the space's maintained size. The exact scan is the reference ranking. SQL in ``dense_sql``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import Connection, sql

from theorem_rag.db import counters, dense_sql
from theorem_rag.db.connection import StorePart
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
# The default pool of a larger space, per index kind: (the most vectors a space may hold for DEFAULT_POOL, the pool
# above that). Once the walk is at MAX_EF_SEARCH (above 400,000 vectors for halfvec) only a pool past it finds more
# of the exact top 20, the index walking on (iterative scan) until the pool is full: at 1M a halfvec pool of 200 to
# 1,000 keeps 0.972 / 0.977 of the exact top 20 in two builds, 2,000 keeps 0.984 / 0.989 for about 15 ms more per
# dense query; up to 300,000, 200 keeps 0.986-0.991 (benchmarks/results/scale_pool/). On the 314,059 statements of
# the LaTeX corpora with mathlib, a walk of 400 and a pool of 200 keep 0.991 of it in 14 ms, a walk of 1,000 and a
# pool of 2,000 0.999 in 59 ms (100 dev queries, benchmarks/results/mathlib_build/): the step is at 400,000.
LARGE_POOL: dict[str, tuple[int, int]] = {"halfvec": (400_000, 2000)}
# hnsw.ef_search when the caller names none, per index kind: steps of (the most vectors a space may hold for it, the
# walk), smallest first; a larger space, and a kind not listed, walk MAX_EF_SEARCH. A half-precision walk of 400
# finds the exact top 20 (Recall@20 1.000) on the shared corpora, at 100k and at 300k (where 200 finds 0.971), but
# 0.977 at 1M, where 1,000 finds 1.000 (benchmarks/results/ef_search/, benchmarks/results/ef_steps/). A walk of 200
# found the Stacks slogans' exact top 20 up to 100k (2-3 ms less per dense query) but not statements added to a
# built graph: with the unseen papers added to the quickstart's index it lost the answer to 1 of their 100 queries
# and 0.0005 of the exact top 20 in the adapted and the words spaces, where 400 loses nothing
# (benchmarks/results/ef_added/). The Hamming walk of a bit index needs its pool of 1,000 anyway. The count is the
# space's maintained one, read in the same statement.
EF_SEARCH_STEPS: dict[str, tuple[tuple[int, int], ...]] = {"halfvec": ((400_000, 400),)}


def _check_ef_search(ef_search: int | None) -> None:
    if ef_search is not None and (isinstance(ef_search, bool) or not isinstance(ef_search, int)
                                  or not 1 <= ef_search <= MAX_EF_SEARCH):  # fmt: skip
        raise InputError(f"ef_search must be an integer in 1..{MAX_EF_SEARCH}, got {ef_search!r}")


class DenseOps(StorePart):
    """Dense-search methods; the store also provides ``space()``."""

    def space(self, name: str) -> VectorSpace:  # pragma: no cover - provided by SpaceOps
        raise NotImplementedError

    def search_dense(
        self,
        space: str,
        qvec: Any,
        k: int = 10,
        pool: int | None = None,
        filters: Filters | dict | None = None,
        ef_search: int | None = None,
        iterative_scan: str = "relaxed_order",
    ) -> list[Hit]:
        """Top ``k`` by exact cosine among a pool of ``pool`` candidates from the HNSW index (by Hamming distance of
        the quantized vectors, or by half-precision cosine: the space's index kind).

        ``pool`` (``None``: by the index kind and the space's size, :data:`DEFAULT_POOL` and :data:`LARGE_POOL`,
        never less than ``k``) and ``ef_search`` (``None``: by the index kind and the space's size,
        :data:`EF_SEARCH_STEPS`) are read with the space's maintained count in the statement that sets the walk;
        ef_search is raised to the pool (up to 1000) since the index returns no more candidates than that without
        iterative scan. ``iterative_scan`` ('off', 'strict_order', 'relaxed_order') lets the walk go on when filters
        drop candidates or the pool is larger than ef_search. Scores are cosine similarities.
        """
        sp = self.space(space)
        q = as_vectors(qvec, sp.dim)[0]
        f = Filters.from_mapping(filters)
        check_k(k, k if pool is None else pool)
        _check_ef_search(ef_search)
        if iterative_scan not in ITERATIVE_SCAN_MODES:
            raise InputError(f"iterative_scan must be one of {', '.join(ITERATIVE_SCAN_MODES)}, got {iterative_scan!r}")
        with self.connection() as conn, conn.transaction():
            _, pool = self._walk_settings(conn, sp, k, pool, ef_search, iterative_scan, unfiltered=f.is_empty)
            query, params = dense_sql.dense_search(self.names, space, sp.dim, sp.half, q, f, k, pool, kind=sp.index)
            rows = conn.execute(query, params).fetchall()
        return [Hit(tid, float(score), rank=i, doc_id=doc, dense_rank=i) for i, (tid, doc, score) in enumerate(rows, 1)]

    def dense_walk(self, space: str, k: int = 10, pool: int | None = None, ef_search: int | None = None
                   ) -> tuple[int, int]:  # fmt: skip
        """The ``(hnsw.ef_search, pool)`` a dense search of ``space`` for ``k`` results walks and re-ranks (what
        :meth:`search_dense` sets and uses)."""
        check_k(k, k if pool is None else pool)
        _check_ef_search(ef_search)
        with self.connection() as conn, conn.transaction():
            return self._walk_settings(conn, self.space(space), k, pool, ef_search, "relaxed_order", unfiltered=True)

    def dense_ef_search(self, space: str, pool: int | None = 200, ef_search: int | None = None) -> int:
        """The ``hnsw.ef_search`` a dense search of ``space`` with this pool walks (what :meth:`search_dense` sets)."""
        return self.dense_walk(space, k=1, pool=pool, ef_search=ef_search)[0]

    def _walk_settings(self, conn: Connection, sp: VectorSpace, k: int, pool: int | None, ef_search: int | None,
                       iterative_scan: str, unfiltered: bool) -> tuple[int, int]:  # fmt: skip
        """Set the HNSW walk of a dense search in ``conn``'s transaction and choose its pool (one round trip);
        returns ``(ef_search, pool)``. What follows the space's size reads its maintained count in that statement,
        so the walk and the pool grow with the index at no query of their own."""
        if pool is not None:
            pool_sql, pool_params = sql.SQL("%s"), [pool]
        else:  # never less than k
            most, large = LARGE_POOL.get(sp.index, (None, None))
            small = DEFAULT_POOL.get(sp.index, DEFAULT_POOL["bit"])
            steps = ((most, max(small, k)),) if most is not None else ()
            pool_sql, pool_params = _by_size(steps, max(large or small, k))
        steps = EF_SEARCH_STEPS.get(sp.index, ()) if ef_search is None else ()
        walk_sql, walk_params = _by_size(steps, ef_search or MAX_EF_SEARCH)
        # An unfiltered query is served best by the HNSW index at any size; at a few tens of thousands of vectors
        # the planner's estimate for a half-precision index with ef_search 1,000 prefers a sequential scan that
        # computes every distance instead (39 against 15 ms on the shared corpora, the same top 20:
        # benchmarks/results/dense_seqscan/). With filters the planner keeps its choice: a selective filter is
        # cheaper to scan than to walk the graph for.
        # set_config with bound values: SET cannot take parameters (LlamaIndex's hnsw_kwargs bug under psycopg 3).
        # The walk is never shorter than the pool (up to MAX_EF_SEARCH).
        row = conn.execute(
            sql.SQL("""WITH c AS (SELECT {n} AS n), w AS (SELECT ({pool})::int AS pool, ({walk})::int AS walk FROM c)
                SELECT set_config('hnsw.ef_search', greatest(w.walk, least(w.pool, %s))::text, true),
                       set_config('hnsw.iterative_scan', %s, true), set_config('enable_seqscan', %s, true), w.pool
                FROM w""").format(n=counters.count_of(self.names), pool=pool_sql, walk=walk_sql),
            [counters.vectors_key(sp.name), *pool_params, *walk_params, MAX_EF_SEARCH, iterative_scan,
             "off" if unfiltered else "on"],
        ).fetchone()  # fmt: skip
        return int(row[0]), int(row[3])

    def exact_search(self, space: str, qvec: Any, k: int = 10, filters: Filters | dict | None = None,
                     ids: Sequence[str] | None = None) -> list[Hit]:  # fmt: skip
        """The reference ranking: exact cosine over every admissible vector (sequential scan); with ``ids``, the top
        ``k`` of those statements (by primary key: what a caller that already knows its candidates asks)."""
        sp = self.space(space)
        q = as_vectors(qvec, sp.dim)[0]
        check_k(k, k)
        query, params = dense_sql.exact_search(self.names, space, sp.dim, sp.half, q, Filters.from_mapping(filters), k,
                                             ids=None if ids is None else list(ids))  # fmt: skip
        with self.connection() as conn:
            rows = conn.execute(query, params).fetchall()
        return [Hit(tid, float(score), rank=i, doc_id=doc, dense_rank=i) for i, (tid, doc, score) in enumerate(rows, 1)]


def _by_size(steps: tuple[tuple[int, int], ...], above: int) -> tuple[sql.Composable, list[int]]:
    """An SQL value that follows the space's maintained count ``c.n``: the value of the first of ``steps`` (the most
    vectors, the value; smallest first) that holds it, else ``above``; a bound constant when there are no steps."""
    if not steps:
        return sql.SQL("%s"), [above]
    whens = sql.SQL(" ").join(sql.SQL("WHEN c.n <= %s THEN %s") for _ in steps)
    return sql.SQL("CASE {whens} ELSE %s END").format(whens=whens), [*(x for step in steps for x in step), above]


def check_k(k: int, pool: int) -> None:
    """``k`` a positive integer and ``pool`` an integer of at least ``k``, else an InputError."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < k:
        raise InputError(f"pool must be an integer >= k ({k}), got {pool!r}")
