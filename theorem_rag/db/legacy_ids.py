"""Old positional ids of unlabelled statements, resolved to the statements that carry them now.

Unlabelled statements were once named by their place in the file, ``<prefix>:<file>#<n>``; they are now named by
kind and a hash of the body (docs/concepts/ids.md), and the record keeps the old form as ``meta.legacy_id``.
Links people saved, ``id:`` queries, feedback and API look-ups may still carry the old form: a look-up by id
that finds no statement tries it as a legacy id (:meth:`~theorem_rag.db.reads.ReadOps.legacy_targets`), through
a partial index of the ``legacy_id`` values (only statements that have one are in it).

>>> is_legacy_shaped("napkin:tex/alg.tex#12"), is_legacy_shaped("napkin:tex/alg.tex#exercise-94dca5a4")
(True, False)
"""

from __future__ import annotations

import re

from psycopg import sql

from theorem_rag.db.table_names import Names

# The positional form: a ``#`` then digits at the end. Only ids of this shape are looked up again, so a miss on
# any other id (a label, a hash id, a statement deleted under a search) costs no second query.
_LEGACY = re.compile(r"[^#]#\d+$")


def is_legacy_shaped(theorem_id: str) -> bool:
    return isinstance(theorem_id, str) and bool(_LEGACY.search(theorem_id))


def index_name(names: Names) -> str:
    """>>> index_name(Names("theorems"))
    'theorems_legacy_id'
    """
    return f"{names.theorems}_legacy_id"


def migration(names: Names) -> list[sql.Composed]:
    """Migration 21: the partial index of ``meta->>'legacy_id'`` (statements without one are not in it)."""
    return [
        sql.SQL("CREATE INDEX IF NOT EXISTS {i} ON {t} ((meta ->> 'legacy_id')) "
                "WHERE (meta ->> 'legacy_id') IS NOT NULL").format(i=sql.Identifier(index_name(names)),
                                                                    t=sql.Identifier(names.theorems)),
    ]  # fmt: skip


def targets(names: Names) -> sql.Composed:
    """``(legacy id, id)`` of the statements whose ``meta.legacy_id`` is one of the bound array; the predicate
    repeats the index's, so the planner reads the partial index."""
    return sql.SQL(
        "SELECT meta ->> 'legacy_id', id FROM {t} WHERE (meta ->> 'legacy_id') IS NOT NULL "
        "AND (meta ->> 'legacy_id') = ANY(%s) ORDER BY id"
    ).format(t=sql.Identifier(names.theorems))
