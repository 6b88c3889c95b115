"""PostgreSQL + pgvector: the embedded server, the versioned schema and the store that runs all SQL.

Importing this package loads psycopg (the ``db`` extra) but no model code.
"""

from theorem_rag.db.connection import StoreUnavailable
from theorem_rag.db.server import EmbeddedServer, resolve_dsn
from theorem_rag.db.store import TheoremStore, VectorSpace
from theorem_rag.db.writes import UpsertCounts

__all__ = [
    "EmbeddedServer",
    "StoreUnavailable",
    "TheoremStore",
    "UpsertCounts",
    "VectorSpace",
    "resolve_dsn",
]
