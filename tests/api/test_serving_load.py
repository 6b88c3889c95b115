"""Serving under load, on a real uvicorn server on loopback over the real index and model: concurrent requests share
model calls (counted), a full server answers 503 + Retry-After at once while the admitted requests succeed, a
request that waits too long for a slot is refused, and repeated queries come from the cache."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from loopback import serving

pytestmark = [pytest.mark.db, pytest.mark.models]

QUERIES = ["no surjection from a set onto its power set", "bijection between two sets", "Nakayama lemma for modules",
           "rank of a quasigroup", "prime ideal of a ring", "composition of injective maps", "localization is exact",
           "finite type algebra over a field"]  # fmt: skip


class GatedEmbedder:
    """The real embedder, counting its calls; the first call waits until ``ready()`` holds, so that the calls that
    follow are deterministic."""

    def __init__(self, embedder) -> None:
        self.embedder, self.sizes = embedder, []
        self.ready = lambda: True
        self.entered = threading.Event()

    def __getattr__(self, name):
        return getattr(self.embedder, name)

    def embed_queries(self, texts, **kwargs):
        texts = list(texts)
        if not self.entered.is_set():
            self.entered.set()
            deadline = time.monotonic() + 60
            while not self.ready():
                assert time.monotonic() < deadline, "the other requests never queued"
                time.sleep(0.005)
        self.sizes.append(len(texts))
        return self.embedder.embed_queries(texts, **kwargs)


def _batched_search(search, gate):
    """A copy of ``search`` over the same store whose query embeddings go through a QueryBatcher around ``gate``."""
    from theorem_rag.serving.batching import with_query_batching

    copy = search.with_options()
    copy.embedder = gate
    return with_query_batching(copy)


def test_concurrent_requests_share_one_model_call(integ):
    from theorem_rag.api.app import create_app

    expected = {q: [h.theorem_id for h in integ[0].search(q, 5)] for q in QUERIES}
    gate = GatedEmbedder(integ[0].embedder)
    search = _batched_search(integ[0], gate)
    # Two search threads for eight requests: the queries are embedded before a thread is taken, so all eight share
    # calls however few threads there are. The first request holds the model until the other seven are queued.
    gate.ready = lambda: len(search.embedder._queue) == len(QUERIES) - 1
    app = create_app(search, search_threads=2, search_queue=len(QUERIES))
    with serving(app) as url, httpx.Client(base_url=url, timeout=120) as c, ThreadPoolExecutor(len(QUERIES)) as pool:
        first = pool.submit(c.get, "/search", params={"q": QUERIES[0], "k": 5})
        assert gate.entered.wait(60)
        rest = [pool.submit(c.get, "/search", params={"q": q, "k": 5}) for q in QUERIES[1:]]
        answers = [f.result() for f in [first, *rest]]
        assert [r.status_code for r in answers] == [200] * len(QUERIES)
        assert {q: [h["id"] for h in r.json()["results"]] for q, r in zip(QUERIES, answers)} == expected
        assert gate.sizes == [1, len(QUERIES) - 1]  # eight queries, two model calls; none in the search threads
        assert (search.embedder.calls, search.embedder.batched_queries) == (2, len(QUERIES))

        # Asked again: every vector comes from the cache, the model is not called.
        again = list(pool.map(lambda q: c.get("/search", params={"q": q, "k": 5}), QUERIES))
        assert [[h["id"] for h in r.json()["results"]] for r in again] == [expected[q] for q in QUERIES]
        assert gate.sizes == [1, len(QUERIES) - 1] and search.embedder.cache_hits == len(QUERIES)


class HeldSearch:
    """The real search, whose ``results`` (what the servers search with) waits until ``release`` is set (so requests
    pile up deterministically)."""

    def __init__(self, search) -> None:
        self.inner = search
        self.release = threading.Event()
        self.started = 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def results(self, *args, **kwargs):
        self.started += 1
        assert self.release.wait(60), "never released"
        return self.inner.results(*args, **kwargs)


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_full_server_answers_503_with_retry_after_at_once_and_serves_the_admitted(integ):
    from theorem_rag.api.app import create_app

    held = HeldSearch(integ[0])
    app = create_app(held, search_threads=1, search_queue=2, queue_wait=60)
    admission = app.state.service.admission
    with serving(app) as url, httpx.Client(base_url=url, timeout=120) as c, ThreadPoolExecutor(8) as pool:
        admitted = [pool.submit(c.get, "/search", params={"q": "bijection", "k": 3}) for _ in range(3)]
        _wait_for(lambda: admission.inside == 3 and held.started == 1, "three requests admitted, one running")
        # Five more than the bound of 1 running + 2 waiting: each is refused while the admitted ones are still held.
        refused = list(pool.map(lambda _: c.get("/search", params={"q": "ring"}), range(5)))
        assert not any(f.done() for f in admitted) and held.started == 1
        assert [r.status_code for r in refused] == [503] * 5
        assert {r.json()["error"] for r in refused} == {"overloaded"}
        assert all(int(r.headers["retry-after"]) >= 1 for r in refused)
        assert "1 searches running, 2 waiting" in refused[0].json()["message"]
        # Each says how long the app held it: not the 60 s a waiting request may queue (decided at once).
        held_ms = [float(r.headers["server-timing"].removeprefix("app;dur=")) for r in refused]
        assert all(0 <= ms < 30_000 for ms in held_ms), held_ms
        assert admission.refused == 5
        held.release.set()
        answers = [f.result() for f in admitted]
        assert [r.status_code for r in answers] == [200] * 3
        assert all(r.headers["server-timing"].startswith("app;dur=") for r in answers)
        assert {r.json()["results"][0]["id"] for r in answers} == {"planetmath:Bijection"}
        assert c.get("/search", params={"q": "bijection", "k": 3}).status_code == 200  # room again
        assert admission.inside == 0


def test_sixty_four_clients_at_once_get_answers_or_quick_refusals(integ):
    """A burst of 64 concurrent clients on a server bounded at 2 running + 4 waiting searches: every request gets
    an answer (200) or a refusal (503 ``overloaded`` with ``Retry-After``), none a dropped connection or a
    timeout, and the server is empty again afterwards."""
    from theorem_rag.api.app import create_app

    app = create_app(integ[0], search_threads=2, search_queue=4, queue_wait=30)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    with serving(app) as url, httpx.Client(base_url=url, timeout=120, limits=limits) as c, \
            ThreadPoolExecutor(64) as pool:
        answers = list(pool.map(lambda i: c.get("/search", params={"q": QUERIES[i % 8], "k": 3}), range(64)))
        codes = [r.status_code for r in answers]
        assert set(codes) <= {200, 503} and codes.count(200) >= 6, codes
        refused = [r for r in answers if r.status_code == 503]
        assert {r.json()["error"] for r in refused} <= {"overloaded"}
        assert all(int(r.headers["retry-after"]) >= 1 for r in refused)
        assert all(r.json()["results"] for r in answers if r.status_code == 200)
        assert app.state.service.admission.inside == 0


def test_a_request_that_waits_too_long_for_a_slot_is_refused(integ):
    from theorem_rag.api.app import create_app

    held = HeldSearch(integ[0])
    app = create_app(held, search_threads=1, search_queue=4, queue_wait=0.3)
    with serving(app) as url, httpx.Client(base_url=url, timeout=120) as c, ThreadPoolExecutor(1) as pool:
        first = pool.submit(c.get, "/search", params={"q": "bijection", "k": 3})
        _wait_for(lambda: held.started == 1, "the first search never started")
        late = c.get("/theorems/stacks:00AC")  # waits for the one slot, which stays taken
        assert late.status_code == 503 and late.json()["error"] == "overloaded"
        assert "no search slot came free within 0.3 s" in late.json()["message"] and late.headers["retry-after"]
        assert not first.done()
        held.release.set()
        assert first.result().status_code == 200
        assert app.state.service.admission.timed_out == 1


def test_mcp_tools_share_the_admission(integ):
    """The MCP tools run through the same service: a full server is a tool error that says when to retry."""
    import anyio
    from mcp import Client

    from theorem_rag.mcp_server.server import build_server
    from theorem_rag.serving.service import SearchService

    held = HeldSearch(integ[0])
    service = SearchService(held, slots=1, queue=0)

    async def main():
        async with Client(build_server(held, service=service)) as client:
            async with anyio.create_task_group() as tg:
                results = []

                async def first():
                    results.append(await client.call_tool("search_theorems", {"query": "bijection", "k": 1}))

                tg.start_soon(first)
                while held.started < 1:
                    await anyio.sleep(0.01)
                busy = await client.call_tool("search_theorems", {"query": "ring", "k": 1})
                assert busy.is_error and "the server is busy" in busy.content[0].text and "retry in" in busy.content[0].text
                held.release.set()
            assert results[0].structured_content["results"][0]["id"] == "planetmath:Bijection"

    anyio.run(main)


def test_each_request_takes_one_admission(integ):
    """REST and MCP run a search and the assessment of its results, or a statement with its neighbours and
    document, or a document with its statements, as one unit of work: admitted once, one slot. As several calls a
    request holding part of its answer queued again behind new arrivals, and a full server refused it."""
    import anyio
    from mcp import Client

    from theorem_rag.api.app import create_app
    from theorem_rag.mcp_server.server import build_server
    from theorem_rag.serving.service import SearchService

    app = create_app(integ[0], search_threads=1, search_queue=0)
    admission = app.state.service.admission
    with serving(app) as url, httpx.Client(base_url=url, timeout=120) as c:
        for level in ("theorem", "paper"):
            before = admission.admitted_total
            r = c.get("/search", params={"q": "bijection", "k": 3, "level": level})
            assert r.status_code == 200 and "confident" in r.json()
            assert admission.admitted_total - before == 1, level
        for path in ("/theorems/planetmath:Bijection", "/papers/" + r.json()["papers"][0]["id"], "/theorems/x:none"):
            before = admission.admitted_total
            r = c.get(path)
            assert r.status_code == (404 if path.endswith("none") else 200), path
            assert admission.admitted_total - before == 1, path

    service = SearchService(integ[0], slots=1, queue=0)

    async def main():
        async with Client(build_server(integ[0], service=service)) as client:
            for paper_level in (False, True):
                before = service.admission.admitted_total
                done = await client.call_tool("search_theorems", {"query": "bijection", "k": 1, "paper_level": paper_level})
                assert not done.is_error and "confident" in done.structured_content
                assert service.admission.admitted_total - before == 1, paper_level
            doc_id = done.structured_content["papers"][0]["id"]
            for tool, args in (("get_theorem", {"id": "planetmath:Bijection"}), ("get_paper", {"id": doc_id})):
                before = service.admission.admitted_total
                done = await client.call_tool(tool, args)
                assert not done.is_error and done.structured_content["id"] in ("planetmath:Bijection", doc_id), tool
                assert service.admission.admitted_total - before == 1, tool

    anyio.run(main)
