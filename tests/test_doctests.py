"""The docstring examples of ``theorem_rag`` and ``corpus_build`` are tests: pytest's config collects them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_package_docstring_examples_are_collected():
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "theorem_rag", "corpus_build"], cwd=ROOT, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    items = [line for line in out.stdout.splitlines() if "::" in line]
    # One item per docstring with examples; pure ones run, the rest carry `# doctest: +SKIP`.
    assert "theorem_rag/config.py::theorem_rag.config" in items
    assert "corpus_build/texfiles.py::corpus_build.texfiles.read_tex" in items
    assert "theorem_rag/ui/assistant.py::theorem_rag.ui.assistant.link_citations" in items
    assert len(items) >= 140
