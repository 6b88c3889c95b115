"""``SearchService``: the one path by which the REST API and the MCP server run searches under load.

A request is admitted or refused at once (:class:`~theorem_rag.serving.admission.Admission`); its query is
embedded together with every other admitted request's (:class:`~theorem_rag.serving.batching.QueryBatcher`,
when the search has one); it waits a bounded time for a search slot; its database work runs in a worker thread
under the request's deadline (:func:`~theorem_rag.serving.deadline.call_with_deadline`), cancelled in PostgreSQL
when the deadline passes. Refusals raise :class:`~theorem_rag.serving.admission.Overloaded`, deadlines
:class:`~theorem_rag.serving.deadline.DeadlineExceeded`; the servers turn both into 503 with ``Retry-After``
(REST) or a tool error that says when to retry (MCP).

>>> service = SearchService(search, slots=4, queue=16)                   # doctest: +SKIP
>>> hits = await service.call(search.search, "Nakayama", 5, query="Nakayama")   # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable
from typing import Any

import anyio

from theorem_rag.errors import InputError
from theorem_rag.filters import Filters
from theorem_rag.query import validate_query
from theorem_rag.serving.admission import Admission
from theorem_rag.serving.batching import QueryBatcher, provided
from theorem_rag.serving.deadline import call_with_deadline


class SearchService:
    """Admission, shared query embeddings and deadlines around a :class:`~theorem_rag.search.TheoremSearch`.

    ``slots`` searches run at once (about the database pool: more only queue inside it), ``queue`` more may wait
    for at most ``max_wait`` seconds; ``request_timeout`` seconds (0: none) bound a request from admission to
    answer. The search may be any object with the methods called through :meth:`call`; its ``embedder`` is used
    for shared embeddings when it is a :class:`~theorem_rag.serving.batching.QueryBatcher`.

    >>> SearchService(object(), slots=2, queue=6).admission.capacity
    8
    """

    def __init__(self, search: Any, *, slots: int = 4, queue: int = 16, max_wait: float = 1.0,
                 request_timeout: float = 30.0) -> None:  # fmt: skip
        if request_timeout < 0:
            raise ValueError(f"request_timeout must be 0 (no limit) or positive, got {request_timeout}")
        self.search = search
        self.admission = Admission(slots, queue, max_wait)
        self.request_timeout = request_timeout

    @classmethod
    def from_settings(cls, search: Any, settings: Any) -> SearchService:
        """The service with a server's bounds from :class:`~theorem_rag.config.Settings` (``search_threads``,
        ``search_queue``, ``queue_wait``, ``request_timeout``): what the REST API, the MCP server and the web app
        all run with."""
        return cls(search, slots=settings.search_threads, queue=settings.search_queue, max_wait=settings.queue_wait,
                   request_timeout=settings.request_timeout)  # fmt: skip

    @property
    def batcher(self) -> QueryBatcher | None:
        embedder = getattr(self.search, "embedder", None)
        return embedder if isinstance(embedder, QueryBatcher) else None

    def deadline(self) -> float:
        """The deadline of a request starting now, on ``anyio.current_time()``'s clock."""
        return anyio.current_time() + self.request_timeout if self.request_timeout else math.inf

    async def call(self, fn: Callable[..., Any], *args: Any, query: str | None = None, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in a worker thread, admitted, in a slot, before the request's deadline. With
        ``query``, its embedding is computed first in a shared batch and handed to the thread, so ``fn`` finds it
        instead of calling the model. One request is one call: work that belongs together goes in one ``fn``
        (:meth:`search_assessed`, :meth:`theorem_page`, :meth:`paper_page`), so a request is admitted once."""
        until = self.deadline()
        async with self.admission.admitted():
            vectors = await self._embed(query)
            async with self.admission.slot(until):
                return await call_with_deadline(self._in_thread(fn, vectors), *args, deadline=until, **kwargs)

    async def search_assessed(self, query: str, k: int | None, *, paper_level: bool = False,
                              filters: Filters | None = None) -> tuple[list, Any]:  # fmt: skip
        """What a server answers a search with: the results (papers when ``paper_level``) and their assessment
        (``assess``, with the plan the search read), computed in one :meth:`call`: one admission, one slot, one
        pinned connection. As two calls, a request holding its results queued again for a slot to assess them,
        behind new arrivals, and a full server refused it then, its search done for nothing."""
        search = self.search

        def both() -> tuple[list, Any]:
            found = (search.paper_results if paper_level else search.results)(query, k, filters=filters)
            return found.hits, search.assess(query, found.hits, found.plan)

        return await self.call(both, query=query)

    async def theorem_page(self, theorem_id: str) -> tuple[Any, Any, Any] | None:
        """A statement (``get_theorem``), its neighbours in the proof graph and its document, in one :meth:`call`
        (None: no such statement), for the same reason as :meth:`search_assessed`."""
        search = self.search

        def page() -> tuple[Any, Any, Any] | None:
            hit = search.get_theorem(theorem_id)
            if hit is None:
                return None
            return hit, search.neighbours(theorem_id), search.get_document(hit.theorem.doc_id)

        return await self.call(page)

    async def paper_page(self, doc_id: str, limit: int) -> tuple[Any, list] | None:
        """A document and its first ``limit`` statements in source order, in one :meth:`call` (None: no such
        document)."""
        search = self.search

        def page() -> tuple[Any, list] | None:
            document = search.get_document(doc_id)
            return None if document is None else (document, search.theorems_of(doc_id, limit))

        return await self.call(page)

    def _in_thread(self, fn: Callable[..., Any], vectors: tuple[Any, dict[str, Any]]) -> Callable[..., Any]:
        """``fn`` as the worker thread runs it: with the query vectors at hand, and on one pinned database
        connection for all its queries (one pool checkout per request)."""
        store = getattr(self.search, "store", None)
        pinned = getattr(store, "pinned", None)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            with provided(vectors[1], by=vectors[0]), (pinned() if pinned is not None else contextlib.nullcontext()):
                return fn(*args, **kwargs)

        return call

    async def _embed(self, query: str | None) -> tuple[Any, dict[str, Any]]:
        """The batcher the search will embed ``query`` with, and the query's vector by it (none: no batcher)."""
        batcher = self.batcher
        if query is None or batcher is None:
            return None, {}
        try:
            # The text the retriever embeds: the validated query. A query it rejects is left to the search
            # itself, which raises the error the caller should see.
            limit = getattr(getattr(self.search, "retriever", None), "max_query_chars", None) or 20_000
            text = validate_query(query, limit)
        except InputError:
            return None, {}
        # A search with a query space embeds a query in words with the query model's batcher.
        chosen = getattr(self.search, "query_embedder_for", lambda _: batcher)(text)
        if not isinstance(chosen, QueryBatcher):
            return None, {}
        return chosen, {text: await chosen.aembed(text)}


def server_settings(settings: Any) -> Any:
    """A server's settings (REST, MCP, the web app): a pool of two connections per search thread (a search may run
    its full-text query beside the dense one) plus one (``/health``), opened as needed, and a statement timeout no
    longer than the request timeout when none is set."""
    update: dict[str, Any] = {"db_pool_size": max(settings.db_pool_size, 2 * settings.search_threads + 1)}
    if not settings.statement_timeout:
        update["statement_timeout"] = settings.request_timeout
    return settings.model_copy(update=update)
