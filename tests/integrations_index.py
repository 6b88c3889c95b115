"""A real ``TheoremSearch`` for the integration tests (REST API, MCP server, LlamaIndex tools).

51 real statements (tests/fixtures/integrations, see its README) indexed with the bundled MiniLM model and the
offline slogan writer on the session's embedded PostgreSQL. Built once per test session, whichever test package
asks first; the session database (and the tables in it) is dropped by ``tests/conftest.py``.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from theorem_rag.records import Document, Theorem

FIXTURES = Path(__file__).parent / "fixtures" / "integrations"
_BUILT: dict[str, tuple[object, str]] = {}


def records() -> tuple[list[Theorem], list[Document]]:
    theorems = [Theorem.from_dict(json.loads(line)) for line in (FIXTURES / "theorems.jsonl").open()]
    documents = [Document.from_dict(json.loads(line)) for line in (FIXTURES / "documents.jsonl").open()]
    return theorems, documents


def integration_search(dsn: str):
    """``(TheoremSearch, table prefix)`` over the fixture records in the database at ``dsn``; cached per DSN."""
    if dsn in _BUILT:
        return _BUILT[dsn]
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.db.table_names import space_name
    from theorem_rag.search import TheoremSearch
    from theorem_rag.slogans.offline import OfflineSloganWriter

    table = f"integ_{uuid.uuid4().hex[:8]}"
    store = TheoremStore(dsn, table=table)
    embedder = Embedder()
    space = space_name(embedder.model_name, "slogan")
    theorems, documents = records()
    build_index(store, embedder, theorems, documents, writer=OfflineSloganWriter(), space=space, progress=False)
    _BUILT[dsn] = TheoremSearch(store, embedder, space=space, k=5, max_k=50), table
    return _BUILT[dsn]


class BuggySearch:
    """The real search whose statement search hits a bug: a plain ValueError with an internal detail, which an
    edge must neither show to the caller nor mistake for bad input."""

    SECRET = "internal invariant broken at row 42"

    def __init__(self, real) -> None:
        self.real = real

    def results(self, *args, **kwargs):  # what the servers search with
        raise ValueError(self.SECRET)

    def __getattr__(self, name):
        return getattr(self.real, name)
