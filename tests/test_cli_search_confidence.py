"""``theorem-rag search`` says plainly when nothing matches well, and shows confidences, not fusion scores."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from integrations_index import integration_search

pytestmark = [pytest.mark.db, pytest.mark.models]


def _run(pg_dsn, *args):
    from theorem_rag.cli.search import search

    table = integration_search(pg_dsn)[1]
    out = CliRunner().invoke(search, [*args, "--database-url", pg_dsn, "--table", table, "-k", "3"])
    assert out.exit_code == 0, out.output
    return out.output


def test_nonsense_is_said_to_match_nothing_well(pg_dsn):
    out = _run(pg_dsn, "asdfghjkl")
    assert "No close match" in out and "- try:" in out


def test_a_named_result_shows_its_confidence(pg_dsn):
    out = _run(pg_dsn, "Cantor's theorem")
    assert "No close match" not in out
    first = re.search(r"\s1  (\S+)  ([0-9.]+)  ", out)  # the model's progress bar may share the first line
    assert first[1] == "planetmath:CantorsTheorem" and 0.5 <= float(first[2]) <= 1.0
    text = _run(pg_dsn, "Cantor's theorem", "--json")
    data = json.loads(text[text.index("{"):])
    assert data["confident"] is True and data["results"][0]["confidence"] == pytest.approx(float(first[2]), abs=0.01)
