"""Reads of :class:`~theorem_rag.db.store.TheoremStore` by key (a mixin beside the search methods): statements and
documents by id, a document's statements in source order, statements by label, who cites a statement, and hits
filled in with their statements. Every read is one indexed statement with bound values (a statement id not
found, of the old positional form, one more: :mod:`theorem_rag.db.legacy_ids`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from psycopg import sql

from theorem_rag.db import legacy_ids, table_sql
from theorem_rag.db.connection import StorePart
from theorem_rag.records import Document, Hit, Theorem


class ReadOps(StorePart):
    """Reads by key."""

    def get_theorems(self, ids: Sequence[str]) -> dict[str, Theorem]:
        """Theorem records by id (missing ids are absent from the result). An old positional id that no statement
        has any more finds the statement that carries it as ``meta.legacy_id``, under the id asked for."""
        return {i: t for i, (t, _) in self._fetch(ids).items()}

    def legacy_targets(self, ids: Sequence[str]) -> dict[str, str]:
        """``{old id: id}`` for those of ``ids`` of the old positional form (``<prefix>:<file>#<n>``) that a
        statement carries as ``meta.legacy_id`` (:mod:`theorem_rag.db.legacy_ids`); the first by id if several."""
        old = [i for i in dict.fromkeys(ids) if legacy_ids.is_legacy_shaped(i)]
        if not old:
            return {}
        with self.connection() as conn:
            rows = conn.execute(legacy_ids.targets(self.names), [old]).fetchall()
        out: dict[str, str] = {}
        for legacy, tid in rows:
            out.setdefault(legacy, tid)
        return out

    def _fetch(self, ids: Sequence[str]) -> dict[str, tuple[Theorem, str | None]]:
        """Records and slogans by id; an id no statement has falls back to the statement whose legacy id it is."""
        out = self._fetch_ids(ids)
        moved = self.legacy_targets([i for i in ids if i not in out])
        if moved:
            found = self._fetch_ids(list(moved.values()))
            out.update({old: found[new] for old, new in moved.items() if new in found})
        return out

    def _fetch_ids(self, ids: Sequence[str]) -> dict[str, tuple[Theorem, str | None]]:
        cols = sql.SQL(", ").join(map(sql.Identifier, [*table_sql.THEOREM_COLUMNS, "slogan"]))
        with self.connection() as conn:
            cur = conn.execute(
                sql.SQL("SELECT {c} FROM {t} WHERE id = ANY(%s)").format(c=cols, t=sql.Identifier(self.names.theorems)),
                [list(ids)],
            )
            out = {}
            for row in cur.fetchall():
                d = dict(zip([*table_sql.THEOREM_COLUMNS, "slogan"], row))
                slogan = d.pop("slogan")
                out[d["id"]] = (Theorem.from_dict(d), slogan)
            return out

    def used_by(self, theorem_id: str, limit: int = 500) -> list[str]:
        """Ids of the statements whose proofs cite ``theorem_id`` (from the parsed proof references), id order."""
        with self.connection() as conn:
            return [r[0] for r in conn.execute(table_sql.used_by(self.names), [theorem_id, limit])]

    def used_by_counts(self, ids: Sequence[str]) -> dict[str, int]:
        """How many proofs cite each of ``ids`` (ids no proof cites are absent)."""
        if not ids:
            return {}
        with self.connection() as conn:
            return {r: n for r, n in conn.execute(table_sql.used_by_counts(self.names), [list(ids), list(ids)])}

    def documented(self, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` whose statement carries a docstring (the Lean declarations mathlib documents)."""
        if not ids:
            return set()
        with self.connection() as conn:
            return {r[0] for r in conn.execute(table_sql.documented(self.names), [list(ids)])}

    def theorems_by_labels(self, source: str, labels: Sequence[str]) -> list[Theorem]:
        """Statements of ``source`` whose label (or Stacks' chapter-qualified label) is one of ``labels``."""
        if not labels:
            return []
        with self.connection() as conn:
            rows = conn.execute(table_sql.by_labels(self.names), [source, list(labels), list(labels)]).fetchall()
        return [Theorem.from_dict(dict(zip(table_sql.THEOREM_COLUMNS, r))) for r in rows]

    def hydrate(self, hits: Sequence[Hit]) -> list[Hit]:
        """The same hits with ``theorem`` and ``slogan`` filled in (hits whose statement vanished are dropped); a hit
        on an old positional id becomes a hit on the statement that carries it (:meth:`get_theorems`)."""
        found = self._fetch([h.theorem_id for h in hits])
        return [
            replace(h, theorem_id=t.id, theorem=t, slogan=slogan, doc_id=t.doc_id)
            for h in hits
            if h.theorem_id in found
            for t, slogan in [found[h.theorem_id]]
        ]

    def get_documents(self, ids: Sequence[str]) -> dict[str, Document]:
        cols = table_sql.DOCUMENT_COLUMNS
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
        cols = sql.SQL(", ").join(map(sql.Identifier, table_sql.THEOREM_COLUMNS))
        with self.connection() as conn:
            rows = conn.execute(
                sql.SQL("SELECT {c} FROM {t} WHERE doc_id = %s ORDER BY file NULLS LAST, line NULLS LAST, id LIMIT %s").format(
                    c=cols, t=sql.Identifier(self.names.theorems)
                ),
                [doc_id, limit],
            ).fetchall()
        return [Theorem.from_dict(dict(zip(table_sql.THEOREM_COLUMNS, r))) for r in rows]
