"""Sizes of the built index: rows and on-disk bytes per table, vector space and HNSW index.

    python benchmarks/bench_index.py            # the configured database (embedded server by default)

Build wall times are printed by ``theorem-rag index build`` itself (per step); see benchmarks/results/index.md.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from psycopg import sql  # noqa: E402

from theorem_rag.config import Settings  # noqa: E402
from theorem_rag.db.server import resolve_dsn  # noqa: E402
from theorem_rag.db.store import TheoremStore  # noqa: E402


def mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def main() -> None:
    s = Settings()
    store = TheoremStore(resolve_dsn(s), table=s.table)
    n = store.names
    tables = [n.theorems, n.documents, n.slogan_cache, n.lexicon] + [n.vectors(sp.name) for sp in store.spaces()]
    print(f"{'table':45s} {'rows':>8s} {'table+toast':>12s} {'indexes':>10s}")
    with store.connection() as conn:
        for t in tables:
            rows = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(t))).fetchone()[0]
            total, idx = conn.execute(
                "SELECT pg_table_size(%s::regclass), pg_indexes_size(%s::regclass)", [t, t]
            ).fetchone()
            print(f"{t:45s} {rows:>8,d} {mb(total):>12s} {mb(idx):>10s}")
        for sp in store.spaces():
            name = n.hnsw_index(sp.name)
            size = conn.execute("SELECT pg_relation_size(to_regclass(%s))", [name]).fetchone()[0]
            print(f"HNSW on binary_quantize(embedding)::bit({sp.dim}) of {sp.name}: {mb(size or 0)}")
        print("database total:", mb(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]))


if __name__ == "__main__":
    main()
