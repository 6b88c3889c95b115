"""An unreachable endpoint is recognised by the exception types in the chain of causes, never by message text."""

from __future__ import annotations

import httpx
import openai
import pytest

from theorem_rag.slogans.llm_writer import import_litellm, is_connection_error


def chained(top: BaseException, *causes: BaseException) -> BaseException:
    for outer, inner in zip((top, *causes), causes):
        outer.__cause__ = inner
    return top


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (chained(RuntimeError("server error"), ConnectionRefusedError(111, "refused")), True),
        (chained(ValueError("x"), httpx.ConnectError("no route")), True),
        (openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:1")), True),
        (RuntimeError("Connection error."), False),  # the words alone are not a connection failure
        (openai.APITimeoutError(request=httpx.Request("POST", "http://127.0.0.1:1")), False),  # reached, but slow
        (chained(RuntimeError("bad gateway"), KeyError("choices")), False),
    ],
    ids=["socket-cause", "httpx-cause", "openai-connection", "text-only", "timeout", "unrelated"],
)
def test_connection_errors_by_type(exc, expected):
    assert is_connection_error(exc, import_litellm()) is expected


def test_a_reraise_that_replaces_the_context_keeps_the_cause_chain():
    exc = chained(RuntimeError("wrapped"), ConnectionResetError())
    exc.__context__ = KeyError("what the retry loop was handling")
    assert is_connection_error(exc, import_litellm())
