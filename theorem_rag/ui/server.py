"""Serving the web app guarded like the REST API: the key, the bind rule, per-client rate limits, a body cap, the
trusted proxies; and the app's handlers under the servers' search bounds (admission, deadline, cancelled queries).

The Gradio app is mounted on a FastAPI app (``gradio.mount_gradio_app``) that this module wraps in the guards of
:mod:`theorem_rag.guards` and runs with uvicorn itself, so that the same settings mean the same thing on every
served surface:

- ``THEOREM_RAG_API_KEY``: when set, the app asks for it on a login page (any user name, the key as password);
  without a key it refuses to listen beyond loopback, unless ``proxy_auth`` (``--auth-by-proxy``).
- ``rate_limit_per_minute`` / ``rate_limit_burst``: a token bucket per client for the app's actions (every request
  but ``GET``/``HEAD``/``OPTIONS``: searches, questions, votes, logins), never for the page and its assets; the
  client is the rightmost address in ``X-Forwarded-For`` that is not a trusted proxy, on connections from
  ``forwarded_allow_ips`` (:mod:`theorem_rag.guards.proxy`; ``*`` is refused), an IPv6 one by its /64.
- ``max_body_bytes``: a larger request is refused (413) before it is read.
- Searches go through :class:`~theorem_rag.serving.service.SearchService` (:class:`GuardedHandlers`): at most
  ``search_threads`` run and ``search_queue`` wait, each under ``request_timeout``, past which its PostgreSQL
  queries are cancelled; each step of an assistant turn (a search, the next piece of the answer) has that deadline
  too. The statement timeout of the pool is the request timeout (:func:`~theorem_rag.serving.service.server_settings`).

>>> AppGuards(rate_limit_per_minute=0).is_action({"method": "POST"})
True
>>> running = launch(demo, port=7860, guards=AppGuards.from_settings(settings), block=False)   # doctest: +SKIP
>>> running.close()                                                                            # doctest: +SKIP
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from theorem_rag.guards.apikey import api_key_from_env, check_bind, key_matches
from theorem_rag.guards.body import BodySizeLimit
from theorem_rag.guards.proxy import DEFAULT_TRUSTED, uvicorn_proxy_options
from theorem_rag.guards.ratelimit import RateLimit, RateLimiter
from theorem_rag.ui.assets import CSS, HEAD
from theorem_rag.ui.cards import message_html, sources_html

# The chat history travels with every question and answer vote, so the app's cap is larger than the REST API's.
APP_MAX_BODY_BYTES = 1024 * 1024
_APP_EXTRA = 'pip install "theorem-rag[app]"'


@dataclass(frozen=True)
class AppGuards:
    """How the served app is guarded (:func:`AppGuards.from_settings` reads the server settings)."""

    api_key: str | None = None
    rate_limit_per_minute: float = 600
    rate_limit_burst: int = 60
    max_body_bytes: int = APP_MAX_BODY_BYTES
    forwarded_allow_ips: str | None = DEFAULT_TRUSTED
    proxy_auth: bool = False
    keep_alive: float = 75.0
    concurrency: int = 4  # Gradio's events running at once (the search threads)
    queue_size: int | None = None  # events that may wait in Gradio's queue (None: unbounded)

    @classmethod
    def from_settings(cls, settings: Any, *, proxy_auth: bool = False,
                      max_body_bytes: int = APP_MAX_BODY_BYTES) -> AppGuards:  # fmt: skip
        """The guards of ``theorem-rag serve``: the key from the environment, the limits from the settings."""
        return cls(api_key=api_key_from_env(), rate_limit_per_minute=settings.rate_limit_per_minute,
                   rate_limit_burst=settings.rate_limit_burst, max_body_bytes=max_body_bytes,
                   forwarded_allow_ips=settings.forwarded_allow_ips, proxy_auth=proxy_auth,
                   keep_alive=settings.keep_alive, concurrency=settings.search_threads,
                   queue_size=settings.search_threads + settings.search_queue)  # fmt: skip

    @staticmethod
    def is_action(scope: dict[str, Any]) -> bool:
        """Whether a request acts (and so counts against the client's rate): anything but reading a page."""
        return scope.get("method", "GET") not in ("GET", "HEAD", "OPTIONS")


def _gradio() -> Any:
    try:
        import gradio as gr
    except ImportError as err:
        raise ImportError(f"the web app needs gradio: {_APP_EXTRA}") from err
    return gr


def theme() -> Any:
    gr = _gradio()
    # System fonts only: the app must look right offline, where web fonts cannot load.
    return gr.themes.Soft(
        primary_hue="indigo", neutral_hue="slate",
        font=[gr.themes.Font(f) for f in ("Inter", "system-ui", "sans-serif")],
        font_mono=[gr.themes.Font(f) for f in ("ui-monospace", "monospace")],
    ).set(
        button_primary_background_fill="*primary_600", button_primary_background_fill_hover="*primary_700",
        button_primary_text_color="white",
    )  # fmt: skip


def asgi_app(demo: Any, guards: AppGuards, *, host: str = "127.0.0.1", port: int = 7860) -> Any:
    """The app as one ASGI application: Gradio mounted at ``/``, behind the body cap and the rate limit."""
    from fastapi import FastAPI

    gr = _gradio()
    demo.queue(default_concurrency_limit=guards.concurrency, max_size=guards.queue_size)
    key = guards.api_key
    auth = None if key is None else (lambda _user, password: key_matches(password, key))
    root = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app = gr.mount_gradio_app(
        root, demo, path="/", server_name=host, server_port=port, footer_links=[], auth=auth, ssr_mode=False,
        auth_message="Enter the access key (THEOREM_RAG_API_KEY) as the password; any user name.",
        show_error=True, theme=theme(), css=CSS, head=HEAD,
    )  # fmt: skip
    app = BodySizeLimit(app, max_bytes=guards.max_body_bytes)
    if guards.rate_limit_per_minute:
        # Outermost: a client over its rate is turned away before its body is read or its login checked.
        limiter = RateLimiter(guards.rate_limit_per_minute, guards.rate_limit_burst)
        app = RateLimit(app, limiter, applies=guards.is_action)
    return app


class RunningApp:
    """The app serving in a thread of this process (``launch(..., block=False)``): its URL, and :meth:`close`."""

    def __init__(self, server: Any, thread: threading.Thread, url: str) -> None:
        self.server, self.thread, self.url = server, thread, url

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def launch(demo: Any, *, host: str = "127.0.0.1", port: int = 7860, guards: AppGuards | None = None,
           block: bool = True, log_level: str = "warning") -> RunningApp | None:  # fmt: skip
    """Serve the app with uvicorn (never a public share link): until interrupted, or in a thread with
    ``block=False`` (the :class:`RunningApp` it returns stops it). Refuses a host beyond loopback without a key."""
    import uvicorn

    guards = guards or AppGuards()
    check_bind(host, guards.api_key, "the web app", proxy_auth=guards.proxy_auth)
    app = asgi_app(demo, guards, host=host, port=port)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on",
                            timeout_keep_alive=guards.keep_alive, timeout_graceful_shutdown=5,
                            **uvicorn_proxy_options(guards.forwarded_allow_ips))  # fmt: skip
    server = uvicorn.Server(config)
    if block:
        server.run()
        return None
    thread = threading.Thread(target=server.run, daemon=True, name="theorem-rag-app")
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the web app did not start on {host}:{port}")
        time.sleep(0.02)
    return RunningApp(server, thread, f"http://{host}:{port}/")


