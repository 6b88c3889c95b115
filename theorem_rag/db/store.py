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
from collections.abc import Iterator
from contextlib import contextmanager

try:
    import psycopg
    from psycopg import sql
    from psycopg_pool import ConnectionPool
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('the PostgreSQL store needs: pip install "theorem-rag[db]"') from err

from theorem_rag.db import counters
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
from theorem_rag.db.writes import UpsertCounts, WriteOps
from theorem_rag.errors import InputError
from theorem_rag.filters import FORMAL_LANGUAGES

__all__ = ["RelationSize", "TheoremStore", "UpsertCounts", "VectorSpace"]


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


class TheoremStore(WriteOps, SpaceOps, DenseOps, TextOps, ReadOps, SideTableOps, BulkOps, LookupOps, ProofGraphOps,
                   GenerationOps):
    """Statements, documents and embedding spaces in PostgreSQL under one table prefix.

    Its methods come from its parts, one module of ``theorem_rag/db`` each (writes, vector spaces, dense search, full
    text and formulas, reads, side tables, bulk loads, look-ups, the proof graph, the change marker): each is a
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

    # -- counts ------------------------------------------------------------------------------------------------
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
            execute_all(conn, [*counters.rebuild_text(self.names), *counters.recount(self.names, spaces),
                              *counters.recount_formula_keys(self.names)])
            return self._counts(conn)

    def _counts(self, conn: psycopg.Connection) -> dict[str, int]:
        query = sql.SQL("SELECT key, n FROM {c} ORDER BY key").format(c=sql.Identifier(self.names.counts))
        return {k: int(n) for k, n in conn.execute(query)}

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

    def formal_sources(self) -> frozenset[str]:
        """The sources whose documents are in a formal language (:data:`~theorem_rag.filters.FORMAL_LANGUAGES`):
        those of the formal statements (Lean declarations)."""
        query = sql.SQL("SELECT DISTINCT source FROM {d} WHERE meta ->> 'language' = ANY(%s)").format(
            d=sql.Identifier(self.names.documents))
        with self.connection() as conn:
            return frozenset(row[0] for row in conn.execute(query, [list(FORMAL_LANGUAGES)]))

    def count_formal(self) -> int:
        """Formal statements in the index (Lean declarations): those of :meth:`formal_sources`, from the maintained
        counts."""
        return sum(self.count(source) for source in self.formal_sources())
