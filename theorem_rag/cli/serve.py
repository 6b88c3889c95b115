"""``theorem-rag serve``: the web app (search cards and the cited assistant) on loopback."""

from __future__ import annotations

import os

import click

# Before torch and llama.cpp load: their OpenMP workers otherwise spin while idle and starve each other on a busy
# machine (see benchmarks/bench_app.py). Only this command's process is affected; the environment can override.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar="THEOREM_RAG_HOST",
              help="Interface to bind; keep loopback unless a proxy in front handles access.")
@click.option("--port", default=7860, show_default=True, type=click.IntRange(1, 65535), envvar="THEOREM_RAG_PORT")
@click.option("--chat-model", default=None, envvar="THEOREM_RAG_CHAT_MODEL",
              help="'local:smollm2' (bundled offline model) or a litellm model name.")
@click.option("--no-warm-up", is_flag=True, help="Skip loading the models before the first request.")
def serve(host: str, port: int, chat_model: str | None, no_warm_up: bool) -> None:
    """Serve the Gradio app: search theorems, and ask the assistant (answers cite retrieved statements)."""
    from theorem_rag.config import Settings
    from theorem_rag.ui.app import build_app, serve_forever

    settings = Settings(**({"chat_model": chat_model} if chat_model else {}))
    demo, search, _ = build_app(settings, warm=not no_warm_up)
    click.echo(f"theorem-rag: {demo.title} on http://{host}:{port}/ (chat model: {settings.chat_model})", err=True)
    serve_forever(demo, search, host=host, port=port)
