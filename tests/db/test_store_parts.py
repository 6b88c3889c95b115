"""The store is composed of parts (one module of ``theorem_rag/db`` each) that share one declared connection."""

from __future__ import annotations


def test_every_part_of_the_store_shares_one_declared_connection():
    from theorem_rag.db.connection import StorePart
    from theorem_rag.db.store import TheoremStore

    parts = [c for c in TheoremStore.__mro__ if c not in (TheoremStore, StorePart, object)]
    assert len(parts) == 10 and all(issubclass(part, StorePart) for part in parts), parts
    # Declared once for the parts (StorePart), defined once by the store: no part re-declares it.
    assert [c.__name__ for c in TheoremStore.__mro__ if "connection" in vars(c)] == ["TheoremStore", "StorePart"]
    assert [c.__name__ for c in TheoremStore.__mro__ if "names" in getattr(c, "__annotations__", {})] == ["StorePart"]
