"""``theorem-rag db ...`` against an embedded server of this module's own (the test stops and restarts it)."""

import json

import pytest
from click.testing import CliRunner

from theorem_rag.cli.db import db
from theorem_rag.config import Settings
from theorem_rag.db.schema import LATEST, MIGRATIONS

pytestmark = pytest.mark.db


def test_db_commands(own_pg_server, table_prefix, monkeypatch):
    monkeypatch.delenv("THEOREM_RAG_DATABASE_URL", raising=False)
    runner = CliRunner()
    base = ["--data-dir", str(own_pg_server.data_dir.parent)]
    out = runner.invoke(db, ["migrate", *base, "--table", table_prefix])
    assert out.exit_code == 0 and f"applied migrations {[v for v, _, _ in MIGRATIONS]}" in out.output
    assert "up to date" in runner.invoke(db, ["migrate", *base, "--table", table_prefix]).output

    status = json.loads(runner.invoke(db, ["status", *base, "--table", table_prefix]).output)
    assert status["running"] and status["schema_version"] == LATEST and status["theorems"] == 0
    assert "deferred_indexes" not in status

    # A bulk load cut off after dropping its indexes: status says so and what to run; the command builds them.
    from theorem_rag.db.server import resolve_dsn
    from theorem_rag.db.store import TheoremStore

    with TheoremStore(resolve_dsn(Settings(data_dir=own_pg_server.data_dir.parent)), table=table_prefix) as store:
        dropped = store.defer_indexes()
    status = json.loads(runner.invoke(db, ["status", *base, "--table", table_prefix]).output)
    assert status["deferred_indexes"] == sorted(dropped) and "theorem-rag db restore-indexes" in status["hint"]
    built = runner.invoke(db, ["restore-indexes", *base, "--table", table_prefix, "--maintenance-work-mem", "64MB"])
    assert built.exit_code == 0 and all(name in built.output for name in dropped)
    assert "deferred_indexes" not in json.loads(runner.invoke(db, ["status", *base, "--table", table_prefix]).output)
    assert "no index was waiting" in runner.invoke(db, ["restore-indexes", *base, "--table", table_prefix]).output

    refused = runner.invoke(db, ["drop", *base, "--table", table_prefix])
    assert refused.exit_code != 0 and "--yes" in refused.output
    assert json.loads(runner.invoke(db, ["status", *base, "--table", table_prefix]).output)["schema_version"] == LATEST
    dropped = runner.invoke(db, ["drop", *base, "--table", table_prefix, "--yes"])
    assert dropped.exit_code == 0 and f"{table_prefix}_schema_version" in dropped.output

    assert runner.invoke(db, ["stop", *base]).output.strip() == "stopped"
    assert json.loads(runner.invoke(db, ["status", *base]).output)["running"] is False
    started = runner.invoke(db, ["start", *base])
    assert started.exit_code == 0 and started.output.startswith("running:")
    assert own_pg_server.status()["persistent"]


def test_external_url_refuses_start(monkeypatch):
    out = CliRunner().invoke(db, ["stop", "--data-dir", "/tmp/unused"], env={"THEOREM_RAG_DATABASE_URL": "dbname=x"})
    assert out.exit_code != 0 and "external server" in out.output
