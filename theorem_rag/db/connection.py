"""What every part of :class:`~theorem_rag.db.store.TheoremStore` shares about its connection: the error raised
when the database cannot be reached.
"""

from __future__ import annotations


class StoreUnavailable(RuntimeError):
    """The database cannot be reached (down, wrong DSN, restarting); nothing was written."""
