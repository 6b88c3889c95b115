"""The LLM slogan writer: any litellm model or local OpenAI-compatible server, concurrent, retried, accounted.

Requests run concurrently under a semaphore, retry (tenacity: exponential backoff with jitter) on rate limits,
server errors and dropped connections, and respect an optional requests-per-minute limit. Token counts come from the
response's usage; the cost from ``litellm.completion_cost`` when litellm knows the model's price, else 0.
An endpoint that cannot be reached after all retries raises :class:`LLMUnavailable` for the whole run.

>>> w = LLMSloganWriter("openai/gpt-4o-mini", context="abstract")
>>> (w.name, w.model, w.prompt_version)
('llm-abstract', 'openai/gpt-4o-mini', 'llm-1')
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from theorem_rag.errors import InputError
from theorem_rag.records import Document, Theorem
from theorem_rag.slogans.base import SloganResult
from theorem_rag.slogans.prompts import CONTEXTS, PROMPT_VERSION, build_messages, clean_slogan

log = logging.getLogger(__name__)
_LLM_EXTRA = 'pip install "theorem-rag[llm]"'


class LLMUnavailable(RuntimeError):
    """The LLM endpoint could not be reached (after retries); nothing half-written was cached."""


def import_litellm() -> Any:
    try:
        import litellm
    except ImportError as e:
        raise ImportError(f"LLM slogans and reranking need litellm: {_LLM_EXTRA}") from e
    # litellm prints a help banner on every failure; our errors say what went wrong.
    litellm.suppress_debug_info = True
    return litellm


def _connection_error_types(litellm: Any) -> tuple[type[BaseException], ...]:
    """Exception types that mean the endpoint was not reached, from the libraries litellm calls through."""
    import httpx
    import openai

    types: list[type[BaseException]] = [ConnectionError, httpx.ConnectError, httpx.ConnectTimeout]
    types.append(openai.APIConnectionError)
    if isinstance(getattr(litellm, "APIConnectionError", None), type):
        types.append(litellm.APIConnectionError)
    return tuple(types)


def is_connection_error(exc: BaseException, litellm: Any) -> bool:
    """Whether ``exc`` means the endpoint was not reached, by the types in its chain of causes: litellm wraps a
    refused connection as a server error whose causes are openai's ``APIConnectionError``, httpx's
    ``ConnectError`` and the socket's ``ConnectionRefusedError``. A timed-out request is not one: it reached the
    server, which was slow."""
    import openai

    connection = _connection_error_types(litellm)
    # Both links: a re-raise (by the retry loop) replaces __context__, the original chain stays behind __cause__.
    todo: list[BaseException | None] = [exc]
    seen: set[int] = set()
    while todo:
        cur = todo.pop()
        if cur is None or id(cur) in seen:
            continue
        seen.add(id(cur))
        if isinstance(cur, connection) and not isinstance(cur, openai.APITimeoutError):
            return True
        todo += [cur.__cause__, cur.__context__]
    return False


def is_retryable(exc: BaseException, litellm: Any) -> bool:
    names = ("RateLimitError", "APIConnectionError", "Timeout", "InternalServerError", "ServiceUnavailableError")
    if any(isinstance(exc, getattr(litellm, n)) for n in names if hasattr(litellm, n)):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


class RateLimiter:
    """Spaces request starts so at most ``rpm`` begin per minute (0: no limit).

    litellm's own limits live in its ``Router``, which refuses a call over a deployment's rpm (a 429) instead of
    waiting for it; a batch of slogans wants its requests spaced, so none is refused. ``clock`` and ``sleep`` are
    injectable so the schedule can be checked without waiting.
    """

    def __init__(
        self,
        rpm: int,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self.interval = 60.0 / rpm if rpm > 0 else 0.0
        self._clock = clock
        self._sleep = sleep
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self._lock:
            now = self._clock()
            delay = self._next - now
            self._next = max(now, self._next) + self.interval
        if delay > 0:
            await self._sleep(delay)


async def complete_with_retries(
    call: Callable[[], Any], *, litellm: Any, max_retries: int, backoff: float, limiter: RateLimiter
) -> Any:
    """Await ``call()``, retrying retryable errors (rate limits, server errors, dropped connections) with
    tenacity's exponential backoff with full jitter (capped at 60 s); the last error is raised as it was."""
    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_random_exponential

    def note(state: Any) -> None:
        exc = state.outcome.exception()
        log.info("LLM request failed (%s); retry %d/%d in %.2fs", type(exc).__name__, state.attempt_number,
                 max_retries, state.next_action.sleep if state.next_action else 0.0)  # fmt: skip

    retrying = AsyncRetrying(
        stop=stop_after_attempt(max_retries + 1), wait=wait_random_exponential(multiplier=backoff, max=60.0),
        retry=retry_if_exception(lambda exc: is_retryable(exc, litellm)), before_sleep=note, reraise=True,
    )  # fmt: skip
    async for attempt in retrying:
        with attempt:
            await limiter.wait()
            return await call()
    raise AssertionError("unreachable: tenacity either returns or raises")


