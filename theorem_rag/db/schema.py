"""The versioned schema: ``migrate(conn, prefix)``, which is idempotent and applies the pending migrations (their
DDL is in :mod:`theorem_rag.db.migrations`), the version applied, and :func:`drop_all`.

Migrations only ever add; dropping data happens in :func:`drop_all`, which only ``theorem-rag db drop --yes`` calls.
Vector tables are created per embedding space by the store (their dimension is known only then).
"""

from __future__ import annotations

from psycopg import Connection, sql

from theorem_rag.db import counters, generation
from theorem_rag.db.migrations import LATEST, MIGRATIONS, Step, execute_all
from theorem_rag.db.table_names import Names

__all__ = ["LATEST", "MIGRATIONS", "Step", "drop_all", "execute_all", "migrate", "schema_version"]


def migrate(conn: Connection, prefix: str = "theorems", target: int | None = None) -> list[int]:
    """Apply the pending migrations (up to ``target``, default all) in one transaction; return the versions applied.

    An advisory lock serializes concurrent callers, so two processes starting at once do not race.
    """
    n = Names(prefix)
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"theorem_rag:{n.prefix}"])
        conn.execute(
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {v} (version int PRIMARY KEY, description text NOT NULL, "
                "applied_at timestamptz NOT NULL DEFAULT now())"
            ).format(v=sql.Identifier(n.version))
        )
        current = conn.execute(sql.SQL("SELECT coalesce(max(version), 0) FROM {v}").format(v=sql.Identifier(n.version))).fetchone()[0]
        if current > LATEST:
            raise RuntimeError(
                f"database schema {n.prefix!r} is at version {current}, newer than this theorem-rag ({LATEST}); upgrade"
            )
        done = {r[0] for r in conn.execute(sql.SQL("SELECT version FROM {v}").format(v=sql.Identifier(n.version)))}
        # Every step not applied yet, in order, even one numbered below the newest applied: branches reserve
        # numbers and land in any order (a database at 8 still gets 6), and every step is idempotent.
        for version, description, statements in MIGRATIONS:
            if version in done or (target is not None and version > target):
                continue
            for stmt in statements(n):
                if callable(stmt):
                    stmt(conn)
                else:
                    conn.execute(stmt)
            conn.execute(
                sql.SQL("INSERT INTO {v} (version, description) VALUES (%s, %s)").format(v=sql.Identifier(n.version)),
                [version, description],
            )
            applied.append(version)
    return applied


def schema_version(conn: Connection, prefix: str = "theorems") -> int:
    """The applied version, 0 when the schema does not exist yet."""
    n = Names(prefix)
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [n.version]).fetchone()[0]
    if not exists:
        return 0
    return conn.execute(sql.SQL("SELECT coalesce(max(version), 0) FROM {v}").format(v=sql.Identifier(n.version))).fetchone()[0]


def drop_all(conn: Connection, prefix: str = "theorems") -> list[str]:
    """Drop every table of this prefix, vector spaces included; only the explicit ``db drop --yes`` calls this."""
    n = Names(prefix)
    dropped: list[str] = []
    with conn.transaction():
        spaces: list[str] = []
        if conn.execute("SELECT to_regclass(%s) IS NOT NULL", [n.spaces]).fetchone()[0]:
            spaces = [r[0] for r in conn.execute(sql.SQL("SELECT name FROM {s}").format(s=sql.Identifier(n.spaces)))]
        # A registered space whose vector table is gone has nothing to count (a partly dropped index).
        spaces = [s for s in spaces if conn.execute("SELECT to_regclass(%s) IS NOT NULL", [n.vectors(s)]).fetchone()[0]]
        for table in [n.vectors(s) for s in spaces] + n.fixed_tables():
            if conn.execute("SELECT to_regclass(%s) IS NOT NULL", [table]).fetchone()[0]:
                conn.execute(sql.SQL("DROP TABLE {t} CASCADE").format(t=sql.Identifier(table)))
                dropped.append(table)
        for fn in [*counters.function_names(n), generation.function_name(n)]:
            conn.execute(sql.SQL("DROP FUNCTION IF EXISTS {f}()").format(f=sql.Identifier(fn)))
    return dropped
