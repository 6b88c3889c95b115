"""Reads of :class:`~theorem_rag.db.store.TheoremStore` by key (a mixin beside the search methods): statements and
documents by id, a document's statements in source order, statements by label, who cites a statement, and hits
filled in with their statements. Every read is one indexed statement with bound values.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import replace

from psycopg import Connection, sql

from theorem_rag.db import sqltext
from theorem_rag.db.names import Names
from theorem_rag.records import Document, Hit, Theorem


class ReadOps:
    """Reads by key; the host class provides ``names`` and ``connection()``."""

    names: Names

    def connection(self) -> AbstractContextManager[Connection]:  # pragma: no cover - provided by TheoremStore
        raise NotImplementedError

    def get_theorems(self, ids: Sequence[str]) -> dict[str, Theorem]:
        """Theorem records by id (missing ids are absent from the result)."""
        return {i: t for i, (t, _) in self._fetch(ids).items()}

    def _fetch(self, ids: Sequence[str]) -> dict[str, tuple[Theorem, str | None]]:
        cols = sql.SQL(", ").join(map(sql.Identifier, [*sqltext.THEOREM_COLUMNS, "slogan"]))
        with self.connection() as conn:
            cur = conn.execute(
                sql.SQL("SELECT {c} FROM {t} WHERE id = ANY(%s)").format(c=cols, t=sql.Identifier(self.names.theorems)),
                [list(ids)],
            )
            out = {}
            for row in cur.fetchall():
                d = dict(zip([*sqltext.THEOREM_COLUMNS, "slogan"], row))
                slogan = d.pop("slogan")
                out[d["id"]] = (Theorem.from_dict(d), slogan)
            return out

    def used_by(self, theorem_id: str, limit: int = 500) -> list[str]:
        """Ids of the statements whose proofs cite ``theorem_id`` (from the parsed proof references), id order."""
        with self.connection() as conn:
            return [r[0] for r in conn.execute(sqltext.used_by(self.names), [theorem_id, limit])]

    def used_by_counts(self, ids: Sequence[str]) -> dict[str, int]:
        """How many proofs cite each of ``ids`` (ids no proof cites are absent)."""
        if not ids:
            return {}
        with self.connection() as conn:
            return {r: n for r, n in conn.execute(sqltext.used_by_counts(self.names), [list(ids), list(ids)])}

    def theorems_by_labels(self, source: str, labels: Sequence[str]) -> list[Theorem]:
        """Statements of ``source`` whose label (or Stacks' chapter-qualified label) is one of ``labels``."""
        if not labels:
            return []
        with self.connection() as conn:
            rows = conn.execute(sqltext.by_labels(self.names), [source, list(labels), list(labels)]).fetchall()
        return [Theorem.from_dict(dict(zip(sqltext.THEOREM_COLUMNS, r))) for r in rows]

    def hydrate(self, hits: Sequence[Hit]) -> list[Hit]:
        """The same hits with ``theorem`` and ``slogan`` filled in (hits whose statement vanished are dropped)."""
        found = self._fetch([h.theorem_id for h in hits])
        return [
            replace(h, theorem=found[h.theorem_id][0], slogan=found[h.theorem_id][1], doc_id=found[h.theorem_id][0].doc_id)
            for h in hits
            if h.theorem_id in found
        ]

    def get_documents(self, ids: Sequence[str]) -> dict[str, Document]:
        cols = sqltext.DOCUMENT_COLUMNS
        with self.connection() as conn:
            rows = conn.execute(
                sql.SQL("SELECT {c} FROM {d} WHERE id = ANY(%s)").format(
                    c=sql.SQL(", ").join(map(sql.Identifier, cols)), d=sql.Identifier(self.names.documents)
                ),
                [list(ids)],
            ).fetchall()
        return {r[0]: Document.from_dict(dict(zip(cols, r))) for r in rows}

    def get_document(self, doc_id: str) -> Document | None:
        return self.get_documents([doc_id]).get(doc_id)

    def theorems_of(self, doc_id: str, limit: int = 500) -> list[Theorem]:
        """The statements of one document in source order (file, line, then id)."""
        cols = sql.SQL(", ").join(map(sql.Identifier, sqltext.THEOREM_COLUMNS))
        with self.connection() as conn:
            rows = conn.execute(
                sql.SQL("SELECT {c} FROM {t} WHERE doc_id = %s ORDER BY file NULLS LAST, line NULLS LAST, id LIMIT %s").format(
                    c=cols, t=sql.Identifier(self.names.theorems)
                ),
                [doc_id, limit],
            ).fetchall()
        return [Theorem.from_dict(dict(zip(sqltext.THEOREM_COLUMNS, r))) for r in rows]
