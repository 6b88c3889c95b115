"""``TheoremStore``: every SQL execution against PostgreSQL + pgvector (statements, documents, vectors, caches).

Connects lazily through a small psycopg 3 pool; applies the schema on first use. Writes run in one transaction
each, so a failure leaves nothing half-way; a server that is down raises :class:`StoreUnavailable`, and the same
store works again once the server is back.

>>> store = TheoremStore("postgresql:///theorem_rag?host=/tmp/pg")   # doctest: +SKIP
>>> store.upsert_theorems([theorem])                                  # doctest: +SKIP
UpsertCounts(inserted=1, updated=0, unchanged=0)
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

try:
    import psycopg
    from psycopg import sql
    from psycopg.types.json import Jsonb
    from psycopg_pool import ConnectionPool
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('the PostgreSQL store needs: pip install "theorem-rag[db]"') from err

from theorem_rag.db import counters, table_sql
from theorem_rag.db.bulk import BulkOps, RelationSize
from theorem_rag.db.cancel import tracked
from theorem_rag.db.connection import StoreUnavailable
from theorem_rag.db.dense import DenseOps
from theorem_rag.db.generation import GenerationOps
from theorem_rag.db.generation_cache import GenerationCache
from theorem_rag.db.lexical import TextOps
from theorem_rag.db.lookup import LookupOps
from theorem_rag.db.migrations import execute_all
from theorem_rag.db.proof_graph import ProofGraphOps
from theorem_rag.db.reads import ReadOps
from theorem_rag.db.schema import migrate
from theorem_rag.db.side_tables import SideTableOps
from theorem_rag.db.table_names import Names
from theorem_rag.db.vectors import SpaceOps, VectorSpace
from theorem_rag.errors import InputError
from theorem_rag.filters import FORMAL_LANGUAGES
from theorem_rag.records import Document, Theorem

__all__ = ["RelationSize", "TheoremStore", "UpsertCounts", "VectorSpace"]

@dataclass(frozen=True)
class UpsertCounts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0


# A pooled connection used this recently is handed out without a probe: under load that saves a round trip per
# checkout; one idle longer (the server may have restarted meanwhile) is probed first, as psycopg_pool's check does.
RECHECK_IDLE_S = 2.0


def _check_if_idle(conn: psycopg.Connection) -> None:
    if time.monotonic() - getattr(conn, "_theorem_rag_used", -float("inf")) > RECHECK_IDLE_S:
        ConnectionPool.check_connection(conn)


def _configure(conn: psycopg.Connection, statement_timeout: float = 0) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    if statement_timeout:
        # Once per pooled connection, not per query: a backstop for any statement that outlives the request that
        # asked for it (the servers also cancel a request's queries at its deadline).
        conn.execute("SELECT set_config('statement_timeout', %s, false)", [f"{max(1, round(statement_timeout * 1000))}ms"])


class TheoremStore(SpaceOps, DenseOps, TextOps, ReadOps, SideTableOps, BulkOps, LookupOps, ProofGraphOps,
                   GenerationOps):
    """Statements, documents and embedding spaces in PostgreSQL under one table prefix.

    Its methods come from its parts, one module of ``theorem_rag/db`` each (vector spaces, dense search, full text
    and formulas, reads, side tables, bulk loads, look-ups, the proof graph, the change marker): each is a
    :class:`~theorem_rag.db.connection.StorePart`, and the store provides what they share, its names and
    :meth:`connection`.

    >>> TheoremStore("dbname=theorem_rag", table="theorems").names.documents
    'theorems_documents'
    """

    def __init__(
        self, dsn: str, table: str = "theorems", *, pool_size: int = 4, timeout: float = 5.0, max_query_chars: int = 20_000,
        statement_timeout: float = 0,
    ) -> None:
        if statement_timeout < 0:
            raise InputError(f"statement_timeout must be 0 (no limit) or positive seconds, got {statement_timeout!r}")
        self.dsn = dsn
        self.statement_timeout = statement_timeout
        self.names = Names(table)
        self.pool_size = pool_size
        self.timeout = timeout
        self.max_query_chars = max_query_chars
        self._pool: ConnectionPool | None = None
        self._lock = threading.Lock()
        self._spaces: GenerationCache[str, VectorSpace] = GenerationCache()
        self._local = threading.local()

    # -- connections -------------------------------------------------------------------------------------------
    def _open(self) -> ConnectionPool:
        with self._lock:
            if self._pool is None:
                with psycopg.connect(self.dsn, autocommit=True, connect_timeout=max(1, int(self.timeout))) as conn:
                    migrate(conn, self.names.prefix)
                self._pool = ConnectionPool(
                    self.dsn,
                    min_size=1,
                    max_size=self.pool_size,
                    kwargs={"autocommit": True, "connect_timeout": max(1, int(self.timeout))},
                    configure=functools.partial(_configure, statement_timeout=self.statement_timeout),
                    check=_check_if_idle,
                    timeout=self.timeout,
                    name=f"theorem_rag:{self.names.prefix}",
                    open=True,
                )
            return self._pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection (autocommit; use ``conn.transaction()`` for writes); unreachable -> StoreUnavailable.

        Inside a :class:`~theorem_rag.db.cancel.CancelScope` the connection is registered with it, so a deadline
        can cancel the query running on it. Inside :meth:`pinned`, it is the thread's pinned connection.
        """
        pinned = getattr(self._local, "conn", None)
        if pinned is not None:
            yield pinned
            return
        try:
            pool = self._open()
            with pool.connection() as conn, tracked(conn):
                yield conn
                conn._theorem_rag_used = time.monotonic()  # type: ignore[attr-defined]
        except psycopg.errors.QueryCanceled:
            raise
        except psycopg.OperationalError as err:
            raise StoreUnavailable(f"database unavailable ({self._where()}): {str(err).strip() or type(err).__name__}") from err

    @contextmanager
    def pinned(self) -> Iterator[None]:
        """Every :meth:`connection` in this thread, inside the block, is one pooled connection: a search's dense,
        full-text and hydration queries then take one checkout instead of three (what servers do per request).

        >>> with store.pinned():                      # doctest: +SKIP
        ...     hits = search.search("Nakayama lemma")
        """
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with self.connection() as conn:
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def is_pinned(self) -> bool:
        """Whether this thread is inside :meth:`pinned` (its queries then share one connection, in sequence)."""
        return getattr(self._local, "conn", None) is not None

    def _where(self) -> str:
        # Never print a password: show only host/socket and database.
        try:
            info = psycopg.conninfo.conninfo_to_dict(self.dsn)
        except psycopg.ProgrammingError:
            return "unparsable DSN"
        return f"host={info.get('host', 'localhost')} dbname={info.get('dbname', '?')}"

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    def __enter__(self) -> TheoremStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def migrate(self) -> list[int]:
        """Apply pending migrations (also done on first use); return the versions applied."""
        with self.connection() as conn:
            return migrate(conn, self.names.prefix)

    # -- documents and statements ------------------------------------------------------------------------------
    def upsert_documents(self, documents: Iterable[Document]) -> UpsertCounts:
        """Insert or update documents by id; unchanged rows stay untouched. Years are copied into vector tables."""
        docs = list(documents)
        _check_unique([d.id for d in docs], "document")
        rows = [
            (d.id, d.source, d.title, list(d.authors), d.abstract, d.introduction, d.license, d.url, d.year, Jsonb(d.meta))
            for d in docs
        ]
        changed: list[str] = []
        inserted = 0
        with self.connection() as conn, conn.transaction():
            if rows:
                with conn.cursor() as cur:  # one pipelined round trip per batch, not one per document
                    cur.executemany(table_sql.upsert_documents(self.names), rows, returning=True)
                    while True:
                        for doc_id, was_insert in cur.fetchall():
                            changed.append(doc_id)
                            inserted += was_insert
                        if not cur.nextset():
                            break
            if changed:
                for space in self._all_spaces(conn):
                    conn.execute(table_sql.sync_document_years(self.names, space.name), [changed])
        updated = len(changed) - inserted
        return UpsertCounts(inserted, updated, len(rows) - len(changed))

    def upsert_theorems(self, theorems: Iterable[Theorem], slogans: Mapping[str, str] | None = None) -> UpsertCounts:
        """Idempotent upsert by id and content hash, bulk-loaded through ``COPY``.

        One identical to the stored row is not written at all. Vectors stay: whether one is stale depends on what
        it was computed from, which the caller knows (``ids_missing_vectors(space, hashes)``). ``slogans``
        (id -> slogan) are set in the same transaction.
        """
        items = list(theorems)
        _check_unique([t.id for t in items], "theorem")
        for t in items:
            if not isinstance(t, Theorem):
                raise ValueError(f"expected Theorem records, got {type(t).__name__}")
        cols = list(table_sql.WRITE_COLUMNS)
        with self.connection() as conn, conn.transaction():
            conn.execute(
                sql.SQL("CREATE TEMP TABLE _stage_theorems ON COMMIT DROP AS SELECT {c} FROM {t} LIMIT 0").format(
                    c=sql.SQL(", ").join(map(sql.Identifier, cols)), t=sql.Identifier(self.names.theorems)
                )
            )
            copy_sql = sql.SQL("COPY _stage_theorems ({}) FROM STDIN").format(sql.SQL(", ").join(map(sql.Identifier, cols)))
            with conn.cursor().copy(copy_sql) as copy:
                for t in items:
                    copy.write_row(table_sql.theorem_row(t))
            changed = conn.execute(table_sql.upsert_theorems(self.names)).fetchall()
            updated_ids = [i for i, ins in changed if not ins]
            if updated_ids:
                self._sync_vectors(conn, updated_ids)
            if slogans:
                self._set_slogans(conn, slogans)
        inserted = sum(1 for _, ins in changed if ins)
        return UpsertCounts(inserted, len(updated_ids), len(items) - len(changed))

    def write_theorems(self, theorems: Iterable[Theorem]) -> UpsertCounts:
        """What a build writes: :meth:`upsert_theorems`, except into an index without statements, which gets the
        bulk path of a first load (the secondary indexes dropped, one ``COPY`` into the table, the indexes built
        once after it: ``docs/scaling.md``). Indexes an interrupted bulk load left dropped are built first."""
        items = list(theorems)
        if not self.begin_first_load([t.id for t in items]):
            return self.upsert_theorems(items)
        try:
            return self.write_first_load(items)
        finally:
            self.restore_indexes()

    def begin_first_load(self, ids: Sequence[str]) -> bool:
        """Before a build writes statements ``ids``: build the indexes an interrupted bulk load left dropped, then,
        when the index holds no statement yet, drop its secondary indexes for a bulk load and return True (the
        caller writes with :meth:`write_first_load` and ends with ``restore_indexes``). Duplicate ids are refused
        before anything is dropped."""
        if self.deferred_indexes():
            self.restore_indexes()
        if not ids or self.count():
            return False
        _check_unique(list(ids), "theorem")
        self.defer_indexes()
        return True

    def write_first_load(self, theorems: Sequence[Theorem]) -> UpsertCounts:
        """One batch of a first load (:meth:`begin_first_load`): ``COPY``, or the upsert if another writer has
        stored some of the batch meanwhile (the batch holds no duplicate)."""
        try:
            return UpsertCounts(self.copy_theorems(theorems), 0, 0)
        except InputError:
            return self.upsert_theorems(theorems)

    def _sync_vectors(self, conn: psycopg.Connection, ids: list[str]) -> None:
        """After statements changed: refresh the denormalized filter columns of their vectors."""
        for space in self._all_spaces(conn):
            v, t = sql.Identifier(self.names.vectors(space.name)), sql.Identifier(self.names.theorems)
            conn.execute(
                sql.SQL(
                    "UPDATE {v} AS v SET source = t.source, kind = t.kind, doc_id = t.doc_id, year = d.year "
                    "FROM {t} AS t LEFT JOIN {d} AS d ON d.id = t.doc_id WHERE t.id = v.theorem_id AND t.id = ANY(%s)"
                ).format(v=v, t=t, d=sql.Identifier(self.names.documents)),
                [ids],
            )

    def set_slogans(self, slogans: Mapping[str, str | None]) -> int:
        """Set slogans by theorem id (``None`` clears one); changed slogans invalidate vectors of spaces that embed
        slogans. Returns #changed."""
        with self.connection() as conn, conn.transaction():
            return self._set_slogans(conn, slogans)

    def _set_slogans(self, conn: psycopg.Connection, slogans: Mapping[str, str | None]) -> int:
        ids, texts = list(slogans), [slogans[i] for i in slogans]
        if any(s is not None and (not isinstance(s, str) or not s.strip()) for s in texts):
            raise ValueError("slogans must be non-empty strings (or None to clear one)")
        known = {r[0] for r in conn.execute(
            sql.SQL("SELECT id FROM {t} WHERE id = ANY(%s)").format(t=sql.Identifier(self.names.theorems)), [ids]
        )}  # fmt: skip
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise ValueError(f"slogans for unknown theorem ids: {', '.join(unknown[:5])}")
        changed = [r[0] for r in conn.execute(
            sql.SQL(
                "UPDATE {t} AS t SET slogan = s.slogan, updated_at = now() FROM unnest(%s::text[], %s::text[]) AS s(id, slogan) "
                "WHERE t.id = s.id AND t.slogan IS DISTINCT FROM s.slogan RETURNING t.id"
            ).format(t=sql.Identifier(self.names.theorems)),
            [ids, texts],
        )]  # fmt: skip
        for space in self._all_spaces(conn):
            if space.field == "slogan" and changed:
                conn.execute(
                    sql.SQL("DELETE FROM {v} WHERE theorem_id = ANY(%s)").format(v=sql.Identifier(self.names.vectors(space.name))),
                    [changed],
                )
        return len(changed)

    def recount(self) -> dict[str, int]:
        """Rebuild the text table, the lexicon and the maintained counts from the tables, in one transaction;
        returns the counts.

        Triggers keep them current on every write (:mod:`theorem_rag.db.counters`); this full pass (O(N), every
        full-text vector computed again; full-text searches wait for it) is a repair tool, for a database someone
        edited with triggers disabled.
        """
        with self.connection() as conn, conn.transaction():
            spaces = [s.name for s in self._all_spaces(conn)]
            conn.execute(sql.SQL("LOCK TABLE {t} IN SHARE MODE").format(t=sql.Identifier(self.names.theorems)))
            execute_all(conn, [*counters.rebuild_text(self.names), *counters.recount(self.names, spaces)])
            return self._counts(conn)

    def _counts(self, conn: psycopg.Connection) -> dict[str, int]:
        query = sql.SQL("SELECT key, n FROM {c} ORDER BY key").format(c=sql.Identifier(self.names.counts))
        return {k: int(n) for k, n in conn.execute(query)}

    def delete_source(self, source: str) -> int:
        """Delete every statement and document of a source (vectors go with them); returns #statements deleted."""
        return self._delete("source", source)

    def delete_document(self, doc_id: str) -> int:
        """Delete a document and its statements; returns #statements deleted."""
        return self._delete("doc_id", doc_id)

    def _delete(self, column: str, value: str) -> int:
        if not isinstance(value, str) or not value:
            raise InputError(f"delete needs a non-empty {column}")
        doc_col = "source" if column == "source" else "id"
        with self.connection() as conn, conn.transaction():
            n = conn.execute(
                sql.SQL("DELETE FROM {t} WHERE {c} = %s").format(t=sql.Identifier(self.names.theorems), c=sql.Identifier(column)),
                [value],
            ).rowcount
            conn.execute(
                sql.SQL("DELETE FROM {d} WHERE {c} = %s").format(d=sql.Identifier(self.names.documents), c=sql.Identifier(doc_col)),
                [value],
            )
        return n

    def delete_theorems(self, ids: Sequence[str]) -> int:
        """Delete statements by id (their vectors go with them); returns #deleted."""
        with self.connection() as conn, conn.transaction():
            n = conn.execute(
                sql.SQL("DELETE FROM {t} WHERE id = ANY(%s)").format(t=sql.Identifier(self.names.theorems)), [list(ids)]
            ).rowcount
            return n

    def delete_stale(
        self, doc_ids: Sequence[str], keep_ids: Sequence[str], keep_files: Sequence[tuple[str, str]] = ()
    ) -> int:
        """Delete the statements of ``doc_ids`` whose id is not in ``keep_ids`` (a new version of a paper lost
        them) and whose ``(doc_id, file)`` is not in ``keep_files`` (a file whose parse failed keeps what it had);
        their vectors go with them. Returns #deleted."""
        if not doc_ids:
            return 0
        kept_docs, kept_files = [d for d, _ in keep_files], [f for _, f in keep_files]
        with self.connection() as conn, conn.transaction():
            n = conn.execute(
                sql.SQL(
                    "DELETE FROM {t} AS t WHERE doc_id = ANY(%s) AND NOT (id = ANY(%s)) AND NOT EXISTS ("
                    "SELECT 1 FROM unnest(%s::text[], %s::text[]) AS k(doc_id, file) "
                    "WHERE k.doc_id = t.doc_id AND k.file = t.file)"
                ).format(t=sql.Identifier(self.names.theorems)),
                [list(doc_ids), list(keep_ids), kept_docs, kept_files],
            ).rowcount
            return n

    def stats(self, space: str | None = None) -> dict:
        """Counts for health checks and the UI: theorems, documents, per source; and for ``space`` its vectors,
        statements still missing one, and whether the HNSW index is built.

        Every figure comes from the maintained counts (:mod:`theorem_rag.db.counters`): the cost does not grow
        with the index. A vector always belongs to a statement (foreign key), so the missing ones are the
        difference of two counts.
        """
        with self.connection() as conn:
            counts = self._counts(conn)
            spaces = [s.name for s in self._all_spaces(conn)]
        sources = {k[len(counters.SOURCE_KEY):]: n for k, n in counts.items() if k.startswith(counters.SOURCE_KEY)}
        out: dict = {
            "theorems": counts.get(counters.THEOREMS_KEY, 0),
            "documents": counts.get(counters.DOCUMENTS_KEY, 0),
            "sources": sources,
            "spaces": spaces,
        }
        if space is not None:
            known = space in spaces
            vectors = counts.get(counters.vectors_key(space), 0) if known else 0
            out.update(space=space, vectors=vectors, missing_vectors=out["theorems"] - vectors,
                       index_built=known and self.has_index(space))  # fmt: skip
        return out

    def count(self, source: str | None = None) -> int:
        """Statements in the index, or of one source (from the maintained counts: no table scan)."""
        key = counters.THEOREMS_KEY if source is None else counters.SOURCE_KEY + source
        with self.connection() as conn:
            n = conn.execute(sql.SQL("SELECT {n}").format(n=counters.count_of(self.names)), [key]).fetchone()[0]
        return int(n)

    def count_formal(self) -> int:
        """Formal statements in the index (Lean declarations): those of the sources whose documents are in a formal
        language (:data:`~theorem_rag.filters.FORMAL_LANGUAGES`), from the maintained counts."""
        query = sql.SQL("SELECT DISTINCT source FROM {d} WHERE meta ->> 'language' = ANY(%s)").format(
            d=sql.Identifier(self.names.documents))
        with self.connection() as conn:
            sources = [row[0] for row in conn.execute(query, [list(FORMAL_LANGUAGES)])]
        return sum(self.count(source) for source in sources)


def _check_unique(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    dup = sorted({i for i in ids if i in seen or seen.add(i)})
    if dup:
        raise InputError(f"duplicate {what} id(s) in one batch: {', '.join(dup[:5])}")

