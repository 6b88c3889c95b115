"""Where the shared corpora and dev sets are: ``$THEOREM_RAG_SHARED``, else a ``shared/`` folder beside the
repository or one of its parents (CI puts a copy beside the clone), else ``/work/shared``."""

from __future__ import annotations

import os
from pathlib import Path


def shared_dir() -> Path:
    if os.environ.get("THEOREM_RAG_SHARED"):
        return Path(os.environ["THEOREM_RAG_SHARED"])
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "corpora").is_dir():
            return parent / "shared"
    return Path("/work/shared")
