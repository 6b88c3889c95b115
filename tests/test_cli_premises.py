"""``theorem-rag search --premises``: what a proof of a statement is likely to use, as the library ranks it."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from integrations_index import integration_search

pytestmark = [pytest.mark.db, pytest.mark.models]


def _run(pg_dsn, *args, code: int = 0):
    from theorem_rag.cli.search import search

    search_, table = integration_search(pg_dsn)
    env = {"THEOREM_RAG_EMBED_BACKEND": getattr(search_.embedder, "backend", None) or "torch"}
    out = CliRunner(env=env).invoke(search, [*args, "--database-url", pg_dsn, "--table", table, "-k", "3"])
    assert out.exit_code == code, out.output
    return out.output


def test_premises_table_and_json(pg_dsn):
    expected = [h.theorem_id for h in integration_search(pg_dsn)[0].premises("stacks:00AC", 3)]
    out = _run(pg_dsn, "stacks:00AC", "--premises")
    # The model's progress bar may share the first line.
    assert re.findall(r"\s(\d)  (\S+)  \d\.\d\d  ", out) == [(str(i), x) for i, x in enumerate(expected, 1)]
    text = _run(pg_dsn, "stacks:00AC", "--premises", "--json")
    data = json.loads(text[text.index("{"):])
    assert data["statement"] == "stacks:00AC" and [r["id"] for r in data["results"]] == expected


def test_premises_errors(pg_dsn):
    assert "no statement with id 'stacks:ZZZZ'" in _run(pg_dsn, "stacks:ZZZZ", "--premises", code=1)
    assert "does not combine with --papers" in _run(pg_dsn, "x", "--premises", "--papers", code=2)
