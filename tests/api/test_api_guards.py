"""The REST API's guards with a real uvicorn server on loopback over the real index: the request deadline (503,
Retry-After, the query cancelled in PostgreSQL), /health that is safe to poll, per-client rate limits."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from loopback import serving
from slow_search import SlowSearch

pytestmark = [pytest.mark.db, pytest.mark.models]


def _running(search, marker: str) -> list[tuple]:
    with search.store.connection() as conn:
        return conn.execute("SELECT pid, state FROM pg_stat_activity WHERE query LIKE %s AND pid <> pg_backend_pid()",
                            [f"%{marker}%"]).fetchall()  # fmt: skip


def test_a_request_past_its_deadline_is_503_and_its_query_is_cancelled(integ):
    import psycopg

    from theorem_rag.api.app import create_app

    slow = SlowSearch(integ[0], slow=("results",))  # what the servers search with
    with serving(create_app(slow, request_timeout=1)) as url, httpx.Client(base_url=url, timeout=60) as c:
        r = c.get("/search", params={"q": "ring"})
        assert r.status_code == 503 and r.headers["retry-after"] == "5"
        assert r.json() == {"error": "timeout", "message": "the request took longer than 1 s and was cancelled; retry "
                            "shortly, or ask for fewer results"}  # fmt: skip
        # Cancelled, not left running: the worker got PostgreSQL's cancel, and no backend runs the query any more.
        assert slow.finished.wait(10), "the abandoned search is still running"
        assert len(slow.errors) == 1 and isinstance(slow.errors[0], psycopg.errors.QueryCanceled)
        assert [row for row in _running(integ[0], slow.marker) if row[1] == "active"] == []
        # The server goes on serving; a request within its deadline is answered as usual.
        assert c.get("/theorems/stacks:00AC").json()["id"] == "stacks:00AC"


class CountingStats:
    def __init__(self, search) -> None:
        self.inner, self.calls = search, 0
        self.lock = threading.Lock()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def stats(self):
        with self.lock:
            self.calls += 1
        return self.inner.stats()


def test_health_is_cached_single_flight_and_counts_only(integ):
    from theorem_rag.api.app import create_app

    counting = CountingStats(integ[0])
    with serving(create_app(counting, health_cache_seconds=600)) as url, httpx.Client(base_url=url, timeout=60) as c:
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(lambda _: c.get("/health"), range(48)))
        assert [r.status_code for r in answers] == [200] * 48
        assert counting.calls == 1  # 48 polls, 16 at a time: one database probe
        body = answers[0].json()
        assert set(body) == {"status", "version", "theorems", "documents", "sources", "space", "vectors",
                             "missing_vectors", "index_built"}  # fmt: skip
        assert (body["status"], body["theorems"], body["vectors"], body["missing_vectors"]) == ("ok", 51, 51, 0)
        assert all(isinstance(v, int) for v in body["sources"].values())


def test_health_answers_while_every_search_thread_is_busy(integ):
    from theorem_rag.api.app import create_app

    slow = SlowSearch(integ[0], slow=("results",))  # what the servers search with
    with serving(create_app(slow, search_threads=1, request_timeout=10)) as url, \
            httpx.Client(base_url=url, timeout=60) as c, ThreadPoolExecutor(1) as pool:  # fmt: skip
        stuck = pool.submit(c.get, "/search", params={"q": "ring"})
        deadline = time.monotonic() + 30
        while not [row for row in _running(integ[0], slow.marker) if row[1] == "active"]:
            assert time.monotonic() < deadline, "the slow search never started"
            time.sleep(0.05)
        health = c.get("/health")  # the only search thread is held by the slow search
        assert health.status_code == 200 and not stuck.done()
        assert stuck.result().status_code == 503  # then its own deadline ends it


def test_rate_limit_per_client_on_the_api(integ):
    from theorem_rag.api.app import create_app

    app = create_app(integ[0], rate_limit_per_minute=1, rate_limit_burst=3)  # one request a minute after a burst
    with serving(app) as url:
        a = httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address="127.0.0.1"))
        b = httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        with a, b:
            assert [a.get("/theorems/stacks:00AC").status_code for _ in range(3)] == [200, 200, 200]
            refused = a.get("/search", params={"q": "ring"})
            assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
            assert 1 <= int(refused.headers["retry-after"]) <= 60  # a token a minute (exact waits: test_guards.py)
            assert a.get("/health").status_code == 200  # exempt: cached, and monitors must see the server
            assert b.get("/theorems/stacks:00AC").status_code == 200  # another client, its own bucket


def test_bad_guard_settings_are_refused(integ):
    from theorem_rag.api.app import create_app

    with pytest.raises(ValueError, match="request_timeout must be 0 .* got -1"):
        create_app(integ[0], request_timeout=-1)
    with pytest.raises(ValueError, match="rate limit must be positive"):
        create_app(integ[0], rate_limit_per_minute=-5)
