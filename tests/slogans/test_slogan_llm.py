"""LLMSloganWriter against a real local OpenAI-compatible HTTP server (stdlib), through litellm."""

from __future__ import annotations

import os

import pytest

from loopback import free_port
from slogan_llm_stub import StubLLM
from theorem_rag.records import Document, Theorem
from theorem_rag.slogans.cache import MemorySloganCache
from theorem_rag.slogans.llm_writer import LLMSloganWriter, LLMUnavailable
from theorem_rag.slogans.writer import write_slogans

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

THEOREMS = [
    Theorem(id=f"t:{i}", source="t", kind="lemma", doc_id="t:paper", body_latex=f"Statement number {i}: $R_{i}$ is Noetherian.")
    for i in range(6)
]
PAPER = Document(id="t:paper", source="t", title="On rings", abstract="We study Noetherian rings.",
                 introduction="Rings appear everywhere. " * 2000)


def echo_reply(messages: list[dict]) -> str:
    # The statement number lets each test check which slogan belongs to which statement.
    user = messages[-1]["content"]
    n = user.split("Statement number ", 1)[1].split(":", 1)[0]
    return f"Slogan: This lemma states that ring $R_{n}$ number {n} is \\emph{{Noetherian}}."


def writer(stub: StubLLM, **kw) -> LLMSloganWriter:
    kw.setdefault("backoff", 0.01)
    return LLMSloganWriter("openai/stub-model", api_base=stub.api_base, **kw)


def test_writes_cleans_and_accounts_tokens():
    with StubLLM(echo_reply) as stub:
        run = write_slogans(THEOREMS, writer(stub, concurrency=3), MemorySloganCache(), progress=False)
    assert run.slogans["t:4"] == "Ring R 4 number 4 is Noetherian."
    assert len(run.slogans) == 6 and run.stats.written == 6 and run.stats.failed == 0
    assert (run.stats.prompt_tokens, run.stats.completion_tokens) == (60, 30)
    assert run.stats.cost_usd == 0.0  # litellm knows no price for a stub model
    assert stub.calls == 6


def test_second_run_is_served_from_cache():
    cache = MemorySloganCache()
    with StubLLM(echo_reply) as stub:
        write_slogans(THEOREMS, writer(stub), cache, progress=False)
        again = write_slogans(THEOREMS, writer(stub), cache, progress=False)
        assert stub.calls == 6
    assert again.stats.cached == 6 and again.stats.written == 0


def test_retries_server_errors_and_rate_limits():
    for status in (500, 429):
        with StubLLM(echo_reply, fail_first=3, fail_status=status) as stub:
            run = write_slogans(THEOREMS[:1], writer(stub, max_retries=4), MemorySloganCache(), progress=False)
            assert run.slogans == {"t:0": "Ring R 0 number 0 is Noetherian."}
            assert stub.calls == 4


def test_exhausted_retries_fail_the_item_and_cache_nothing():
    cache = MemorySloganCache()
    with StubLLM(echo_reply, fail_first=100, fail_status=500) as stub:
        run = write_slogans(THEOREMS[:2], writer(stub, max_retries=2), cache, progress=False)
        assert stub.calls == 6
    assert run.slogans == {} and run.stats.failed == 2 and "t:0" in run.stats.errors
    assert len(cache) == 0


def test_unreachable_endpoint_is_a_clear_error_and_keeps_nothing_half_written():
    w = LLMSloganWriter("openai/stub-model", api_base=f"http://127.0.0.1:{free_port()}/v1", max_retries=1,
                        backoff=0.01)
    cache = MemorySloganCache()
    with pytest.raises(LLMUnavailable, match="cannot reach LLM 'openai/stub-model' at http://127.0.0.1"):
        write_slogans(THEOREMS, w, cache, progress=False)
    assert len(cache) == 0


def test_finished_slogans_survive_an_interrupt():
    # A KeyboardInterrupt raised after the third result stands in for Ctrl-C mid-run.
    cache = MemorySloganCache()
    with StubLLM(echo_reply) as stub:
        w = writer(stub, concurrency=1)
        original = w.write

        def write_then_interrupt(theorems, documents, on_result):
            count = 0

            def wrapped(result):
                nonlocal count
                on_result(result)
                count += 1
                if count == 3:
                    raise KeyboardInterrupt

            original(theorems, documents, wrapped)

        w.write = write_then_interrupt  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            write_slogans(THEOREMS, w, cache, progress=False, flush_every=100)
        assert len(cache) == 3
        resumed = write_slogans(THEOREMS, writer(stub), cache, progress=False)
    assert resumed.stats.cached == 3 and resumed.stats.written == 3


def test_context_strategies_reach_the_server():
    with StubLLM(echo_reply) as stub:
        for context in ("body", "abstract", "introduction"):
            write_slogans(THEOREMS[:1], writer(stub, context=context), MemorySloganCache(),
                          documents={"t:paper": PAPER}, progress=False)
        users = [r["messages"][-1]["content"] for r in stub.requests]
        assert stub.requests[0]["model"] == "stub-model"
    assert "We study Noetherian rings." not in users[0] and "Rings appear" not in users[0]
    assert "We study Noetherian rings." in users[1]
    assert "Rings appear everywhere." in users[2] and len(users[2]) < 9_000


def test_bad_answers_fail_the_item():
    with StubLLM(lambda messages: "$$ \\, $$") as stub:
        run = write_slogans(THEOREMS[:1], writer(stub), MemorySloganCache(), progress=False)
    assert run.slogans == {} and run.stats.errors["t:0"].startswith("bad answer")


def test_rejects_unknown_context():
    with pytest.raises(ValueError, match="body, abstract, introduction"):
        LLMSloganWriter("openai/x", context="everything")


def test_rate_limiter_spaces_request_starts():
    import asyncio

    from theorem_rag.slogans.llm_writer import RateLimiter

    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))

    async def five_starts() -> None:
        limiter = RateLimiter(600, clock=lambda: 100.0, sleep=fake_sleep)
        for _ in range(5):
            await limiter.wait()
        unlimited = RateLimiter(0, clock=lambda: 100.0, sleep=fake_sleep)
        await unlimited.wait()

    asyncio.run(five_starts())
    assert slept == [0.1, 0.2, 0.3, 0.4]
