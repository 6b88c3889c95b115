"""The threads a search runs its database look-ups on while the query is embedded: the full-text query, a formula
query's formula ranking, the routing's look-ups and the count of unknown words need no embedding. One small pool for
every retriever of the process, each job in a copy of the caller's context (its cancel scope).
"""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

TEXT_THREADS = 8
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def in_background(fn: Any, *args: Any, **kwargs: Any) -> Future:
    """Run ``fn`` on the shared threads, in a copy of the caller's context.

    >>> in_background(sum, [1, 2]).result()
    3
    """
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(TEXT_THREADS, thread_name_prefix="theorem-rag-text")
    return _pool.submit(contextvars.copy_context().run, fn, *args, **kwargs)
