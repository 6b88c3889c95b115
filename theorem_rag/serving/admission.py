"""Admission control for servers: a bounded number of searches running and waiting; beyond it, an answer at once.

A server on a small machine has a throughput; requests beyond it can only queue, and a queue without a bound turns
a burst into 30-second waits for everyone. :class:`Admission` keeps at most ``slots`` searches running and
``queue`` more waiting. A request that finds the server full is refused at once (:class:`Overloaded`, which the
servers answer as 503 with ``Retry-After``); one admitted but still waiting for a slot after ``max_wait`` seconds
is refused then. The client learns within a fraction of a second, and can retry or go elsewhere.

>>> import anyio
>>> admission = Admission(slots=1, queue=0, max_wait=1.0)
>>> async def twice():
...     async with admission.admitted(), admission.slot():
...         try:
...             async with admission.admitted():
...                 pass
...         except Overloaded as err:
...             return err.retry_after, str(err)
>>> anyio.run(twice)
(1, 'the server is busy (1 searches running, 0 waiting); retry in 1 s')
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from theorem_rag.errors import InputError


class Overloaded(Exception):
    """The server is full (or a slot did not free up in time): retry after ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Admission:
    """At most ``slots`` searches run and ``queue`` wait; :meth:`admitted` then :meth:`slot` (event-loop only).

    A request is *inside* from :meth:`admitted` until it is answered: while its query is embedded (in shared
    batches, see :mod:`theorem_rag.serving.batching`), while it waits for a slot, while it runs.

    >>> Admission(slots=4, queue=16, max_wait=1.0).capacity
    20
    """

    def __init__(self, slots: int = 4, queue: int = 16, max_wait: float = 1.0) -> None:
        if isinstance(slots, bool) or not isinstance(slots, int) or slots < 1:
            raise InputError(f"slots must be an integer of at least 1, got {slots!r}")
        if isinstance(queue, bool) or not isinstance(queue, int) or queue < 0:
            raise InputError(f"queue must be an integer of at least 0, got {queue!r}")
        if not max_wait > 0:
            raise InputError(f"max_wait must be positive, got {max_wait!r}")
        self.slots, self.queue, self.max_wait = slots, queue, max_wait
        self.inside = 0  # requests admitted and not yet answered
        self.admitted_total = 0  # admissions so far (a server call each)
        self.refused = 0  # refused at the door (full)
        self.timed_out = 0  # admitted, but no slot within max_wait
        self._limiter: anyio.CapacityLimiter | None = None

    @property
    def capacity(self) -> int:
        return self.slots + self.queue

    @property
    def running(self) -> int:
        return 0 if self._limiter is None else self._limiter.borrowed_tokens

    def _retry_after(self) -> int:
        # About the time the requests inside need to drain: each slot serves its share of the queue, and one
        # request takes well under a second here. Whole seconds (HTTP), at least 1.
        return max(1, math.ceil(self.inside / self.slots * 0.1))

    @asynccontextmanager
    async def admitted(self) -> AsyncIterator[None]:
        """Count this request inside for the block; raise :class:`Overloaded` at once when the server is full."""
        if self.inside >= self.capacity:
            self.refused += 1
            raise Overloaded(f"the server is busy ({self.running} searches running, {self.inside - self.running} "
                             f"waiting); retry in {self._retry_after()} s", self._retry_after())  # fmt: skip
        self.inside += 1
        self.admitted_total += 1
        try:
            yield
        finally:
            self.inside -= 1

    @asynccontextmanager
    async def slot(self, deadline: float = math.inf) -> AsyncIterator[None]:
        """Hold one of the ``slots`` for the block; waiting past ``max_wait`` (or ``deadline``, a time on
        ``anyio.current_time()``'s clock) raises :class:`Overloaded`."""
        if self._limiter is None:
            # Created in the event loop that uses it (anyio binds its primitives lazily, but not across loops).
            self._limiter = anyio.CapacityLimiter(self.slots)
        limiter, acquired = self._limiter, False
        # Only the wait is bounded here: the search itself runs under the request's own deadline.
        with anyio.move_on_at(min(deadline, anyio.current_time() + self.max_wait)):
            await limiter.acquire()
            acquired = True
        if not acquired:
            self.timed_out += 1
            raise Overloaded(f"the server is busy: no search slot came free within {self.max_wait:g} s; retry in "
                             f"{self._retry_after()} s", self._retry_after())  # fmt: skip
        try:
            yield
        finally:
            limiter.release()
