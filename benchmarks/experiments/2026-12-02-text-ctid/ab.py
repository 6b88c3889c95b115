"""The long full-text query with the second read by primary key (before) or by ctid (now), alternating per query,
on the long dev queries (k=50, 3 rounds): time and whether the rows are identical.

    THEOREM_RAG_DATA_DIR=<a built index> python benchmarks/experiments/2026-12-02-text-ctid/ab.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from text_sql_ab import compare  # noqa: E402

from theorem_rag.search import TheoremSearch  # noqa: E402


def by_primary_key(now: str) -> str:
    before = now.replace("SELECT t.id, t.ctid AS tid, coalesce(", "SELECT t.id, coalesce(").replace(
        "SELECT id, tid, named, s FROM cand", "SELECT id, named, s FROM cand").replace(
        "WHERE t.ctid = top.tid OFFSET 0", "WHERE t.id = top.id OFFSET 0")  # fmt: skip
    assert "tid" not in before, before
    return before


compare(TheoremSearch.from_settings().store, by_primary_key, ("ctid", "pkey"))
