"""Fixtures of the benchmark smoke tests: the tiny inputs of ``mini.py`` and a tiny index in a data folder of its own.

The index is built once per session by ``theorem-rag index build`` (torch, offline slogans) into a fresh data folder;
every benchmark that reads an index gets ``THEOREM_RAG_DATA_DIR`` pointing at it and starts and stops that folder's
embedded server itself, as it would on a real index.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import mini  # noqa: E402


@pytest.fixture(scope="session")
def tiny(tmp_path_factory) -> Path:
    """A folder with ``corpora/`` (LaTeX), ``records/`` (51 statements) and ``eval/`` (dev sets, ``eval/probes``)."""
    root = tmp_path_factory.mktemp("bench-inputs")
    mini.write_corpora(root / "corpora")
    mini.write_records(root / "records")
    mini.write_eval(root / "eval")
    return root


def server_folder(prefix: str) -> Path:
    """A fresh folder for an embedded server's data, outside pytest's tmp root (see tests/conftest.py)."""
    base = Path(tempfile.gettempdir()) / "theorem-rag-tests"
    base.mkdir(mode=0o755, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))


@pytest.fixture(scope="session")
def tiny_index(tiny: Path) -> Iterator[Path]:
    """A data folder holding the index of ``tiny/records`` (its server stopped between uses)."""
    folder = server_folder("bench-index-")
    mini.run("-c", mini.CLI, "index", "build", "--records", tiny / "records", "--data-dir", folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def scratch_server() -> Iterator[Path]:
    folder = server_folder("bench-scratch-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def tree_copy(dest: Path, *paths: str) -> Path:
    """A copy of some of the repository's files, for scripts that write beside themselves (results, package data):
    they run from the copy and write there, never into the checkout. ``.venv`` links to this interpreter's."""
    for rel in paths:
        src = mini.ROOT / rel
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dest / rel)
    (dest / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return dest
