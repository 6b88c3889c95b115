"""Smoke tests of the quality tools: an eval run and the tables made from it, the confidence calibration, the probe
table, and the two evaluation scripts. Scripts that write beside themselves (package data, ``benchmarks/results``)
run from a copy of their files in a temporary folder, so the checkout is never written."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import server_folder, tree_copy
from mini import CLI, run

B = "benchmarks"
pytestmark = [pytest.mark.db, pytest.mark.slow]  # a tiny index is built first (about 30 s)


@pytest.fixture(scope="module")
def eval_run(tiny: Path, tiny_index: Path, tmp_path_factory) -> Path:
    """``results.json`` of ``theorem-rag eval`` over the three dev sets and the probes, before and after query
    understanding (what ``scripts/evaluate_probes.sh`` runs)."""
    out = tmp_path_factory.mktemp("eval-run")
    e = tiny / "eval"
    run("-c", CLI, "eval", "--records", tiny / "records", "--no-plots", "--queries", e / "stacks_slogans_dev.jsonl",
        "--queries", e / "planetmath_synonyms.jsonl", "--queries", e / "stacks_proof_refs.jsonl",
        "--queries", e / "probes" / "dev_probes.jsonl", "--config", "hybrid-plain,hybrid", "--out", out,
        THEOREM_RAG_DATA_DIR=str(tiny_index))
    return out / "results.json"


def test_summarize_eval(eval_run: Path):
    out = run(f"{B}/summarize_eval.py", eval_run)
    rows = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| hybrid")]
    assert rows == ["hybrid-plain", "hybrid"]
    assert "Queries per set: stacks_slogans_dev 4, planetmath_synonyms 4, stacks_proof_refs 2, dev_probes 2" in out


def test_compare_models(eval_run: Path):
    out = run(f"{B}/compare_models.py", f"base={eval_run}", f"adapted={eval_run}")
    slogans = [line for line in out.splitlines() if line.startswith("| stacks_slogans_dev (4) | hybrid |")]
    assert [line.split("|")[3].strip() for line in slogans] == ["base", "adapted"]
    assert slogans[0].split("|")[4:] == slogans[1].split("|")[4:]  # the same run twice: the same figures


def test_calibrate_confidence_then_the_probe_table(tiny: Path, tiny_index: Path, eval_run: Path, tmp_path: Path):
    tree = tree_copy(tmp_path, f"{B}/calibrate_confidence.py", f"{B}/probe_table.py")
    (tree / "theorem_rag" / "retrieval" / "data").mkdir(parents=True)
    out = run(tree / B / "calibrate_confidence.py", "--eval-dir", tiny / "eval", "--records", tiny / "records",
              "--nonsense", tiny / "eval" / "probes" / "nonsense.jsonl", "--limit", "10",
              THEOREM_RAG_DATA_DIR=str(tiny_index))
    assert "Nonsense probes flagged:" in out
    fitted = json.loads((tree / "theorem_rag" / "retrieval" / "data" / "confidence.json").read_text())
    assert {"w_cosine", "w_lexical", "w_named", "bias", "threshold"} <= set(fitted)
    assert (tree / B / "results" / "probes" / "calibration.json").is_file()
    run(tree / B / "probe_table.py", eval_run)
    table = (tree / B / "results" / "probes" / "probe_table.md").read_text()
    assert "| **all** |" in table and "| nonsense, marked not confident | 1 |" in table


def test_evaluate_sh(tiny: Path, tmp_path: Path):
    tree = tree_copy(tmp_path / "tree", "scripts/evaluate.sh")
    (tree / "data").mkdir()
    (tree / "data" / "records").symlink_to(tiny / "records", target_is_directory=True)
    data = server_folder("bench-evaluate-")
    try:
        run(tree / "scripts" / "evaluate.sh", cwd=tree, THEOREM_RAG_DATA_DIR=str(data),
            THEOREM_RAG_EVAL=str(tiny / "eval"), LIMIT="3", THEOREM_RAG_QUERY_MODEL="math-minilm-v4")
    finally:
        shutil.rmtree(data, ignore_errors=True)
    results = json.loads((tree / B / "results" / "eval" / "results.json").read_text())
    assert sorted(results["results"]) == ["bm25-latex", "dense-latex", "dense-slogan", "hybrid", "hybrid+latex",
                                          "hybrid-latex"]


def test_evaluate_probes_sh(tiny: Path, tiny_index: Path, tmp_path: Path):
    tree = tree_copy(tmp_path / "tree", "scripts/evaluate_probes.sh", f"{B}/probes/make_probes.py",
                     f"{B}/calibrate_confidence.py", f"{B}/probe_table.py")
    (tree / "theorem_rag" / "retrieval" / "data").mkdir(parents=True)
    run(tree / "scripts" / "evaluate_probes.sh", cwd=tree, THEOREM_RAG_DATA_DIR=str(tiny_index),
        THEOREM_RAG_EVAL=str(tiny / "eval"), RECORDS=str(tiny / "records"), PYTHON=sys.executable, LIMIT="3",
        CALIB_LIMIT="10", PYTHONSAFEPATH="1")  # `python -c` from the copy: its theorem_rag/ must not shadow the package
    probes = [json.loads(line) for line in (tree / B / "probes" / "dev_probes.jsonl").read_text().splitlines()]
    assert {p["relevant"][0] for p in probes} == {"planetmath:CantorsTheorem"}  # the only probe gold in these records
    for made in ("probes/eval/results.json", "probes/calibration.json", "probes/probe_table.md",
                 "probes/dev_table/results.json"):
        assert (tree / B / "results" / made).is_file(), made


def test_the_calibration_measures_held_out_answers_against_what_the_search_measured(tiny: Path, tiny_index: Path,
                                                                                    monkeypatch):  # fmt: skip
    """Issue 54: the fit dropped a held-out answer from candidates of its own (50 of each ranking, the first text
    searched) while serving measures a hit's leads against its search's pools; the recorded candidates are those."""
    import importlib.util

    from theorem_rag.config import Settings
    from theorem_rag.retrieval.confidence import leads
    from theorem_rag.search import TheoremSearch

    spec = importlib.util.spec_from_file_location("calibrate_confidence", Path(B) / "calibrate_confidence.py")
    calibrate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibrate)
    monkeypatch.setenv("THEOREM_RAG_DATA_DIR", str(tiny_index))
    search = TheoremSearch.from_settings(Settings())
    served = calibrate.Candidates()
    try:
        queries = [json.loads(line)["query"] for line in (tiny / "eval" / "stacks_slogans_dev.jsonl").read_text()
                   .splitlines() if line.strip()]  # fmt: skip
        for query in queries:
            hits, dense, lexical = served.search(search, query, 30)
            assert hits and dense, query
            top = hits[0]
            floor = min(dense.values())
            assert round(leads([top.theorem_id], dense, missing=floor)[top.theorem_id], 4) == top.dense_lead
            assert round(leads([top.theorem_id], lexical)[top.theorem_id], 4) == top.lexical_lead
            # with nothing held out, the held-out evidence is the hit's own
            assert calibrate.without_answer(hits, dense, lexical, set())["dense_lead"] == pytest.approx(
                top.dense_lead, abs=1e-4)
    finally:
        served.close()
        search.close()
    import theorem_rag.retrieval.retriever as retriever
    from theorem_rag.retrieval.hits import with_confidence

    assert retriever.with_confidence is with_confidence
