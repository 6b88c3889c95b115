"""The litellm backend and the capable-model protocol, for real: litellm streams from an OpenAI-compatible
endpoint on loopback whose replies come from the bundled SmolLM2 model (no network, no scripted replies).

The endpoint is a few lines of FastAPI in front of ``LocalGGUFChat``; what is tested is ``LiteLLMChat`` (litellm's
OpenAI client, server-sent events, chunk parsing) and the assistant's planning round, which only runs for models
that are not flagged small and offline.
"""

import json
import socket
import threading
import time

import pytest

from theorem_rag.ui.assistant import Assistant
from theorem_rag.chat_models import LiteLLMChat, LocalGGUFChat

pytestmark = [pytest.mark.slow, pytest.mark.models, pytest.mark.db]


@pytest.fixture(scope="module")
def openai_url():
    import uvicorn
    from fastapi import FastAPI, Request
    from fastapi.responses import StreamingResponse

    local = LocalGGUFChat(n_ctx=4096, timeout=240)
    app = FastAPI()

    # No postponed annotations in this file: FastAPI must see the Request class itself, not the string "Request".

    @app.post("/v1/chat/completions")
    async def completions(request: Request):
        body = await request.json()

        def chunk(delta: dict, finish: str | None) -> str:
            data = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
            return f"data: {json.dumps(data)}\n\n"

        def events():
            for piece in local.stream(body["messages"], max_tokens=int(body.get("max_tokens") or 64)):
                yield chunk({"role": "assistant", "content": piece}, None)
            yield chunk({}, "stop")
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the OpenAI-compatible test endpoint did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def remote(openai_url, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")  # litellm's OpenAI client insists on a key
    return LiteLLMChat("openai/smollm2", openai_url, timeout=240, max_retries=0)


def test_litellm_streams_from_an_openai_compatible_server(remote):
    pieces = list(remote.stream([{"role": "user", "content": "Name a prime number."}], max_tokens=12))
    assert len(pieces) >= 2 and "".join(pieces).strip()


def test_capable_model_protocol_runs_end_to_end(remote, tiny_search):
    events = list(Assistant(tiny_search.search, remote, max_rounds=2, max_tokens=80).run(
        "Why does a local ring have exactly one maximal ideal?"))  # fmt: skip
    searches = [e.step for e in events if e.kind == "search"]
    answer = events[-1].answer
    assert searches[0].query == "Why does a local ring have exactly one maximal ideal?"
    assert 1 <= len(searches) <= 3  # the question, plus at most two requested by the model in round two
    assert answer.error is None and answer.text
    known = tiny_search.get_theorems([h.theorem_id for h in answer.sources])
    assert [h.theorem_id for h in answer.sources] and set(known) == {h.theorem_id for h in answer.sources}
    assert all(1 <= n <= len(answer.sources) for n in answer.cited)
    assert not set(answer.cited) & set(answer.invalid)
