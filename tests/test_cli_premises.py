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


def test_model_premise_head_fits_holds_out_and_clears(pg_dsn, tmp_path):
    from theorem_rag.cli.model import model

    search_, table = integration_search(pg_dsn)
    env = {"THEOREM_RAG_EMBED_BACKEND": getattr(search_.embedder, "backend", None) or "torch"}
    base = ["premise-head", "--database-url", pg_dsn, "--table", table, "--queries", "0"]
    run = lambda *a: CliRunner(env=env).invoke(model, [*base, *a])  # noqa: E731
    refused = run()
    assert refused.exit_code == 2 and "--eval-dir" in refused.output
    (tmp_path / "stacks_proof_refs.jsonl").write_text(
        json.dumps({"id": "refs-00AC", "query": "x", "relevant": ["stacks:00AB"], "exclude": ["stacks:00AC"]}) + "\n")
    try:
        # 8 statements of the fixture cite others and are in the training split; the eval file holds one out.
        out = run("--no-eval-exclusion")
        assert out.exit_code == 0, out.output
        assert "fitted the premise head on 8 statements" in out.output and "before_pivot" in out.output
        assert search_.store.premise_head()["holdout"] == []
        out = run("--eval-dir", str(tmp_path))
        assert out.exit_code == 0 and "on 7 statements" in out.output and "1 held out" in out.output, out.output
        assert search_.store.premise_head()["holdout"] == ["stacks:00AC"]
        assert "stacks:00AC" not in [h.theorem_id for h in search_.premises("stacks:00AC", 5)]
    finally:
        cleared = run("--clear")
    assert cleared.exit_code == 0 and search_.store.premise_head() is None
