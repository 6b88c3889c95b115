"""What every part of :class:`~theorem_rag.db.store.TheoremStore` shares about its connection: the part's base
class, which declares the connection and table names once, and the error raised when the database cannot be reached.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from psycopg import Connection

    from theorem_rag.db.table_names import Names


class StoreUnavailable(RuntimeError):
    """The database cannot be reached (down, wrong DSN, restarting); nothing was written."""


class StorePart:
    """One part of the store's methods (dense search, full text, reads, ...): the store is composed of these and
    provides what they share, declared here once: its table names, its query length limit and a pooled connection
    (:meth:`TheoremStore.connection <theorem_rag.db.store.TheoremStore.connection>`)."""

    names: Names
    max_query_chars: int

    def connection(self) -> AbstractContextManager[Connection]:  # pragma: no cover - TheoremStore defines it
        raise NotImplementedError
