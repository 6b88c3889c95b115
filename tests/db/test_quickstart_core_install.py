"""The quickstart's steps before its full setup run on what ``scripts/setup.sh corpus,index`` installs: each step is
a subprocess in which every installed package outside that install (the app, the servers, evaluation, Ray, docs,
tests) is hidden through ``sys.modules``, as txtai's testoptional does. The build takes one source first, searches
it, then adds the others without redoing the first, as the quickstart does with Stacks."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from packaging.requirements import Requirement

pytestmark = [pytest.mark.db, pytest.mark.models, pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDS = FIXTURES / "integrations"
# A new venv has pip and setuptools before anything is installed; setup.sh installs math-minilm-v4 in every pass.
ALWAYS = {"pip", "setuptools", "wheel", "theorem-rag-math-minilm"}
RUN = ("import sys\nfor name in sys.argv[1].split(','):\n    sys.modules[name] = None\n"
       "sys.argv = ['theorem-rag', *sys.argv[2:]]\nfrom theorem_rag.cli import main\nmain()\n")  # fmt: skip


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_by(spec: str) -> set[str]:
    """The installed distributions that ``pip install spec`` needs, ``spec``'s own included."""
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [Requirement(spec)]
    while todo:
        req = todo.pop()
        key = (_name(req.name), frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = md.distribution(req.name).requires or []
        except md.PackageNotFoundError:
            continue
        for line in requires:
            dep = Requirement(line)
            if dep.marker is None or any(dep.marker.evaluate({"extra": e}) for e in (*req.extras, "")):
                todo.append(dep)
    return {name for name, _ in seen}


def hidden_modules() -> list[str]:
    """The top-level modules of every installed distribution that the corpus and index extras do not need."""
    keep = installed_by("theorem-rag[corpus,index]") | ALWAYS
    return sorted(mod for mod, dists in md.packages_distributions().items() if not {_name(d) for d in dists} & keep)


def test_what_is_hidden_is_the_app_side_only():
    hidden = hidden_modules()
    assert {"gradio", "llama_cpp", "litellm", "fastapi", "ray", "mkdocs"} <= set(hidden)
    assert not {"plasTeX", "psycopg", "pgvector", "torch", "sentence_transformers", "onnxruntime",
                "llama_index", "theorem_rag", "theorem_rag_math_minilm"} & set(hidden)  # fmt: skip


def test_the_quickstart_searches_before_the_rest_is_installed(pg_dsn, tmp_path: Path):
    hidden = ",".join(hidden_modules())
    env = {**os.environ, "THEOREM_RAG_DATA_DIR": str(tmp_path / "data")}
    db = ["--database-url", pg_dsn, "--table", f"qc_{uuid.uuid4().hex[:8]}"]

    def run(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-c", RUN, hidden, *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True)  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout

    run("corpus", "parse", str(FIXTURES / "latex" / "stacks"), "--out", str(tmp_path / "records"), "--quiet")
    assert (tmp_path / "records" / "theorems.jsonl").stat().st_size
    out = run("index", "build", "--records", str(RECORDS), "--source", "stacks", *db)
    assert "5 statements (5 new, 0 updated, 0 unchanged, 0 removed)" in out
    hits = re.findall(r"^\s+\d+  (\S+)  ", run("search", "a finite module over a local ring", "-k", "3", *db), re.M)
    assert len(hits) == 3 and all(h.startswith("stacks:") for h in hits), hits
    out = run("index", "build", "--records", str(RECORDS), *db)
    assert "51 statements (46 new, 0 updated, 5 unchanged, 0 removed)" in out and "46 embedded" in out
    run("index", "build", "--records", str(RECORDS), "--embed-model", "math-minilm-v4", *db)
    run("index", "build", "--records", str(RECORDS), "--embed-field", "statement", *db)
    assert "fitted the premise head on 8 statements" in run("model", "premise-head", "--no-eval-exclusion", *db)
    stats = run("index", "stats", *db)
    assert '"query_space": "math_minilm_v4_slogan"' in stats and '"words_space": "minilm_l6_v2_statement"' in stats
