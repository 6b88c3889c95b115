"""The REST API (FastAPI): a thin edge that turns HTTP into :class:`~theorem_rag.search.TheoremSearch` calls.

Errors come back as JSON ``{"error": code, "message": text}``: bad input is 400 (malformed JSON) or 422 (a
request the schema rejects, or an :class:`~theorem_rag.errors.InputError` from the search), an unknown id 404, a
missing API key 401, a body over the cap 413, a client over its rate limit 429, no index, no database, a full
server or a request past its deadline 503 (the last three with ``Retry-After``). Anything else, a plain ``ValueError`` included, is a bug:
500 with a generic message, and the traceback in the log.

>>> app = create_app(TheoremSearch.from_settings())      # doctest: +SKIP
>>> uvicorn.run(app, host="127.0.0.1", port=8000)        # doctest: +SKIP
"""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose annotations name
# closure variables (the auth scheme, the limits).
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

try:
    from fastapi import Depends, FastAPI, Path, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
    from starlette.exceptions import HTTPException
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('the REST API needs FastAPI: pip install "theorem-rag[api]"') from err

from theorem_rag.api.health import HealthProbe
from theorem_rag.api.limits import BodySizeLimit, InternalErrors, ServerTiming
from theorem_rag.errors import InputError
from theorem_rag.guards.apikey import key_matches
from theorem_rag.guards.ratelimit import RateLimit, RateLimiter
from theorem_rag.serving.admission import Overloaded
from theorem_rag.serving.deadline import DeadlineExceeded
from theorem_rag.serving.service import SearchService
from theorem_rag.wire import (
    FORMAL_DESCRIPTION, Category, ErrorOut, Level, PaperOut, PremisesRequest, PremisesResponse, SearchRequest,
    SearchResponse, TheoremOut,
)  # fmt: skip

log = logging.getLogger("theorem_rag.api")

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut, "description": text}
    for code, text in [(400, "Malformed request"), (401, "Missing or wrong API key"), (404, "Unknown id"),
                       (413, "Body too large"), (422, "Invalid input"), (429, "Over the client's rate limit"),
                       (503, "No index, database down, server full or past the request deadline")]
}  # fmt: skip
RETRY_AFTER_S = "5"


def _error(status: int, code: str, message: str, details: list | None = None,
           headers: dict | None = None) -> JSONResponse:  # fmt: skip
    body = ErrorOut(error=code, message=message, details=details).model_dump(exclude_none=True)
    return JSONResponse(body, status_code=status, headers=headers)


def _validation_details(exc: RequestValidationError) -> tuple[str, list[dict[str, Any]]]:
    # The rejected values are the caller's data (and may be huge): report where and why, not what.
    details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
               for e in exc.errors()]  # fmt: skip
    text = "; ".join(f"{'.'.join(str(p) for p in d['loc'][1:]) or d['loc'][0]}: {d['msg']}" for d in details[:5])
    return text or "invalid request", details


def _install_error_handlers(app: FastAPI, index_errors: tuple[type, type], request_timeout: float) -> None:
    not_built, unavailable = index_errors

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        message, details = _validation_details(exc)
        if any(d["type"] == "json_invalid" for d in details):
            return _error(400, "malformed_json", f"the body is not valid JSON: {message}", details)
        return _error(422, "invalid_request", message, details)

    @app.exception_handler(InputError)
    async def bad_input(request: Request, exc: InputError) -> JSONResponse:
        return _error(422, "invalid_request", str(exc))

    @app.exception_handler(not_built)
    async def no_index(request: Request, exc: Exception) -> JSONResponse:
        return _error(503, "index_not_built", str(exc))

    @app.exception_handler(unavailable)
    async def no_database(request: Request, exc: Exception) -> JSONResponse:
        log.warning("database unavailable: %s", exc)
        return _error(503, "database_unavailable", "the database is unavailable; retry shortly",
                      headers={"Retry-After": RETRY_AFTER_S})  # fmt: skip

    @app.exception_handler(DeadlineExceeded)
    async def too_slow(request: Request, exc: DeadlineExceeded) -> JSONResponse:
        log.warning("request timeout (%g s) on %s %s", request_timeout, request.method, request.url.path)
        return _error(503, "timeout", f"the request took longer than {request_timeout:g} s and was cancelled; "
                      "retry shortly, or ask for fewer results", headers={"Retry-After": RETRY_AFTER_S})  # fmt: skip

    @app.exception_handler(Overloaded)
    async def full(request: Request, exc: Overloaded) -> JSONResponse:
        return _error(503, "overloaded", str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        codes = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}
        return _error(exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail), headers=exc.headers)

    # The catch-all for bugs: plain ASGI middleware (theorem_rag.api.limits.InternalErrors says why).
    app.add_middleware(InternalErrors, logger=log,
                       respond=_error(500, "internal_error", "internal error; the server logged the details"))


