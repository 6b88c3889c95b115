"""A real ``TheoremSearch`` over Lean declarations, for the agent surfaces (MCP, REST, LlamaIndex) and the proof graph.

The Lean fixture (tests/fixtures/lean: two small mathlib-like modules whose proofs name each other) parsed by the Lean
adapter and indexed with the bundled MiniLM model and the offline slogan writer on the session's embedded PostgreSQL.
Built once per test session; the session database is dropped by ``tests/conftest.py``.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path

from theorem_rag.records import Document, Theorem

LEAN = Path(__file__).parent / "fixtures" / "lean"
_BUILT: dict[str, object] = {}


def lean_records() -> tuple[list[Theorem], list[Document]]:
    """The fixture's records, as ``theorem-rag corpus parse tests/fixtures/lean`` makes them."""
    from corpus_build.parse import parse_sources

    with tempfile.TemporaryDirectory() as out:
        parse_sources([LEAN], out, use_plastex=False, progress=False)
        read = lambda name, cls: [cls.from_dict(json.loads(line))  # noqa: E731
                                  for line in (Path(out) / name).read_text(encoding="utf-8").splitlines()]
        return read("theorems.jsonl", Theorem), read("documents.jsonl", Document)


def lean_fixture_search(dsn: str):
    """A ``TheoremSearch`` over the fixture's records in the database at ``dsn``; cached per DSN."""
    if dsn in _BUILT:
        return _BUILT[dsn]
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.db.table_names import space_name
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.search import TheoremSearch
    from theorem_rag.slogans.offline import OfflineSloganWriter

    store = TheoremStore(dsn, table=f"lean_{uuid.uuid4().hex[:8]}")
    embedder = Embedder()
    space = space_name(embedder.model_name, "slogan")
    theorems, documents = lean_records()
    build_index(store, embedder, theorems, documents, writer=OfflineSloganWriter(), space=space, progress=False)
    _BUILT[dsn] = TheoremSearch(store, embedder, space=space, k=5, max_k=50)
    return _BUILT[dsn]
