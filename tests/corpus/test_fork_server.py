"""The fork server (corpus_build/fork_server.py): calls in a helper process, errors raised in the caller, a helper
that stops answering stopped and replaced."""

import os
import sys
import time

import pytest

from corpus_build.fork_server import ForkServer, ServerLost

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server is used on Linux")


def test_calls_run_in_one_helper_and_its_errors_are_raised_here():
    server = ForkServer("os:getpid", preload=["json"])
    try:
        pid = server.call(timeout=30)
        assert pid != os.getpid() and pid == server.pid == server.call(timeout=30)
    finally:
        server.close()
    assert server.pid is None
    sqrt = ForkServer("math:sqrt")
    try:
        assert sqrt.call(16.0, timeout=30) == 4.0
        with pytest.raises(ValueError, match="math domain error"):
            sqrt.call(-1.0, timeout=30)
        assert sqrt.call(9.0, timeout=30) == 3.0  # the helper survived the error
    finally:
        sqrt.close()


def test_a_helper_that_gives_no_answer_in_time_is_stopped_and_replaced():
    server = ForkServer("time:sleep")
    try:
        server.call(0, timeout=30)
        first = server.pid
        started = time.monotonic()
        with pytest.raises(ServerLost, match="stopped answering"):
            server.call(60, timeout=1)
        assert time.monotonic() - started < 10 and server.pid is None
        assert not os.path.exists(f"/proc/{first}")  # stopped and reaped
        server.call(0, timeout=30)
        assert server.pid not in (None, first)
    finally:
        server.close()


def test_large_messages_pass_both_ways():
    server = ForkServer("builtins:bytes")
    try:
        assert server.call(5_000_000, timeout=60) == bytes(5_000_000)
    finally:
        server.close()
