"""What premise search reads from the proof graph: a document's statements in source order with what their proofs
cite, who cites a set of statements, and the fitted premise head. A mixin of
:class:`~theorem_rag.db.store.TheoremStore`; every query is served by an index (``doc_id``'s b-tree, the GIN index
on ``proof_refs``), so its cost follows the document or the citations asked for, not the table.

>>> store.outline("stacks:algebra")[:1]          # doctest: +SKIP
[OutlineRow(id='stacks:00AA', kind='definition', section=('Rings',), proof_refs=())]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from psycopg import sql

from theorem_rag.db.connection import StorePart

# A document's statements read for one premise query: enough for a long chapter, bounded for a huge paper.
OUTLINE_LIMIT = 5000


class OutlineRow(NamedTuple):
    id: str
    kind: str
    section: tuple[str, ...]
    proof_refs: tuple[str, ...]


class ProofGraphOps(StorePart):
    """Reads of the proof graph and the fitted premise head."""

    def outline(self, doc_id: str, limit: int = OUTLINE_LIMIT) -> list[OutlineRow]:
        """The statements of one document in source order (file, line, then id), without their text."""
        query = sql.SQL(
            "SELECT id, kind, section, proof_refs FROM {t} WHERE doc_id = %s "
            "ORDER BY file NULLS LAST, line NULLS LAST, id LIMIT %s"
        ).format(t=sql.Identifier(self.names.theorems))
        with self.connection() as conn:
            rows = conn.execute(query, [doc_id, limit]).fetchall()
        return [OutlineRow(i, k, tuple(s or ()), tuple(r or ())) for i, k, s, r in rows]

    def citations_of(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """``(citing, cited)`` for every proof that cites one of ``ids`` (through the GIN index on ``proof_refs``)."""
        if not ids:
            return []
        query = sql.SQL(
            "SELECT id, r FROM {t}, unnest(proof_refs) AS r WHERE proof_refs && %s::text[] AND r = ANY(%s)"
        ).format(t=sql.Identifier(self.names.theorems))
        with self.connection() as conn:
            return [(c, r) for c, r in conn.execute(query, [list(ids), list(ids)])]

    def citing_statements(self) -> list[str]:
        """Ids of the statements whose proofs cite something, in id order (a scan: for fitting, not for queries)."""
        query = sql.SQL("SELECT id FROM {t} WHERE cardinality(proof_refs) > 0 ORDER BY id").format(
            t=sql.Identifier(self.names.theorems))
        with self.connection() as conn:
            return [r[0] for r in conn.execute(query)]

    def premise_head(self) -> dict[str, Any] | None:
        """The fitted premise head as saved by :meth:`save_premise_head`, or None when none was fitted."""
        query = sql.SQL("SELECT head FROM {h} WHERE id = 1").format(h=sql.Identifier(self.names.premise_head))
        with self.connection() as conn:
            row = conn.execute(query).fetchone()
        return row[0] if row else None

    def save_premise_head(self, head: dict[str, Any] | None) -> None:
        """Store the fitted premise head (replacing any), or remove it with None."""
        table = sql.Identifier(self.names.premise_head)
        with self.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("DELETE FROM {h}").format(h=table))
            if head is not None:
                conn.execute(sql.SQL("INSERT INTO {h} (id, head) VALUES (1, %s::jsonb)").format(h=table),
                             [json.dumps(head)])  # fmt: skip
