"""Run a blocking search call in a worker thread under a deadline; past it, cancel its database work and give up.

The event loop stops waiting at the deadline and asks PostgreSQL to cancel the queries the call has running
(:class:`~theorem_rag.db.cancel.CancelScope`); the worker thread then fails at its next database step instead of
running on, and its result is dropped. A chat model generating in the call asks the same scope before each token
(the app's assistant: ``step_cancelled``) and stops, freeing the model for the next turn. A call still queued for a
worker when the deadline passes starts nothing.

>>> import anyio
>>> anyio.run(lambda: call_with_deadline(sum, [1, 2, 3], deadline=anyio.current_time() + 5))
6
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread

from theorem_rag.db.cancel import CancelScope

log = logging.getLogger("theorem_rag.api")


class DeadlineExceeded(Exception):
    """The call ran past its deadline; its database work was cancelled."""


async def call_with_deadline(fn: Callable[..., Any], *args: Any, deadline: float = math.inf,
                             limiter: anyio.CapacityLimiter | None = None, **kwargs: Any) -> Any:  # fmt: skip
    """``fn(*args, **kwargs)`` in a worker thread (through ``limiter``), abandoned and cancelled at ``deadline``
    (a time on ``anyio.current_time()``'s clock); raises :class:`DeadlineExceeded` then."""
    scope = CancelScope()

    def work() -> Any:
        with scope.active():
            scope.check()  # the deadline passed while the call waited for a worker: start nothing
            return fn(*args, **kwargs)

    if deadline == math.inf:
        return await anyio.to_thread.run_sync(work, limiter=limiter)
    with anyio.move_on_at(deadline):
        return await anyio.to_thread.run_sync(work, limiter=limiter, abandon_on_cancel=True)
    # Past the deadline. Cancelling takes a round trip to the server: do it off the event loop, and outside the
    # search limiter, so that a queue of searches cannot hold it up.
    signalled = await anyio.to_thread.run_sync(scope.cancel)
    log.warning("%s passed its deadline; cancelled %d running queries", getattr(fn, "__name__", "a call"), signalled)
    raise DeadlineExceeded(f"{getattr(fn, '__name__', 'the call')} passed its deadline")
