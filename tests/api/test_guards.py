"""The shared server guards: token buckets (exact arithmetic on a hand-driven clock), the API key rule, the trusted
proxies, and both ASGI middlewares on a real uvicorn server on loopback (a two-route Starlette app: no database, no
model)."""

from __future__ import annotations

import time

import httpx
import pytest

from loopback import serving
from theorem_rag.guards.apikey import RequireApiKey, check_bind, is_loopback, key_matches, presented_key
from theorem_rag.guards.proxy import trusted_proxies, uvicorn_proxy_options
from theorem_rag.guards.ratelimit import RateLimit, RateLimiter, TokenBucket, client_address


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
    limiter = RateLimiter(per_minute=30, burst=2, clock=clock)  # one token every 2 s
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 2.0]
    assert limiter.take("b") == 0.0 and limiter.take("c") == 0.0 and len(limiter) == 3
    clock.now = 2.0  # a has one token back; b and c are full again
    assert limiter.take("a") == 0.0 and limiter.take("a") == 2.0
    limiter.take("d")  # a new client: the full buckets (b, c) go, a (empty) and d stay
    assert len(limiter) == 2 and limiter.take("b") == 0.0
    with pytest.raises(ValueError, match="must be positive, got -1 a minute"):
        RateLimiter(per_minute=-1, burst=1)
    with pytest.raises(ValueError, match="burst must be at least 1"):
        RateLimiter(per_minute=60, burst=0)


def test_forgetting_refilled_buckets_costs_a_few_looks_per_request(monkeypatch):
    """Past 10,000 clients active at once, each new client used to look at every bucket under the lock (work
    quadratic in the clients); now only the least recently used are looked at, each forgotten at most once, and a
    cap bounds the memory even when every client is active."""
    looked = []
    full = TokenBucket.full
    monkeypatch.setattr(TokenBucket, "full", lambda bucket, now: looked.append(now) or full(bucket, now))
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=2, clock=clock)  # refilled 2 s after its last request
    clients = [f"10.{i // 65536}.{i // 256 % 256}.{i % 256}" for i in range(10_500)]
    assert {limiter.take(c) for c in clients} == {0.0} and len(limiter) == len(clients)
    assert len(looked) <= 2 * len(clients)  # the old scan: about 5 million looks
    clock.now = 2.0
    limiter.take("10.255.0.1")
    assert len(limiter) == 1  # every refilled bucket forgotten by the next new client
    capped = RateLimiter(per_minute=60, burst=2, clock=clock, max_clients=100)
    for c in clients[:150]:
        capped.take(c)
    assert len(capped) == 100  # the least recently seen forgotten, the latest kept with what they took:
    assert capped.take(clients[149]) == 0.0 and capped.take(clients[149]) == 1.0


def test_a_client_behind_a_trusted_proxy_cannot_name_itself():
    """'*' and networks that hold the clients are refused (under '*' uvicorn believes the leftmost X-Forwarded-For
    entry, which the client writes: a fresh bucket per request). With the proxy named, the client is the rightmost
    address the proxy appended; addresses the client prepends change nothing."""
    for wide in ("*", "10.0.0.5, *", "0.0.0.0/0", "::/0", "0.0.0.0/1", "::ffff:0:0/96", "::/7"):
        with pytest.raises(ValueError, match=r"would trust every client to name itself in X-Forwarded-For .* name "
                           r"the reverse proxies instead, e\.g\. 10\.0\.0\.5"):  # fmt: skip
            uvicorn_proxy_options(wide)
    assert trusted_proxies("10.0.0.0/8, fc00::/7, ::ffff:10.0.0.0/104") == ["10.0.0.0/8", "fc00::/7",
                                                                            "::ffff:10.0.0.0/104"]  # fmt: skip
    with serving(_toy_app(per_minute=6, burst=2, clock=Clock()), **uvicorn_proxy_options("127.0.0.2")) as url, \
            _client(url, "127.0.0.2") as proxy, _client(url) as stranger:
        said = [proxy.get("/hello", headers={"X-Forwarded-For": f"198.51.100.{i}, 203.0.113.9"}) for i in range(3)]
        assert [(r.status_code, r.text) for r in said[:2]] == [(200, "hello 203.0.113.9")] * 2
        assert said[2].status_code == 429  # one client, one bucket, whatever it wrote before its address
        assert stranger.get("/hello", headers={"X-Forwarded-For": "203.0.113.7"}).text == "hello 127.0.0.1"


def test_an_ipv6_client_is_one_client_per_64():
    """An IPv6 host is handed a whole /64: one bucket per address in it was a fresh bucket per request."""
    assert client_address({"client": ("::ffff:203.0.113.9", 0)}) == "203.0.113.9"  # IPv4 on a dual-stack socket
    with serving(_toy_app(per_minute=6, burst=1, clock=Clock()), **uvicorn_proxy_options("127.0.0.2")) as url, \
            _client(url, "127.0.0.2") as proxy:  # fmt: skip
        def status(address: str) -> int:
            return proxy.get("/hello", headers={"X-Forwarded-For": address}).status_code

        assert [status("2001:db8:1:2::1"), status("2001:db8:1:2::2"), status("2001:db8:1:2:ffff::3")] == [200, 429, 429]
        assert status("2001:db8:1:3::1") == 200  # the next /64 is another client


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
