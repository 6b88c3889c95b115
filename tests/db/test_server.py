"""The embedded server: reuse across processes, and the store when the database goes down and comes back."""

import subprocess
import sys

import pytest

from theorem_rag.db.connection import StoreUnavailable

from db_helpers import THEOREMS, load, theorem_vectors

pytestmark = pytest.mark.db


def test_another_process_reuses_the_server_and_leaves_it_running(pg_server):
    pid = pg_server.status()["pid"]
    code = (
        "import sys; from theorem_rag.db.server import EmbeddedServer;"
        f"s = EmbeddedServer({str(pg_server.data_dir)!r}); s.start(); print(s.status()['pid'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) == pid  # attached, not a second server
    status = pg_server.status()
    assert status["running"] and status["pid"] == pid  # its exit did not stop a server we still use


@pytest.fixture
def own_store(own_pg_server, table_prefix):
    """A store on this module's own server: the test below stops it, which the session's shared server must never be."""
    from theorem_rag.db.store import TheoremStore

    s = TheoremStore(own_pg_server.dsn("postgres"), table=table_prefix, timeout=2.0)
    yield s
    s.close()


def test_database_down_gives_clear_error_and_recovers(own_pg_server, own_store):
    store = own_store
    load(store)
    before = store.count()
    own_pg_server.stop()
    try:
        with pytest.raises(StoreUnavailable, match="database unavailable"):
            store.search_text("Nakayama")
        with pytest.raises(StoreUnavailable):
            store.upsert_theorems([THEOREMS[0]])
        with pytest.raises(StoreUnavailable):
            store.search_dense("toy", theorem_vectors()[0])
    finally:
        own_pg_server.start()
    # The same store object serves again; nothing was written while the server was down.
    assert store.count() == before
    assert store.search_text("Nakayama", k=1)[0].theorem_id == "stacks:00DV"
    assert store.search_dense("toy", theorem_vectors()[0], k=1)[0].theorem_id == THEOREMS[0].id


def test_resolve_dsn_external_and_embedded(pg_server):
    import psycopg

    from theorem_rag.config import Settings
    from theorem_rag.db.server import resolve_dsn

    assert resolve_dsn(Settings(database_url="postgresql://u@db.example/x")) == "postgresql://u@db.example/x"
    dsn = resolve_dsn(Settings(data_dir=pg_server.data_dir.parent), database="trag_resolve")
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT current_database()").fetchone()[0] == "trag_resolve"
    assert pg_server.status()["running"]


def test_a_server_this_process_starts_gets_its_settings_and_an_attached_one_is_left_alone(own_pg_server):
    import psycopg

    from theorem_rag.db.server import EmbeddedServer, shared_buffers

    def current(server):
        with psycopg.connect(server.dsn("postgres")) as conn:
            return conn.execute("SELECT pg_size_bytes(current_setting('shared_buffers'))").fetchone()[0]

    assert current(own_pg_server) == _bytes(shared_buffers())  # the default ("auto") was applied at its first start
    pid = own_pg_server.status()["pid"]
    attached = EmbeddedServer(own_pg_server.data_dir, settings={"shared_buffers": "160MB"})
    attached.start()  # attaches to the running server: never restarts it under the processes that use it
    assert own_pg_server.status()["pid"] == pid and current(own_pg_server) == _bytes(shared_buffers())
    attached.release()

    own_pg_server.stop()
    restarted = EmbeddedServer(own_pg_server.data_dir, settings={"shared_buffers": "160MB"})
    try:
        restarted.start()  # this process starts it: the setting is written and takes effect (a restart)
        assert current(restarted) == 160 * 2**20
        with pytest.raises(ValueError, match="must be a size"):
            EmbeddedServer(own_pg_server.data_dir, settings={"shared_buffers": "lots"})._apply_settings(
                restarted.dsn("postgres"))
        restarted.stop()
        restarted.release()
        plain = EmbeddedServer(own_pg_server.data_dir, settings={})
        plain.start()
        assert current(plain) == 160 * 2**20  # kept in the data folder (ALTER SYSTEM) for every later start
        plain.stop()
        plain.release()
    finally:
        own_pg_server.start()
    assert current(own_pg_server) == _bytes(shared_buffers())  # its own settings again


def _bytes(size: str) -> int:
    return int(size.removesuffix("MB")) * 2**20
