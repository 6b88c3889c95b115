"""The notebooks run top to bottom against the session's embedded PostgreSQL (each on its own tables)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from shared_data import shared_dir

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))

pytestmark = [pytest.mark.db, pytest.mark.models, pytest.mark.slow]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, pg_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import nbformat  # the notebook extra: pip install "theorem-rag[notebook]"
    from nbclient import NotebookClient

    monkeypatch.setenv("THEOREM_RAG_DATABASE_URL", pg_dsn)
    monkeypatch.setenv("THEOREM_RAG_TABLE", f"nb_{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("THEOREM_RAG_CORPORA", str(shared_dir() / "corpora"))
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 1
