"""Smoke tests of the search, serving and scale benchmarks: each runs once against a tiny index (or a server of its
own), as its docstring says to run it, and writes into temporary folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mini import ROOT, run

B = "benchmarks"
pytestmark = [pytest.mark.db, pytest.mark.slow]  # a tiny index is built first (about 30 s)


def test_bench_index(tiny_index: Path):
    out = run(f"{B}/bench_index.py", THEOREM_RAG_DATA_DIR=str(tiny_index))
    assert "database total:" in out and "minilm_l6_v2_slogan" in out


def test_bench_text_sql_against_the_same_tree(tiny: Path, tiny_index: Path, tmp_path: Path):
    run(f"{B}/bench_text_sql.py", "--old", ROOT, "--eval-dir", tiny / "eval", "--repeat", "1", "--out",
        tmp_path / "text_sql.json", THEOREM_RAG_DATA_DIR=str(tiny_index))
    report = json.loads((tmp_path / "text_sql.json").read_text())
    assert report["command"].startswith("python benchmarks/bench_text_sql.py")
    assert (tmp_path / "text_sql.md").is_file()


def test_text_sql_ab_compares_the_library_sql_with_itself(tiny_index: Path):
    code = ("import sys; sys.path.insert(0, 'benchmarks')\n"
            "from text_sql_ab import compare\nfrom theorem_rag.search import TheoremSearch\n"
            "s = TheoremSearch.from_settings()\ncompare(s.store, lambda sql: sql, ('library', 'same'), rounds=1)\n"
            "s.close()\n")  # fmt: skip
    out = run("-c", code, THEOREM_RAG_DATA_DIR=str(tiny_index))
    line = next(ln for ln in out.splitlines() if ln.startswith("identical rows:"))
    same, total = line.removeprefix("identical rows: ").split(" of ")
    assert same == total and int(total) > 0


def test_bench_search_profile(tiny: Path, tiny_index: Path, tmp_path: Path):
    run(f"{B}/bench_search_profile.py", "--tree", f"now={ROOT}:{tiny_index}", "--eval-dir", tiny / "eval",
        "--results", tmp_path)
    (report,) = tmp_path.glob("search_profile_*/search_profile_*.json")  # a folder per day
    summary = json.loads(report.read_text())["summary"]["now"]
    assert set(summary) == {"dense", "hybrid"}
    assert summary["hybrid"]["stages"]["text_sql"]["p50"] > 0


def test_sweep_lexical_weight(tiny: Path, tiny_index: Path, tmp_path: Path):
    out_file = tmp_path / "sweep.jsonl"
    run(f"{B}/sweep_lexical_weight.py", "--eval-dir", tiny / "eval", "--sets", "stacks_slogans_dev",
        "planetmath_synonyms", "--grid", "60:1.0", "60:0.3", "--limit", "5", "--out", out_file,
        THEOREM_RAG_DATA_DIR=str(tiny_index))
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [(r["weight"], r["set"], r["n"]) for r in rows] == [
        (1.0, "stacks_slogans_dev", 4), (1.0, "planetmath_synonyms", 4),
        (0.3, "stacks_slogans_dev", 4), (0.3, "planetmath_synonyms", 4)]


def test_bench_recall_on_a_synthetic_space():
    out = run(f"{B}/bench_recall.py", "--synthetic", "300", "--n-queries", "5", "--pools", "20,50", "--ef", "40")
    assert "smallest pool reaching recall@20 >= 0.98" in out


def test_bench_api_load_rest_and_mcp(tiny: Path, tiny_index: Path, tmp_path: Path):
    run(f"{B}/bench_api_load.py", "--protocol", "rest", "mcp", "--clients", "2", "--seconds", "2", "--queries",
        tiny / "eval" / "stacks_slogans_dev.jsonl", "--out", tmp_path, THEOREM_RAG_DATA_DIR=str(tiny_index))
    (report,) = tmp_path.glob("api_load_*/api_load_*.json")  # a folder per day
    runs = json.loads(report.read_text())["runs"]
    assert sorted(r["protocol"] for r in runs) == ["mcp", "rest"]
    assert all(r["requests"] > 0 and r["errors"] == 0 for r in runs)


def test_bench_scale(tiny: Path, tiny_index: Path, scratch_server: Path, tmp_path: Path):
    run(f"{B}/bench_scale.py", "--n", "300", "--seed-data-dir", tiny_index, "--data-dir", scratch_server / "data",
        "--fresh", "--eval-dir", tiny / "eval", "--queries", "6", "--warmup", "2", "--pools", "20,50",
        "--exact-sql-check", "2", "--shared-buffers", "64MB", "--maintenance-work-mem", "64MB", "--out", tmp_path)
    report = json.loads((tmp_path / "scale_300.json").read_text())
    assert report["n"] == 300 and sorted(report["recall"]["pools"]) == ["20", "50"]
    assert report["recall"]["exact_sql"]["agreement_with_numpy"] == 1.0


def test_bench_app():
    out = run(f"{B}/bench_app.py", "--turns", "0", "--rounds", "1")
    assert "index of 51 statements built" in out and "search tab, query -> 10 cards" in out


def test_soak(tiny: Path, tmp_path: Path):
    records = tmp_path / "records"
    records.mkdir()
    # 153 statements: the fixture's 51 and two copies under other ids (the soak indexes 100, then grows).
    rows = [json.loads(line) for line in (tiny / "records" / "theorems.jsonl").read_text().splitlines()]
    copies = [{**t, "id": f"{t['id']}~{r}", "body_latex": f"{t['body_latex']} (copy {r})", "proof_refs": []}
              for r in (1, 2) for t in rows]  # fmt: skip
    (records / "theorems.jsonl").write_text("".join(json.dumps(t) + "\n" for t in rows + copies))
    (records / "documents.jsonl").write_text((tiny / "records" / "documents.jsonl").read_text())
    out = run(f"{B}/soak.py", "--records", records, "--queries", tiny / "eval" / "stacks_slogans_dev.jsonl",
              "--base", "100", "--grow", "153", "--steady", "5", "--down", "1", "--budget", "400", "--out", tmp_path)
    assert "detected: yes" in out
    section = out.split("## Integrity", 1)[1].split("Negative control", 1)[0]
    tables = ("| statements", "| vectors", "| feedback", "| slogans")
    integrity = [line for line in section.splitlines() if line.startswith(tables)]
    assert len(integrity) == 4 and all(line.rstrip().endswith("| yes |") for line in integrity)
