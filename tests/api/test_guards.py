"""The shared server guards: token buckets (exact arithmetic on a hand-driven clock), the API key rule, and both
ASGI middlewares on a real uvicorn server on loopback (a two-route Starlette app: no database, no model)."""

from __future__ import annotations

import time

import httpx
import pytest

from loopback import serving
from theorem_rag.guards.apikey import RequireApiKey, check_bind, is_loopback, key_matches, presented_key
from theorem_rag.guards.ratelimit import RateLimit, RateLimiter, TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_refills_at_its_rate_up_to_its_capacity():
    b = TokenBucket(rate=2.0, capacity=3, now=0.0)
    assert [b.take(0.0) for _ in range(4)] == [0.0, 0.0, 0.0, 0.5]  # 3 at once, then half a second for the next
    assert b.take(0.25) == 0.25  # half a token back; a failed take uses nothing
    assert b.take(0.5) == 0.0
    assert b.take(100.0) == 0.0 and b.tokens == 2.0  # refilled to capacity (3), not beyond, then one taken


def test_rate_limiter_keeps_one_bucket_per_client_and_forgets_full_ones():
    clock = Clock()
    limiter = RateLimiter(per_minute=30, burst=2, clock=clock, prune_above=3)  # one token every 2 s
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 2.0]
    assert limiter.take("b") == 0.0 and limiter.take("c") == 0.0 and len(limiter) == 3
    clock.now = 2.0  # a has one token back; b and c are full again
    assert limiter.take("a") == 0.0 and limiter.take("a") == 2.0
    limiter.take("d")  # over prune_above: the full buckets (b, c) go, a (empty) and d stay
    assert len(limiter) == 2 and limiter.take("b") == 0.0
    with pytest.raises(ValueError, match="must be positive, got -1 a minute"):
        RateLimiter(per_minute=-1, burst=1)
    with pytest.raises(ValueError, match="burst must be at least 1"):
        RateLimiter(per_minute=60, burst=0)


def test_api_key_helpers_and_the_loopback_rule():
    assert key_matches("k3y", "k3y") and not key_matches("k3", "k3y") and not key_matches(None, "k3y")
    assert presented_key({"x-api-key": "a", "authorization": "Bearer b"}) == "a"
    assert presented_key({"authorization": "Bearer  b "}) == "b"
    assert presented_key({"authorization": "Basic Zm9v"}) is None and presented_key({"authorization": "Bearer"}) is None
    assert [is_loopback(h) for h in ("127.0.0.1", "127.3.4.5", "::1", "[::1]", "localhost")] == [True] * 5
    assert [is_loopback(h) for h in ("0.0.0.0", "::", "", "192.168.1.2", "example.org")] == [False] * 5
    for host in ("0.0.0.0", "::", "10.1.2.3", "my-host"):
        with pytest.raises(ValueError, match=f"would listen on {host} without an API key.*THEOREM_RAG_API_KEY"):
            check_bind(host, None)
        check_bind(host, "k3y")
    check_bind("127.0.0.1", None)


def _toy_app(api_key: str | None = None, per_minute: float = 0, burst: int = 1, clock=time.monotonic):
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def hello(request):
        return PlainTextResponse("hello " + request.client.host)

    app = Starlette(routes=[Route("/hello", hello), Route("/health", hello)])
    if api_key:
        app.add_middleware(RequireApiKey, api_key=api_key, exempt={"/health"})
    if per_minute:
        app.add_middleware(RateLimit, limiter=RateLimiter(per_minute, burst, clock=clock), exempt={"/health"})
    return app


def _client(url: str, address: str = "127.0.0.1", **kw) -> httpx.Client:
    # The whole of 127.0.0.0/8 is loopback: a second source address is a second client for the rate limiter.
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=address), timeout=30, **kw)


def test_rate_limit_over_http_is_per_client_with_retry_after():
    clock = Clock()  # stopped: no token comes back during the test, so the wait is exactly 10 s
    with serving(_toy_app(per_minute=6, burst=2, clock=clock)) as url, _client(url) as a, \
            _client(url, "127.0.0.2") as b:
        assert [a.get("/hello").status_code for _ in range(3)] == [200, 200, 429]
        refused = a.get("/hello")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "10"  # 6 a minute: one per 10 s
        assert refused.json() == {"error": "rate_limited", "message": "too many requests from this client; retry in "
                                  "10 s (the limit is 6 a minute, bursts of 2)"}  # fmt: skip
        assert b.get("/hello").text == "hello 127.0.0.2"  # another client has its own bucket
        assert [a.get("/health").status_code for _ in range(5)] == [200] * 5  # exempt
        clock.now = 10.0
        assert [a.get("/hello").status_code for _ in range(2)] == [200, 429]  # one token back after 10 s


def test_api_key_middleware_over_http():
    with serving(_toy_app(api_key="s3cret")) as url, _client(url) as c:
        r = c.get("/hello")
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert r.json()["error"] == "unauthorized" and "s3cret" not in r.text
        assert c.get("/hello", headers={"X-API-Key": "nope"}).status_code == 401
        assert c.get("/hello", headers={"X-API-Key": "s3cret"}).status_code == 200
        assert c.get("/hello", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert c.get("/health").status_code == 200
