"""The arXiv category filter of the REST API: GET and POST, theorem and paper level, and 422 for bad categories,
over a real uvicorn server on loopback and the three papers of tests/category_index.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from category_index import IN_AG, IN_NT, QUERY, STATEMENTS, category_search
from loopback import serving

pytestmark = [pytest.mark.db, pytest.mark.models]


@pytest.fixture(scope="module")
def cat_client(pg_dsn) -> Iterator:
    import httpx

    from theorem_rag.api.app import create_app

    with serving(create_app(category_search(pg_dsn))) as url, httpx.Client(base_url=url, timeout=120) as c:
        yield c


def _ids(r) -> list[str]:
    assert r.status_code == 200, r.text
    return sorted(h["id"] for h in r.json()["results"])


def test_get_and_post_keep_primary_and_cross_listed_papers(cat_client):
    assert _ids(cat_client.get("/search", params={"q": QUERY, "k": 10})) == sorted(STATEMENTS)
    assert _ids(cat_client.get("/search", params={"q": QUERY, "k": 10, "category": "math.AG"})) == IN_AG
    both = [("q", QUERY), ("k", 10), ("category", "math.NT"), ("category", "hep-th")]
    assert _ids(cat_client.get("/search", params=both)) == IN_NT
    assert _ids(cat_client.post("/search", json={"query": QUERY, "k": 10, "categories": ["math.AG"]})) == IN_AG
    assert _ids(cat_client.post("/search", json={"query": QUERY, "k": 10, "categories": ["math-ph"]})) == []


def test_paper_level_keeps_the_papers_in_the_category(cat_client):
    r = cat_client.post("/search", json={"query": QUERY, "k": 10, "level": "paper", "categories": ["math.AG"]})
    assert r.status_code == 200, r.text
    assert sorted(p["id"] for p in r.json()["papers"]) == ["arxiv:2401.00001", "arxiv:2401.00002"]
    r = cat_client.get("/search", params={"q": QUERY, "k": 10, "level": "paper", "category": "math.NT"})
    assert [p["id"] for p in r.json()["papers"]] == ["arxiv:2401.00003"]


@pytest.mark.parametrize("bad", ["math AG", "", "Math.AG"])
def test_malformed_category_is_422(cat_client, bad):
    for r in (cat_client.post("/search", json={"query": QUERY, "categories": [bad]}),
              cat_client.get("/search", params={"q": QUERY, "category": bad})):  # fmt: skip
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["error"] == "invalid_request" and "arXiv categories such as 'math.AG'" in body["message"]
        assert repr(bad) in body["message"]
    assert _ids(cat_client.get("/search", params={"q": QUERY, "k": 10, "category": "math.AG"})) == IN_AG


def test_openapi_publishes_the_category_pattern(cat_client):
    schema = cat_client.get("/openapi.json").json()
    post = schema["components"]["schemas"]["SearchRequest"]["properties"]["categories"]
    assert post["anyOf"][0]["items"]["pattern"].startswith("^[a-z]+")
    get = {p["name"]: p for p in schema["paths"]["/search"]["get"]["parameters"]}
    assert get["category"]["schema"]["anyOf"][0]["items"]["pattern"] == post["anyOf"][0]["items"]["pattern"]