def serve_forever(demo: Any, search: Any, *, host: str = "127.0.0.1", port: int = 7860,
                  guards: AppGuards | None = None) -> None:  # fmt: skip
    """Serve until Ctrl-C or SIGTERM, then close the search (and so release the embedded database server)."""
    import signal
    import sys

    # SIGTERM (service managers, `kill`) would skip the exit handlers that stop the embedded PostgreSQL.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        launch(demo, host=host, port=port, guards=guards)
    finally:
        demo.close()
        search.close()


_END = object()


class GuardedHandlers:
    """The app's :class:`~theorem_rag.ui.app.Handlers` under a :class:`~theorem_rag.serving.service.SearchService`:
    a search is admitted, runs in a slot and under the request deadline (its queries cancelled past it); each step
    of an assistant turn runs under that deadline. A refusal or a deadline becomes a message, as in the app."""

    def __init__(self, handlers: Any, service: Any) -> None:
        self.handlers, self.service = handlers, service

    def _late(self) -> str:
        return (f"The search took longer than {self.service.request_timeout:g} s and was stopped; try again, or ask "
                "for fewer results.")  # fmt: skip

    async def run_search(self, query: str, level: str = "Theorems", k: int = 10, sources: Any = None,
                         kinds: Any = None, papers: Any = None, categories: Any = None,
                         formal: Any = None) -> tuple[str, str, str]:  # fmt: skip
        from theorem_rag.serving.admission import Overloaded
        from theorem_rag.serving.deadline import DeadlineExceeded

        try:
            return await self.service.call(self.handlers.run_search, query, level, k, sources, kinds, papers,
                                           categories, formal)  # fmt: skip
        except DeadlineExceeded:
            return message_html(self._late()), "", (query or "").strip()
        except Overloaded as err:
            return message_html(f"The server is busy: {err}"), "", (query or "").strip()

    async def chat_turn(self, message: str, history: list[dict[str, Any]] | None) -> AsyncIterator[tuple]:
        from theorem_rag.serving.deadline import DeadlineExceeded, call_with_deadline

        turn = self.handlers.chat_turn(message, history)
        last: tuple = ([dict(m) for m in (history or [])], sources_html([]), "", (message or "").strip())
        while True:
            try:
                step = await call_with_deadline(next, turn, _END, deadline=self.service.deadline())
            except DeadlineExceeded:
                text = (f"The assistant stopped: a step took longer than {self.service.request_timeout:g} s. Try "
                        "again, or ask a shorter question.")  # fmt: skip
                chat = [*last[0], {"role": "assistant", "content": f"\u26a0 {html.escape(text, quote=False)}"}]
                yield chat, last[1], text, last[3]
                return
            if step is _END:
                return
            # A step may leave an output as it is (gr.skip()): keep the last real value to show with an error.
            last = tuple(new if isinstance(new, (str, list)) else old for new, old in zip(step, last))
            yield step
