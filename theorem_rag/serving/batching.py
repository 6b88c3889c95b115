"""Query embeddings for servers: an LRU cache, and concurrent queries coalesced into one model call.

On CPU a batch of 16 short queries costs about four single ones (MiniLM, one thread), so under load the embedder
does more work per second when queries go together. Batching is opportunistic: a query arriving while the model is
idle runs at once (no added latency); queries arriving while it is busy queue and go together in the next call.

Two ways in. Threads call :meth:`QueryBatcher.embed_queries`, as the retriever does. A server's event loop calls
:meth:`QueryBatcher.aembed` for each admitted request *before* the request takes a search thread, and hands the
vector to that thread with :func:`provided`: batches then grow with the number of requests waiting, not with the
number of search threads (which is about the database pool). Both ways share one queue and one model lock.

>>> batcher = QueryBatcher(Embedder())                 # doctest: +SKIP
>>> batcher.embed_queries(["flat base change"]).shape  # doctest: +SKIP
(1, 384)
>>> vec = anyio.run(batcher.aembed, "flat base change")   # doctest: +SKIP
>>> with provided({"flat base change": vec}):              # doctest: +SKIP
...     search.search("flat base change")                  # embeds nothing
"""

from __future__ import annotations

import contextvars
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import numpy as np

from theorem_rag.errors import InputError

_provided: contextvars.ContextVar[tuple[Any, Mapping[str, np.ndarray]] | None] = contextvars.ContextVar(
    "theorem_rag_provided_vectors", default=None
)


@contextmanager
def provided(vectors: Mapping[str, np.ndarray], by: QueryBatcher | None = None) -> Iterator[None]:
    """Inside the block, a :class:`QueryBatcher` answers these texts (query text -> vector) without the model:
    only the batcher ``by`` when given (the vectors are its model's; a search with two models must not take one
    model's vector for the other's), else any.

    >>> with provided({"x": np.ones(2, dtype=np.float32)}):
    ...     _provided.get()[1]["x"].tolist()
    [1.0, 1.0]
    """
    token = _provided.set((by, vectors))
    try:
        yield
    finally:
        _provided.reset(token)


@dataclass
class _Request:
    text: str
    done: threading.Event = field(default_factory=threading.Event)
    vector: np.ndarray | None = None
    error: BaseException | None = None


