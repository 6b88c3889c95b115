"""Fixtures for the REST API tests: the integration index and a real uvicorn server on a loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from loopback import serving
from integrations_index import integration_search


@pytest.fixture(scope="session")
def integ(pg_dsn):
    """``(TheoremSearch, table prefix)`` over the 51 fixture statements (tests/fixtures/integrations)."""
    return integration_search(pg_dsn)


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
