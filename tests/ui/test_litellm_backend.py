"""The litellm backend and the capable-model protocol, for real: litellm streams from an OpenAI-compatible
endpoint on loopback whose replies come from the bundled SmolLM2 model (no network, no scripted replies).

The endpoint is a few lines of FastAPI in front of ``LocalGGUFChat``; what is tested is ``LiteLLMChat`` (litellm's
OpenAI client, server-sent events, chunk parsing) and the assistant's planning round, which only runs for models
that are not flagged small and offline.
"""

import json

import pytest

from loopback import serving
from theorem_rag.ui.assistant import Assistant
from theorem_rag.chat_backends import LiteLLMChat, LocalGGUFChat

pytestmark = [pytest.mark.slow, pytest.mark.models, pytest.mark.db]


@pytest.fixture(scope="module")
def openai_url():
    import uvicorn
    from fastapi import FastAPI, Request
    from fastapi.responses import StreamingResponse

    local = LocalGGUFChat(n_ctx=4096, timeout=None)  # max_tokens bounds each reply, not the clock
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
            # Greedy decoding at the temperature the client asks for (the assistant plans at 0), seeded: replies
            # are reproducible, so what the assertions see does not change from run to run.
            for piece in local.stream(body["messages"], max_tokens=int(body.get("max_tokens") or 64),
                                      temperature=float(body.get("temperature") or 0.0)):  # fmt: skip
                yield chunk({"role": "assistant", "content": piece}, None)
            yield chunk({}, "stop")
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    with serving(app) as url:
        yield f"{url}/v1"


@pytest.fixture
def remote(openai_url, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")  # litellm's OpenAI client insists on a key
    return LiteLLMChat("openai/smollm2", openai_url, timeout=240, max_retries=0)


def test_litellm_streams_from_an_openai_compatible_server(remote):
    pieces = list(remote.stream([{"role": "user", "content": "Name a prime number."}], max_tokens=12))
    assert len(pieces) >= 2 and "".join(pieces).strip()


QUESTION = "Which statement defines a local ring?"
# A follow-up turn: the earlier exchange shows the citation style, which even the 135M model then imitates.
HISTORY = [{"role": "user", "content": "What is a ring?"},
           {"role": "assistant", "content": "By [1], a ring is a set with addition and multiplication."}]  # fmt: skip


def test_capable_model_protocol_runs_end_to_end(remote, tiny_search):
    events = list(Assistant(tiny_search.search, remote, max_rounds=2, max_tokens=80).run(QUESTION, HISTORY))
    searches = [e.step for e in events if e.kind == "search"]
    answer = events[-1].answer
    assert searches[0].query == QUESTION
    assert 1 <= len(searches) <= 3  # the question, plus at most two requested by the model in round two
    assert answer.error is None and answer.text
    ids = [h.theorem_id for h in answer.sources]
    assert ids and set(tiny_search.get_theorems(ids)) == set(ids)
    # The reply is greedy and so reproducible; it must cite, and every citation must name a retrieved statement.
    assert answer.cited, f"the answer cites nothing: {answer.text!r}"
    assert answer.invalid == [] and all(1 <= n <= len(ids) for n in answer.cited)
    assert answer.cited_ids == [ids[n - 1] for n in answer.cited]
    assert f'href="#trag-src-{answer.cited[0]}"' in answer.html
