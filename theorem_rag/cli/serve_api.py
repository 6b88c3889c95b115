"""``theorem-rag api`` (REST, FastAPI + uvicorn) and ``theorem-rag mcp`` (MCP over stdio or streamable HTTP).

Both start on the embedded defaults (the same database and index as ``theorem-rag search``); flags override the
``THEOREM_RAG_*`` environment. The API key is read from ``THEOREM_RAG_API_KEY`` only, never from a flag (a flag
would show in the process list) and never logged; both servers require it when it is set, and the MCP server
refuses to listen beyond loopback without one. Per-client rate limits apply to both over HTTP.
"""

from __future__ import annotations

import threading
from typing import Any

import click

from theorem_rag.cli.index import settings_from, with_db_options
from theorem_rag.config import Settings
from theorem_rag.guards.apikey import api_key_from_env, check_bind

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
]  # fmt: skip


def with_rate_options(fn):
    for option in reversed(rate_options):
        fn = option(fn)
    return fn


def _open_search(torch_threads: int, settings: Settings, batch_queries: bool = True) -> Any:
    """The TheoremSearch the servers answer from, with concurrent queries embedded in shared batches."""
    from theorem_rag.api.batching import with_query_batching
    from theorem_rag.search import TheoremSearch

    try:
        import torch

        torch.set_num_threads(torch_threads)
    except ImportError as err:
        raise click.ClickException(f'serving needs the models extra: pip install "theorem-rag[models]" ({err})')
    search = TheoremSearch.from_settings(settings)
    return with_query_batching(search) if batch_queries else search


def _warm_up(search: Any) -> None:
    """Load the model and open the pool now, so the first request does not pay for it."""
    search.embedder.embed_queries(["warm up"])


@click.command("api")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--search-threads", type=click.IntRange(min=1), default=4, show_default=True,
              help="Searches run at once (the rest wait); about the database pool size.")  # fmt: skip
@click.option("--max-body-bytes", type=click.IntRange(min=1024), default=256 * 1024, show_default=True,
              help="Largest request body accepted (413 above).")  # fmt: skip
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)  # fmt: skip
@click.option("--batch-queries/--no-batch-queries", default=True, show_default=True,
              help="Embed queries of concurrent requests together (more throughput under load).")  # fmt: skip
@click.option("--request-timeout", type=click.FloatRange(min=0),
              help="Seconds a request may run before it is cancelled (503 with Retry-After; 0: no limit). "
              "[default: THEOREM_RAG_REQUEST_TIMEOUT or 30]")  # fmt: skip
@with_rate_options
@threads_option
@with_db_options
def api(host: str, port: int, search_threads: int, max_body_bytes: int, log_level: str, batch_queries: bool,
        torch_threads: int, **flags: Any) -> None:  # fmt: skip
    """Serve the REST API (OpenAPI docs at /docs); set THEOREM_RAG_API_KEY to require a key."""
    try:
        import uvicorn

        from theorem_rag.api.app import create_app
    except ImportError as err:
        raise click.ClickException(f"the REST API needs: {_API_EXTRA} ({err})")
    settings = settings_from(**flags)
    search = _open_search(torch_threads, settings, batch_queries)
    try:
        _warm_up(search)
        app = create_app(search, api_key=api_key_from_env(), max_body_bytes=max_body_bytes,
                         search_threads=search_threads, request_timeout=settings.request_timeout,
                         rate_limit_per_minute=settings.rate_limit_per_minute,
                         rate_limit_burst=settings.rate_limit_burst)  # fmt: skip
        click.echo(f"theorem-rag API on http://{host}:{port} (docs: /docs)", err=True)
        uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5)
    finally:
        search.close()


@click.command("mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio for a client that spawns the server; http for streamable HTTP at /mcp.")  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface for --transport http.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="Port for --transport http.")  # fmt: skip
@with_rate_options
@threads_option
@with_db_options
def mcp(transport: str, host: str, port: int, torch_threads: int, **flags: Any) -> None:
    """Serve the MCP tools search_theorems, get_theorem and get_paper; over HTTP, THEOREM_RAG_API_KEY (when set)
    is required as on REST, and a host beyond loopback needs it."""
    try:
        from theorem_rag.mcp_server.http import serve_http
        from theorem_rag.mcp_server.server import build_server
    except ImportError as err:
        raise click.ClickException(f"the MCP server needs: {_API_EXTRA} ({err})")
    api_key = api_key_from_env()
    if transport == "http":
        try:  # before the model loads: refusing takes no time
            check_bind(host, api_key, "the MCP server")
        except ValueError as err:
            raise click.ClickException(str(err))
    settings = settings_from(**flags)
    search = _open_search(torch_threads, settings)
    try:
        server = build_server(search)
        if transport == "stdio":
            # stdout is the protocol channel: warm up beside it so the client's handshake is answered at once.
            threading.Thread(target=_warm_up, args=(search,), daemon=True).start()
            server.run("stdio")
        else:
            _warm_up(search)
            click.echo(f"theorem-rag MCP (streamable HTTP) on http://{host}:{port}/mcp", err=True)
            serve_http(server, host=host, port=port, api_key=api_key,
                       rate_limit_per_minute=settings.rate_limit_per_minute,
                       rate_limit_burst=settings.rate_limit_burst)  # fmt: skip
    finally:
        search.close()
