"""A chat reply stops when it is cancelled (the app's step deadline passed): the offline model stops at its next
token, or stops waiting for another reply to end, and is free for the next turn; a remote model's stream hangs up.

``EndlessLlama`` stands in for llama.cpp at the boundary ``LocalGGUFChat`` uses (``tokenize``, ``create_completion``):
a completion streams tokens up to its ``max_tokens`` and counts them per question, so a test counts what was generated
after a cancel. The real model stops the same way in test_chat_models.py. Waits are bounded only to turn a hang into a
failure; no assertion depends on how fast anything runs.
"""

from __future__ import annotations

import queue
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from loopback import serving
from theorem_rag.chat_backends import ChatError, LiteLLMChat, LocalGGUFChat
from theorem_rag.db.cancel import current_scope

QUESTION = "What is a local ring?"


class EndlessLlama:
    """llama.cpp as ``LocalGGUFChat`` calls it: every completion streams `` x`` until ``max_tokens`` (set high, it
    runs on long past any deadline); ``produced`` counts the tokens generated for each question (last user turn)."""

    def __init__(self) -> None:
        self.produced: Counter[str] = Counter()

    def tokenize(self, text: bytes, special: bool = False) -> list[bytes]:
        return text.split()

    def create_completion(self, prompt: str, *, max_tokens: int, **options: Any):
        question = prompt.rsplit("<|im_start|>user\n", 1)[1].split("<|im_end|>", 1)[0]

        def tokens():
            for _ in range(max_tokens):
                self.produced[question] += 1
                yield {"choices": [{"text": " x"}]}

        return tokens()


def offline(llama: EndlessLlama) -> LocalGGUFChat:
    chat = LocalGGUFChat(timeout=None)
    chat._llm = llama  # loaded: the stand-in instead of the weights
    return chat


def ask(question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": question}]


def in_thread(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Start ``fn`` in a thread; the function returned waits for it and returns its result (or raises its error)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as err:  # noqa: BLE001 - handed to the test's thread
            box["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def result() -> Any:
        thread.join(120)
        assert not thread.is_alive(), "still waiting for the model"
        if "error" in box:
            raise box["error"]
        return box["result"]

    return result


def test_a_cancelled_reply_stops_at_its_next_token_and_frees_the_model():
    llama = EndlessLlama()
    chat = offline(llama)
    cancel = threading.Event()
    reply = chat.stream(ask("first"), max_tokens=100_000, cancelled=cancel.is_set)
    assert [next(reply) for _ in range(3)] == [" x"] * 3
    cancel.set()
    with pytest.raises(ChatError, match="cancelled"):
        next(reply)
    assert llama.produced["first"] - 3 <= 1  # at most the token asked for when the cancel came
    assert in_thread(lambda: "".join(chat.stream(ask("second"), max_tokens=4)))() == " x" * 4


def test_a_reply_cancelled_while_another_generates_stops_waiting_and_generates_nothing():
    llama = EndlessLlama()
    chat = offline(llama)
    first = chat.stream(ask("first"), max_tokens=100_000)
    next(first)  # the first reply holds the model
    cancel = threading.Event()
    second = in_thread(lambda: list(chat.stream(ask("second"), max_tokens=100_000, cancelled=cancel.is_set)))
    cancel.set()
    with pytest.raises(ChatError, match="cancelled"):
        second()
    first.close()
    assert in_thread(lambda: "".join(chat.stream(ask("third"), max_tokens=4)))() == " x" * 4
    assert llama.produced["second"] == 0


@pytest.mark.db
@pytest.mark.models
def test_an_assistant_step_past_the_app_deadline_stops_the_offline_model(tiny_search):
    """The app's path: a turn waits for the model behind another reply, its step passes the request deadline, and
    the turn must neither stay queued for the model nor generate for nobody once the model is free."""
    from theorem_rag.serving.service import SearchService
    from theorem_rag.ui.app import Handlers, gr_skip
    from theorem_rag.ui.server import GuardedHandlers

    class StepLog(Handlers):
        """The real handlers; the end of each step of a turn (returned or raised) is logged with whether the call it
        ran in was cancelled."""

        ended: queue.Queue = queue.Queue()

        def chat_turn(self, message, history):
            turn = super().chat_turn(message, history)
            while True:
                try:
                    outputs = next(turn, None)
                finally:
                    scope = current_scope()
                    self.ended.put(scope is not None and scope.cancelled)
                if outputs is None:
                    return
                yield outputs

    async def run(turn) -> list:
        return [outputs async for outputs in turn]

    llama = EndlessLlama()
    chat = offline(llama)
    handlers = StepLog(tiny_search, chat)
    guarded = GuardedHandlers(handlers, SearchService(tiny_search, request_timeout=2))
    # Warm: the steps before the model's end well within the deadline (gradio's first import, in the step that
    # shows the answer's first words, takes seconds), the model's does not.
    tiny_search.search(QUESTION)
    gr_skip()
    first = chat.stream(ask("another visitor's question"), max_tokens=100_000)
    next(first)  # another turn's reply holds the model
    history, _, status, _ = anyio.run(run, guarded.chat_turn(QUESTION, []))[-1]
    assert "took longer than 2 s" in status
    # The answer had begun (the small model's reply starts at the best match): the late step was the model's.
    assert history[-2]["role"] == "assistant" and history[-2]["content"].startswith("According to"), history[-2]
    first.close()  # the model is free: a step still waiting would take it now
    while not handlers.ended.get(timeout=120):  # until the step that ran on past its deadline has ended
        pass
    assert llama.produced[QUESTION] == 0, "the model generated for a turn past its deadline"
    assert in_thread(lambda: "".join(chat.stream(ask("next visitor"), max_tokens=4)))() == " x" * 4


def test_a_cancelled_remote_reply_hangs_up(monkeypatch):
    from fastapi import FastAPI
    from fastapi.responses import StreamingResponse

    hung_up = threading.Event()
    app = FastAPI()
    chunk = ('data: {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "endless", "choices": '
             '[{"index": 0, "delta": {"role": "assistant", "content": " x"}, "finish_reason": null}]}\n\n')  # fmt: skip

    @app.post("/v1/chat/completions")
    async def completions():
        async def events():
            try:
                while True:  # a reply that never ends: only the client hanging up stops it
                    yield chunk
                    await anyio.sleep(0.01)
            finally:
                hung_up.set()

        return StreamingResponse(events(), media_type="text/event-stream")

    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")  # litellm's OpenAI client insists on a key
    pieces: list[str] = []
    with serving(app) as url:
        chat = LiteLLMChat("openai/endless", f"{url}/v1", timeout=60, max_retries=0)
        with pytest.raises(ChatError, match="cancelled"):
            for piece in chat.stream(ask("hi"), max_tokens=5, cancelled=lambda: len(pieces) >= 3):
                pieces.append(piece)
        assert pieces == [" x"] * 3
        assert hung_up.wait(120), "the server still streams to a client that stopped reading"
