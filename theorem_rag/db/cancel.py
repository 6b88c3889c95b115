"""Cancel the database work of one call from another thread: what a request deadline needs.

A :class:`CancelScope` is entered in the thread that does the work; every connection the store hands out inside
it is registered with the scope. :meth:`CancelScope.cancel`, called from any thread (a server's watchdog), asks
PostgreSQL to cancel each query running on those connections and makes later connection requests in the scope
fail at once, so a call past its deadline stops instead of running on in the background.

>>> scope = CancelScope()
>>> with scope.active():
...     signalled = scope.cancel()   # no query is running: nothing to signal
...     try:
...         scope.check()
...     except Cancelled as err:
...         print(err)
the call was cancelled (its deadline passed)
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_current: contextvars.ContextVar[CancelScope | None] = contextvars.ContextVar("theorem_rag_cancel", default=None)


class Cancelled(RuntimeError):
    """The call's scope was cancelled (its deadline passed); no new database work starts in it."""


class CancelScope:
    """A set of connections in use by one call, and a flag: cancelled or not.

    >>> CancelScope().cancelled
    False
    """

    def __init__(self) -> None:
        self.cancelled = False
        self._connections: set[Any] = set()
        # Held while a cancel request is on its way, so that a connection cannot go back to the pool (and start
        # another call's query) between the moment it is chosen for cancelling and the moment the server has it.
        self._lock = threading.Lock()

    @contextmanager
    def active(self) -> Iterator[CancelScope]:
        """Make this the scope of the current thread (or task) while the block runs."""
        token = _current.set(self)
        try:
            yield self
        finally:
            _current.reset(token)

    def check(self) -> None:
        """Raise :class:`Cancelled` once the scope is cancelled."""
        if self.cancelled:
            raise Cancelled("the call was cancelled (its deadline passed)")

    def cancel(self) -> int:
        """Cancel the queries running in this scope now and refuse new ones; returns how many were signalled."""
        with self._lock:
            self.cancelled = True
            for conn in self._connections:
                try:
                    conn.cancel_safe(timeout=5.0)
                except Exception:  # noqa: BLE001 - a connection that is already gone has nothing left to cancel
                    pass
            return len(self._connections)

    def _enter(self, conn: Any) -> None:
        with self._lock:
            self.check()
            self._connections.add(conn)

    def _exit(self, conn: Any) -> None:
        with self._lock:
            self._connections.discard(conn)


def current_scope() -> CancelScope | None:
    """The scope active in this thread, if any."""
    return _current.get()


@contextmanager
def tracked(conn: Any) -> Iterator[Any]:
    """Register ``conn`` with the active scope (if any) while the block uses it; what the store wraps around
    every pooled connection it hands out."""
    scope = _current.get()
    if scope is None:
        yield conn
        return
    scope._enter(conn)
    try:
        yield conn
    finally:
        scope._exit(conn)
