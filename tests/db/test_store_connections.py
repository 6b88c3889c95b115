"""How the store hands out connections to servers: a statement timeout per pooled connection, one pinned connection
for all the queries of a search, and the liveness probe only on connections that sat idle."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.db


def test_statement_timeout_applies_to_every_pooled_connection(pg_dsn, table_prefix):
    import psycopg

    from theorem_rag.db.store import TheoremStore

    with TheoremStore(pg_dsn, table=table_prefix, statement_timeout=0.25) as store:
        with store.connection() as conn:
            assert conn.execute("SHOW statement_timeout").fetchone()[0] == "250ms"
            with pytest.raises(psycopg.errors.QueryCanceled, match="statement timeout"):
                conn.execute("SELECT pg_sleep(5)")
    with TheoremStore(pg_dsn, table=table_prefix) as store, store.connection() as conn:
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "0"  # none unless asked for
    with pytest.raises(ValueError, match="statement_timeout must be 0"):
        TheoremStore(pg_dsn, statement_timeout=-1)


def test_a_pinned_search_takes_one_checkout(tiny_search):
    store = tiny_search.store
    tiny_search.search("bijection", 3)  # the pool is open and the space known

    def requests() -> int:
        return store._pool.get_stats().get("requests_num", 0)

    before = requests()
    hits = tiny_search.search("bijection", 3)
    unpinned = requests() - before
    before = requests()
    with store.pinned():
        assert [h.theorem_id for h in tiny_search.search("bijection", 3)] == [h.theorem_id for h in hits]
        with store.connection() as a, store.connection() as b:
            assert a is b
    assert (unpinned, requests() - before) == (3, 1)  # dense, full-text and hydration: three checkouts, or one


def test_only_idle_connections_are_probed(monkeypatch, pg_dsn, table_prefix):
    from psycopg_pool import ConnectionPool

    from theorem_rag.db import store as store_module

    probes = []
    real = ConnectionPool.check_connection
    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(lambda conn: probes.append(1) or real(conn)))
    with store_module.TheoremStore(pg_dsn, table=table_prefix, pool_size=1) as store:
        for _ in range(5):
            with store.connection() as conn:
                conn.execute("SELECT 1")
        assert len(probes) == 1  # the first checkout of a fresh connection; the next four follow at once
        monkeypatch.setattr(store_module, "RECHECK_IDLE_S", 0.0)
        with store.connection() as conn:
            conn.execute("SELECT 1")
        assert len(probes) == 2  # idle longer than RECHECK_IDLE_S: probed