def _auth_dependency(api_key: str | None) -> Callable[..., Awaitable[None]]:
    header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The key in THEOREM_RAG_API_KEY.")
    bearer = HTTPBearer(auto_error=False, description="The key in THEOREM_RAG_API_KEY, as a bearer token.")

    # A coroutine: FastAPI runs a plain function dependency in a worker thread, one more thread hop per request
    # for a comparison of two strings (benchmarks/results/serving_20261205/).
    async def check(key: Annotated[str | None, Depends(header)] = None,
                    token: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)] = None) -> None:  # fmt: skip
        if api_key is None:
            return
        given = key or (token.credentials if token else None)
        if not key_matches(given, api_key):
            raise HTTPException(401, "missing or wrong API key (X-API-Key header or Authorization: Bearer)",
                                headers={"WWW-Authenticate": "Bearer"})  # fmt: skip

    return check


def create_app(
    search: Any,
    api_key: str | None = None,
    *,
    max_body_bytes: int = 256 * 1024,
    search_threads: int = 4,
    search_queue: int = 16,
    queue_wait: float = 1.0,
    max_paper_theorems: int = 500,
    request_timeout: float = 30.0,
    rate_limit_per_minute: float = 0,
    rate_limit_burst: int = 60,
    health_cache_seconds: float = 2.0,
) -> FastAPI:
    """The FastAPI app over a :class:`~theorem_rag.search.TheoremSearch` (the caller owns and closes it).

    ``api_key`` (from ``THEOREM_RAG_API_KEY`` at the edge) protects every route but ``/health`` and the docs.
    ``search_threads`` bounds concurrent searches (the database pool is the shared resource: more threads than
    pooled connections only queue inside it); ``search_queue`` more requests may wait, each at most
    ``queue_wait`` seconds, and their queries are embedded together meanwhile. A request beyond those is answered
    503 ``overloaded`` with ``Retry-After`` at once, so a burst never becomes a long queue. A request still
    running after ``request_timeout`` seconds (0: no limit) is answered 503 and its database work is cancelled. With
    ``rate_limit_per_minute`` above 0 (``Settings`` turns it on at the edge), each client address gets a token
    bucket of ``rate_limit_burst`` requests refilled at that rate; ``/health`` is exempt: it probes the database at
    most once per ``health_cache_seconds``, however often it is polled.

    >>> from fastapi.testclient import TestClient                                   # doctest: +SKIP
    >>> client = TestClient(create_app(search))                                       # doctest: +SKIP
    >>> client.get("/search", params={"q": "Cantor"}).json()["results"][0]["id"]      # doctest: +SKIP
    'planetmath:CantorsTheorem'
    """
    from theorem_rag.db.connection import StoreUnavailable
    from theorem_rag.search_spaces import IndexNotBuilt

    if request_timeout < 0:
        raise ValueError(f"request_timeout must be 0 (no limit) or positive, got {request_timeout}")
    service = SearchService(search, slots=search_threads, queue=search_queue, max_wait=queue_wait,
                            request_timeout=request_timeout)  # fmt: skip
    health_probe = HealthProbe(search.stats, ttl=health_cache_seconds, version=_version())
    run = service.call

    app = FastAPI(
        title="theorem-rag",
        version=_version(),
        description="Semantic search over research mathematics at the level of single theorems. Results carry "
        "stable ids, the statement, a plain-English slogan and a link, so they can be cited.",
        responses=ERRORS,
    )
    app.state.service = service  # its admission counts and batcher, for tests and benchmarks
    app.add_middleware(BodySizeLimit, max_bytes=max_body_bytes)
    if rate_limit_per_minute:
        # Added after the body cap, so outside it: a client over its rate is turned away before anything reads its
        # body or key (only the timing and the catch-all for bugs are further out).
        app.add_middleware(RateLimit, limiter=RateLimiter(rate_limit_per_minute, rate_limit_burst),
                           exempt={"/health"})  # fmt: skip
    _install_error_handlers(app, (IndexNotBuilt, StoreUnavailable), request_timeout)
    app.add_middleware(ServerTiming)  # outermost: the whole time the app held the request, refusals and 500s included
    auth = [Depends(_auth_dependency(api_key))]

    async def do_search(req: SearchRequest) -> SearchResponse:
        found, assessment = await service.search_assessed(req.query, req.k, paper_level=req.level == "paper",
                                                          filters=req.filters())  # fmt: skip
        return SearchResponse.from_results(req.query, req.level, search.k if req.k is None else req.k, found,
                                           assessment)  # fmt: skip

    @app.get("/health", tags=["service"])
    async def health() -> JSONResponse:
        """Whether the database answers and the index is built, with counts; cached for 2 s, safe to poll."""
        status, body = await health_probe.check()
        headers = {"Retry-After": RETRY_AFTER_S} if status == 503 else None
        return JSONResponse(body, status_code=status, headers=headers)

    @app.get("/search", response_model=SearchResponse, tags=["search"], dependencies=auth)
    async def search_get(
        q: Annotated[str, Query(description="The query.")],
        k: Annotated[int | None, Query(description="Number of results.")] = None,
        level: Annotated[Level, Query(description="'theorem' or 'paper'.")] = "theorem",
        source: Annotated[list[str] | None, Query(description="Repeat for several sources.")] = None,
        kind: Annotated[list[str] | None, Query(description="Repeat for several kinds.")] = None,
        paper: Annotated[list[str] | None, Query(description="Repeat for several document ids.")] = None,
        year_min: int | None = None,
        year_max: int | None = None,
        category: Annotated[list[Category] | None, Query(description="Repeat for several arXiv categories "
                                                         "(primary or cross-list), e.g. math.AG.")] = None,
        formal: Annotated[bool | None, Query(description=FORMAL_DESCRIPTION)] = None,
    ) -> SearchResponse:
        """Search theorems (or papers, with ``level=paper``) for a query, with optional filters."""
        return await do_search(SearchRequest(query=q, k=k, level=level, sources=source, kinds=kind, papers=paper,
                                             year_min=year_min, year_max=year_max, categories=category,
                                             formal=formal))  # fmt: skip

    @app.post("/search", response_model=SearchResponse, tags=["search"], dependencies=auth)
    async def search_post(req: SearchRequest) -> SearchResponse:
        """Search with a JSON body (same fields as the GET form, lists for filters)."""
        return await do_search(req)

    async def do_premises(req: PremisesRequest) -> PremisesResponse:
        # Admitted, in a slot and under the deadline like a search; the premise query is embedded in the worker
        # thread (it is not a search query, so the shared query batches do not serve it).
        hits = await run(search.premises, req.statement, req.k, filters=req.filters())
        return PremisesResponse.from_hits(req.statement, search.k if req.k is None else req.k, hits)

    @app.get("/premises", response_model=PremisesResponse, tags=["search"], dependencies=auth)
    async def premises_get(
        statement: Annotated[str, Query(description="A statement (LaTeX), a goal in words, or an id.")],
        k: Annotated[int | None, Query(description="Number of results.")] = None,
        source: Annotated[list[str] | None, Query(description="Repeat for several sources.")] = None,
        kind: Annotated[list[str] | None, Query(description="Repeat for several kinds.")] = None,
        paper: Annotated[list[str] | None, Query(description="Repeat for several document ids.")] = None,
        year_min: int | None = None,
        year_max: int | None = None,
        category: Annotated[list[Category] | None, Query(description="Repeat for several arXiv categories.")] = None,
        formal: Annotated[bool | None, Query(description=FORMAL_DESCRIPTION)] = None,
    ) -> PremisesResponse:
        """Premise search: the results a proof of the statement is likely to use (the statement left out)."""
        return await do_premises(PremisesRequest(statement=statement, k=k, sources=source, kinds=kind, papers=paper,
                                                 year_min=year_min, year_max=year_max, categories=category,
                                                 formal=formal))  # fmt: skip

    @app.post("/premises", response_model=PremisesResponse, tags=["search"], dependencies=auth)
    async def premises_post(req: PremisesRequest) -> PremisesResponse:
        """Premise search with a JSON body: ``statement`` (LaTeX, a goal, or an id), ``k`` and filters."""
        return await do_premises(req)

    @app.get("/theorems/{theorem_id:path}", response_model=TheoremOut, tags=["records"], dependencies=auth)
    async def theorem(theorem_id: Annotated[str, Path(description="e.g. stacks:00DV")]) -> TheoremOut:
        """One statement with its slogan, proof, citations (line, ``\\cite`` + BibTeX, Markdown), provenance, and
        its neighbours in the proof graph: ``uses`` (what its proof cites) and ``used_by``."""
        page = await service.theorem_page(theorem_id)
        if page is None:
            raise HTTPException(404, f"no theorem with id {theorem_id!r}")
        return TheoremOut.from_record(*page)

    @app.get("/papers/{doc_id:path}", response_model=PaperOut, tags=["records"], dependencies=auth)
    async def paper(
        doc_id: Annotated[str, Path(description="A document id, e.g. stacks:algebra")],
        limit: Annotated[int, Query(ge=1, le=max_paper_theorems, description="Statements listed at most.")] = 100,
    ) -> PaperOut:
        """A document (paper, chapter, entry) with its statements in source order."""
        page = await service.paper_page(doc_id, limit)
        if page is None:
            raise HTTPException(404, f"no paper or document with id {doc_id!r}")
        return PaperOut.from_page(*page)

    return app


def _version() -> str:
    from theorem_rag import __version__

    return __version__
