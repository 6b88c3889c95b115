"""Smoke tests of the build benchmarks (parse, slogans, embedding, Ray, the quickstart's timing) and the tools that
make records, seeds and query sets: each runs once on a tiny input, as its docstring says to run it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import server_folder
from mini import run

B = "benchmarks"


def test_bench_offline_slogans(tiny: Path):
    out = run(f"{B}/bench_offline_slogans.py", tiny / "records" / "theorems.jsonl")
    assert "51 statements" in out and "non-ASCII slogans: 0; empty bodies: 0" in out


def test_bench_parse(tiny: Path, tmp_path: Path):
    out = run(f"{B}/bench_parse.py", "--root", tiny / "corpora", "hott", "--no-plastex", "--out", tmp_path)
    assert "total: 6 records" in out
    assert len((tmp_path / "theorems.jsonl").read_text().splitlines()) == 6


def test_bench_plastex(tiny: Path):
    out = run(f"{B}/bench_plastex.py", "--corpora", tiny / "corpora", "--timeout", "60")
    # One row for every file of the benchmark's list.
    files = [ln.split()[0] for ln in out.splitlines() if ln.startswith(("stacks/", "hott/", "napkin/", "papers/"))]
    assert files == [
        "stacks/sets.tex", "stacks/fields.tex", "stacks/algebra.tex", "hott/preliminaries.tex", "hott/hlevels.tex",
        "napkin/tex/alg-NT/dedekind.tex", "papers/finkelstein-nc-approximation", "papers/sag-foundations"]
    assert "projection for 40 MB of TeX" in out


def test_eval_quick_records(tiny: Path, tmp_path: Path):
    out = run(f"{B}/eval_quick_records.py", tiny / "corpora", tmp_path)
    assert "{'theorems': 4, 'documents': 5}" in out
    ids = [json.loads(line)["id"] for line in (tmp_path / "theorems.jsonl").read_text().splitlines()]
    assert ids == ["stacks:00A3", "stacks:00A2", "stacks:00A1", "planetmath:AxiomOfChoice"]


def test_scale_seed_subset_from_records_and_from_latex(tiny: Path, tmp_path: Path):
    out = run(f"{B}/scale_seed_subset.py", tiny / "records", tmp_path / "a", "--n", "10")
    assert "10 of 51 statements (every 5th)" in out
    assert len((tmp_path / "a" / "theorems.jsonl").read_text().splitlines()) == 10
    out = run(f"{B}/scale_seed_subset.py", "--latex", tiny / "corpora", tmp_path / "b", "--n", "5")
    assert "5 of" in out and (tmp_path / "b" / "documents.jsonl").is_file()


def test_make_premise_queries(tiny: Path, tmp_path: Path):
    out_file = tmp_path / "outside.jsonl"
    run(f"{B}/make_premise_queries.py", "--records", tiny / "records", "--dev",
        tiny / "eval" / "stacks_proof_refs.jsonl", "--out", out_file, "--limit", "0")
    # The one citing Stacks statement outside the training split, with what its proof cites, itself excluded.
    assert [json.loads(line) for line in out_file.read_text().splitlines()] == [
        {"id": "refs-out-00AD", "query": "The product of two rings $R \\times S$ is a ring.",
         "relevant": ["stacks:00AC"], "exclude": ["stacks:00AD"]}]


@pytest.mark.slow
def test_bench_embed(tiny: Path, tmp_path: Path):
    run(f"{B}/bench_embed.py", "--records", tiny / "records", "--n", "8", "--rounds", "1", "--queries",
        tiny / "eval" / "stacks_slogans_dev.jsonl", "--cache-dir", tmp_path / "onnx", "--out", tmp_path / "embed")
    report = (tmp_path / "embed.md").read_text()
    assert "| 1 | torch |" in report and "| 1 | onnx-int8 |" in report and "Cosine between the two backends" in report


@pytest.mark.slow
def test_eval_pool_sweep(tiny: Path):
    out = run(f"{B}/eval_pool_sweep.py", tiny / "records", "40", "5")
    assert "| 320 |" in out


@pytest.mark.slow
def test_model_probe_train_and_diag(tiny: Path, tmp_path: Path):
    model = tmp_path / "probe-model"
    common = ("--records", tiny / "records", "--eval-dir", tiny / "eval")
    out = run(f"{B}/model_probe.py", "train", *common, "--out", model)
    assert "trained on" in out and (model / "model.safetensors").is_file()
    out = run(f"{B}/model_probe.py", "diag", *common, "--model", model)
    assert [line.split()[:2] for line in out.splitlines() if line.startswith(("base", "probe"))] == [
        ["base", "stacks_slogans_dev"], ["base", "planetmath_synonyms"],
        ["probe", "stacks_slogans_dev"], ["probe", "planetmath_synonyms"]]


@pytest.mark.slow
def test_bench_ray_build(tiny: Path, tmp_path: Path):
    run(f"{B}/bench_ray_build.py", "--records", tiny / "records", "--num-cpus", "1", "--out", tmp_path / "ray_build")
    rows = [line for line in (tmp_path / "ray_build.md").read_text().splitlines() if line.startswith("| 0 |")]
    assert [r.split("|")[2].strip() for r in rows] == ["local", "ray"] and all("| 51 |" in r for r in rows)


@pytest.mark.slow
def test_time_quickstart(tiny: Path, tmp_path: Path):
    data = server_folder("bench-quickstart-")
    try:
        out = run(f"{B}/time_quickstart.sh", tmp_path / "out", data / "data", PYTHON=sys.executable,
                  THEOREM_RAG_CORPORA=str(tiny / "corpora"), THEOREM_RAG_SOURCES="hott stacks",
                  THEOREM_RAG_EVAL_DIR=str(tiny / "eval"))
    finally:
        shutil.rmtree(data, ignore_errors=True)
    for stage in ("parse", "build", "query_space", "head", "search"):
        assert f"{stage}: \tElapsed (wall clock) time" in out
    assert "stacks:00A3" in (tmp_path / "out" / "search.out").read_text()
