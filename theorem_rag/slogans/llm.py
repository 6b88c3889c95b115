"""The LLM slogan writer: any litellm model or local OpenAI-compatible server, concurrent, retried, accounted.

Requests run concurrently under a semaphore, retry with exponential backoff and jitter on rate limits, server
errors and dropped connections, and respect an optional requests-per-minute limit. Token counts come from the
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
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

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


_CONNECTION_ERRORS = ("APIConnectionError", "ConnectError", "ConnectTimeout", "ConnectionRefusedError")


def is_connection_error(exc: BaseException, litellm: Any) -> bool:
    """Whether ``exc`` means the endpoint was not reached (litellm sometimes wraps that as a server error)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, ConnectionError) or type(cur).__name__ in _CONNECTION_ERRORS:
            return True
        if "Connection error" in str(cur):
            return True
        cur = cur.__cause__ or cur.__context__
    return False


def is_retryable(exc: BaseException, litellm: Any) -> bool:
    names = ("RateLimitError", "APIConnectionError", "Timeout", "InternalServerError", "ServiceUnavailableError")
    if any(isinstance(exc, getattr(litellm, n)) for n in names if hasattr(litellm, n)):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


class RateLimiter:
    """Spaces request starts so at most ``rpm`` begin per minute (0: no limit).

    ``clock`` and ``sleep`` are injectable so the schedule can be checked without waiting.
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
    """Await ``call()`` and retry retryable errors with exponential backoff and jitter."""
    for attempt in range(max_retries + 1):
        await limiter.wait()
        try:
            return await call()
        except Exception as exc:  # noqa: BLE001 - classified below, re-raised when not retryable
            if attempt >= max_retries or not is_retryable(exc, litellm):
                raise
            delay = min(60.0, backoff * 2**attempt) * random.uniform(0.5, 1.5)
            log.info("LLM request failed (%s); retry %d/%d in %.2fs", type(exc).__name__, attempt + 1, max_retries, delay)
            await asyncio.sleep(delay)
    raise AssertionError("unreachable")


def run_coroutine(factory: Callable[[], Any]) -> Any:
    """Run a coroutine to completion from sync code, also when the caller already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
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
            raise ValueError(f"slogan context must be one of {', '.join(CONTEXTS)}, not {context!r}")
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
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
