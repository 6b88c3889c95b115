"""Fixtures for the REST API tests: the integration index and a real uvicorn server on a loopback port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from integrations_index import integration_search


@pytest.fixture(scope="session")
def integ(pg_dsn):
    """``(TheoremSearch, table prefix)`` over the 51 fixture statements (tests/fixtures/integrations)."""
    return integration_search(pg_dsn)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(app) -> Iterator[str]:
    """Run ``app`` with uvicorn in a thread on a free loopback port; yield its base URL; stop it after."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def base_url(integ) -> Iterator[str]:
    from theorem_rag.api.app import create_app

    with serving(create_app(integ[0], max_body_bytes=64 * 1024)) as url:
        yield url


@pytest.fixture(scope="module")
def client(base_url):
    import httpx

    with httpx.Client(base_url=base_url, timeout=120) as c:
        yield c
