"""``GET /health`` that is safe to poll: one database probe at a time, its answer reused for a few seconds.

However many monitors poll and however often, the database sees at most one ``stats()`` call per ``ttl`` seconds:
concurrent polls wait for the probe in flight and share its answer. The probe runs outside the search queue (a
busy server still answers its health check) under its own deadline, and the body holds counts, never lists.

>>> import anyio
>>> probe = HealthProbe(lambda: {"theorems": 3, "documents": 1, "vectors": 3, "index_built": True, "spaces": ["x"]})
>>> status, body = anyio.run(probe.check)
>>> status, body["status"], body["theorems"], "spaces" in body
(200, 'ok', 3, False)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio

from theorem_rag.serving.deadline import DeadlineExceeded, call_with_deadline

log = logging.getLogger("theorem_rag.api")

# What /health reports: counts and flags from TheoremSearch.stats(); anything else (lists of names) stays out.
COUNT_FIELDS = ("theorems", "documents", "sources", "space", "vectors", "missing_vectors", "index_built")


class HealthProbe:
    """Cached, single-flight health check over a ``stats()`` callable (``TheoremSearch.stats``)."""

    def __init__(self, stats: Callable[[], dict[str, Any]], *, ttl: float = 2.0, timeout: float = 5.0,
                 version: str = "") -> None:  # fmt: skip
        self.stats, self.ttl, self.timeout, self.version = stats, ttl, timeout, version
        self.probes = 0  # database probes made, to see the caching work
        self._answer: tuple[int, dict[str, Any]] | None = None
        self._at = -float("inf")
        self._lock = anyio.Lock()
        # Its own worker slot: a queue of searches does not delay the health check, and a stuck probe cannot
        # take more than one thread.
        self._limiter = anyio.CapacityLimiter(1)

    async def check(self) -> tuple[int, dict[str, Any]]:
        """``(HTTP status, body)``: 200 when the database answers and the index is built, else 503."""
        async with self._lock:
            if self._answer is not None and anyio.current_time() - self._at < self.ttl:
                return self._answer
            self._answer = await self._probe()
            self._at = anyio.current_time()
            return self._answer

    async def _probe(self) -> tuple[int, dict[str, Any]]:
        from theorem_rag.db.connection import StoreUnavailable

        self.probes += 1
        base = {"version": self.version}
        try:
            stats = await call_with_deadline(self.stats, deadline=anyio.current_time() + self.timeout,
                                             limiter=self._limiter)  # fmt: skip
        except DeadlineExceeded:
            return 503, {"status": "timeout", **base, "message": f"the database did not answer in {self.timeout:g} s"}
        except StoreUnavailable as err:
            log.warning("health: database unavailable: %s", err)
            return 503, {"status": "database_unavailable", **base}
        counts = {k: stats[k] for k in COUNT_FIELDS if k in stats}
        ok = bool(stats.get("index_built"))
        return (200 if ok else 503), {"status": "ok" if ok else "index_not_built", **base, **counts}
