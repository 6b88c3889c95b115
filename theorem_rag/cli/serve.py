"""``theorem-rag serve``: the web app (search cards and the cited assistant), guarded like the REST API.

``THEOREM_RAG_API_KEY`` (environment only), when set, is asked for on a login page; without it the app refuses to
listen beyond loopback (``--auth-by-proxy``: a reverse proxy in front checks access). Per-client rate limits on the
app's actions, a request body cap, a deadline per search (its queries cancelled past it) and the statement timeout
are the REST API's settings (:mod:`theorem_rag.ui.server`).
"""

from __future__ import annotations

import os
from typing import Any

import click

from theorem_rag.cli.serve_api import with_rate_options

# Before torch and llama.cpp load: their OpenMP workers otherwise spin while idle and starve each other on a busy
# machine (see benchmarks/bench_app.py). Only this command's process is affected; the environment can override.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar="THEOREM_RAG_HOST",
              help="Interface to bind; beyond loopback it needs THEOREM_RAG_API_KEY (or --auth-by-proxy).")
@click.option("--port", default=7860, show_default=True, type=click.IntRange(1, 65535), envvar="THEOREM_RAG_PORT")
@click.option("--chat-model", default=None, envvar="THEOREM_RAG_CHAT_MODEL",
              help="'local:smollm2' (bundled offline model) or a litellm model name.")
@click.option("--no-warm-up", is_flag=True, help="Skip loading the models before the first request.")
@click.option("--request-timeout", type=click.FloatRange(min=0),
              help="Seconds a search (or a step of an assistant turn) may run before it is stopped and its queries "
              "cancelled (0: no limit). [default: THEOREM_RAG_REQUEST_TIMEOUT or 30]")  # fmt: skip
@click.option("--max-body-bytes", type=click.IntRange(min=1024), default=1024 * 1024, show_default=True,
              help="Largest request accepted (413 above); the chat history travels with each question.")  # fmt: skip
@with_rate_options
def serve(host: str, port: int, chat_model: str | None, no_warm_up: bool, max_body_bytes: int, auth_by_proxy: bool,
          **flags: Any) -> None:  # fmt: skip
    """Serve the Gradio app: search theorems, and ask the assistant (answers cite retrieved statements)."""
    from theorem_rag.cli.index import settings_from
    from theorem_rag.guards.apikey import check_bind
    from theorem_rag.guards.proxy import trusted_proxies
    from theorem_rag.ui.server import AppGuards

    settings = settings_from(chat_model=chat_model, **flags)
    guards = AppGuards.from_settings(settings, proxy_auth=auth_by_proxy, max_body_bytes=max_body_bytes)
    try:  # before the models load: refusing takes no time
        check_bind(host, guards.api_key, "the web app", proxy_auth=auth_by_proxy)
        trusted_proxies(settings.forwarded_allow_ips)
    except ValueError as err:
        raise click.ClickException(str(err))
    from theorem_rag.ui.app import build_app
    from theorem_rag.ui.server import serve_forever

    demo, search, _ = build_app(settings, warm=not no_warm_up)
    click.echo(f"theorem-rag: {demo.title} on http://{host}:{port}/ (chat model: {settings.chat_model})", err=True)
    serve_forever(demo, search, host=host, port=port, guards=guards)
