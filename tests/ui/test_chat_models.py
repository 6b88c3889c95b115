"""Chat backends: the bundled offline model for real, litellm against a closed port, the error messages."""

from __future__ import annotations

import sys

import pytest

from loopback import free_port
from theorem_rag.chat_backends import ChatError, LiteLLMChat, LocalGGUFChat, build_chat_model


@pytest.fixture(scope="module")
def smol():
    chat = LocalGGUFChat(n_ctx=2048, timeout=None)  # max_tokens bounds each reply, not the clock
    chat.load()
    return chat


def test_build_chat_model_picks_the_backend():
    local = build_chat_model("local:smollm2")
    assert isinstance(local, LocalGGUFChat) and local.is_small_offline and "small offline model" in local.label
    remote = build_chat_model("openai/gpt-4o-mini", "http://127.0.0.1:9/v1")
    assert isinstance(remote, LiteLLMChat) and not remote.is_small_offline and remote.api_base.endswith("/v1")
    with pytest.raises(ValueError, match="unknown local model"):
        build_chat_model("local:nope")


def test_chatml_prompt_ends_inside_the_assistant_turn():
    p = LocalGGUFChat().prompt([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}], "By [1],")
    assert p == "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\nBy [1],"


@pytest.mark.models
def test_local_model_streams_text(smol):
    pieces = list(smol.stream([{"role": "user", "content": "What is 2+2? Answer briefly."}], max_tokens=12))
    assert len(pieces) >= 2 and "".join(pieces).strip()


@pytest.mark.models
def test_local_model_stops_past_its_time_limit_and_on_overflow(smol):
    slow = LocalGGUFChat(n_ctx=2048, timeout=0.0)
    slow._llm = smol._llm  # the same loaded weights; only the limit differs
    with pytest.raises(ChatError, match="took longer"):
        list(slow.stream([{"role": "user", "content": "Count to ten."}], max_tokens=20))
    with pytest.raises(ChatError, match="context window"):
        list(smol.stream([{"role": "user", "content": "ring " * 3000}], max_tokens=20))


@pytest.mark.models
def test_local_model_stops_when_cancelled_and_answers_the_next_reply(smol):
    pieces = []
    reply = smol.stream([{"role": "user", "content": "Count from one to fifty in words."}], max_tokens=60,
                        temperature=0.0, cancelled=lambda: len(pieces) >= 3)  # fmt: skip
    with pytest.raises(ChatError, match="cancelled"):
        for piece in reply:
            pieces.append(piece)
    assert len(pieces) == 3
    # The model is free and its context usable: the next reply is whole.
    assert "".join(smol.stream([{"role": "user", "content": "What is 2+2? Answer briefly."}], max_tokens=12)).strip()


def test_unreachable_litellm_model_raises_a_readable_error():
    chat = LiteLLMChat("openai/gpt-4o-mini", f"http://127.0.0.1:{free_port()}/v1", timeout=5, max_retries=0)
    with pytest.raises(ChatError, match="openai/gpt-4o-mini failed"):
        list(chat.stream([{"role": "user", "content": "hi"}], max_tokens=5))


def test_missing_llama_cpp_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(ImportError, match=r'theorem-rag\[app\]'):
        LocalGGUFChat().load()
