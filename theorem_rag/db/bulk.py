"""First loads of large corpora and what they need (a mixin of :class:`~theorem_rag.db.store.TheoremStore`).

``upsert_theorems`` is the path for everyday writes: it compares every row with the stored one. A first load of
hundreds of thousands of statements does better by ``COPY`` straight into the table with the secondary indexes
dropped and one build of each at the end (``benchmarks/bench_scale.py``), and the lexicon and the formula keys'
counts counted once at the end too. The text table and the counts stay current either way: the statement triggers of
:mod:`theorem_rag.db.counters` fire for ``COPY`` too.

>>> store.defer_indexes()                                     # doctest: +SKIP
>>> for batch in batches:                                     # doctest: +SKIP
...     store.copy_theorems(batch, slogans)
>>> store.restore_indexes(maintenance_work_mem="1GB")         # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import psycopg
from psycopg import Connection, sql

from theorem_rag.db import counters, table_sql
from theorem_rag.db.connection import StorePart
from theorem_rag.db.migrations import bound_gin_pending_lists, execute_all
from theorem_rag.errors import InputError
from theorem_rag.records import Theorem


# What ``deferred_indexes`` holds for a count while a bulk load defers it (not SQL: never executed).
LEXICON_DEFERRED = "lexicon: counted from the text table after the load (ts_stat)"
FORMULA_DEFERRED = "formula keys' counts: counted from the statements table after the load"


@dataclass(frozen=True)
class RelationSize:
    """On-disk size of one relation of the index: a table (heap and TOAST) or one of its indexes.

    >>> RelationSize("theorems_text", "theorems_text_tsv", "index", 2**20).megabytes
    1.0
    """

    table: str
    name: str
    kind: str  # "table" (heap + TOAST + free-space maps) or "index"
    bytes: int

    @property
    def megabytes(self) -> float:
        return self.bytes / 2**20


class BulkOps(StorePart):
    """Bulk-load methods; the store also provides ``spaces``."""

    spaces: Callable[[], list]

    def copy_theorems(self, theorems: Iterable[Theorem], slogans: Mapping[str, str] | None = None) -> int:
        """Insert new statements (and their slogans) by one ``COPY`` into the table; returns #rows written.

        The bulk path of a first load: no comparison with stored rows (the triggers keep the lexicon and counts
        current, as for any write). An id already stored, or twice in the batch, is an InputError
        and nothing of the batch is written; use ``upsert_theorems`` to change stored statements.
        """
        items = list(theorems)
        slogans = slogans or {}
        for t in items:
            if not isinstance(t, Theorem):
                raise InputError(f"expected Theorem records, got {type(t).__name__}")
        unknown = sorted(set(slogans) - {t.id for t in items})
        if unknown:
            raise InputError(f"slogans for statements not in the batch: {', '.join(unknown[:5])}")
        if any(not isinstance(s, str) or not s.strip() for s in slogans.values()):
            raise InputError("slogans must be non-empty strings")
        cols = [*table_sql.WRITE_COLUMNS, "slogan"]
        copy_sql = sql.SQL("COPY {t} ({c}) FROM STDIN").format(
            t=sql.Identifier(self.names.theorems), c=sql.SQL(", ").join(map(sql.Identifier, cols))
        )
        try:
            with self.connection() as conn, conn.transaction(), conn.cursor().copy(copy_sql) as copy:
                for t in items:
                    copy.write_row([*table_sql.theorem_row(t), slogans.get(t.id)])
        except psycopg.errors.UniqueViolation as err:
            detail = (err.diag.message_detail or "").strip()
            raise InputError(f"copy_theorems writes new statements only (use upsert_theorems): {detail}") from err
        return len(items)

    def defer_indexes(self) -> list[str]:
        """Drop the secondary indexes of the statements table and of its text table (the full-text index is
        there) before a bulk load; returns their names. The primary keys stay, and so does the ``doc_id`` index:
        every document write finds its statements through it (the year of their vectors), and without it each
        batch's documents would scan the table.

        Their definitions are kept in the ``deferred_indexes`` table in the same transaction, so
        :meth:`restore_indexes` builds them again, even after a crash in between. One ``CREATE INDEX`` over the
        loaded table costs far less than keeping each index current row by row (``benchmarks/bench_scale.py``).
        The lexicon and the formula keys' counts are deferred the same way, under their tables' names: their
        triggers are turned off and each is counted once at the end (:func:`counters.triggers_enabled`).
        """
        with self.connection() as conn, conn.transaction():
            counts = self._defer_counts(conn)
            rows = conn.execute(
                "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                "WHERE i.indrelid IN (to_regclass(%s), to_regclass(%s)) AND NOT i.indisprimary AND c.relname <> %s "
                "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY 1",
                [self.names.theorems, self.names.text, table_sql.doc_index_name(self.names)],
            ).fetchall()
            for name, definition in rows:
                conn.execute(
                    sql.SQL("INSERT INTO {d} (name, definition) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING").format(
                        d=sql.Identifier(self.names.deferred_indexes)
                    ),
                    [name, definition],
                )
                conn.execute(sql.SQL("DROP INDEX {i}").format(i=sql.Identifier(name)))
        return sorted([name for name, _ in rows] + counts)

    def _deferred_counts(self) -> dict[str, tuple[str, tuple[str, ...], str, Callable]]:
        """The counts a bulk load defers, by the name ``deferred_indexes`` holds for each: the table whose triggers
        keep it, those triggers, the note kept, and the statements that count it afresh."""
        n = self.names
        return {n.lexicon: (n.text, counters.LEXICON_TRIGGERS, LEXICON_DEFERRED, counters.recount_lexicon),
                n.formula_df: (n.theorems, counters.FORMULA_TRIGGERS, FORMULA_DEFERRED, counters.recount_formula_keys)}  # fmt: skip

    def _defer_counts(self, conn: Connection) -> list[str]:
        """Turn the triggers of each deferred count off, noting it in ``deferred_indexes``; those already off are
        left as they are. Returns the counts turned off."""
        deferred = []
        for name, (table, triggers, note, _) in self._deferred_counts().items():
            on = conn.execute("SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(%s) AND tgname = %s "
                              "AND tgenabled <> 'D'", [table, triggers[0]]).fetchone()[0]  # fmt: skip
            if not on:
                continue
            for statement in counters.triggers_enabled(table, triggers, False):
                conn.execute(statement)
            conn.execute(sql.SQL("INSERT INTO {d} (name, definition) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING").format(
                d=sql.Identifier(self.names.deferred_indexes)), [name, note])  # fmt: skip
            deferred.append(name)
        return deferred

    def _count(self, conn: Connection, name: str) -> None:
        """A deferred count counted from its table, its triggers on again first (their lock holds off the table's
        writers until the count commits, so no write falls between the two)."""
        table, triggers, _, recount = self._deferred_counts()[name]
        for statement in counters.triggers_enabled(table, triggers, True):
            conn.execute(statement)
        execute_all(conn, recount(self.names))

    def deferred_indexes(self) -> list[str]:
        """Names of the indexes a bulk load dropped that are not built yet (and the tables of the lexicon and the
        formula keys' counts while they wait to be counted)."""
        with self.connection() as conn:
            query = sql.SQL("SELECT name FROM {d} ORDER BY name").format(d=sql.Identifier(self.names.deferred_indexes))
            return [r[0] for r in conn.execute(query)]

    def restore_indexes(self, maintenance_work_mem: str = "1GB", parallel_workers: int | None = None) -> list[str]:
        """Build every index :meth:`defer_indexes` dropped (and the full-text index, if missing) and count the
        lexicon and the formula keys it deferred, one transaction each, then ``ANALYZE`` the tables; returns the
        names built.

        ``parallel_workers`` sets ``max_parallel_maintenance_workers`` (PostgreSQL 18 builds B-tree and GIN
        indexes in parallel); ``None`` keeps the server's setting.
        """
        built = []
        table = sql.Identifier(self.names.deferred_indexes)
        for name in self.deferred_indexes():
            with self.connection() as conn, conn.transaction():
                maintenance_settings(conn, maintenance_work_mem, parallel_workers)
                row = conn.execute(sql.SQL("DELETE FROM {d} WHERE name = %s RETURNING definition").format(d=table), [name]).fetchone()
                if name in self._deferred_counts():
                    if row:  # not counted meanwhile by another process
                        self._count(conn, name)
                        built.append(name)
                    continue
                exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [name]).fetchone()[0]
                if row and not exists:
                    # The definition is PostgreSQL's own (pg_get_indexdef), read back from the catalog.
                    conn.execute(sql.SQL(row[0]))  # type: ignore[arg-type]
                    built.append(name)
        with self.connection() as conn, conn.transaction():
            maintenance_settings(conn, maintenance_work_mem, parallel_workers)
            if conn.execute("SELECT to_regclass(%s) IS NULL", [table_sql.text_index_name(self.names)]).fetchone()[0]:
                conn.execute(table_sql.create_text_index(self.names))  # dropped by hand, or by an older theorem-rag
                built.append(table_sql.text_index_name(self.names))
            bound_gin_pending_lists(conn, self.names)  # an index deferred before migration 26 is built without its bound
            for table in (self.names.theorems, self.names.text):
                conn.execute(sql.SQL("ANALYZE {t}").format(t=sql.Identifier(table)))
        return built

    def vacuum_analyze(self) -> None:
        """``VACUUM (ANALYZE)`` every table of this index: after a bulk load, so the planner's statistics and the
        visibility map are current before queries (autovacuum would do it later, in the middle of them)."""
        tables = [self.names.theorems, self.names.text, self.names.documents, self.names.lexicon, self.names.formula_df,
                  *(self.names.vectors(s.name) for s in self.spaces())]  # fmt: skip
        with self.connection() as conn:
            for table in tables:
                conn.execute(sql.SQL("VACUUM (ANALYZE) {t}").format(t=sql.Identifier(table)))

    def relation_sizes(self) -> list[RelationSize]:
        """Bytes on disk of every table of this index (heap + TOAST) and of each of its indexes."""
        tables = [self.names.theorems, self.names.text, self.names.documents, self.names.lexicon, self.names.formula_df,
                  self.names.counts, self.names.slogan_cache, self.names.feedback, *(self.names.vectors(s.name) for s in self.spaces())]  # fmt: skip
        out: list[RelationSize] = []
        with self.connection() as conn:
            for table in tables:
                row = conn.execute("SELECT pg_table_size(to_regclass(%s))", [table]).fetchone()
                if row[0] is None:
                    continue
                out.append(RelationSize(table, table, "table", row[0]))
                indexes = conn.execute(
                    "SELECT i.indexrelid::regclass::text, pg_relation_size(i.indexrelid) FROM pg_index i "
                    "WHERE i.indrelid = to_regclass(%s) ORDER BY 1",
                    [table],
                ).fetchall()
                out += [RelationSize(table, name, "index", size) for name, size in indexes]
        return out



def maintenance_settings(conn: Connection, maintenance_work_mem: str, parallel_workers: int | None) -> None:
    """Transaction-scoped settings of an index build (bound values: ``SET`` takes no parameters)."""
    conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", [maintenance_work_mem])
    if parallel_workers is not None:
        if isinstance(parallel_workers, bool) or not isinstance(parallel_workers, int) or parallel_workers < 0:
            raise InputError(f"parallel_workers must be a non-negative integer, got {parallel_workers!r}")
        conn.execute("SELECT set_config('max_parallel_maintenance_workers', %s, true)", [str(parallel_workers)])
