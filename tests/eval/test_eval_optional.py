"""Optional dependencies: ``theorem_rag.eval`` imports light, and a missing extra is named in the error."""

import subprocess
import sys

import pytest


def test_import_eval_loads_no_heavy_module():
    code = (
        "import sys, theorem_rag.eval, theorem_rag.eval.configs, theorem_rag.eval.report, theorem_rag.cli.eval;"
        "print(sorted(m for m in ('bm25s', 'numpy', 'matplotlib', 'sklearn', 'torch', 'sentence_transformers')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_missing_bm25s_names_the_extra(monkeypatch):
    from theorem_rag.eval.bm25 import BM25Searcher

    monkeypatch.setitem(sys.modules, "bm25s", None)
    with pytest.raises(ImportError, match=r'pip install "theorem-rag\[eval\]"'):
        BM25Searcher([])


def test_missing_matplotlib_names_the_extra(monkeypatch, tmp_path):
    from theorem_rag.eval.plots import plot_embedding_map

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r'pip install "theorem-rag\[eval\]"'):
        plot_embedding_map([[0.0, 1.0]] * 3, {"source": ["a"] * 3}, tmp_path / "x.png")
