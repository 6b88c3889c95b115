"""The formal / informal filter of the REST API: GET and POST, search and premises, 422 for a value that is no
boolean, over a real uvicorn server on loopback and the records of tests/formal_index.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from formal_index import LATEX_IDS, LEAN_IDS, formal_search
from loopback import serving

pytestmark = [pytest.mark.db, pytest.mark.models]

QUERY = "a prime number is at least two"


@pytest.fixture(scope="module")
def client(pg_dsn) -> Iterator:
    import httpx

    from theorem_rag.api.app import create_app

    with serving(create_app(formal_search(pg_dsn))) as url, httpx.Client(base_url=url, timeout=120) as c:
        yield c


def _ids(r, key: str = "results") -> set[str]:
    assert r.status_code == 200, r.text
    return {h["id"] for h in r.json()[key]}


def test_get_and_post_keep_formal_or_informal_statements(client):
    both = _ids(client.get("/search", params={"q": QUERY, "k": 20}))
    assert both & set(LEAN_IDS) and both & set(LATEX_IDS)
    for formal, ids in (("true", LEAN_IDS), ("false", LATEX_IDS)):
        assert _ids(client.get("/search", params={"q": QUERY, "k": 20, "formal": formal})) <= set(ids)
    assert _ids(client.post("/search", json={"query": QUERY, "k": 20, "formal": True})) <= set(LEAN_IDS)
    assert _ids(client.post("/search", json={"query": QUERY, "k": 20, "formal": False})) <= set(LATEX_IDS)
    premises = client.get("/premises", params={"statement": "p.Prime → 2 ≤ p", "k": 20, "formal": "false"})
    assert _ids(premises) <= set(LATEX_IDS)
    assert _ids(client.post("/premises", json={"statement": "p.Prime → 2 ≤ p", "k": 20, "formal": True})) <= set(LEAN_IDS)


def test_a_formal_value_that_is_no_boolean_is_422(client):
    for r in (client.get("/search", params={"q": QUERY, "formal": "lean"}),
              client.post("/search", json={"query": QUERY, "formal": "lean"})):  # fmt: skip
        assert r.status_code == 422, r.text


def test_openapi_publishes_the_filter(client):
    schema = client.get("/openapi.json").json()
    post = schema["components"]["schemas"]["SearchRequest"]["properties"]["formal"]
    assert "Lean" in post["description"]
    get = {p["name"]: p for p in schema["paths"]["/search"]["get"]["parameters"]}
    assert "Lean" in get["formal"]["description"]
