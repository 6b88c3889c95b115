"""SQL text of dense search and vector spaces, built apart from running it: a space's table and HNSW index, the
candidate pool by the index re-ranked by exact cosine, and the exact reference scan. Every value is a bound parameter;
nothing here connects (the mixin that runs it is :mod:`theorem_rag.db.dense`).
"""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import sql

from theorem_rag.db.table_names import Names
from theorem_rag.db.table_sql import filter_clause
from theorem_rag.filters import Filters


def _vec_type(dim: int, half: bool) -> sql.Composable:
    return sql.SQL("{}({})").format(sql.SQL("halfvec" if half else "vector"), sql.Literal(int(dim)))


def create_space_table(names: Names, space: str, dim: int, half: bool) -> sql.Composed:
    return sql.SQL(
        """CREATE TABLE IF NOT EXISTS {v} (
            theorem_id text PRIMARY KEY REFERENCES {t} (id) ON DELETE CASCADE,
            content_hash text NOT NULL, source text NOT NULL, kind text NOT NULL, doc_id text NOT NULL, year int,
            embedding {typ} NOT NULL)"""
    ).format(v=sql.Identifier(names.vectors(space)), t=sql.Identifier(names.theorems), typ=_vec_type(dim, half))


# What the HNSW index of a space orders by, per index kind (VectorSpace.index), with its operator class and distance
# operator; ``{d}`` is the dimension and ``{x}`` the vector (the column, or the query parameter with its type).
_INDEXED = {
    "bit": ("binary_quantize({x})::bit({d})", "bit_hamming_ops", "<~>"),
    "halfvec": ("{x}::halfvec({d})", "halfvec_cosine_ops", "<=>"),
}


def _indexed(kind: str, x: sql.Composable, dim: int) -> sql.Composed:
    return sql.SQL(_INDEXED[kind][0]).format(x=x, d=sql.Literal(int(dim)))


def create_hnsw_index(names: Names, space: str, dim: int, m: int = 16, ef_construction: int = 64,
                      kind: str = "bit") -> sql.Composed:  # fmt: skip
    """HNSW over the binary-quantized embedding (one bit per dimension) with Hamming distance (``kind="bit"``), or
    over the embedding in half precision with cosine distance (``kind="halfvec"``)."""
    return sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {v} USING hnsw (({e}) {ops}) WITH (m = {m}, ef_construction = {ef})").format(
        i=sql.Identifier(names.hnsw_index(space)),
        v=sql.Identifier(names.vectors(space)),
        e=_indexed(kind, sql.Identifier("embedding"), dim),
        ops=sql.SQL(_INDEXED[kind][1]),
        m=sql.Literal(int(m)),
        ef=sql.Literal(int(ef_construction)),
    )


def dense_search(
    names: Names, space: str, dim: int, half: bool, qvec: object, filters: Filters, k: int, pool: int,
    kind: str = "bit",
) -> tuple[sql.Composed, list]:
    """Candidate pool by Hamming distance of the quantized vectors, or by half-precision cosine (``kind``: the
    space's index kind; served by its HNSW index), re-ranked by exact cosine.

    Filters sit inside the candidate query, so the pool holds only admissible rows (with iterative scan the index
    keeps going until it has found ``pool`` of them). Ties in cosine break by id, so the order is deterministic.
    """
    where, fparams = filter_clause(filters, "v", documents=names.documents)
    typ = _vec_type(dim, half)
    query = sql.SQL(
        """WITH candidates AS MATERIALIZED (
            SELECT v.theorem_id, v.doc_id, v.embedding FROM {v} AS v WHERE {where}
            ORDER BY {col} {op} {param}
            LIMIT %s)
        SELECT theorem_id, doc_id, 1 - (embedding <=> %s::{typ}) AS score
        FROM candidates ORDER BY embedding <=> %s::{typ}, theorem_id LIMIT %s"""
    ).format(v=sql.Identifier(names.vectors(space)), where=where, typ=typ, op=sql.SQL(_INDEXED[kind][2]),
             col=_indexed(kind, sql.SQL("v.embedding"), dim), param=_indexed(kind, sql.SQL("%s::{typ}").format(typ=typ), dim))  # fmt: skip
    return query, [*fparams, qvec, pool, qvec, qvec, k]


def exact_search(
    names: Names, space: str, dim: int, half: bool, qvec: object, filters: Filters, k: int,
    ids: Sequence[str] | None = None,
) -> tuple[sql.Composed, list]:
    """The reference: exact cosine over every admissible row (a sequential scan; no index serves it). With ``ids``,
    over those statements only (found by primary key)."""
    where, fparams = filter_clause(filters, "v", documents=names.documents)
    if ids is not None:
        where, fparams = sql.SQL("{} AND v.theorem_id = ANY(%s)").format(where), [*fparams, list(ids)]
    typ = _vec_type(dim, half)
    query = sql.SQL(
        """SELECT v.theorem_id, v.doc_id, 1 - (v.embedding <=> %s::{typ}) AS score FROM {v} AS v WHERE {where}
        ORDER BY v.embedding <=> %s::{typ}, v.theorem_id LIMIT %s"""
    ).format(v=sql.Identifier(names.vectors(space)), where=where, typ=typ)
    return query, [qvec, *fparams, qvec, k]
