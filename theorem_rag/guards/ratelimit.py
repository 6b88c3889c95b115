"""Per-client rate limits: a token bucket per client, as plain ASGI middleware for the REST and MCP HTTP servers.

Each client owns a bucket of ``burst`` tokens that refills at ``per_minute`` tokens a minute; a request takes one
token, and a request that finds the bucket empty gets ``429`` with a JSON error and ``Retry-After`` (whole seconds
until a token is back). A client is its address as the server sees it, an IPv6 one by its /64: a host or a home
line is handed a whole /64 (or more), and one bucket per address in it would be a fresh bucket per request.

Buckets that have refilled are forgotten, oldest first, a few at each new client (amortised constant work under
the lock), so memory stays bounded by the clients active in the last ``burst / rate`` seconds; past
``max_clients`` of those the least recently seen is forgotten even so (it starts again with a full bucket).

Behind a reverse proxy every request comes from the proxy's address: the servers take the client's address from
``X-Forwarded-For`` on connections from the proxies they trust (``--forwarded-allow-ips``,
:mod:`theorem_rag.guards.proxy`), so that each client has its own bucket.

>>> limiter = RateLimiter(per_minute=60, burst=2, clock=lambda: 0.0)
>>> [limiter.take("10.0.0.1") for _ in range(3)]
[0.0, 0.0, 1.0]
>>> limiter.take("10.0.0.2")
0.0
"""

from __future__ import annotations

import ipaddress
import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Any


class TokenBucket:
    """``capacity`` tokens, refilled continuously at ``rate`` tokens per second.

    >>> b = TokenBucket(rate=0.5, capacity=1, now=0.0)
    >>> b.take(0.0), b.take(0.0), b.take(2.0)
    (0.0, 2.0, 0.0)
    """

    __slots__ = ("rate", "capacity", "tokens", "stamp")

    def __init__(self, rate: float, capacity: float, now: float) -> None:
        self.rate, self.capacity = rate, capacity
        self.tokens, self.stamp = float(capacity), now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float) -> float:
        """Take a token: 0.0 when one was there, else the seconds until one will be (nothing is taken then)."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.capacity


class RateLimiter:
    """One :class:`TokenBucket` per client key; thread-safe; forgets buckets that have refilled.

    >>> RateLimiter(per_minute=0, burst=1)
    Traceback (most recent call last):
    ...
    ValueError: the rate limit must be positive, got 0 a minute (servers take 0 to mean: no limiter at all)
    """

    def __init__(self, per_minute: float, burst: int, *, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = 100_000) -> None:  # fmt: skip
        if per_minute <= 0:
            raise ValueError(f"the rate limit must be positive, got {per_minute:g} a minute (servers take 0 to mean: "
                             "no limiter at all)")  # fmt: skip
        if burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst}")
        self.rate, self.burst, self.clock = per_minute / 60.0, burst, clock
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take a token for ``key``: 0.0 when allowed, else the seconds to wait before retrying."""
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                self._forget(now)
                bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
            else:
                self._buckets.move_to_end(key)
            return bucket.take(now)

    def _forget(self, now: float) -> None:
        # A full bucket is the same as no bucket: dropping it changes nobody's limit. Only the least recently used
        # are looked at: each is dropped at most once, so the work per call is constant on average, and a bucket
        # untouched for burst / rate seconds is full, so the ones kept were all used within that time.
        buckets = self._buckets
        while buckets and (len(buckets) >= self.max_clients or next(iter(buckets.values())).full(now)):
            buckets.popitem(last=False)

    def __len__(self) -> int:
        return len(self._buckets)


def client_key(host: str) -> str:
    """The rate-limit key of a client address: an IPv6 address by its /64 network, an IPv4 one (IPv4-mapped IPv6
    too) as itself, anything else (not an address) as it is.

    >>> client_key("2001:db8:1:2:aaaa::1"), client_key("::ffff:10.0.0.1"), client_key("10.0.0.1")
    ('2001:db8:1:2::/64', '10.0.0.1', '10.0.0.1')
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 4:
        return str(address)
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((int(address), 64), strict=False))


def client_address(scope: dict[str, Any]) -> str:
    """The client key of an ASGI request: its address by :func:`client_key` (``"local"`` for a unix socket)."""
    client = scope.get("client")
    return client_key(str(client[0])) if client else "local"


class RateLimit:
    """ASGI middleware: answer ``429 {"error": "rate_limited", ...}`` with ``Retry-After`` to a client over its rate.

    ``exempt`` paths (a cached health check) are never limited, nor requests for which ``applies(scope)`` is
    false (the web app limits its actions, not the page's assets); lifespan and websocket scopes pass through.
    """

    def __init__(self, app: Any, limiter: RateLimiter, *, exempt: Collection[str] = (),
                 key: Callable[[dict[str, Any]], str] = client_address,
                 applies: Callable[[dict[str, Any]], bool] | None = None) -> None:  # fmt: skip
        self.app, self.limiter, self.exempt, self.key = app, limiter, frozenset(exempt), key
        self.applies = applies

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if (scope["type"] != "http" or scope.get("path") in self.exempt
                or (self.applies is not None and not self.applies(scope))):  # fmt: skip
            await self.app(scope, receive, send)
            return
        wait = self.limiter.take(self.key(scope))
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        retry = max(1, math.ceil(wait))
        body = json.dumps({"error": "rate_limited", "message": f"too many requests from this client; retry in "
                           f"{retry} s (the limit is {self.limiter.rate * 60:g} a minute, bursts of "
                           f"{self.limiter.burst})"}).encode()  # fmt: skip
        await send({"type": "http.response.start", "status": 429,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"retry-after", str(retry).encode())]})  # fmt: skip
        await send({"type": "http.response.body", "body": body})

