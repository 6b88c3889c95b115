"""Writes of :class:`~theorem_rag.db.store.TheoremStore`: documents, statements and slogans upserted, statements
deleted (a mixin). Each call runs in one transaction, so a failure leaves nothing half-way; the triggers of
:mod:`theorem_rag.db.counters` keep the text table and the counts current, and vectors of changed statements get
their filter columns again.

>>> UpsertCounts(inserted=2)
UpsertCounts(inserted=2, updated=0, unchanged=0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from theorem_rag.db import table_sql
from theorem_rag.db.connection import StorePart
from theorem_rag.errors import InputError
from theorem_rag.records import Document, Theorem


@dataclass(frozen=True)
class UpsertCounts:
    """What one upsert did: rows inserted, rows updated, and rows left as they were (identical to the stored)."""

    inserted: int = 0
    updated: int = 0
    unchanged: int = 0


class WriteOps(StorePart):
    """Upserts, slogans and deletions; the store also provides ``count``, its vector spaces (``_all_spaces``) and
    the bulk path of a first load (:class:`~theorem_rag.db.bulk.BulkOps`)."""

    count: Callable[..., int]
    _all_spaces: Callable[[psycopg.Connection], list]
    copy_theorems: Callable[..., int]
    deferred_indexes: Callable[[], list[str]]
    defer_indexes: Callable[[], list[str]]
    restore_indexes: Callable[..., list[str]]

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


def _check_unique(ids: list[str], what: str) -> None:
    seen: set[str] = set()
    dup = sorted({i for i in ids if i in seen or seen.add(i)})
    if dup:
        raise InputError(f"duplicate {what} id(s) in one batch: {', '.join(dup[:5])}")

