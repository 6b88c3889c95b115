"""``theorem-rag api`` (REST, FastAPI + uvicorn) and ``theorem-rag mcp`` (MCP over stdio or streamable HTTP).

Both start on the embedded defaults (the same database and index as ``theorem-rag search``); flags override the
``THEOREM_RAG_*`` environment. The API key is read from ``THEOREM_RAG_API_KEY`` only, never from a flag (a flag
would show in the process list) and never logged; both servers require it when it is set, and refuse to listen
beyond loopback without one (``--auth-by-proxy``: a reverse proxy in front checks access). Per-client rate limits
apply to both over HTTP, the client being the rightmost address in ``X-Forwarded-For`` that is not a trusted proxy
on connections from one (``--forwarded-allow-ips``; ``*`` is refused) and the connection's address otherwise.

Both answer through one :class:`~theorem_rag.serving.service.SearchService` per process: ``--search-threads``
searches run at once, ``--search-queue`` more wait (their queries embedded together meanwhile), each at most
``--queue-wait`` seconds; beyond that a request is answered at once (REST: 503 with ``Retry-After``; MCP: a tool
error saying when to retry). ``theorem-rag api --workers N`` runs N processes on one port over the same database,
each with its own model, pool (two connections per search thread, and one for ``/health``) and bounds.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from typing import Any

import click

from theorem_rag.cli.index import settings_from, with_db_options
from theorem_rag.config import Settings
from theorem_rag.guards.apikey import PROXY_AUTH_FLAG, api_key_from_env, check_bind
from theorem_rag.guards.proxy import uvicorn_proxy_options

_API_EXTRA = 'pip install "theorem-rag[api]"'

threads_option = click.option(
    "--torch-threads", type=click.IntRange(min=1), default=1, show_default=True,
    help="Threads per model call. Requests already run in parallel; more threads per call oversubscribe the CPU.",
)  # fmt: skip


rate_options = [
    click.option("--rate-limit", "rate_limit_per_minute", type=click.FloatRange(min=0),
                 help="Requests a minute per client address (429 with Retry-After above; 0: no limit). "
                 "[default: THEOREM_RAG_RATE_LIMIT_PER_MINUTE or 600]"),
    click.option("--rate-burst", "rate_limit_burst", type=click.IntRange(min=1),
                 help="Requests a client may send at once. [default: THEOREM_RAG_RATE_LIMIT_BURST or 60]"),
    click.option("--forwarded-allow-ips",
                 help="Reverse proxies (addresses or networks, comma separated) whose X-Forwarded-For names the "
                 "client that the rate limit counts: the rightmost address in it that is not one of them; '' trusts "
                 "none; '*' and networks wider than /8 (IPv6: /7) are refused. [default: "
                 "THEOREM_RAG_FORWARDED_ALLOW_IPS or 127.0.0.1,::1]"),
    click.option(PROXY_AUTH_FLAG, "auth_by_proxy", is_flag=True,
                 help="Listen beyond loopback without THEOREM_RAG_API_KEY: a reverse proxy in front checks who may "
                 "reach the server (without this flag, such a host is refused)."),
]  # fmt: skip


def with_rate_options(fn):
    for option in reversed(rate_options):
        fn = option(fn)
    return fn


serving_options = [
    click.option("--search-threads", type=click.IntRange(min=1),
                 help="Searches run at once per process (the rest wait); the database pool holds two connections "
                 "per search thread and one more. [default: THEOREM_RAG_SEARCH_THREADS or 4]"),
    click.option("--search-queue", type=click.IntRange(min=0),
                 help="Searches that may wait beyond the running ones; more are refused at once (503 with "
                 "Retry-After). [default: THEOREM_RAG_SEARCH_QUEUE or 16]"),
    click.option("--queue-wait", type=click.FloatRange(min=0, min_open=True),
                 help="Seconds a search may wait for a thread before it is refused. [default: "
                 "THEOREM_RAG_QUEUE_WAIT or 1]"),
    click.option("--query-cache", type=click.IntRange(min=0),
                 help="Query vectors kept by query text (LRU; 0: none). [default: THEOREM_RAG_QUERY_CACHE or 1024]"),
    click.option("--batch-queries/--no-batch-queries", default=True, show_default=True,
                 help="Embed queries of concurrent requests together (more throughput under load)."),
    click.option("--keep-alive", type=click.FloatRange(min=0, min_open=True),
                 help="Seconds an idle connection stays open; keep it above the clients' own idle limit (httpx: "
                 "5 s), or a client may send a request on a connection the server is closing. "
                 "[default: THEOREM_RAG_KEEP_ALIVE or 75]"),
]  # fmt: skip


def with_serving_options(fn):
    for option in reversed(serving_options):
        fn = option(fn)
    return fn


def _open_search(torch_threads: int, settings: Settings, batch_queries: bool = True) -> Any:
    """The TheoremSearch the servers answer from, with concurrent queries embedded in shared batches."""
    from theorem_rag.search import TheoremSearch
    from theorem_rag.serving.batching import with_query_batching
    from theorem_rag.serving.service import server_settings

    try:
        import torch

        torch.set_num_threads(torch_threads)
    except ImportError as err:
        raise click.ClickException(f'serving needs the models extra: pip install "theorem-rag[models]" ({err})')
    search = TheoremSearch.from_settings(server_settings(settings))
    return with_query_batching(search, cache_size=settings.query_cache) if batch_queries else search


def _warm_up(search: Any) -> None:
    """Load the model and open the pool now, so the first request does not pay for it."""
    search.embedder.embed_queries(["warm up"])
    if getattr(search, "query_embedder", None) is not None:  # the query model's too (queries in words)
        search.query_embedder.embed_queries(["warm up"])
    search.stats()


def _service(search: Any, settings: Settings) -> Any:
    from theorem_rag.serving.service import SearchService

    return SearchService.from_settings(search, settings)


def _rest_app(search: Any, settings: Settings, max_body_bytes: int) -> Any:
    from theorem_rag.api.app import create_app

    return create_app(search, api_key=api_key_from_env(), max_body_bytes=max_body_bytes,
                      search_threads=settings.search_threads, search_queue=settings.search_queue,
                      queue_wait=settings.queue_wait, request_timeout=settings.request_timeout,
                      rate_limit_per_minute=settings.rate_limit_per_minute,
                      rate_limit_burst=settings.rate_limit_burst)  # fmt: skip


def _guarded_settings(host: str, flags: dict[str, Any], auth_by_proxy: bool, what: str) -> tuple[Settings, dict]:
    """The settings of a server and its uvicorn proxy options, or a ClickException before anything loads: a host
    beyond loopback without a key (and without ``--auth-by-proxy``), or a malformed list of trusted proxies."""
    settings = settings_from(**flags)
    try:
        check_bind(host, api_key_from_env(), what, proxy_auth=auth_by_proxy)
        return settings, uvicorn_proxy_options(settings.forwarded_allow_ips)
    except ValueError as err:
        raise click.ClickException(str(err))


# How the parent hands a worker process its configuration (flags included): uvicorn spawns workers fresh.
_WORKER_ENV = "THEOREM_RAG_SERVE_WORKER_CONFIG"


def worker_app() -> Any:
    """The REST app of one ``theorem-rag api --workers N`` process (a uvicorn factory): its own search, model and
    pool over the shared database, closed when the process exits."""
    config = json.loads(os.environ[_WORKER_ENV])
    settings = Settings(**config["settings"])
    search = _open_search(config["torch_threads"], settings, config["batch_queries"])
    atexit.register(search.close)
    _warm_up(search)
    return _rest_app(search, settings, config["max_body_bytes"])


@click.command("api")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1),
              help="Server processes sharing the port and the database, each with its own model and pool. "
              "[default: THEOREM_RAG_WORKERS or 1]")  # fmt: skip
@click.option("--max-body-bytes", type=click.IntRange(min=1024), default=256 * 1024, show_default=True,
              help="Largest request body accepted (413 above).")  # fmt: skip
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)  # fmt: skip
@click.option("--request-timeout", type=click.FloatRange(min=0),
              help="Seconds a request may run before it is cancelled (503 with Retry-After; 0: no limit). "
              "[default: THEOREM_RAG_REQUEST_TIMEOUT or 30]")  # fmt: skip
@with_serving_options
@with_rate_options
@threads_option
@with_db_options
def api(host: str, port: int, max_body_bytes: int, log_level: str, batch_queries: bool, torch_threads: int,
        auth_by_proxy: bool, **flags: Any) -> None:  # fmt: skip
    """Serve the REST API (OpenAPI docs at /docs); set THEOREM_RAG_API_KEY to require a key (needed beyond
    loopback)."""
    try:
        import uvicorn

        import theorem_rag.api.app  # noqa: F401 - fail here, with the extra to install, not in a worker
    except ImportError as err:
        raise click.ClickException(f"the REST API needs: {_API_EXTRA} ({err})")
    settings, proxy = _guarded_settings(host, flags, auth_by_proxy, "the REST API")
    if settings.workers > 1:
        from theorem_rag.db.server import resolve_dsn

        resolve_dsn(settings)  # start the embedded server (if it is the one) once, before the workers share it
        os.environ[_WORKER_ENV] = json.dumps({
            "settings": settings.model_dump(mode="json"), "torch_threads": torch_threads,
            "batch_queries": batch_queries, "max_body_bytes": max_body_bytes,
        })  # fmt: skip
        click.echo(f"theorem-rag API on http://{host}:{port} (docs: /docs), {settings.workers} worker processes",
                   err=True)  # fmt: skip
        uvicorn.run(f"{__name__}:worker_app", factory=True, workers=settings.workers, host=host, port=port,
                    log_level=log_level, timeout_graceful_shutdown=5, timeout_keep_alive=settings.keep_alive,
                    **proxy)  # fmt: skip
        return
    search = _open_search(torch_threads, settings, batch_queries)
    try:
        _warm_up(search)
        app = _rest_app(search, settings, max_body_bytes)
        click.echo(f"theorem-rag API on http://{host}:{port} (docs: /docs)", err=True)
        uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5,
                    timeout_keep_alive=settings.keep_alive, **proxy)  # fmt: skip
    finally:
        search.close()


@click.command("mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio for a client that spawns the server; http for streamable HTTP at /mcp.")  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface for --transport http.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="Port for --transport http.")  # fmt: skip
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True, help="Log level of the HTTP server (--transport http).")  # fmt: skip
@click.option("--response", type=click.Choice(["json", "sse"]), default="json", show_default=True,
              help="How --transport http answers a call: one JSON body, or an event stream.")  # fmt: skip
@with_serving_options
@with_rate_options
@threads_option
@with_db_options
def mcp(transport: str, host: str, port: int, log_level: str, response: str, torch_threads: int,
        batch_queries: bool, auth_by_proxy: bool, **flags: Any) -> None:  # fmt: skip
    """Serve the MCP tools search_theorems, find_premises, get_theorem and get_paper; over HTTP,
    THEOREM_RAG_API_KEY (when set) is required as on REST, and a host beyond loopback needs it."""
    try:
        from theorem_rag.mcp_server.http import serve_http
        from theorem_rag.mcp_server.server import build_server
    except ImportError as err:
        raise click.ClickException(f"the MCP server needs: {_API_EXTRA} ({err})")
    api_key = api_key_from_env()
    # stdio has no host: only the HTTP transport is checked
    settings, proxy = _guarded_settings(host if transport == "http" else "127.0.0.1", flags, auth_by_proxy,
                                        "the MCP server")  # fmt: skip
    search = _open_search(torch_threads, settings, batch_queries)
    try:
        server = build_server(search, service=_service(search, settings))
        if transport == "stdio":
            # stdout is the protocol channel: warm up beside it so the client's handshake is answered at once.
            threading.Thread(target=_warm_up, args=(search,), daemon=True).start()
            server.run("stdio")
        else:
            _warm_up(search)
            click.echo(f"theorem-rag MCP (streamable HTTP) on http://{host}:{port}/mcp", err=True)
            serve_http(server, host=host, port=port, api_key=api_key,
                       rate_limit_per_minute=settings.rate_limit_per_minute,
                       rate_limit_burst=settings.rate_limit_burst, log_level=log_level,
                       json_response=response == "json", keep_alive=settings.keep_alive, proxy_auth=auth_by_proxy,
                       forwarded_allow_ips=settings.forwarded_allow_ips)  # fmt: skip
    finally:
        search.close()