def run_coroutine(factory: Callable[[], Any]) -> Any:
    """Run a coroutine to completion from sync code, also when the caller already runs an event loop."""
    try:
        asyncio.get_running_loop()
        running = True
    except RuntimeError:
        running = False
    if not running:
        # Not inside the except block: exceptions of the run would carry its RuntimeError as their context.
        return asyncio.run(factory())
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(factory())
        except BaseException as e:  # noqa: BLE001 - handed back to the calling thread
            box["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


class LLMSloganWriter:
    """Slogans from an LLM through litellm (see module docs); ``model`` is a litellm name like ``openai/gpt-4o-mini``.

    ``api_base`` points at an OpenAI-compatible server (``http://127.0.0.1:8000/v1``); the API key comes from the
    provider's usual environment variable, or ``api_key``.

    >>> LLMSloganWriter("openai/local", api_base="http://127.0.0.1:8000/v1", concurrency=4).concurrency
    4
    """

    prompt_version = PROMPT_VERSION

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        context: str = "body",
        concurrency: int = 8,
        max_retries: int = 4,
        rpm: int = 0,
        *,
        api_key: str | None = None,
        timeout: float = 120.0,
        backoff: float = 1.0,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> None:
        if context not in CONTEXTS:
            raise InputError(f"slogan context must be one of {', '.join(CONTEXTS)}, not {context!r}")
        if concurrency < 1:
            raise InputError("concurrency must be at least 1")
        self.model = model
        self.api_base = api_base
        self.context = context
        self.name = f"llm-{context}"
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.rpm = rpm
        self.timeout = timeout
        self.backoff = backoff
        self.temperature = temperature
        self.max_tokens = max_tokens
        # A local server needs some key for the OpenAI client; a hosted provider reads its own env variable.
        self._api_key = api_key or ("not-needed" if api_base else None)

    def __repr__(self) -> str:
        return f"LLMSloganWriter(model={self.model!r}, api_base={self.api_base!r}, context={self.context!r})"

    def inputs(self, theorem: Theorem, document: Document | None = None) -> tuple[str, ...]:
        """What the model is sent for ``theorem`` (the chat messages, with the paper's context when asked for)
        and the sampling settings."""
        messages = build_messages(theorem, document, self.context)
        sampling = f"temperature={self.temperature} max_tokens={self.max_tokens}"
        return json.dumps(messages, ensure_ascii=False), sampling

    def completion_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "timeout": self.timeout, "num_retries": 0, "max_retries": 0}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        return kwargs

    def write(
        self,
        theorems: Sequence[Theorem],
        documents: Mapping[str, Document],
        on_result: Callable[[SloganResult], None],
    ) -> None:
        """Write slogans concurrently; ``on_result`` runs as each finishes. Raises :class:`LLMUnavailable`."""
        run_coroutine(lambda: self.awrite(theorems, documents, on_result))

    async def awrite(
        self,
        theorems: Sequence[Theorem],
        documents: Mapping[str, Document],
        on_result: Callable[[SloganResult], None],
    ) -> None:
        litellm = import_litellm()
        semaphore = asyncio.Semaphore(self.concurrency)
        limiter = RateLimiter(self.rpm)
        base = self.completion_kwargs()
        warned_cost: list[bool] = []

        async def one(t: Theorem) -> SloganResult:
            messages = build_messages(t, documents.get(t.doc_id), self.context)
            async with semaphore:
                try:
                    resp = await complete_with_retries(
                        lambda: litellm.acompletion(
                            messages=messages, temperature=self.temperature, max_tokens=self.max_tokens, **base
                        ),
                        litellm=litellm,
                        max_retries=self.max_retries,
                        backoff=self.backoff,
                        limiter=limiter,
                    )
                except Exception as exc:  # noqa: BLE001 - connection errors abort the run, others fail one item
                    if is_connection_error(exc, litellm):
                        where = self.api_base or "the provider's endpoint"
                        raise LLMUnavailable(
                            f"cannot reach LLM {self.model!r} at {where} after {self.max_retries} retries: "
                            f"{type(exc).__name__}"
                        ) from exc
                    return SloganResult(t.id, None, error=f"{type(exc).__name__}: {str(exc)[:200]}")
            return self._result(t.id, resp, litellm, warned_cost)

        tasks = [asyncio.create_task(one(t)) for t in theorems]
        try:
            for fut in asyncio.as_completed(tasks):
                on_result(await fut)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _result(self, theorem_id: str, resp: Any, litellm: Any, warned_cost: list[bool]) -> SloganResult:
        usage = getattr(resp, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            cost = float(litellm.completion_cost(completion_response=resp) or 0.0)
        except Exception:  # noqa: BLE001 - litellm raises for models without a known price
            cost = 0.0
            if not warned_cost:
                warned_cost.append(True)
                log.warning("litellm knows no price for %r: cost is counted as 0", self.model)
        try:
            text = resp.choices[0].message.content
            slogan = clean_slogan(text)
        except (AttributeError, IndexError, ValueError) as exc:
            return SloganResult(theorem_id, None, prompt_tokens, completion_tokens, cost, error=f"bad answer: {exc}")
        return SloganResult(theorem_id, slogan, prompt_tokens, completion_tokens, cost)