class QueryBatcher:
    """An :class:`~theorem_rag.embed.Embedder` look-alike: one-query calls share model calls and an LRU cache.

    Everything but ``embed_queries``/``embed_query``/``aembed`` is delegated to the wrapped embedder unchanged;
    calls with several queries go straight through. ``cache_size`` vectors (384 floats each for MiniLM: 1.5 KB)
    are kept by query text, least recently used out first; 0 turns the cache off. ``calls`` counts model calls
    made for single queries, ``cache_hits`` the queries answered from the cache.

    >>> QueryBatcher(embedder=None, cache_size=0).cache_size
    0
    """

    def __init__(self, embedder: Any, max_batch: int = 32, cache_size: int = 1024) -> None:
        if isinstance(max_batch, bool) or not isinstance(max_batch, int) or max_batch < 1:
            raise InputError(f"max_batch must be an integer of at least 1, got {max_batch!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise InputError(f"cache_size must be an integer of at least 0, got {cache_size!r}")
        self.embedder = embedder
        self.max_batch = max_batch
        self.cache_size = cache_size
        self.calls = 0  # model calls made for single queries (the batches), to see the batching work
        self.batched_queries = 0
        self.cache_hits = 0
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._queue: list[_Request] = []
        self._queue_lock = threading.Lock()
        self._model_lock = threading.Lock()
        self._runner: anyio.Lock | None = None

    @property
    def batches(self) -> int:
        """Model calls made for single queries (an alias of ``calls`` kept for benchmarks that read it)."""
        return self.calls

    def __getattr__(self, name: str) -> Any:
        if name == "embedder":  # not set yet (unpickling): no recursion through __getattr__
            raise AttributeError(name)
        return getattr(self.embedder, name)

    # -- the ways in ----------------------------------------------------------------------------------------------
    def embed_queries(self, texts: Any, *, progress: bool = False) -> np.ndarray:
        texts = list(texts)
        if len(texts) != 1:
            return self.embedder.embed_queries(texts, progress=progress)
        text = texts[0]
        given = _provided.get()
        if given is not None and given[0] in (None, self) and isinstance(text, str) and text in given[1]:
            return np.asarray(given[1][text])[None, :]
        hit = self._cached(text)
        if hit is not None:
            return hit[None, :]
        req = self._enqueue(text)
        while not req.done.is_set():
            with self._model_lock:
                if req.done.is_set():
                    break
                self._run_batch()
        return self._result(req)[None, :]

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    async def aembed(self, text: str) -> np.ndarray:
        """The ``(dim,)`` vector of one query, from the event loop: waits without holding a thread; every query
        that arrives while the model is busy joins the next call."""
        hit = self._cached(text)
        if hit is not None:
            return hit
        req = self._enqueue(text)
        if self._runner is None:
            self._runner = anyio.Lock()
        while not req.done.is_set():
            # One task at a time takes the model from the event loop; the others wait here, in the loop, and most
            # find their query done by the call of the task before them.
            async with self._runner:
                if req.done.is_set():
                    break
                await anyio.to_thread.run_sync(self._run_locked)
        return self._result(req)

    # -- the cache ------------------------------------------------------------------------------------------------
    def _cached(self, text: Any) -> np.ndarray | None:
        if not self.cache_size or not isinstance(text, str):
            return None
        with self._cache_lock:
            vector = self._cache.get(text)
            if vector is not None:
                self._cache.move_to_end(text)
                self.cache_hits += 1
            return vector

    def _remember(self, vectors: Mapping[str, np.ndarray]) -> None:
        if not self.cache_size:
            return
        with self._cache_lock:
            for text, vector in vectors.items():
                self._cache[text] = vector
                self._cache.move_to_end(text)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    # -- the batches ----------------------------------------------------------------------------------------------
    def _enqueue(self, text: str) -> _Request:
        req = _Request(text)
        with self._queue_lock:
            self._queue.append(req)
        return req

    @staticmethod
    def _result(req: _Request) -> np.ndarray:
        if req.error is not None:
            raise req.error
        assert req.vector is not None
        return req.vector

    def _run_locked(self) -> None:
        with self._model_lock:
            self._run_batch()

    def _run_batch(self) -> None:
        with self._queue_lock:
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
        if not batch:
            return
        texts = list(dict.fromkeys(r.text for r in batch))  # the same query twice is embedded once
        try:
            vectors = self.embedder.embed_queries(texts)
            by_text = {}
            for text, vector in zip(texts, vectors, strict=True):
                vector = np.array(vector, dtype=np.float32)
                vector.flags.writeable = False  # shared by every caller and the cache
                by_text[text] = vector
            for r in batch:
                r.vector = by_text[r.text]
            self._remember(by_text)
        except BaseException as err:  # handed to every waiting caller, which re-raises it
            for r in batch:
                r.error = err
        finally:
            self.calls += 1
            self.batched_queries += len(batch)
            for r in batch:
                r.done.set()


def with_query_batching(search: Any, max_batch: int = 32, cache_size: int = 1024) -> Any:
    """Make a :class:`~theorem_rag.search.TheoremSearch` embed concurrent queries in shared batches, with an LRU
    cache of ``cache_size`` query vectors; returns it.

    >>> search = with_query_batching(TheoremSearch.from_settings())   # doctest: +SKIP
    >>> isinstance(search.embedder, QueryBatcher)                      # doctest: +SKIP
    True
    """
    from theorem_rag.embed import SentenceTransformerEmbedding

    if not isinstance(search.embedder, QueryBatcher):
        search.embedder = QueryBatcher(search.embedder, max_batch=max_batch, cache_size=cache_size)
        search.retriever.embed_model = SentenceTransformerEmbedding(search.embedder)
    query_embedder = getattr(search, "query_embedder", None)
    if query_embedder is not None and not isinstance(query_embedder, QueryBatcher):
        # the query model's (queries in words): batched and cached on its own
        search.query_embedder = QueryBatcher(query_embedder, max_batch=max_batch, cache_size=cache_size)
        search.retriever.query_embed_model = SentenceTransformerEmbedding(search.query_embedder)
    return search
